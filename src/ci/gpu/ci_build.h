/* ci_build.h: launchers of ci_build.cu, the CI Hamiltonian built on the
 * device (extern "C", raw device pointers, stream last). The kernels run
 * src/ci/hamiltonian.c's row generation per thread with the host's own
 * Slater-Condon and lookup code (src/ci/ci_rules.h), so the device matrix
 * equals the host one bit for bit. */
#ifndef CISPARSE_CI_BUILD_H
#define CISPARSE_CI_BUILD_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include "cisparse/status.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device copies of the integrals (packed as in cis_fcidump) and of the
 * determinant space (as in ci_space_view, src/ci/ci_internal.h). */
typedef struct cis_ci_build_dev {
  int norb;
  cis_int ndet;
  const double *h1, *eri;       /* norb*norb; packed (ij|kl) */
  const uint64_t *astr, *bstr;  /* strings */
  const int32_t *atab, *btab;   /* string hash tables (position or -1) */
  uint64_t amask, bmask;
  const int64_t *aptr;          /* alpha position -> range in blist/dlist */
  const int32_t *blist, *dlist, *det_a, *det_b;
  int upper;                    /* 1: only J >= I (the upper triangle, symmetric storage) */
} cis_ci_build_dev;

/* Counting pass for rows row0 .. row0+nrows-1: count[k] = nonzeros of row
 * row0+k (with count = rowptr + 1, the input of cis_launch_ci_scan). */
cis_status cis_launch_ci_count(const cis_ci_build_dev *d, cis_int row0, cis_int nrows, int64_t *count,
                               cudaStream_t s);
/* rowptr[1..n] = inclusive prefix sum of itself (CUB): with rowptr[0] = 0 and
 * the counts above, the CSR row pointers. temp == NULL: only *temp_bytes is set. */
cis_status cis_launch_ci_scan(void *temp, size_t *temp_bytes, int64_t *rowptr, cis_int n, cudaStream_t s);
/* rel[k] = rowptr[row0 + k] - rowptr[row0], k = 0..nrows: offsets of the
 * rows of one chunk inside that chunk's buffers. */
cis_status cis_launch_ci_chunk_offsets(const int64_t *rowptr, cis_int row0, cis_int nrows, int32_t *rel,
                                       cudaStream_t s);
/* Fill pass for rows row0 .. row0+nrows-1: the (unsorted) nonzeros of row
 * row0+k into col/val from rel[k], at most rel[k+1]-rel[k] of them; a row
 * whose nonzeros are not exactly that many sets *bad (device int) to 1. */
cis_status cis_launch_ci_fill(const cis_ci_build_dev *d, cis_int row0, cis_int nrows, const int32_t *rel,
                              cis_idx *col, double *val, int *bad, cudaStream_t s);
/* Sort every row of a chunk by column (CUB segmented sort, segments
 * rel[k]..rel[k+1]) from (col_in, val_in) into (col_out, val_out).
 * temp == NULL: only *temp_bytes is set. */
cis_status cis_launch_ci_sort_rows(void *temp, size_t *temp_bytes, cis_int nitems, cis_int nrows,
                                   const int32_t *rel, const cis_idx *col_in, cis_idx *col_out,
                                   const double *val_in, double *val_out, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
