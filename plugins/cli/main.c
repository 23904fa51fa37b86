/* main.c — `skn`: try skn on a glTF file in one line. See HELP below. */
#include "cli.h"

#include <string.h>

static const char *HELP =
    "usage: skn COMMAND FILE [options]   (options take --name value or --name=value)\n"
    "\n"
    "  info FILE        skinned primitives, skins, joints, animations (name, duration)\n"
    "  skin FILE        the skinned mesh at a time, as OBJ, PLY or JSON\n"
    "  render FILE      a shaded picture of the skinned mesh, as PNG\n"
    "  bake FILE        every frame of an animation skinned, as NumPy arrays\n"
    "  weights FILE     the file again, its skinned meshes weighted by bone heat or closest bone\n"
    "  bench            how fast skn skins on this machine\n"
    "\n"
    "  --version        the version of skn and of the library it runs on, and the kernels it runs here\n"
    "\n"
    "skn COMMAND --help tells more. Exit status: 0 done, 1 bad input, 2 bad usage.\n";

#define FILE_OPTIONS                                                                                   \
  "  --any-path           let the file's buffers name files outside its folder (absolute paths, ..):\n"  \
  "                       for files you trust; by default only files in its folder are read\n"

static const char *HELP_INFO =
    "usage: skn info FILE [--any-path]\n\nDescribes a .gltf or .glb file: its skinned primitives, skins and animations.\n\n"
    FILE_OPTIONS;

#define POSE_OPTIONS                                                                                   \
  "  --primitive N        the skinned primitive, counted in document order from 0 (default 0)\n"         \
  "  --animation N|NAME   the animation by index or name, or none for the nodes' own transforms\n"      \
  "                       (default: the first, if any)\n"                                                \
  "  --time S             seconds into the animation, clamped to its keys (default 0)\n"                  \
  "  --dqs-scale polar|keep-y  how dqs, blend and cor split scale from rotation (default polar)\n"       \
  "  --blend B            the LBS/DQS mix for --method blend, in [0, 1] (default 0.5)\n"                   \
  "  --layout full|compact  bind with full-precision or compact weights and normals (default full)\n"                 \
  "  --weights W0,W1,...    the first morph targets' weights, in place of the document's\n"             \
  FILE_OPTIONS

static const char *HELP_SKIN =
    "usage: skn skin FILE [options]\n\nWrites the skinned mesh, in the primitive's accessor order, in the scene's world space.\n\n" POSE_OPTIONS
    "  --method M           lbs, lbs-quat, dqs, blend or cor (default lbs)\n"
    "  --format F           obj, ply or json (default: from -o's extension, else json)\n"
    "  --gpu                skin on the GPU through OpenGL (headless EGL; Mesa's llvmpipe where there is\n"
    "                       no GPU): the compute path where the context has OpenGL 4.3, else the vertex\n"
    "                       path; the result read back, the path and renderer named in the file\n"
    "  -o OUT               the output file (default: standard output)\n";

