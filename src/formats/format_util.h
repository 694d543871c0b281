/* format_util.h: helpers the storage formats share (not public):
 *  - size checks that refuse padded arrays which overflow or exceed memory;
 *  - allocation of padded (column, value) slot arrays;
 *  - the one CPU SpMV of the ELLPACK family (ell, ellr, sell, sellr, sellcs);
 *  - text dumps of arrays. */
#ifndef CISPARSE_FORMAT_UTIL_H
#define CISPARSE_FORMAT_UTIL_H

#include <stdio.h>
#include "formats/format_types.h"

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

/* sell16's first pass (its build and cis_format_auto's byte estimate): for
 * slices of C rows in the order perm (NULL: identity), base[s] = the
 * slice's smallest column (its 16-bit window start; 0 if empty), width[s] =
 * the longest count of a row's columns inside [base[s], base[s] + 65534]
 * (the slice's near slots per row), far[pos] = the row at position pos's
 * columns outside that window (its escaped entries). OpenMP over slices. */
void cis_sell16_scan(const cis_csr *A, cis_int C, cis_int nslices, const cis_idx *perm, int32_t *base,
                     int64_t *width, int64_t *far);

/* "label v0 v1 ...\n" for n entries of each kind of array. */
void cis_dump_idx(FILE *f, const char *label, const cis_idx *a, cis_int n);
void cis_dump_i64(FILE *f, const char *label, const int64_t *a, cis_int n);
void cis_dump_u16(FILE *f, const char *label, const uint16_t *a, cis_int n);
void cis_dump_u32(FILE *f, const char *label, const uint32_t *a, cis_int n);
void cis_dump_offsets(FILE *f, const char *label, const cis_offsets *o, cis_int n);
void cis_dump_vals(FILE *f, const char *label, const void *v, cis_dtype t, cis_int n);
/* CIS_OK, or CIS_ERR_IO naming the format if the stream had a write error. */
cis_status cis_dump_done(FILE *f, const char *fmt);

#endif
