/* launchers.h: the extern "C" launchers of the src/kernels .cu files. Each takes raw
 * device pointers and the stream last, checks the launch and returns a
 * cis_status. Kernels know nothing of the object layer: the plan layer
 * (src/gpu) unpacks its structs into these arguments. block = threads per
 * block (0 = the kernel's default). y = alpha*A*x + beta*y; beta == 0
 * overwrites y without reading it. */
#ifndef CISPARSE_LAUNCHERS_H
#define CISPARSE_LAUNCHERS_H

#include <cuda_runtime.h>
#include <stdint.h>
#include "cisparse/status.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif


/* csr.cu: Algorithm 1 (scalar) and warp per row (vector). wide: 64-bit rowptr. */
cis_status cis_launch_csr(int vector, cis_dtype t, int wide, cis_int rows, const void *rowptr,
                          const cis_idx *col, const void *val, double alpha, const void *x,
                          double beta, void *y, int block, cudaStream_t s);
/* ell.cu: Algorithms 2 and 3 (rowlen NULL = ELLPACK). */
cis_status cis_launch_ell(cis_dtype t, cis_int rows, cis_int width, const cis_idx *col,
                          const void *val, const cis_idx *rowlen, double alpha, const void *x,
                          double beta, void *y, int block, cudaStream_t s);
/* The split kernel's tuning, fixed when a plan is made (a product reads no
 * environment: on a 5 us product of a small matrix that showed): P threads
 * per row, U loads in flight, at most bpsm blocks per multiprocessor (0 =
 * no cap). */
typedef struct cis_sell_tuning {
  int P, U, bpsm;
} cis_sell_tuning;
/* The tuning of vectors of t: P = lanes when lanes > 0 (sell16's layout
 * fixes it), else option sell_p or cis_sell_threads_per_row for slices
 * of S rows, nslices slices and `slots` slots on the current device; U =
 * option sell_u or 4 (double) / 8 (float); bpsm = option sell_bpsm or
 * 0 (bench/NOTES.md, "Tuning overrides"). */
cis_status cis_sell_tuning_get(cis_dtype t, cis_int S, cis_int nslices, cis_int slots, int lanes,
                               cis_sell_tuning *out);
/* sell.cu: SELL / SELL-R (rowlen) / SELL-C-sigma (perm); tune from
 * cis_sell_tuning_get. row_kernel 0: the split kernel (S*P threads per
 * slice), 1: thread per row (the report's kernel; also used for S > 1024). */
cis_status cis_launch_sell(cis_dtype t, int row_kernel, cis_int rows, cis_int S, cis_int nslices,
                           const cis_sell_tuning *tune, const int64_t *slice_ptr, const cis_idx *col,
                           const void *val, const cis_idx *rowlen, const cis_idx *perm,
                           double alpha, const void *x, double beta, void *y, int block,
                           cudaStream_t s);
/* sell.cu: sell16 (16-bit column deltas in tune->P lanes per row, escapes
 * in the slots: format_types.h; perm NULL = identity), the split kernel's
 * work division; block 0 = default. x, y of t, values of vt (t, or float
 * under double). */
cis_status cis_launch_sell16(cis_dtype t, cis_dtype vt, cis_int rows, cis_int C, const cis_sell_tuning *tune,
                             cis_int nslices,
                             const int64_t *slice_ptr, const int32_t *base, const uint16_t *off,
                             const void *val, const cis_idx *perm, double alpha, const void *x,
                             double beta, void *y, int block, cudaStream_t s);
/* csb.cu: one thread block per block row. */
cis_status cis_launch_csb(cis_dtype t, cis_int rows, cis_int z, cis_int nbr, cis_int nbc,
                          const int64_t *block_ptr, const uint16_t *lrow, const uint16_t *lcol,
                          const void *val, double alpha, const void *x, double beta, void *y,
                          int block, cudaStream_t s);
/* hyb.cu: the hybrid format's arrays as the kernels read them. */
typedef struct cis_hyb_dev {
  cis_dtype t;
  int wide;          /* start/end 64-bit */
  int column_mode;   /* boundary mode column: test start < end, not rownnz > width */
  cis_int rows, cols, width, nnz;
  const cis_idx *ell_col;
  const void *ell_val;
  const uint32_t *rownnz;
  const void *start, *end;
  const cis_idx *csr_col;
  const void *csr_val;
} cis_hyb_dev;
cis_status cis_launch_hyb_paper(const cis_hyb_dev *h, double alpha, const void *x, double beta,
                                void *y, int block, cudaStream_t s);
cis_status cis_launch_hyb_fast(const cis_hyb_dev *h, double alpha, const void *x, double beta,
                               void *y, int block, cudaStream_t s);
/* The fast kernel's variant for h with values of value_bytes bytes: *lock
 * (the phase-locked block size, 0 = unlocked), *g (lanes per row) and *u
 * (loads in flight per lane), by hyb.cu's rule and the options hyb_lock,
 * hyb_g, hyb_unroll; unlocked = 1 for a caller that has only the unlocked
 * kernel (the Krylov layer's SpMV-plus-dots): *lock 0 and G as unlocked.
 * The one place the rule lives. */
void cis_hyb_fast_variant(const cis_hyb_dev *h, size_t value_bytes, int unlocked, int *lock, int *g, int *u);

/* csr_sym.cu: symmetric CSR (upper triangle + diagonal, 64-bit row
 * pointers). det = 0: csr-sym (float atomics); det = 1: csr-sym-det (the
 * mirror images in 64-bit fixed point: acc = rows zeroed words, xmax = one
 * word, colmax = the largest strict-upper column sum of |U|, from
 * cis_launch_csr_sym_colmax at plan creation). */
