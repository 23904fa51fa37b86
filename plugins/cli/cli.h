/* cli.h — the skn command's parts: options, the posed mesh they describe,
 * the subcommands. The command is a host like any other: it reaches the
 * library only through abi/skn.h. */
#ifndef SKN_CLI_H
#define SKN_CLI_H

#include "skn.h"

#include <stdio.h>

/* Exit statuses: 0 success, 1 bad input (skn_last_error on stderr), 2 bad usage. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

#define MAX_METHODS 8
#define MAX_WEIGHTS 256

typedef struct options {
  const char *file, *out, *format, *animation;
  uint32_t primitive;
  float time, blend;
  int has_time;
  skn_method methods[MAX_METHODS];
  const char *method_names[MAX_METHODS];
  int method_count;
  skn_dqs_scale dqs_scale;
  skn_bind_layout layout;
  int frames, width, height;
  uint32_t frame_first, frame_end; /* bake's --frames A:B (has_range) */
  int has_range;
  float fps;                 /* bake's --fps (0: 30) */
  uint32_t vat_width;        /* bake's --vat-width (0: 4096) */
  int exr_float;             /* bake's --exr-float: vat-exr in float, not half */
  uint32_t chunk;            /* bake's --chunk: zarr's frames a chunk (0: 64) */
  int overwrite;             /* bake's --overwrite */
  const char *primitives;    /* bake's --primitive N,M,...|all (its allowed list names "primitive-list") */
  const char *from_zarr;     /* bake's --from-zarr DIR: vat-png/vat-exr of a zarr bake's frames, not skinned again */
  const char *dask;          /* bake's --dask ADDRESS|local: the bake handed to Python's skn.bake on Dask */
  uint32_t workers;          /* bake's --workers: --dask local's worker processes (0: a core each) */
  int gpu;                   /* --gpu: skin (skin) and draw (render) on the GPU */
  int any_path;              /* --any-path: the file's buffers may name files outside its folder */
  float weights[MAX_WEIGHTS];/* --weights: the morph targets' weights, overriding the document's */
  uint32_t weight_count;
  /* skn weights: --method heat|closest, --max-influences, --min-weight, --threads, --non-manifold, --no-weld */
  skn_weights_method weights_method;
  uint32_t max_influences, threads;
  float min_weight;
  int non_manifold, no_weld;
} options;

/* Parses argv[first..] for a subcommand; `allowed` lists the options it
 * takes (e.g. "primitive animation time method format o"). Prints the
 * problem and returns EXIT_USAGE, or EXIT_OK. */
int parse_options(int argc, char **argv, int first, const char *allowed, options *o);

/* The extension of `path` among the n in `known` ("png"): its index, or -1
 * (none, or another): every subcommand's -o says what it writes. */
int output_extension(const char *path, const char *const *known, int n);

/* A document's primitive, bound and posed as options say. */
typedef struct posed_mesh {
  skn_gltf *gltf;
  skn_rig *rig;
  skn_pose *pose;
  skn_gltf_primitive_info info;
  uint32_t primitive;            /* the skinned primitive's number */
  uint32_t animation;            /* SKN_GLTF_NO_ANIMATION for the nodes' own transforms */
  uint32_t *triangles;
  float *blend_weights;
  const options *options;        /* --weights */
} posed_mesh;

/* Opens, binds (with centers when a method needs them) and resolves the
 * animation; prints the library's message and returns EXIT_INPUT on failure. */
int posed_mesh_open(posed_mesh *m, const options *o);
/* The pose at `time` (and --weights) in m->pose. */
int posed_mesh_pose(posed_mesh *m, float time);
int posed_mesh_skin(posed_mesh *m, float time, skn_method method, skn_dqs_scale split, float *positions,
                    float *normals);
/* skin_gpu.c: the same on the GPU through plugins/gl (`skn skin --gpu`);
 * `how` gets the path taken and the renderer. */
int posed_mesh_skin_gpu(posed_mesh *m, float time, skn_method method, skn_dqs_scale split, float *positions,
                        float *normals, char *how, size_t how_size);
void posed_mesh_close(posed_mesh *m);
int fail_input(const char *what);
/* skn_gltf_open, or with SKN_GLTF_OPEN_ANY_PATH where --any-path says so. */
skn_status open_document(const options *o, skn_gltf **out);

int cmd_info(int argc, char **argv);
int cmd_skin(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* bench.c: "kernels: NAME\n", the set the library runs here, and where this
 * CPU runs a wider one the library lacks, what to do (bench, --version). */
void bench_kernels_line(FILE *out);
int cmd_bake(int argc, char **argv);
/* bake.c: one bake, of the primitive and animation the options name, into o->out. */
#define BAKE_DEFAULT_FPS 30.0f /* --fps unless given */
enum { BAKE_NPY, BAKE_VAT_PNG, BAKE_VAT_EXR, BAKE_ZARR, BAKE_BONE_VAT, BAKE_FORMATS };
int bake_one(const options *o, int format, int nested);
int make_folders(const char *path);                 /* mkdir -p: 0, or -1 with errno */
uint32_t bake_frame_count(float seconds, float fps); /* frames at or before `seconds`: floor(s * fps) + 1 */
int cmd_weights(int argc, char **argv);

/* render.c's pieces */
int write_png(const char *path, const unsigned char *rgb, int width, int height);
/* png.c: a 16-bit RGB PNG, a row (width x 3 values, host order) at a time; NULL, or 0, on failure. */
typedef struct png16 png16;
png16 *png16_open(const char *path, uint32_t width, uint32_t height);
int png16_row(png16 *p, const uint16_t *rgb);
int png16_close(png16 *p);
/* exr.c: an RGB (channels 3) or RGBA (4) OpenEXR image, half or float, a row (width x channels
 * floats) at a time; NULL, or 0, on failure. */
typedef struct exr_rgb exr_rgb;
exr_rgb *exr_rgb_open(const char *path, uint32_t width, uint32_t height, int half, int channels);
int exr_rgb_row(exr_rgb *e, const float *rgb);
int exr_rgb_close(exr_rgb *e);
/* frame_writer.c: skn bake's frames (positions and normals, `values` floats each) written on a
 * thread of their own; NULL, or 0, on failure, with errno the failed write's. */
typedef struct frame_writer frame_writer;
frame_writer *frame_writer_start(size_t values);
float *const *frame_writer_slot(frame_writer *w);
void frame_writer_push(frame_writer *w, FILE *positions, FILE *normals);
int frame_writer_drain(frame_writer *w);
int frame_writer_stop(frame_writer *w);
void draw_text(unsigned char *rgb, int width, int height, int x, int y, int scale, const char *text,
               const unsigned char color[3]);

#endif
