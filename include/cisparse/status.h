/* cisparse/status.h: status codes and the last error message.
 *
 * Every cisparse function that can fail returns a cis_status. On failure it
 * also records one line naming the problem (for file input: "FILE:LINE: what"),
 * readable with cis_last_error() on the same thread until the next failure. */
#ifndef CISPARSE_STATUS_H
#define CISPARSE_STATUS_H

#include "cisparse/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cis_status {
  CIS_OK = 0,
  CIS_ERR_INVALID = 1,      /* bad argument or inconsistent request */
  CIS_ERR_ALLOC = 2,        /* host memory allocation failed */
  CIS_ERR_IO = 3,           /* cannot open, read or write a file */
  CIS_ERR_PARSE = 4,        /* malformed input file */
  CIS_ERR_RANGE = 5,        /* index out of range */
  CIS_ERR_OVERFLOW = 6,     /* a size would overflow 64 bits or the index type */
  CIS_ERR_TOO_LARGE = 7,    /* request exceeds available memory */
  CIS_ERR_UNSUPPORTED = 8,  /* valid but not supported (e.g. complex MM) */
  CIS_ERR_NOT_FOUND = 9,    /* unknown format, kernel or generator name */
  CIS_ERR_NO_GPU = 10,      /* no CUDA device, or built without CUDA */
  CIS_ERR_CUDA = 11,        /* CUDA runtime error */
  CIS_ERR_DEVICE_OOM = 12,  /* GPU out of memory */
  CIS_ERR_CUSPARSE = 13,    /* cuSPARSE/cuBLAS error */
  CIS_ERR_NOT_CONVERGED = 14,/* iterative method did not converge */
  CIS_ERR_NUMERIC = 15,     /* NaN/Inf where a finite number is required */
  CIS_ERR_BREAKDOWN = 16    /* a Krylov recurrence broke down (division by zero) */
} cis_status;

/* Short fixed name of a status code ("invalid argument", ...). Never NULL. */
CIS_API const char *cis_status_name(cis_status s);

/* The message recorded by the last failing call on this thread ("" if none). */
CIS_API const char *cis_last_error(void);

/* Record a printf-style message for status s and return s. Library-internal
 * use and for callers layering their own errors on cisparse. */
CIS_API cis_status cis_error(cis_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clear the recorded message. */
CIS_API void cis_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
