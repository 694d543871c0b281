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

cis_status cis_error(cis_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  /* keep it one line */
  for (char *c = last_error; *c; ++c)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return s;
}
