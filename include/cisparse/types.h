/* cisparse/types.h: index and value types, host CSR and COO matrices.
 *
 * Counts (rows, cols, nnz, row pointers) are 64-bit (cis_int) so that
 * nnz > 2^31 is representable. Row and column indices are 32-bit (cis_idx);
 * matrices with rows or cols >= 2^31 are refused with CIS_ERR_OVERFLOW.
 * Values are double or float (cis_dtype); arrays of values are void* and
 * their element size is cis_dtype_size(dtype). */
#ifndef CISPARSE_TYPES_H
#define CISPARSE_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include "cisparse/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t cis_int;
typedef int32_t cis_idx;
#define CIS_IDX_MAX INT32_MAX

typedef enum cis_dtype { CIS_F64 = 0, CIS_F32 = 1 } cis_dtype;

/* Bytes per value: 8 for CIS_F64, 4 for CIS_F32. */
CIS_API size_t cis_dtype_size(cis_dtype t);
/* "double" or "float". */
CIS_API const char *cis_dtype_name(cis_dtype t);

/* Element i of a value array v of dtype t, read as double / written from a
 * double (rounded to float for CIS_F32). No checks: i must be in range. */
static inline double cis_get(const void *v, cis_dtype t, int64_t i) {
  return t == CIS_F64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}
static inline void cis_set(void *v, cis_dtype t, int64_t i, double x) {
  if (t == CIS_F64) ((double *)v)[i] = x; else ((float *)v)[i] = (float)x;
}

/* Matrix property flags (cis_csr.flags). */
enum {
  CIS_FLAG_NONFINITE = 1 << 0, /* values hold NaN or Inf (accepted, flagged by info) */
  CIS_FLAG_SYMMETRIC = 1 << 1, /* source declared symmetric (stored expanded) */
  CIS_FLAG_SKEW = 1 << 2,      /* source declared skew-symmetric (stored expanded) */
  CIS_FLAG_PATTERN = 1 << 3,   /* source had no values (all 1.0) */
  CIS_FLAG_UPPER = 1 << 4      /* only the upper triangle is stored (symmetric storage) */
};

/* Compressed sparse row, columns sorted and unique within each row. */
typedef struct cis_csr {
  cis_int rows, cols, nnz;
  cis_dtype dtype;
  int flags;
  cis_int *rowptr; /* rows + 1 */
  cis_idx *colind; /* nnz */
  void *val;       /* nnz values of dtype */
} cis_csr;

/* Coordinate list (triplets), any order, duplicates allowed until compressed. */
typedef struct cis_coo {
  cis_int rows, cols, nnz, cap;
  cis_dtype dtype;
  int flags;
  cis_idx *row, *col; /* cap */
  void *val;          /* cap values of dtype */
} cis_coo;

/* Allocate an rows x cols CSR with room for nnz entries; rowptr zeroed.
 * Refuses rows/cols >= 2^31 (CIS_ERR_OVERFLOW) and sizes whose byte count
 * overflows. *out is NULL on failure. */
CIS_API cis_status cis_csr_alloc(cis_int rows, cis_int cols, cis_int nnz, cis_dtype t, cis_csr **out);
/* Free a CSR and its arrays; NULL is accepted. */
CIS_API void cis_csr_free(cis_csr *A);
/* Check the structure: rowptr monotone from 0 to nnz, columns in range,
 * sorted and unique per row. CIS_ERR_INVALID naming the first violation
 * (CIS_ERR_RANGE for a column out of range). */
CIS_API cis_status cis_csr_check(const cis_csr *A);
/* Deep copy, optionally converting values to dtype t. */
CIS_API cis_status cis_csr_copy(const cis_csr *A, cis_dtype t, cis_csr **out);
/* Exact bytes of the three CSR arrays (64-bit row pointers). */
CIS_API cis_int cis_csr_bytes(const cis_csr *A);
/* Nonzeros of row i with column < bound (bisection: columns are sorted). */
CIS_API cis_int cis_csr_row_count_below(const cis_csr *A, cis_int i, cis_int bound);

