/* status.c: status names and the per-thread last error message. */
#include <stdarg.h>
#include <stdio.h>
#include "cisparse/status.h"

static _Thread_local char last_error[512];

const char *cis_status_name(cis_status s) {
  switch (s) {
    case CIS_OK: return "ok";
    case CIS_ERR_INVALID: return "invalid argument";
    case CIS_ERR_ALLOC: return "out of host memory";
    case CIS_ERR_IO: return "I/O error";
    case CIS_ERR_PARSE: return "malformed input";
    case CIS_ERR_RANGE: return "index out of range";
    case CIS_ERR_OVERFLOW: return "size overflow";
    case CIS_ERR_TOO_LARGE: return "too large for available memory";
    case CIS_ERR_UNSUPPORTED: return "unsupported";
    case CIS_ERR_NOT_FOUND: return "not found";
    case CIS_ERR_NO_GPU: return "no GPU";
    case CIS_ERR_CUDA: return "CUDA error";
    case CIS_ERR_DEVICE_OOM: return "out of GPU memory";
    case CIS_ERR_CUSPARSE: return "cuSPARSE/cuBLAS error";
    case CIS_ERR_NOT_CONVERGED: return "not converged";
    case CIS_ERR_NUMERIC: return "non-finite value";
    case CIS_ERR_BREAKDOWN: return "solver breakdown";
  }
  return "unknown status";
}

const char *cis_last_error(void) { return last_error; }

void cis_clear_error(void) { last_error[0] = '\0'; }

/* Length of the valid UTF-8 sequence at s (2..4), or 0. */
static int utf8_len(const unsigned char *s) {
  int n = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
  for (int k = 1; k < n; ++k)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return n;
}

cis_status cis_error(cis_status s, const char *fmt, ...) {
  char raw[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  /* One line, and no raw bytes of a bad input token for the terminal:
   * line breaks and tabs become spaces, other control bytes and bytes that
   * are not UTF-8 become \xHH (valid UTF-8 is kept). */
  size_t o = 0;
  for (const unsigned char *c = (const unsigned char *)raw; *c && o + 5 < sizeof last_error;) {
    int n = *c >= 0x80 ? utf8_len(c) : 1;
    if (*c == '\n' || *c == '\r' || *c == '\t') {
      last_error[o++] = ' ';
    } else if (n == 0 || *c < 0x20 || *c == 0x7F) {
      o += (size_t)snprintf(last_error + o, sizeof last_error - o, "\\x%02X", *c);
      n = 1;
    } else {
      if (o + (size_t)n >= sizeof last_error) break;
      for (int k = 0; k < n; ++k) last_error[o++] = (char)c[k];
    }
    c += n;
  }
  last_error[o] = '\0';
  return s;
}
