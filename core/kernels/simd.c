/* simd.c — which kernels run: the best instruction set this CPU has
 * (__builtin_cpu_supports), unless skn_set_simd says otherwise. */
#include "kernels.h"

#define SKN_DECLARE_SET(isa)                                                                     \
  void skn__lbs_##isa(const skn_skin_job *job, uint32_t first, uint32_t end);                     \
  void skn__dqs_##isa(const skn_skin_job *job, uint32_t first, uint32_t end);                     \
  void skn__blend_##isa(const skn_skin_job *job, uint32_t first, uint32_t end);                   \
  void skn__cor_##isa(const skn_skin_job *job, uint32_t first, uint32_t end);                     \
  void skn__lbsq_##isa(const skn_skin_job *job, uint32_t first, uint32_t end);                    \
  uint32_t skn__pose_stage_##isa(skn_pose *pose, uint32_t first, uint32_t count, const skn_transform *local); \
  void skn__pose_##isa(skn_pose *pose, uint32_t first, uint32_t count);                           \
  void skn__dq_forms_##isa(skn_pose *pose, int split, int s_identity);                            \
  void skn__quat_forms_##isa(skn_pose *pose);                                                     \
  const skn_kernel_set skn__kernels_##isa = {#isa,           skn__lbs_##isa,  skn__lbsq_##isa,     \
                                             skn__dqs_##isa, skn__blend_##isa, skn__cor_##isa,     \
                                             skn__pose_stage_##isa, skn__pose_##isa,                   \
                                             skn__dq_forms_##isa, skn__quat_forms_##isa};
/* Which wide sets this build has: every one (KERNEL_SETS=all), or those
 * the Makefile's KERNEL_SETS kept (native, make's default: the widest set
 * this CPU runs; portable: the fuzz and ThreadSanitizer trees). */
SKN_DECLARE_SET(portable)
#if defined(SKN_KERNELS_NO_AVX2)
#define SKN_BUILT_AVX2 0
#else
#define SKN_BUILT_AVX2 1
SKN_DECLARE_SET(avx2)
#endif
#if defined(SKN_KERNELS_NO_AVX512)
#define SKN_BUILT_AVX512 0
#else
#define SKN_BUILT_AVX512 1
SKN_DECLARE_SET(avx512)
#endif
/* The scalar set: the reference kernels, the portable build of the pose
 * (bit for bit the same on every set: pose_simd.h) and the joint-at-a-time
 * rotation forms (palette.c), which the sets' match bit for bit. */
static const skn_kernel_set kernels_scalar = {"scalar", skn__lbs_matrix, skn__lbs_quaternion, skn__dqs, skn__blend,
                                              skn__cor, skn__pose_stage_portable, skn__pose_portable,
                                              skn__dq_forms, skn__quat_forms};

static int built(skn_simd s) { return s == SKN_SIMD_AVX2 ? SKN_BUILT_AVX2 : s == SKN_SIMD_AVX512 ? SKN_BUILT_AVX512 : 1; }

static int cpu_has(skn_simd s) {
  __builtin_cpu_init();
  switch (s) {
  case SKN_SIMD_SCALAR:
  case SKN_SIMD_PORTABLE: return 1;
  case SKN_SIMD_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case SKN_SIMD_AVX512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  default: return 0;
  }
}

static int runs(skn_simd s) { return built(s) && cpu_has(s); }

static skn_simd best(void) {
  return runs(SKN_SIMD_AVX512) ? SKN_SIMD_AVX512 : runs(SKN_SIMD_AVX2) ? SKN_SIMD_AVX2 : SKN_SIMD_PORTABLE;
}

static int chosen = -1; /* atomic: -1 until the first use */

static skn_simd current(void) {
  int c = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
  if (c < 0) {
    c = (int)best();
    __atomic_store_n(&chosen, c, __ATOMIC_RELEASE);
  }
  return (skn_simd)c;
}

const skn_kernel_set *skn__kernels(void) {
  switch (current()) {
#if SKN_BUILT_AVX512
  case SKN_SIMD_AVX512: return &skn__kernels_avx512;
#endif
#if SKN_BUILT_AVX2
  case SKN_SIMD_AVX2: return &skn__kernels_avx2;
#endif
  case SKN_SIMD_PORTABLE: return &skn__kernels_portable;
  default: return &kernels_scalar;
  }
}

SKN_API skn_status skn_set_simd(skn_simd simd) {
  if (simd == SKN_SIMD_AUTO) simd = best();
  if ((unsigned)simd > SKN_SIMD_AVX512)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "set_simd: %u is not a skn_simd", (unsigned)simd);
  const char *name = simd == SKN_SIMD_AVX512 ? "AVX-512" : "AVX2 with FMA";
  if (!built(simd))
    return skn__fail(SKN_ERR_UNSUPPORTED, "set_simd: this build of skn has no %s kernels (made with KERNEL_SETS=portable or native)", name);
  if (!cpu_has(simd)) return skn__fail(SKN_ERR_UNSUPPORTED, "set_simd: this CPU has no %s", name);
  __atomic_store_n(&chosen, (int)simd, __ATOMIC_RELEASE);
  return SKN_OK;
}

SKN_API skn_simd skn_get_simd(void) { return current(); }
