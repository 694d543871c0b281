/* cisparse/format.h: storage formats built from CSR (one opaque handle type,
 * one ops table per format behind it).
 *
 * Formats and their --format names:
 *   csr     CSR (Mahmoud et al. 2018 §3.1, Algorithm 1)
 *   ell     ELLPACK, padded to the longest row (§3.2, Algorithm 2)
 *   ellr    ELLPACK-R, ELLPACK plus row lengths (§3.3, Algorithm 3)
 *   sell    Sliced ELLPACK, slice size S (§3.4, Algorithm 4; SELL report)
 *   sellr   Sliced ELLPACK-R (§3.5, Algorithm 5)
 *   sellcs  SELL-C-sigma (Kreutzer et al. 2014): slices of C rows sorted by
 *           length inside windows of sigma rows; y returned in original order
 *   csb     Compressed Sparse Blocks, block size z (§3.6; Buluc et al. 2009)
 *   hyb     the hybrid ELLPACK+CSR CI format (§4.1, Algorithm 6)
 *   csr5    CSR5 (Liu & Vinter, ICS 2015)
 *   sell16  SELL-C-sigma with 16-bit column deltas along each lane of a row
 *           (the GPU kernel's threads per row, fixed at build); larger deltas
 *           escape in the slots (sigma = 1: no sort, no perm)
 * Symmetric storage (the upper triangle; built from a symmetric matrix or
 * one flagged CIS_FLAG_UPPER, refused for another; not in cis_format_count):
 *   csr-sym the upper triangle in CSR, 64-bit row pointers
 *   sym-seg column segments of row blocks (src/formats/sym_seg.h)
 * One list holds them all: src/formats/format_list.h.
 */
#ifndef CISPARSE_FORMAT_H
#define CISPARSE_FORMAT_H

#include <stdio.h>
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How BOUNDARY of the hybrid format is read. */
typedef enum cis_boundary_mode {
  CIS_BOUNDARY_COUNT = 0,  /* first BOUNDARY nonzeros of each row -> ELLPACK (Algorithm 6) */
  CIS_BOUNDARY_COLUMN = 1  /* columns 0..BOUNDARY-1 -> ELLPACK (Figure 2, §4.1 text) */
} cis_boundary_mode;

/* Build parameters; zero-initialise and set what you need, or use
 * cis_format_params_default(). A value < 0 (or 0 where noted) means "choose". */
typedef struct cis_format_params {
  cis_dtype dtype;               /* value type of the built format */
  cis_int slice;                 /* sell/sellr/sellcs slice rows S or C (default 32) */
  cis_int sigma;                 /* sellcs sort window (default 1024; 1 = no sort) */
  cis_int block;                 /* csb block size z, power of two (0 = choose) */
  cis_int boundary;              /* hyb BOUNDARY (< 0 = choose from the matrix) */
  cis_boundary_mode boundary_mode; /* hyb: count (default) or column */
  cis_int csr5_sigma;            /* csr5 tile height sigma (0 = choose) */
  int float_values;              /* sell16, dtype double only: 1 = values stored in float (4 bytes
                                    instead of 8), x, y and the sums stay double; opt-in: the
                                    product is that of A rounded to float (~6e-8 relative) */
} cis_format_params;

/* Defaults: double, S = 32, sigma = 1024, z chosen, BOUNDARY chosen (count mode). */
CIS_API cis_format_params cis_format_params_default(void);

typedef struct cis_matrix cis_matrix; /* a matrix in one storage format */

/* Build format `name` (a --format name above) from A. Validates A and the
 * parameters; CIS_ERR_NOT_FOUND for an unknown name. */
CIS_API cis_status cis_matrix_create(const cis_csr *A, const char *name, const cis_format_params *p,
                             cis_matrix **out);
/* Free; NULL accepted. */
CIS_API void cis_matrix_free(cis_matrix *M);

/* Exact bytes of the arrays the format stores (what the GPU will hold). */
CIS_API cis_int cis_matrix_bytes(const cis_matrix *M);
/* y = alpha*M*x + beta*y on the CPU (OpenMP), x and y of M's dtype, y in the
 * original row order. beta == 0 overwrites y. */
CIS_API cis_status cis_matrix_spmv(const cis_matrix *M, double alpha, const void *x, double beta, void *y);
/* Write the format's arrays as text (the paper's model "can produce the
 * components of each of the storage formats"). */