typedef struct cis_csr_sym_dev {
  cis_dtype t;
  cis_int rows, nnz;
  const int64_t *rowptr;
  const cis_idx *col;
  const void *val;
  int det;
  int window;        /* csr-sym-win: shared-memory window of y (atomics variant) */
  unsigned long long *acc, *xmax;
  double colmax;
  struct cis_sym_seg_dev *seg; /* sym-seg: its own arrays (rowptr, col, val NULL) */
} cis_csr_sym_dev;
cis_status cis_launch_csr_sym(const cis_csr_sym_dev *d, double alpha, const void *x, double beta, void *y,
                              int block, cudaStream_t s);
/* *out = bits of max_j sum_{i<j} |U_ij| (colsum: rows doubles of workspace). */
cis_status cis_launch_csr_sym_colmax(const cis_csr_sym_dev *d, double *colsum, unsigned long long *out,
                                     cudaStream_t s);
/* Threads per row of the symmetric kernels for a mean row length nnz/rows. */
int cis_sym_group(cis_int rows, cis_int nnz);

/* sym_seg.cu: symmetric A in the sym-seg layout (src/formats/sym_seg.h),
 * with a chunk table: chunk c is the pieces chunk_piece[c] ...
 * chunk_piece[c+1] - 1, all of block row chunk_block[c]; xmax is one word
 * of workspace (max|x| of the product). */
typedef struct cis_sym_seg_dev {
  cis_dtype t;
  cis_int n, R, chunks, segments;
  const uint16_t *lr;
  const void *val, *diag;
  const cis_idx *segcol;
  const int64_t *piece_heads, *chunk_piece;
  const int32_t *chunk_block;
  const double *block_bound;
  unsigned long long *xmax;
  cis_int bytes; /* device bytes of the arrays above */
} cis_sym_seg_dev;
cis_status cis_launch_sym_seg(const cis_sym_seg_dev *d, double alpha, const void *x, double beta, void *y,
                              int block, cudaStream_t s);
/* Thread blocks of sym-seg (R rows, block threads; 0 = default) resident on
 * the current device at once. Also allows the kernel its shared memory there:
 * call it (at plan creation) before cis_launch_sym_seg on that device. */
cis_status cis_sym_seg_slots(cis_dtype t, cis_int R, int block, int *slots);

/* sym_seg_build.cu: the sym-seg layout laid out on the GPU (the steps and
 * their order: the file's head; the host orchestration and its contract:
 * src/gpu/sym_seg_dev.c). rows: every row checked (*bad = the first bad
 * row, 1-based, by atomicMin), the diagonal into diag, count[b] += block b's
 * strict entries. keys: rows i0 .. i1-1 of a batch from block b0, entries
 * from K0. sort: the stable radix sort of m pairs on bits [0, end_bit) in
 * double buffers, *sel the one with the result (temp NULL: sizes only).
 * heads: head[p] = a new segment, segno its inclusive sum (temp NULL: sizes
 * only). fill: the batch's m strict entries into lr, oval, segcol; then its
 * nb blocks' padding, piece_heads, bank order and bounds; bb: nb entries of
 * cis_sym_seg_batch_block_bytes() (e0, sorted start, count, first piece:
 * four int64). */
cis_status cis_launch_sym_seg_rows(const int64_t *rowptr, const cis_idx *col, const void *val, cis_dtype t, cis_int n,
                                   cis_int R, void *diag, unsigned long long *count, unsigned long long *bad,
                                   cudaStream_t s);
cis_status cis_launch_sym_seg_keys(const int64_t *rowptr, const cis_idx *col, cis_int i0, cis_int i1, cis_int K0,
                                   cis_int R, cis_int b0, int colbits, uint64_t last, uint64_t *key, uint32_t *pos,
                                   cudaStream_t s);
cis_status cis_launch_sym_seg_sort(void *temp, size_t *temp_bytes, uint64_t *key0, uint64_t *key1, uint32_t *pos0,
                                   uint32_t *pos1, cis_int m, int end_bit, int *sel, cudaStream_t s);
cis_status cis_launch_sym_seg_heads(void *temp, size_t *temp_bytes, const uint64_t *key, cis_int m, int32_t *head,
                                    int32_t *segno, cudaStream_t s);
cis_status cis_launch_sym_seg_fill(const uint64_t *key, const uint32_t *pos, const int32_t *head, const int32_t *segno,
                                   const void *bb, const int64_t *rowptr, const cis_idx *col, const void *val,
                                   cis_dtype t, cis_int m, cis_int nb, cis_int n, cis_int R, cis_int b0, cis_int K0,
                                   int colbits, cis_int segbase, uint16_t *lr, void *oval, cis_idx *segcol,
                                   int64_t *piece_heads, double *bound, cudaStream_t s);
size_t cis_sym_seg_batch_block_bytes(void);

/* spmm.cu: Y = alpha*A*X + beta*Y, k = 1..CIS_SPMM_MAX_K vectors, CSR (sym:
 * upper triangle, 64-bit row pointers, mirror images by atomics); X, Y
 * row-major (col_major 0: (i, c) at i*ld + c) or column-major (c*ld + i). */
#define CIS_SPMM_MAX_K 16
cis_status cis_launch_csr_spmm(cis_dtype t, int wide, int sym, cis_int rows, cis_int nnz, const void *rowptr,
                               const cis_idx *col, const void *val, int k, double alpha, const void *X,
                               cis_int ldx, double beta, void *Y, cis_int ldy, int col_major, int block,
                               cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
