/* main.c — runs every unit suite with Check and prints the counts on a line
 * tests/run-all reads: "unit: N passed, N failed". */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  SRunner *sr = srunner_create(suite_bind());
  srunner_add_suite(sr, suite_pose());
  srunner_add_suite(sr, suite_lbs());
  srunner_add_suite(sr, suite_methods());
  srunner_add_suite(sr, suite_errors());
  srunner_add_suite(sr, suite_gltf());
  srunner_add_suite(sr, suite_kernels());
  srunner_add_suite(sr, suite_compact());
  srunner_add_suite(sr, suite_gpu());
  srunner_add_suite(sr, suite_hostile());
  srunner_add_suite(sr, suite_alloc());
  srunner_add_suite(sr, suite_morph());
  srunner_add_suite(sr, suite_weights());
  srunner_run_all(sr, getenv("CK_VERBOSITY") ? CK_ENV : CK_NORMAL);
  int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  printf("unit: %d passed, %d failed\n", run - failed, failed);
  return failed ? 1 : 0;
}