static const char *HELP_BAKE =
    "usage: skn bake FILE --format npy|vat-png|vat-exr|zarr|bone-vat -o OUT [options]\n\nSkins the primitive's animation at a frame rate and writes "
    "every frame: OUT/positions.npy\nand OUT/normals.npy (float32, frames x vertices x 3, row i frame A + i), then\n"
    "OUT/manifest.json. Frame k is k / fps seconds after the animation's first key.\n\n"
    "  --primitive N,M|all  the skinned primitives, counted in document order from 0 (default: all)\n"
    "  --animation A,B|all  the animations by index or name, or none (default: the first, if any);\n"
    "                       several bakes go each into OUT/pN-aA, OUT/manifest.json listing them\n"
    "  --fps F              frames a second (default 30)\n"
    "  --frames A:B         frames A to B - 1 (default: the whole animation, its last key included)\n"
    "  --method M           lbs, lbs-quat, dqs, blend or cor (default lbs)\n"
    "  --dqs-scale polar|keep-y, --blend B, --layout full|compact, --weights W0,W1,...  as skn skin\n"
    "  --format npy         NumPy arrays; run again after an unfinished bake, it keeps the whole frames\n"
    "  --format vat-png     vertex animation textures: OUT/positions.png and normals.png (16-bit RGB, one\n"
    "                       texel a vertex, a frame's rows after another's, positions normalized to the\n"
    "                       bounds in manifest.json), OUT/uv.npy and OUT/mesh.glb (the file again, the\n"
    "                       primitive given a TEXCOORD_n addressing each vertex's texel)\n"
    "  --format vat-exr     the same textures as OpenEXR (half; --exr-float: float), the values as they are\n"
    "                       (both bake the frames first into OUT/.skn-frames, a zarr bake by --chunk that a\n"
    "                       rerun after an unfinished bake keeps, and remove it when the textures are whole)\n"
    "  --vat-width W        the textures' texels a row (default 4096; a frame wraps to more rows)\n"
    "  --from-zarr DIR      vat-png or vat-exr of the frames of DIR, a whole zarr bake of the same frames,\n"
    "                       read instead of skinned (skn.bake on Dask bakes zarr first, then this)\n"
    "  --format bone-vat    OUT/palette.exr (float RGBA, a row a frame, joint j's 3x4 palette matrix in\n"
    "                       texels 3j..3j+2) with rest.npy, joints.npy and weights.npy (LBS; no morph targets)\n"
    "  --format zarr        OUT a Zarr (v2) group of the arrays positions and normals, as npy's, uncompressed,\n"
    "                       chunked by --chunk frames (default 64), each chunk file renamed into place whole;\n"
    "                       run again after an unfinished bake, it keeps the chunks already whole\n"
    "  -o OUT               the folder (made if need be)\n"
    "  --overwrite          replace the bake OUT holds (without it, a folder with a manifest is refused)\n"
    "  --dask ADDRESS|local npy or zarr spread over Dask distributed: the scheduler at ADDRESS, or a\n"
    "                       LocalCluster on this machine's loopback, a worker a core (--workers N);\n"
    "                       run by Python's skn.bake ($SKN_PYTHON, default python3, with Dask), each\n"
    "                       task writing its chunk of frames; the files are the same as without it\n"
    FILE_OPTIONS;

static const char *HELP_WEIGHTS =
    "usage: skn weights FILE -o OUT.glb|OUT.gltf [options]\n\nWrites the file again with weights skn computes in its "
    "skinned meshes' JOINTS_n and\nWEIGHTS_n (every mesh on a node with a skin, weighted or not); the rest of the\n"
    "document is kept. The bones run from each joint to its children; a leaf continues its\nparent's bone "
    "(skn.h, skn_gltf_compute_weights). Vertices at one position are one\nsurface vertex (a seam's copies).\n\n"
    "  --method heat|closest  bone heat, as Blender's With Automatic Weights (default), or closest bone\n"
    "  --max-influences K   influences a vertex, 1 to 64 (default 4; 5 to 8 write two sets, ...)\n"
    "  --min-weight W       drop weights below W before normalizing (default 0)\n"
    "  --non-manifold       accept edges of three or more triangles (as Blender does)\n"
    "  --no-weld            solve on the vertices as stored, seams split\n"
    "  --threads N          bone heat's solves on N threads (default: every core)\n"
    "  -o OUT               .glb or .gltf (the new bytes in its BIN chunk, or a data: URI)\n" FILE_OPTIONS;

static const char *HELP_RENDER =
    "usage: skn render FILE -o OUT.png [options]\n\nDraws the skinned mesh, shaded, with a software rasterizer, or on the GPU.\n\n" POSE_OPTIONS
    "  --method M           lbs, lbs-quat, dqs, blend or cor (default lbs)\n"
    "  --compare M1,M2,...  one panel per method, side by side, each named\n"
    "  --frames N           a strip of N panels across the animation (with --compare: a grid)\n"
    "  --size WxH           each panel's size in pixels (default 360x360)\n"
    "  --gpu                skin in skn's GLSL and draw with OpenGL on a headless EGL context\n"
    "                       (Mesa's llvmpipe where there is no GPU): the same picture\n"
    "  -o OUT.png           the picture to write (required)\n";

