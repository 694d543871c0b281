/* internal.h: helpers shared by the library's C sources (not public).
 *
 *  - cis_malloc/cis_calloc/cis_realloc: checked allocation with a test hook
 *    that makes the N-th allocation fail (CSparse-style OOM testing);
 *  - cis_mul_overflows: 64-bit size arithmetic checks;
 *  - CIS_TRY: call, and on failure jump to the function's single `cleanup:`;
 *  - CIS_FOR_DTYPE: write a type-generic body once for double and float. */
#ifndef CISPARSE_INTERNAL_H
#define CISPARSE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "cisparse/status.h"
#include "cisparse/types.h"
#include "cisparse/util.h"
#include "util/host.h"
/* Every public declaration (CIS_API: exported) before any definition. */
#include "cisparse/cisparse.h"

void *cis_malloc(size_t n);             /* NULL on failure (or injected failure) */
void *cis_calloc(size_t count, size_t size);
void *cis_realloc(void *p, size_t n);
/* cis_free: cisparse/types.h (public). */
/* Make the n-th allocation from now fail (n >= 1); 0 disables. Returns the
 * number of allocations made since the last call (for test loops). */
int64_t cis_alloc_fail_after(int64_t n);
/* Fill every new cis_malloc'd block (cis_alloc_array's; not cis_calloc's or
 * cis_realloc's) with the byte b from now on (0xff: NaN doubles), as glibc's MALLOC_PERTURB_ does
 * for small blocks only: a test's proof that nothing reads memory it never
 * wrote; -1 (the default) disables. Returns the previous setting. */
int cis_alloc_poison(int b);

/* a*b into *r; 1 if it would overflow int64 (a, b >= 0). */
int cis_mul_overflows(int64_t a, int64_t b, int64_t *r);
/* Allocate count*size bytes with an overflow check; sets the error message
 * naming `what` on failure. */
cis_status cis_alloc_array(void **p, int64_t count, size_t size, const char *what);
cis_status cis_alloc_zeroed(void **p, int64_t count, size_t size, const char *what);

/* OpenMP threads for a kernel over `work` units (values, nonzeros) of which
 * one thread should have at least `grain`: 1 for small work, at most
 * cis_threads(). cis_threads: omp_get_max_threads() capped by cis_cpu_limit()
 * (util.h) unless OMP_NUM_THREADS is set. Grains: one thread per this many
 * vector values or nonzeros (a few tens of microseconds of work each). */
int cis_threads(void);
int cis_threads_for(int64_t work, int64_t grain);
/* The parallel regions that the calling thread starts next take
 * cis_threads_for(work, grain) threads (omp_set_num_threads) until
 * cis_threads_restore(the value returned): for kernels whose regions are
 * written elsewhere (every format's SpMV). */
int cis_threads_limit(int64_t work, int64_t grain);
void cis_threads_restore(int prev);
#define CIS_GRAIN_VECTOR 32768
#define CIS_GRAIN_NNZ 32768
/* x[0 .. n) = 0 written by cis_threads_for(n, CIS_GRAIN_VECTOR) threads:
 * the first touch of freshly allocated pages spread over the cores (a large
 * copy or device download into pages no thread has touched pays their page
 * faults one by one on the copying thread). */
void cis_first_touch(double *x, int64_t n);
/* dst[0 .. n) = src[0 .. n) by the threads of cis_first_touch: a copy into
 * fresh pages, their first touch spread over the cores. */
void cis_copy_doubles(double *dst, const double *src, int64_t n);
/* The nonzeros of x[0 .. n) in index order into idx/val (room for max), by
 * threads; returns their count, or -1 (idx/val partly written) when there
 * are more than max: a quick test of whether a vector is sparse. */
int64_t cis_nonzeros(const double *x, int64_t n, int64_t max, int64_t *idx, double *val);
/* The first i < n with x[i] NaN or infinite (by threads), or -1. */
int64_t cis_first_nonfinite(const double *x, int64_t n);

/* cis_phys_memory, cis_wtime, cis_median: util/host.h. */
/* Bytes of host memory available now (MemAvailable; the physical memory
 * where /proc/meminfo cannot be read). */
int64_t cis_available_memory(void);

#define CIS_TRY(call)                 \
  do {                                \
    st = (call);                      \
    if (st != CIS_OK) goto cleanup;   \
  } while (0)

/* Run the body (a braced block) with REAL typedef'd to the value type of
 * dtype `t`: float and double from one source. Inside the body write OpenMP
 * pragmas as CIS_PRAGMA(omp parallel for ...). */
#define CIS_FOR_DTYPE(t, ...)                  \
  do {                                         \
    if ((t) == CIS_F64) {                      \
      typedef double REAL;                     \
      __VA_ARGS__                              \
    } else {                                   \
      typedef float REAL;                      \
      __VA_ARGS__                              \
    }                                          \
  } while (0)
#define CIS_PRAGMA(x) _Pragma(#x)

/* Sort n keys ascending in place (quicksort + insertion sort, sort.c). */
void cis_sort_idx(cis_idx *a, int64_t n);
void cis_sort_u64(uint64_t *a, int64_t n);

/* cis_get / cis_set (value array elements): cisparse/types.h. */

/* ---- moved from cisparse/types.h: internal, not exported --------------------------------- */

/* Value i of A as double (either dtype). */
double csr_value(const cis_csr *A, cis_int i);

/* Largest row length and (optionally) its first row index. */
cis_int csr_max_row(const cis_csr *A, cis_int *row_index);

/* The same in double with alpha = 1, beta = 0 (CIS_ERR_INVALID for float U). */
cis_status csr_symv_upper(const cis_csr *U, const double *x, double *y);

/* COO with capacity cap. */
cis_status coo_alloc(cis_int rows, cis_int cols, cis_int cap, cis_dtype t, cis_coo **out);

/* Free a COO and its arrays; NULL is accepted. */
void coo_free(cis_coo *A);

/* Append one triplet (0-based), growing capacity as needed. */
cis_status coo_push(cis_coo *A, cis_idx i, cis_idx j, double v);

/* COO -> CSR: sort by (row, col), sum duplicates. Explicit zeros are kept. */
cis_status coo_to_csr(const cis_coo *A, cis_csr **out);

/* From a stored triangle (lower or upper) build the full matrix: mirror every
 * off-diagonal entry, negated when skew != 0. */
cis_status csr_symmetric_expand(const cis_csr *T, int skew, cis_csr **out);

/* B = rows of A permuted: row i of B is row perm[i] of A (perm a permutation
 * of 0..rows-1, checked). */
cis_status csr_permute_rows(const cis_csr *A, const cis_idx *perm, cis_csr **out);

/* The upper triangle (j >= i) of a square A, flagged CIS_FLAG_UPPER. */
cis_status csr_upper(const cis_csr *A, cis_csr **out);

/* Rows r0..r1-1 of A (0 <= r0 <= r1 <= rows) as a new CSR of r1-r0 rows and
 * A's columns, values and dtype (no flags): what a distributed matrix's row
 * builder returns. CIS_ERR_INVALID on a bad range. */
cis_status csr_rows(const cis_csr *A, cis_int r0, cis_int r1, cis_csr **out);

#endif
