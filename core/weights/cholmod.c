/* cholmod.c — SuiteSparse's CHOLMOD (T. Davis et al., "Algorithm 887:
 * CHOLMOD, Supernodal Sparse Cholesky Factorization and Update/Downdate",
 * ACM TOMS 35(3), 2008), loaded at bone heat's first solve.
 *
 * Why loaded and not linked: CHOLMOD brings BLAS, LAPACK, METIS and the
 * Fortran runtime, some ten libraries, into every process that loads it.
 * A game or a DCC tool that skins with libskn computes weights rarely or
 * never, so libskn.so.1 needs none of them to load; the first bone-heat
 * call opens libcholmod.so.3 (Debian: libcholmod3) and finds the twelve
 * calls below, or says why it cannot. The types come from CHOLMOD's own
 * header, whose library's soname fixes their layout. */
#include "weights.h"

#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>

static skn_cholmod loaded;
static int load_status; /* 0 loaded, 1 not found, 2 a call missing */
static char load_detail[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define FIND(member, name)                                                                 \
  do {                                                                                     \
    *(void **)(&loaded.member) = dlsym(lib, name);                                         \
    if (!loaded.member) {                                                                  \
      snprintf(load_detail, sizeof load_detail, "libcholmod.so.3 lacks %s", name);         \
      load_status = 2;                                                                     \
      return;                                                                              \
    }                                                                                      \
  } while (0)

static void load(void) {
  void *lib = dlopen("libcholmod.so.3", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(load_detail, sizeof load_detail, "%s", e ? e : "libcholmod.so.3 not found");
    load_status = 1;
    return;
  }
  FIND(start, "cholmod_start");
  FIND(finish, "cholmod_finish");
  FIND(allocate_triplet, "cholmod_allocate_triplet");
  FIND(free_triplet, "cholmod_free_triplet");
  FIND(triplet_to_sparse, "cholmod_triplet_to_sparse");
  FIND(free_sparse, "cholmod_free_sparse");
  FIND(analyze, "cholmod_analyze");
  FIND(factorize, "cholmod_factorize");
  FIND(free_factor, "cholmod_free_factor");
  FIND(allocate_dense, "cholmod_allocate_dense");
  FIND(free_dense, "cholmod_free_dense");
  FIND(solve, "cholmod_solve");
}

const skn_cholmod *skn__cholmod(void) {
  pthread_once(&once, load);
  if (load_status == 0) return &loaded;
  skn__fail(SKN_ERR_UNSUPPORTED, "weights: bone heat needs SuiteSparse's CHOLMOD (Debian: libcholmod3): %s",
            load_detail);
  return NULL;
}

int skn__cholmod_start(const skn_cholmod *cm, cholmod_common *c) {
  if (!cm->start(c)) return 0;
  c->print = 0; /* its messages would go to stdout; its status comes back as skn's */
  return 1;
}
