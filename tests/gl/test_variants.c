/* test_variants.c — every text skn_glsl_source makes in this context's
 * dialect (method x influences x outputs, each palette, and both DQS
 * splits where the method has them; in ES, outputs P and PNT) compiles, links and skins a random rig with
 * scaled and sheared joints as skn_skin does; 12 and 16 influences a vertex
 * with every method (all outputs, one palette: each text is a compile). */
#include "rigs.h"

#include <stdlib.h>
#include <string.h>

static const skn_gl_palette PALETTES[3] = {SKN_GL_PALETTE_UNIFORM_BLOCK, SKN_GL_PALETTE_TEXTURE_BUFFER,
                                           SKN_GL_PALETTE_TEXTURE_2D};

/* One method's cases on the rigs of 4 and 8 influences: every outputs set
 * with the 2D-texture palette, and the other palettes with all three
 * outputs on the rig of 4. A palette changes only how a joint's matrix is
 * fetched, the same code for every output and influence count, so the
 * full product (24 texts a split) compiled twice as many shaders for no
 * path of its own: cold, Mesa's compiles were most of the suite's time. */
static void sweep_method(skn_method m, posed rigs[2]) {
  int splits = m >= SKN_METHOD_DQS ? 2 : 1;
  for (int ki = 0; ki < 2; ++ki)
    for (uint32_t outputs = 0; outputs < 4; ++outputs)
      for (int pi = 0; pi < 3; ++pi) {
        if (PALETTES[pi] != SKN_GL_PALETTE_TEXTURE_2D && (ki || outputs != 3)) continue;
        if (PALETTES[pi] == SKN_GL_PALETTE_TEXTURE_BUFFER && gl_context_api == SKN_EGL_OPENGL_ES) continue;
        /* ES: positions alone and all three; its texts are GL's but for the version and precision lines,
           and each is a compile of its own (normals or tangents alone: the GL run's) */
        if (gl_context_api == SKN_EGL_OPENGL_ES && (outputs == 1 || outputs == 2)) continue;
        for (int split = 0; split < splits; ++split) {
          gpu_case c = {m, (skn_dqs_scale)split, ki ? 8u : 4u, outputs, PALETTES[pi], outputs == 1 ? 8u : 16u};
          skn_gl_info info = {sizeof info};
          skin_diff d = compare_case(&rigs[ki], &c, &info);
          check_diff(&d, &c, gl_context_api ? "variants (ES)" : "variants");
          check(d.position > 1e29 || info.palette == c.palette, "variants: palette %d asked, %d used", (int)c.palette,
                (int)info.palette);
        }
      }
}

/* SKN_GLSL_NO_VERSION: the text compiles after a host's own #version. */
static void without_version(void) {
  for (int m = 0; m <= SKN_METHOD_COR; ++m) {
    skn_gpu_desc d = {sizeof d};
    d.method = (skn_method)m;
    d.outputs = SKN_GPU_NORMALS | SKN_GPU_TANGENTS;
    d.dialect = gl_context_api == SKN_EGL_OPENGL_ES ? SKN_GLSL_300_ES : SKN_GLSL_330;
    d.palette = SKN_GLSL_PALETTE_TEXTURE_2D;
    d.flags = SKN_GLSL_NO_VERSION;
    size_t n = 0;
    check(skn_glsl_source(&d, NULL, 0, &n) == SKN_OK, "no version: %s", skn_last_error());
    char *text = malloc(n + 1);
    skn_glsl_source(&d, text, n + 1, &n);
    check(!strstr(text, "#version"), "no version: the text has a #version line");
    const char *parts[3] = {d.dialect ? "#version 300 es\n" : "#version 330 core\n", text,
                            "in vec3 p; void main() { gl_Position = vec4(skn_skin_position(p), 1.0); }\n"};
    GLuint s = gl.CreateShader(GL_VERTEX_SHADER);
    GLint ok = 0;
    gl.ShaderSource(s, 3, parts, NULL);
    gl.CompileShader(s);
    gl.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    check(ok, "no version: %s does not compile after the host's #version", method_name((skn_method)m));
    gl.DeleteShader(s);
    free(text);
  }
}

/* 11 influences a vertex (read as 12) and 16, the adapter choosing k. */
static void many_influences(void) {
  for (uint32_t k = 11; k <= 16; k += 5) {
    posed sheared, uniform;
    int ok = random_posed(&sheared, 15 + k, 40, 300, k, 2) && random_posed(&uniform, 16 + k, 40, 300, k, 1);
    check(ok, "variants: the rigs of %u influences bind", k);
    for (int m = 0; ok && m <= SKN_METHOD_COR; ++m)
      for (int split = 0; split < (m >= SKN_METHOD_DQS ? 2 : 1); ++split) {
        gpu_case c = {(skn_method)m, (skn_dqs_scale)split, 0, SKN_GPU_NORMALS | SKN_GPU_TANGENTS,
                      SKN_GL_PALETTE_TEXTURE_2D, 16};
        skn_gl_info info = {sizeof info};
        skin_diff d = compare_case(m == SKN_METHOD_LBS_QUATERNION ? &uniform : &sheared, &c, &info);
        check_diff(&d, &c, gl_context_api ? "variants (ES), many influences" : "variants, many influences");
        check(d.position > 1e29 || info.influences == (k + 3) / 4 * 4, "variants: %u influences read as %u", k,
              info.influences);
      }
    posed_free(&sheared), posed_free(&uniform);
  }
}

void test_variants(void) {
  posed sheared[2], uniform[2];
  int ok = random_posed(&sheared[0], 11, 40, 300, 4, 2) && random_posed(&sheared[1], 12, 40, 300, 8, 2) &&
           random_posed(&uniform[0], 13, 40, 300, 4, 1) && random_posed(&uniform[1], 14, 40, 300, 8, 1);
  check(ok, "variants: the random rigs bind");
  for (int m = 0; ok && m <= SKN_METHOD_COR; ++m)
    sweep_method((skn_method)m, m == SKN_METHOD_LBS_QUATERNION ? uniform : sheared);
  if (gl_context_api == SKN_EGL_OPENGL) many_influences(); /* the ES texts differ by their version line only */
  without_version();
  for (int k = 0; k < 2; ++k) posed_free(&sheared[k]), posed_free(&uniform[k]);
}
