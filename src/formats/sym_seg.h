/* sym_seg.h: symmetric storage by column segments of row blocks ("sym-seg"),
 * the layout the GPU kernel sym-seg (src/kernels/sym_seg.cu) reads, its
 * builder from an upper triangle and its CPU reference.
 *
 * A symmetric A is stored as its diagonal (dense) and its strict upper
 * triangle. The rows are cut into blocks of R rows; the strict-upper
 * entries of block I (rows I*R ... I*R+R-1) are sorted by column.
 * The entries of one column form a segment. The product then reads each
 * entry a = A(i, j), i < j, once and uses it twice:
 *   forward  y_i += a x_j  (i is inside the block: a window of R values),
 *   mirror   y_j += a x_i  (summed over the segment first: one update of y_j
 *                           per segment instead of one per entry).
 * This is the symmetric case of Buluc, Fineman, Frigo, Gilbert, Leiserson
 * (SPAA 2009: each stored nonzero used for A x and A^T x, block rows kept
 * in fast memory), with the column-sorted block rows making the transpose
 * side a segmented sum (Sengupta, Harris, Zhang, Owens, Graphics Hardware
 * 2007) rather than one atomic per entry (csr-sym, Gkountouvas et al. IPDPS
 * 2013).
 *
 * Inside a segment the entries are in no particular row order: the builder
 * orders each piece for the GPU kernel's shared-memory banks (sym_seg.c,
 * piece_balance; the kernel's lane l takes entries l*E ... l*E+E-1 of a
 * piece, E = CIS_SYM_SEG_PIECE / 32).
 * Arrays (entries = each block's strict-upper count rounded up to a whole
 * number of pieces of CIS_SYM_SEG_PIECE entries; a piece never spans two
 * blocks):
 *   lr[entries]        uint16: bit 15 = first entry of a segment (head),
 *                      bits 0..14 = row within the block; padding is
 *                      CIS_SYM_SEG_PAD (no head bit, value 0) and only ends a
 *                      block;
 *   val[entries]       values of dtype;
 *   segcol[segments]   the column of each segment, in entry order;
 *   piece_heads[p]     heads in all entries before piece p (so the segment of
 *                      an entry is piece_heads + heads in its piece up to and
 *                      including it - 1);
 *   block_piece[b]     first piece of block b (blocks + 1 entries);
 *   block_bound[b]     the largest sum of |a| that reaches one row of block
 *                      b's window: over the rows w of the block, the sum of
 *                      |A(w, j)| of its stored entries plus |A(i, w)| of the
 *                      block's entries with column w (the GPU kernel sums the
 *                      window in fixed point scaled by this bound times
 *                      max|x|; NaN or Inf when a value is);
 *   diag[n]            A(i, i) (0 where not stored).
 * Bytes: entries*(2 + vs) + segments*4 + pieces*8 + (blocks+1)*8 + blocks*8
 * + n*vs. */
#ifndef CISPARSE_SYM_SEG_H
#define CISPARSE_SYM_SEG_H

#include <stdint.h>
#include "cisparse/types.h"

#ifndef CIS_SYM_SEG_PIECE /* (a build may set it, for a study: 32 lanes x a multiple of 4) */
#define CIS_SYM_SEG_PIECE 256 /* entries per piece: 32 lanes x 8 consecutive (H2O FCI, H200: 2.68 ms, 128: 3.18 ms) */
#endif
#define CIS_SYM_SEG_HEAD 0x8000u
#define CIS_SYM_SEG_PAD 0x7FFFu
#define CIS_SYM_SEG_MAX_R 16384 /* rows of a block: local rows below CIS_SYM_SEG_PAD */
#define CIS_SYM_SEG_WINDOW_BYTES 65536 /* the most of y the GPU kernel keeps in shared memory (8 bytes a row) */

typedef struct cis_sym_seg {
  cis_dtype dtype;
  cis_int n, R, blocks;
  cis_int entries, segments, pieces;
  cis_int strict; /* strict-upper nonzeros (entries without padding) */
  uint16_t *lr;
  void *val;
  cis_idx *segcol;
  int64_t *piece_heads;
  int64_t *block_piece;
  double *block_bound;
  void *diag;
} cis_sym_seg;

/* The layout of the upper triangle U (CIS_FLAG_UPPER, square, sorted
 * columns, none below the diagonal; values kept in U's dtype) with blocks of
 * R rows, 32 <= R <= CIS_SYM_SEG_MAX_R. CIS_ERR_INVALID on other input
 * (naming the row), CIS_ERR_ALLOC naming the array when memory runs out or
 * when the layout would not fit in the host memory available. OpenMP over
 * blocks. */
cis_status cis_sym_seg_build(const cis_csr *U, cis_int R, cis_sym_seg **out);

/* An upper triangle read block by block (one stored elsewhere, e.g. on a
 * GPU): n rows of dtype, the row pointers on the host, and fetch(), which
 * copies entries k0 ... k1-1 into col and (when not NULL) val. fetch is
 * called from several OpenMP threads at once. */
typedef struct cis_sym_seg_source {
  cis_int n;
  cis_dtype dtype;
  const cis_int *rowptr;
  cis_status (*fetch)(void *ctx, cis_int k0, cis_int k1, cis_idx *col, void *val);
  void *ctx;
} cis_sym_seg_source;
/* cis_sym_seg_build from a source: the whole triangle is never held on the
 * host, only each thread's block at a time (entries read twice: columns to
 * count, then columns and values). */
cis_status cis_sym_seg_build_from(const cis_sym_seg_source *src, cis_int R, cis_sym_seg **out);
void cis_sym_seg_free(cis_sym_seg *S);
/* Bytes of the arrays above. */
cis_int cis_sym_seg_bytes(const cis_sym_seg *S);
/* CPU reference of the GPU kernel: y = alpha*A*x + beta*y (x, y of
 * S->dtype; beta == 0 ignores y), decoding segments through piece_heads as
 * the kernel does, sums in double. */
cis_status cis_sym_seg_spmv(const cis_sym_seg *S, double alpha, const void *x, double beta, void *y);
/* Rows per block: 32 KiB of x values (4096 doubles, 8192 floats: the GPU
 * kernel keeps x_I and the block's fixed-point window of y, 8 bytes a row,
 * in shared memory; on the H2O FCI Hamiltonian (H200, 2026-11-24) 4096
 * rows took 3.31 ms, 8192 rows 3.51 ms, 2048 rows 3.31 ms), or
 * option sym_seg_r when set between 32 and CIS_SYM_SEG_WINDOW_BYTES / 8;
 * at most n rounded up to 32. */
cis_int cis_sym_seg_rows(cis_int n, cis_dtype t);

#endif
