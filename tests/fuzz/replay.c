/* replay.c — `replay TARGET PATH...`: every file under the paths through
 * a fuzz target (gltf, bind or skin), in a plain or sanitized build:
 * the seeds and the regression file of every finding, on every build. A
 * broken promise aborts; otherwise prints "fuzz-TARGET: N passed, 0 failed". */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef int (*target_fn)(const uint8_t *, size_t);

static int replay_file(target_fn fn, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1); /* exactly the file: ASan sees a read past it */
  size_t got = data ? fread(data, 1, (size_t)(n > 0 ? n : 0), f) : 0;
  fclose(f);
  fn(data, got);
  free(data);
  return 1;
}

static int replay_path(target_fn fn, const char *path) {
  struct stat st;
  if (stat(path, &st)) return fprintf(stderr, "replay: %s: no such path\n", path), -1;
  if (!S_ISDIR(st.st_mode)) return replay_file(fn, path);
  DIR *d = opendir(path);
  int count = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    int k = replay_path(fn, sub);
    if (k < 0) return closedir(d), -1;
    count += k;
  }
  if (d) closedir(d);
  return count;
}

int main(int argc, char **argv) {
  static const struct { const char *name; target_fn fn; } TARGETS[] = {
      {"gltf", skn_fuzz_gltf}, {"bind", skn_fuzz_bind}, {"skin", skn_fuzz_skin}};
  target_fn fn = NULL;
  for (size_t k = 0; argc > 1 && k < 3; ++k)
    if (!strcmp(argv[1], TARGETS[k].name)) fn = TARGETS[k].fn;
  if (!fn) return fprintf(stderr, "usage: replay gltf|bind|skin PATH...\n"), 2;
  int total = 0;
  for (int i = 2; i < argc; ++i) {
    int k = replay_path(fn, argv[i]);
    if (k < 0) return 1;
    total += k;
  }
  printf("fuzz-%s: %d passed, 0 failed\n", argv[1], total);
  return 0;
}
