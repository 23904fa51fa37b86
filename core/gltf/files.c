/* files.c — the files a document reads: the document itself and the
 * buffers its URIs name. Only regular files are opened, and without
 * blocking (a FIFO, a socket or a device is refused by its kind before any
 * read); a buffer's URI must name a file inside the document's folder unless
 * the host said otherwise (skn.h, SKN_GLTF_OPEN_ANY_PATH): an absolute path,
 * a ".." above the folder or a symbolic link out of it would let a document
 * from elsewhere read the host's files into its vertices. */
#define _XOPEN_SOURCE 700 /* realpath (an XSI call; the build asks only for POSIX.1-2008) */
#include "gltf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of another kind";
}

skn_status skn__gltf_open_file(const char *path, const char *label, int *out_fd, struct stat *st) {
  /* O_NONBLOCK: opening a FIFO for reading waits for a writer without it */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return skn__fail(SKN_ERR_IO, "%s: cannot open \"%s\": %s", label, path, strerror(errno));
  if (fstat(fd, st) != 0) {
    int err = errno;
    close(fd);
    return skn__fail(SKN_ERR_IO, "%s: cannot read \"%s\": %s", label, path, strerror(err));
  }
  if (!S_ISREG(st->st_mode)) {
    close(fd);
    return skn__fail(SKN_ERR_IO, "%s: \"%s\" is %s, not a regular file", label, path, kind_of(st->st_mode));
  }
  *out_fd = fd;
  return SKN_OK;
}

skn_status skn__gltf_read_fd(int fd, const char *path, const char *label, uint8_t *data, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, data + got, n - got > (1u << 30) ? (1u << 30) : n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return skn__fail(SKN_ERR_IO, "%s: cannot read \"%s\": %s", label, path, strerror(errno));
    if (r == 0) break;
    got += (size_t)r;
  }
  if (got < n) /* shorter than its size said a moment ago: written while read */
    return skn__fail(SKN_ERR_IO, "%s: \"%s\" ended after %zu of %zu bytes (changed while read)", label, path, got, n);
  return SKN_OK;
}

/* ---- a URI as a file of the document's folder ---- */

static int hex_value(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A URI's path, percent-decoded (RFC 3986 §2.1), into out (strlen(uri) + 1
 * bytes); 0 where a %XX decodes to NUL. A '%' not followed by two hex
 * digits stays itself, as many writers leave one. */
static int decode(const char *uri, char *out) {
  for (const char *p = uri; *p; ++p) {
    int hi = *p == '%' ? hex_value(p[1]) : -1, lo = hi >= 0 ? hex_value(p[2]) : -1;
    if (lo >= 0) {
      if (!(*out++ = (char)(hi << 4 | lo))) return 0;
      p += 2;
    } else {
      *out++ = *p;
    }
  }
  *out = 0;
  return 1;
}

/* RFC 3986 §3.1 and §4.2: a reference whose first segment holds a ':'
 * after letters, digits, '+', '-' or '.' (beginning with a letter) names a
 * scheme; a relative path's first segment has no ':'. */
static int has_scheme(const char *uri) {
  const char *p = uri;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
  while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
         *p == '-' || *p == '.')
    ++p;
  return *p == ':';
}

/* Whether a relative path climbs above its folder: its depth, segment by
 * segment, below 0 at some '..' (an empty or '.' segment stays). */
static int climbs_out(const char *path) {
  long depth = 0;
  for (const char *s = path; *s;) {
    size_t n = strcspn(s, "/");
    if (n == 2 && s[0] == '.' && s[1] == '.') {
      if (--depth < 0) return 1;
    } else if (n && !(n == 1 && s[0] == '.')) {
      ++depth;
    }
    s += n + (s[n] == '/');
  }
  return 0;
}

#define ALLOW_HINT "skn_gltf_open_with's SKN_GLTF_OPEN_ANY_PATH allows it"

char *skn__gltf_uri_path(const skn_gltf *g, const char *uri, const char *label, skn_status *status) {
  *status = SKN_OK;
  if (has_scheme(uri)) {
    *status = skn__fail(SKN_ERR_IO, "%s \"%.200s\": a URI of another scheme; only data: URIs and paths relative to the "
                        "document are read", label, uri);
    return NULL;
  }
  size_t d = strlen(g->dir), n = strlen(uri);
  char *path = skn__alloc(d + n + 1);
  if (!path) {
    *status = skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", label);
    return NULL;
  }
  const char *folder = *g->dir ? g->dir : "./";
  if (!decode(uri, path + d)) {
    *status = skn__fail(SKN_ERR_IO, "%s \"%.200s\": decodes to a path with a NUL byte (%%00)", label, uri);
  } else if (!(g->open_flags & SKN_GLTF_OPEN_ANY_PATH) && path[d] == '/') {
    *status = skn__fail(SKN_ERR_IO, "%s \"%.200s\": an absolute path, outside the document's folder \"%s\" (" ALLOW_HINT
                        ")", label, uri, folder);
  } else if (!(g->open_flags & SKN_GLTF_OPEN_ANY_PATH) && climbs_out(path + d)) {
    *status = skn__fail(SKN_ERR_IO, "%s \"%.200s\": climbs out of the document's folder \"%s\" (" ALLOW_HINT ")", label,
                        uri, folder);
  }
  if (*status != SKN_OK) {
    skn__free(path);
    return NULL;
  }
  if (path[d] == '/') memmove(path, path + d, strlen(path + d) + 1); /* SKN_GLTF_OPEN_ANY_PATH: as it is */
  else memcpy(path, g->dir, d);
  return path;
}

/* Whether the open file fd (at `path`) lies inside folder `dir`: its real
 * path (symbolic links resolved) under the folder's, and the same file as
 * fd — a link swapped between the two looks is caught by the second. */
skn_status skn__gltf_check_inside(const skn_gltf *g, int fd, const char *path, const char *uri, const char *label) {
  if (g->open_flags & SKN_GLTF_OPEN_ANY_PATH) return SKN_OK;
  char *folder = realpath(*g->dir ? g->dir : ".", NULL), *real = realpath(path, NULL);
  struct stat a, b;
  size_t n = folder ? strlen(folder) : 0;
  int inside = folder && real && !strncmp(real, folder, n) && (real[n] == '/' || (n == 1 && folder[0] == '/')) &&
               fstat(fd, &a) == 0 && stat(real, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  skn_status s = inside ? SKN_OK
                        : skn__fail(SKN_ERR_IO, "%s \"%.200s\": \"%s\" resolves to \"%s\", outside the document's folder "
                                    "\"%s\" (" ALLOW_HINT ")", label, uri, path, real ? real : "?",
                                    folder ? folder : g->dir);
  free(folder); /* realpath's: the C library's allocator */
  free(real);
  return s;
}