static const char *HELP_BENCH =
    "usage: skn bench [--full] [-o FILE.json]\n       skn bench --gpu [--vertices N[,N...]]\n"
    "       skn bench --calls C WHAT[,WHAT...]\n"
    "       skn bench --against LIBRARY [--full] [--rounds R] [--vertices N] [-o FILE.json]\n\nMeasures memory bandwidth (copy, triad; 1 and 2 threads), then skinning\n"
    "against the scalar reference kernels, medians of several runs. By default the headline:\n"
    "1,000,000 vertices, 4 influences, positions + normals, every method, 1 and 2 threads.\n\n"
    "  --full     every method x attributes x influences {1, 4, 8, 1-8} x vertices {10k .. 10M} x threads\n"
    "  -o FILE    also write the results as JSON\n"
    "  --gpu      skinning in skn's GLSL through OpenGL (headless EGL) against skn_skin on every core:\n"
    "             1,000,000 and 10,000,000 vertices (--vertices), LBS and DQS, positions + normals: the\n"
    "             vertex path, the compute path; then viewport frames: a tube drawn in 1024x768 (4 or 8\n"
    "             influences, a keyed morph target), skinned by either path against skn_skin + upload\n"
    "  --calls    for a profiler: C calls of each WHAT and nothing else, 100,000 vertices, 4 influences,\n"
    "             positions + normals, one thread; WHAT: METHOD-rigid or METHOD-scaled (lbs, lbs-quat,\n"
    "             dqs, blend, cor), or yard (the yardstick)\n"
    "  --against  this library against another build of skn (make bench-against BASE=REV builds an\n"
    "             earlier commit's), both in one process on the same rigs, calls alternating: first\n"
    "             skn_bind on a character's size (47,668 vertices, 2 morph targets), then each row's\n"
    "             ratio of times (> 1: this one faster), median of R rounds (7), and whether the outputs\n"
    "             match bit for bit; 100,000 and 1,000,000 vertices (--vertices N: N alone), 4 and 1-8\n"
    "             influences, rigid joints and scaled ones at 4; --full: the bench's sweep; --simd S: both\n"
    "             libraries on one instruction set (scalar, portable, avx2, avx512; default: each its best)\n";

static int wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (skn_version() / 10000 != SKN_VERSION_MAJOR) {
    fprintf(stderr, "skn: libskn %s is not ABI %d\n", skn_version_string(), SKN_VERSION_MAJOR);
    return EXIT_INPUT;
  }
  const char *cmd = argc > 1 ? argv[1] : "";
  static const struct { const char *name, **help; int (*run)(int, char **); } COMMANDS[] = {
      {"info", &HELP_INFO, cmd_info}, {"skin", &HELP_SKIN, cmd_skin}, {"render", &HELP_RENDER, cmd_render},
      {"bench", &HELP_BENCH, cmd_bench}, {"bake", &HELP_BAKE, cmd_bake},
      {"weights", &HELP_WEIGHTS, cmd_weights}};
  for (size_t k = 0; k < sizeof COMMANDS / sizeof COMMANDS[0]; ++k)
    if (!strcmp(cmd, COMMANDS[k].name)) {
      if (wants_help(argc, argv)) return fputs(*COMMANDS[k].help, stdout), EXIT_OK;
      return COMMANDS[k].run(argc, argv);
    }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) return fputs(HELP, stdout), EXIT_OK;
  if (!strcmp(cmd, "--version"))
    return printf("skn %d.%d.%d, libskn %s\n", SKN_VERSION_MAJOR, SKN_VERSION_MINOR, SKN_VERSION_PATCH,
                  skn_version_string()), bench_kernels_line(stdout), EXIT_OK;
  if (*cmd) fprintf(stderr, "skn: unknown command \"%s\"\n\n", cmd);
  fputs(HELP, stderr);
  return EXIT_USAGE;
}