CIS_API cis_status cis_matrix_dump(const cis_matrix *M, FILE *f);

/* The handle's --format name, value type, size and true nonzero count (no padding). */
CIS_API const char *cis_matrix_format_name(const cis_matrix *M);
CIS_API cis_dtype cis_matrix_dtype(const cis_matrix *M);
CIS_API cis_int cis_matrix_rows(const cis_matrix *M);
CIS_API cis_int cis_matrix_cols(const cis_matrix *M);
CIS_API cis_int cis_matrix_nnz(const cis_matrix *M);
/* Number of formats any matrix can be stored in (the list above without
 * the symmetric storage) and the i-th one's --format name. */
CIS_API int cis_format_count(void);
CIS_API const char *cis_format_name(int i);
/* 1 if `name` is a symmetric storage format (the upper triangle of a
 * symmetric matrix: csr-sym, sym-seg), 0 for any other name or NULL. */
CIS_API int cis_format_is_symmetric(const char *name);

/* How a hybrid-format matrix (§4.1) was split: BOUNDARY as given or chosen
 * (a count or a column, see mode), the ELLPACK slots per row, and the
 * nonzeros left to the CSR part. */
typedef struct cis_hyb_split {
  cis_int boundary;
  cis_boundary_mode mode;
  cis_int width;
  cis_int csr_nnz;
} cis_hyb_split;
/* M's split when M is a hyb matrix. CIS_ERR_INVALID for NULL arguments or a
 * matrix of another format (naming it); *out is untouched then. */
CIS_API cis_status cis_matrix_hyb_split(const cis_matrix *M, cis_hyb_split *out);

/* The BOUNDARY the hybrid format chooses for A in the given mode (the rule
 * is documented in docs/formats.md and in src/formats/hyb.c); -1 with the error
 * recorded if A is NULL, the mode unknown or a workspace cannot be allocated. */
CIS_API cis_int cis_hyb_choose_boundary(const cis_csr *A, cis_boundary_mode mode);

/* The automatic choice (--format auto): a format, its GPU kernel and build
 * parameters for A, from A's size and row-length statistics alone: below 10^6
 * nonzeros csr/csr-vector; else sell (S = 32) or sellcs (C = 32, sigma =
 * 1024), whichever stores fewer bytes, when its padding is <= 5% -- or
 * sell16 with the same C and sigma when that stores <= 0.85 of its bytes
 * and rows hold >= 32 nonzeros on average;
 * else hyb (the rule is in
 * src/formats/auto.c and docs/formats.md; its measurements in bench/NOTES.md).
 * format/kernel point to static strings; params.dtype = dtype; reason is one
 * line naming the rule that decided. The statistics it read: mean and
 * longest row, and the padding of sliced ELLPACK with 32-row slices unsorted
 * (sell_fill = slots / nnz) and sorted inside 1024-row windows (sellcs_fill),
 * sell16_ratio = sell16's bytes over the sell/sellcs pick's and
 * sell16_escaped = the share of nonzeros it would store as escapes (both 0
 * where the rule did not reach them).
 * CIS_ERR_INVALID for NULL arguments, an unknown dtype or an invalid A. */
typedef struct cis_format_choice {
  const char *format;
  const char *kernel;
  cis_format_params params;
  double mean_row, sell_fill, sellcs_fill, sell16_ratio, sell16_escaped;
  cis_int max_row;
  char reason[160];
} cis_format_choice;
CIS_API cis_status cis_format_auto(const cis_csr *A, cis_dtype dtype, cis_format_choice *out);
/* The same choice for the CPU SpMV (a program that multiplies on the host
 * calls this one; cis_format_auto's rule is the GPU's): csr, unless one
 * chunk of 256 rows holds more than 2 nnz / T nonzeros for the T threads of
 * the library's kernels (cisparse/util.h cis_cpu_limit), then csr5 (shared
 * by nonzeros). kernel = format (the CPU has one kernel per format);
 * max_row and mean_row filled, the sell statistics 0. Errors as
 * cis_format_auto. */
CIS_API cis_status cis_format_auto_cpu(const cis_csr *A, cis_dtype dtype, cis_format_choice *out);

#ifdef __cplusplus
}
#endif
#endif
