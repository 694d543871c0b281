/* cusparse_check.h: CUS_TRY(call) for the cuSPARSE baselines
 * (cusparse_gpu.c, cusparse_spmm.c): a failed cuSPARSE call sets `st` to
 * CIS_ERR_CUSPARSE with file:line, the call and cuSPARSE's message, and
 * jumps to `cleanup`. */
#ifndef CISPARSE_GPU_CUSPARSE_CHECK_H
#define CISPARSE_GPU_CUSPARSE_CHECK_H

#include <cusparse.h>
#include "cisparse/status.h"

#define CUS_TRY(call)                                                                       \
  do {                                                                                      \
    cusparseStatus_t cs_ = (call);                                                          \
    if (cs_ != CUSPARSE_STATUS_SUCCESS) {                                                   \
      st = cis_error(CIS_ERR_CUSPARSE, "%s:%d: %s: %s", __FILE__, __LINE__, #call,          \
                     cusparseGetErrorString(cs_));                                          \
      goto cleanup;                                                                         \
    }                                                                                       \
  } while (0)

#endif
