/* error.c — status names, the thread-local message, and the version calls. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

/* One message per thread (GCC/Clang __thread: C99 has no _Thread_local). */
static __thread char tls_message[512];

skn_status skn__fail(skn_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_message, sizeof tls_message, fmt, ap);
  va_end(ap);
  return status;
}

SKN_API const char *skn_last_error(void) { return tls_message; }

SKN_API skn_status skn_set_error(skn_status status, const char *message) {
  return skn__fail(status, "%s", message ? message : "");
}

SKN_API const char *skn_status_name(skn_status status) {
  static const char *const names[] = {
      "SKN_OK",
      "SKN_ERR_INVALID_ARGUMENT",
      "SKN_ERR_OUT_OF_MEMORY",
      "SKN_ERR_INDEX_OUT_OF_RANGE",
      "SKN_ERR_BAD_HIERARCHY",
      "SKN_ERR_NOT_FINITE",
      "SKN_ERR_BAD_WEIGHTS",
      "SKN_ERR_SINGULAR",
      "SKN_ERR_UNSUPPORTED",
      "SKN_ERR_IO",
      "SKN_ERR_PARSE",
  };
  unsigned s = (unsigned)status;
  return s < sizeof names / sizeof names[0] ? names[s] : "SKN_STATUS_UNKNOWN";
}

SKN_API uint32_t skn_version(void) { return SKN_VERSION_NUMBER; }

#define SKN_STR2(x) #x
#define SKN_STR(x) SKN_STR2(x)
SKN_API const char *skn_version_string(void) {
  return SKN_STR(SKN_VERSION_MAJOR) "." SKN_STR(SKN_VERSION_MINOR) "." SKN_STR(SKN_VERSION_PATCH);
}
