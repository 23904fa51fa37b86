//! common
// The vertex animation texture player (SKN_GLSL_VAT_PLAYER): a vertex's
// position and normal at a frame of a bake `skn bake --format vat-png`
// wrote; OUT/manifest.json holds the numbers below. Vertex v of the bake's
// frame i is texel (v % width, i * rows_per_frame + v / width); a texel
// holds c = round((p - lo) / (hi - lo) * 65535) per axis, a normal
// (n + 1) / 2 alike. The host uploads positions.png (and normals.png) as
// GL_RGB16UI textures (integer and unfiltered: OpenGL 3.3 and ES 3.0 both
// have them) and sets:
//   skn_vat_positions, skn_vat_normals  their texture units (glUniform1i)
//   skn_vat_lo, skn_vat_hi              bounds.lo and bounds.hi
//   skn_vat_width, skn_vat_rows         layout.width and layout.rows_per_frame
// A vertex is its index (gl_VertexID when the mesh is drawn in the bake's
// vertex order) or, from the UV set the bake adds to OUT/mesh.glb, the
// value skn_vat_vertex(uv) returns. A fractional frame blends the two
// frames around it linearly.
uniform highp usampler2D skn_vat_positions;
uniform highp usampler2D skn_vat_normals;
uniform vec3 skn_vat_lo;
uniform vec3 skn_vat_hi;
uniform int skn_vat_width;
uniform int skn_vat_rows;

int skn_vat_vertex(vec2 uv) {
  ivec2 size = textureSize(skn_vat_positions, 0);
  return int(floor(uv.y * float(size.y))) * skn_vat_width + int(floor(uv.x * float(size.x)));
}

vec3 skn_vat_texel(highp usampler2D t, int vertex, int frame) {
  ivec2 at = ivec2(vertex % skn_vat_width, frame * skn_vat_rows + vertex / skn_vat_width);
  return vec3(texelFetch(t, at, 0).rgb) / 65535.0;
}

vec3 skn_vat_blend(highp usampler2D t, int vertex, float frame) {
  int f = int(floor(frame));
  float a = frame - float(f);
  vec3 c = skn_vat_texel(t, vertex, f);
  return a > 0.0 ? mix(c, skn_vat_texel(t, vertex, f + 1), a) : c;
}

vec3 skn_vat_position(int vertex, float frame) {
  return skn_vat_lo + (skn_vat_hi - skn_vat_lo) * skn_vat_blend(skn_vat_positions, vertex, frame);
}

vec3 skn_vat_normal(int vertex, float frame) {
  return normalize(skn_vat_blend(skn_vat_normals, vertex, frame) * 2.0 - 1.0);
}

// The bone VAT (skn bake --format bone-vat): palette.exr uploaded as
// GL_RGBA32F, a row a frame, joint j's palette matrix (LBS's M_j) as its
// three rows in texels 3j to 3j + 2; the vertex's rest position, joints and
// weights from rest.npy, joints.npy and weights.npy as vertex inputs. Each
// call blends four influences; a host with eight sums two calls.
uniform highp sampler2D skn_vat_palette;

vec3 skn_vat_bone_point(vec4 rest, uint joint, int frame) {
  int x = 3 * int(joint);
  return vec3(dot(texelFetch(skn_vat_palette, ivec2(x, frame), 0), rest),
              dot(texelFetch(skn_vat_palette, ivec2(x + 1, frame), 0), rest),
              dot(texelFetch(skn_vat_palette, ivec2(x + 2, frame), 0), rest));
}

vec3 skn_vat_bones_at(vec3 rest, uvec4 joints, vec4 weights, int frame) {
  vec4 p = vec4(rest, 1.0);
  return weights.x * skn_vat_bone_point(p, joints.x, frame) + weights.y * skn_vat_bone_point(p, joints.y, frame) +
         weights.z * skn_vat_bone_point(p, joints.z, frame) + weights.w * skn_vat_bone_point(p, joints.w, frame);
}

vec3 skn_vat_bones(vec3 rest, uvec4 joints, vec4 weights, float frame) {
  int f = int(floor(frame));
  float a = frame - float(f);
  vec3 p = skn_vat_bones_at(rest, joints, weights, f);
  return a > 0.0 ? mix(p, skn_vat_bones_at(rest, joints, weights, f + 1), a) : p;
}
