// Type declarations of the skn package (index.js). Checked by
// tests/types.test.js: the exports match, and tests/types-check.ts compiles
// under `tsc --strict`.

/** A failed call: `status` is the status name ("SKN_ERR_BAD_HIERARCHY"), `detail` the library's message. */
export class SknError extends Error {
  readonly status: string;
  readonly detail: string;
}

export type Method = 'lbs' | 'lbs-quat' | 'dqs' | 'blend' | 'cor';
export type DqsScale = 'polar' | 'keep-y';
export type Stores = 'auto' | 'cached' | 'streaming';
export type Layout = 'full' | 'compact';
export type WeightMode = 'normalize' | 'as-given' | 'require-unit';
export type PaletteFormat = 'mat4' | 'rows3x4' | 'normal-rows3x4' | 'dual-quat' | 'dual-quat-scale' | 'dual-quat-scale-keep-y';

export interface BindOptions {
  /** joint -> model at bind, 16 floats a joint, column-major; or inverseBindMatrices (glTF's), not both */
  bindMatrices?: Float32Array;
  inverseBindMatrices?: Float32Array;
  /** a parent a joint, -1 for a root; none: all roots */
  parents?: Int32Array;
  /** 3 floats a vertex */
  positions: Float32Array;
  normals?: Float32Array;
  /** 4 floats a vertex, w the handedness */
  tangents?: Float32Array;
  /** k: joints and weights hold k a vertex (default 4) ... */
  influencesPerVertex?: number;
  /** ... or CSR offsets, vertices + 1 of them */
  influenceOffsets?: Uint32Array;
  joints: Uint32Array;
  weights: Float32Array;
  /** a vertex each, for 'blend' */
  blendWeights?: Float32Array;
  /** 3 vertex indices a triangle, for 'cor' */
  triangles?: Uint32Array;
  weightMode?: WeightMode;
  maxInfluences?: number;
  minWeight?: number;
  layout?: Layout;
  /** blend shapes, applied before skinning (skn_morph_target) */
  morphTargets?: MorphTarget[];
  /** a new pose's weights, one a target (none: all 0) */
  morphWeights?: Float32Array;
}

export interface MorphTarget {
  /** 3 floats an entry: the position offsets */
  positions: Float32Array;
  /** 3 floats an entry; need the rig's normals / tangents */
  normals?: Float32Array;
  tangents?: Float32Array;
  /** the entries' vertices; none: one entry a vertex (dense) */
  vertices?: Uint32Array;
}

export interface SkinOptions {
  method?: Method;
  dqsScale?: DqsScale;
  stores?: Stores;
  firstVertex?: number;
  /** 0: to the last vertex */
  vertexCount?: number;
  threads?: number;
  /** written in place, addressed by absolute vertex index; a new array when left out */
  positions?: Float32Array;
  /** an array to write into, or true for a new one */
  normals?: Float32Array | boolean;
  tangents?: Float32Array | boolean;
}

export interface SkinResult {
  positions: Float32Array;
  normals: Float32Array | null;
  tangents: Float32Array | null;
}

export class Rig {
  private constructor();
  readonly jointCount: number;
  readonly vertexCount: number;
  readonly influenceCount: number;
  readonly flags: number;
  readonly hasNormals: boolean;
  readonly hasTangents: boolean;
  readonly morphTargetCount: number;
  pose(): Pose;
  skin(pose: Pose, options?: SkinOptions): SkinResult;
  /** frees the rig now; its poses must be destroyed first */
  destroy(): void;
}

export class Pose {
  private constructor();
  readonly rig: Rig;
  /** 10 floats a joint: translation xyz, rotation xyzw, scale xyz */
  setLocal(first: number, local: Float32Array): void;
  /** 16 floats a joint: joint -> model, column-major */
  setModel(first: number, matrices: Float32Array): void;
  palette(format?: PaletteFormat, dst?: Float32Array): Float32Array;
  /** the weights of morph targets [first, first + weights.length) */
  setMorphWeights(first: number, weights: Float32Array): void;
  /** every morph target's weight */
  morphWeights(): Float32Array;
  destroy(): void;
}

export interface PrimitiveInfo {
  mesh: number; primitiveInMesh: number; node: number; skin: number; vertexCount: number; triangleCount: number;
  jointCount: number; influencesPerVertex: number; meshName: string; hasNormals: boolean; hasTangents: boolean;
}

export interface AnimationInfo {
  channelCount: number; start: number; end: number; name: string;
}

export interface GltfBindOptions {
  primitive?: number;
  centersOfRotation?: boolean;
  maxInfluences?: number;
  minWeight?: number;
  blendWeights?: Float32Array;
  layout?: Layout;
  /** the most binding may allocate (0: the library's 2 GiB) */
  maxBytes?: number | bigint;
}

export class Gltf {
  private constructor();
  readonly primitiveCount: number;
  readonly skinCount: number;
  readonly animationCount: number;
  readonly nodeCount: number;
  readonly meshCount: number;
  primitive(index: number): PrimitiveInfo;
  animation(index: number): AnimationInfo;
  findAnimation(name: string): number | null;
  triangles(primitive: number): Uint32Array;
  bind(options?: GltfBindOptions): Rig;
  /** animation null: the nodes' own transforms */
  pose(primitive: number, animation: number | null, time: number, pose: Pose): void;
  close(): void;
}

export interface GlslOptions {
  method?: Method;
  dqsScale?: DqsScale;
  influences?: 4 | 8;
  normals?: boolean;
  tangents?: boolean;
  dialect?: '330' | '300 es';
  palette?: 'uniform-block' | 'texture-buffer' | 'texture-2d';
  jointCount?: number;
}

export const version: string;
export const METHODS: Method[];
export function bind(options: BindOptions): Rig;
/** anyPath: the document's buffers may name files outside its folder (absolute, '..') */
export function open(path: string, options?: { anyPath?: boolean }): Gltf;
/** folder: where a .gltf's relative buffer URIs are read from (none: data: URIs only) */
export function openMemory(bytes: Uint8Array, options?: { folder?: string; anyPath?: boolean }): Gltf;
export function glslSource(options?: GlslOptions): string;
/** rigs, poses and documents made and not yet freed (by destroy/close, or the collector) */
export function liveHandles(): number;
