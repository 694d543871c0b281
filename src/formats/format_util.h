/* format_util.h: helpers the storage formats share (not public):
 *  - size checks that refuse padded arrays which overflow or exceed memory;
 *  - allocation of padded (column, value) slot arrays;
 *  - the one CPU SpMV of the ELLPACK family (ell, ellr, sell, sellr, sellcs);
 *  - the upper triangle both symmetric formats are built from;
 *  - text dumps of arrays. */
#ifndef CISPARSE_FORMAT_UTIL_H
#define CISPARSE_FORMAT_UTIL_H

#include <stdio.h>
#include "formats/format_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *total = a*b; CIS_ERR_OVERFLOW if a*b*unit_bytes overflows 64 bits,
 * CIS_ERR_TOO_LARGE (both sizes in GiB) if it exceeds this machine's memory.
 * `fmt` names the format, `what` the array ("padded slots", ...). */
cis_status cis_fmt_check_size(const char *fmt, const char *what, cis_int a, cis_int b,
                              cis_int unit_bytes, cis_int *total);

/* Allocate `slots` padding slots: *col filled with -1, *val with zeros of
 * dtype t. On failure both are NULL and the message names `what`. */
cis_status cis_fmt_alloc_slots(cis_idx **col, void **val, cis_int slots, cis_dtype t,
                               const char *what);

/* A column-major ELLPACK array cut into blocks of H rows (ELLPACK: one array
 * of leading dimension `ld` = rows read in blocks; sliced ELLPACK: slices of
 * S rows with ld = S). Slot k of local row r of block b is at
 * base(b) + k*ld + r, where base(b) = block_ptr ? block_ptr[b] : b*H and the
 * block's width is (block_ptr[b+1]-block_ptr[b])/H, or `width` without
 * block_ptr. Block position p = b*H + r is a row when p < rows; it is row
 * perm[p] when perm is set. rowlen (indexed by row) bounds the slot loop
 * (ELLPACK-R); otherwise padding (column < 0) is skipped. */
typedef struct cis_ellpack_view {
  cis_dtype dtype;
  cis_int rows, nblocks, H, ld, width;
  const int64_t *block_ptr;
  const cis_idx *col;
  const void *val;
  const cis_idx *rowlen;
  const cis_idx *perm;
} cis_ellpack_view;

/* y = alpha*A*x + beta*y for the view (OpenMP over blocks); beta == 0
 * overwrites y; y in original row order. */
cis_status cis_ellpack_spmv(const cis_ellpack_view *v, double alpha, const void *x, double beta,
                            void *y);

/* perm[p] = original row at sorted position p: A's rows sorted by decreasing
 * length (stable) inside each window of sigma rows; sigma > rows sorts all. */
cis_status cis_sell_sort_windows(const cis_csr *A, cis_int sigma, cis_idx *perm);

/* Threads per row P of the split SELL kernels (sell.cu; sell16 builds its
 * lanes with it): the largest power of two <= 32 with S*P <= 1024, all rows'
 * threads within one full wave of a device of `sms` multiprocessors (x 2048
 * threads) and >= 16 slots per thread on average, for rows_padded =
 * nslices*S rows and `slots` slots. Few long rows (the 32k CI matrix: 32768
 * rows of ~950) get P = 8, many rows (laplace3d: 4M rows of 7; ci 524k)
 * P = 1. Measured on the H200 (ci 32k, bench/NOTES.md): P = 1, 2, 4, 8, 16,
 * 32 -> 0.331, 0.181, 0.115, 0.101, 0.103, 0.108 ms. Then, while the
 * threads would still fit the wave twice over (a small matrix: its time is
 * the latency of each thread's chain of loads), P doubles until a thread
 * walks at most 4 slots (one round of loads in flight): bayer10, 13,436
 * rows of ~7 nonzeros, gets P = 4 (bench/NOTES.md, seventh session). */
int cis_sell_threads_per_row(cis_int rows_padded, cis_int S, cis_int slots, int sms);
/* The multiprocessors sell16 plans its lanes for (H100 and H200: 132). */
#define CIS_SELL16_PLAN_SMS 132

/* sell16's first pass (its build and cis_format_auto's byte estimate), for
 * slices of C rows in the order perm (NULL: identity) and `lanes` lanes per
 * row (the row's nonzero i in lane i mod lanes): base[s] = the slice's
 * smallest column (0 if empty), width[s] = its slots per row (lanes x the
 * longest lane's code count: 1 per nonzero, 3 where the delta from the
 * lane's previous column exceeds 16 bits), escapes[s] = those 3-code
 * nonzeros. OpenMP over slices. */
void cis_sell16_scan(const cis_csr *A, cis_int C, cis_int nslices, const cis_idx *perm, int lanes, int32_t *base,
                     int64_t *width, int64_t *escapes);
/* sell16's lanes for A with chunk C (cis_sell_threads_per_row on
 * CIS_SELL16_PLAN_SMS with nnz as the slots; option sell_p overrides, for
 * tests; 1 when C > 1024). */
int cis_sell16_lanes(const cis_csr *A, cis_int C);

/* The symmetric formats' input (csr_sym.c): *U = the upper triangle of A
 * (CIS_FLAG_UPPER) with values of type t, after checking A is symmetric
 * (cis_csr_upper_symmetric, relative tolerance 1e-12; an A flagged
 * CIS_FLAG_UPPER is taken as the triangle); *full_nnz = the whole matrix's
 * nonzeros (2 nnz(U) - stored diagonal). CIS_ERR_INVALID naming the first
 * asymmetric pair otherwise; *U is NULL on failure. */
cis_status cis_fmt_upper_of(const cis_csr *A, cis_dtype t, cis_csr **U, cis_int *full_nnz);

/* "label v0 v1 ...\n" for n entries of each kind of array. */
void cis_dump_idx(FILE *f, const char *label, const cis_idx *a, cis_int n);
void cis_dump_i64(FILE *f, const char *label, const int64_t *a, cis_int n);
void cis_dump_u16(FILE *f, const char *label, const uint16_t *a, cis_int n);
void cis_dump_u32(FILE *f, const char *label, const uint32_t *a, cis_int n);
void cis_dump_offsets(FILE *f, const char *label, const cis_offsets *o, cis_int n);
void cis_dump_vals(FILE *f, const char *label, const void *v, cis_dtype t, cis_int n);
/* CIS_OK, or CIS_ERR_IO naming the format if the stream had a write error. */
cis_status cis_dump_done(FILE *f, const char *fmt);

/* cis_format_auto_cpu with the thread count given (tests); auto.c. */
cis_status cis_format_auto_cpu_threads(const cis_csr *A, cis_dtype dtype, int threads, cis_format_choice *out);

#ifdef __cplusplus
}
#endif

#endif