/* y = alpha*A*x + beta*y with x, y of A's dtype: the reference SpMV
 * (OpenMP over rows). beta == 0 overwrites y (NaN in y does not propagate). */
CIS_API cis_status cis_csr_spmv(const cis_csr *A, double alpha, const void *x, double beta, void *y);

/* y = alpha*A*x + beta*y for a symmetric A stored as its upper triangle U
 * (flag CIS_FLAG_UPPER, square; either dtype, x and y of U's dtype): per-thread
 * partial y for the mirrored part, summed at the end; deterministic for a
 * fixed thread count. beta == 0 overwrites y. */
CIS_API cis_status cis_csr_symv(const cis_csr *U, double alpha, const void *x, double beta, void *y);

/* Free memory that a cisparse function returned for the caller to release
 * (e.g. the vector of cis_vector_read); NULL is accepted. Objects with their
 * own free function (cis_csr_free, cis_matrix_free, ...) go through that. */
CIS_API void cis_free(void *p);

/* What `cisparse info` prints about a matrix (Mahmoud et al. 2018, §4.2,
 * Tables 3-4): size, nonzeros per row, NaN/Inf count and the nonzeros and
 * sparsity (fraction of zeros) of the Reference region (columns
 * [0, ref_cols)) and the Expansion Space region (the other columns). */
typedef struct cis_csr_stats {
  cis_int rows, cols, nnz;
  cis_int row_min, row_max, row_max_at; /* nonzeros per row; row_max_at: first longest row */
  double row_avg;
  cis_int nonfinite;                    /* NaN/Inf values */
  cis_int ref_cols;                     /* Reference region: columns [0, ref_cols) */
  cis_int nnz_ref, nnz_exp;
  double sp_ref, sp_exp, sp_total;      /* fraction of zeros; NaN for an empty region */
} cis_csr_stats;
/* Statistics of A. ref_cols >= 0 sets the Reference region; ref_cols < 0
 * chooses it as the hybrid format's column boundary
 * (cis_hyb_choose_boundary(A, CIS_BOUNDARY_COLUMN)). CIS_ERR_INVALID for NULL
 * arguments or ref_cols > cols. */
CIS_API cis_status cis_csr_stats_get(const cis_csr *A, cis_int ref_cols, cis_csr_stats *out);

/* B = A^T. */
CIS_API cis_status cis_csr_transpose(const cis_csr *A, cis_csr **out);
/* The upper triangle of A for symmetric storage, after checking that A is
 * symmetric: the same pattern mirrored and |a_ij - a_ji| <= tol *
 * max(|a_ij|, |a_ji|) (tol = 0: bitwise equal values; the stored value is
 * a_ij, i <= j). A non-square or non-symmetric A is refused with
 * CIS_ERR_INVALID naming the first offending pair (1-based) -- never halved
 * silently. An A flagged CIS_FLAG_UPPER is checked (no entry below the
 * diagonal) and copied. OpenMP over rows. */
CIS_API cis_status cis_csr_upper_symmetric(const cis_csr *A, double tol, cis_csr **out);

/* Layout of a block of k dense vectors of n entries: row-major (entry (i, c)
 * at i*ld + c, ld >= k) or column-major (c*ld + i, ld >= n). */
typedef enum cis_layout { CIS_ROW_MAJOR = 0, CIS_COL_MAJOR = 1 } cis_layout;
/* Y = alpha*A*X + beta*Y for k >= 1 vectors (the CPU reference of
 * cis_gpu_spmm): X A->cols x k, Y A->rows x k of A's dtype in `layout`
 * with leading dimensions ldx, ldy. A flagged CIS_FLAG_UPPER is the upper
 * triangle of a symmetric matrix (cis_csr_symv per vector). beta == 0
 * overwrites Y. */
CIS_API cis_status cis_csr_spmm(const cis_csr *A, int k, double alpha, const void *X, cis_int ldx, double beta,
                                void *Y, cis_int ldy, cis_layout layout);

#ifdef __cplusplus
}
#endif
#endif
