/* csr5.h: the CSR5 layout (Liu & Vinter, "CSR5: An Efficient Storage Format
 * for Cross-Platform Sparse Matrix-Vector Multiplication", ICS 2015, Sec. 3),
 * exactly as the CSR5 kernel (src/kernels/csr5.cu) and the CPU reference
 * (src/formats/csr5_spmv.c) read it.
 *
 * CSR5 is CSR plus tile metadata. The nonzeros, in CSR order, are cut into
 * ntiles = floor(nnz / W) full tiles of W = omega*sigma entries (omega = 32 =
 * warp size, one lane per column of the tile) and a tail of nnz - ntiles*W
 * entries kept as plain CSR (the paper's incomplete last tile).
 *
 *  - col/val (nnz): inside tile t, CSR entry t*W + lane*sigma + i is stored at
 *    slot t*W + i*omega + lane (each tile column-major, as in the paper), so
 *    that a warp's step i reads omega consecutive slots. Tail entries keep
 *    their CSR positions [tail_start, nnz).
 *  - rowptr (rows+1): the CSR row pointer, 32 bits while nnz < 2^32.
 *  - tile_ptr (ntiles+1), the paper's tile pointer: bits 0..30 of tile_ptr[t]
 *    = the row of the tile's first entry (rows < 2^31 always); bit 31 (CIS_CSR5_EMPTY_FLAG) set
 *    iff the tile holds empty rows, i.e. an empty row r with rowptr[r] inside
 *    the tile. tile_ptr[ntiles] = tail_first_row, the first row the CSR tail
 *    kernel handles (a row crossing into the tail, or the first row whose
 *    rowptr >= tail_start); never flagged.
 *  - the paper's tile descriptor, UNPACKED (one array per field instead of the
 *    reference's bit-packed words; 7 bytes per lane):
 *      bit_flag[t*omega+lane] bit i: entry (lane, i) starts a row (sigma <= 32).
 *        Stored as found; kernels additionally treat lane 0 bit 0 as a start
 *        (segment 0 always exists). Whether bit 0 of lane 0 is set says if the
 *        tile's first entry starts its row (else segment 0 continues a row from
 *        an earlier tile and goes to the calibrator).
 *      y_offset[t*omega+lane]: index of the segment holding the lane's first
 *        entry = number of row starts at tile positions 1..lane*sigma.
 *      seg_offset[t*omega+lane]: number of consecutive lanes after `lane` with
 *        no row start (the paper's fast segmented sum reads it).
 *  - empty_ptr (ntiles+1) / empty_offset (the paper's empty_offset): for a
 *    flagged tile t, empty_offset[empty_ptr[t] + k] is the row of segment k
 *    (k = 0 .. nseg-1); unflagged tiles have no entries and their segment k is
 *    row (tile_ptr[t] & ~flag) + k. empty_ptr uses the width of rowptr.
 *
 * The writer of a row's first entry also writes the empty rows just before
 * it (rows whose rowptr equals it), so every row of y is written exactly once
 * with y = alpha*sum + beta*y before any calibration adds to it.
 *
 * Differences from the reference code (weifengliu-ssslab/Benchmark_SpMV_using_
 * CSR5, CSR5_cuda): the descriptor is unpacked; only the incomplete remainder
 * is the CSR tail (the reference also sends a full last tile there); y =
 * alpha*A*x + beta*y without zeroing y first; a row's first segment is written
 * directly and only continuations go through the calibrator. As in the paper,
 * a segment's carry is a difference of two in-tile prefix sums, so its rounding
 * error scales with the tile's partial sums rather than with the row's.
 *
 * bytes = (rows+1)*(4|8) + (ntiles+1)*4 + ntiles*omega*(4+2+1)
 *       + (ntiles+1)*(4|8) + n_empty_offset*4 + nnz*(4+vs). */
#ifndef CISPARSE_CSR5_H
#define CISPARSE_CSR5_H

#include "formats/format_types.h"

#define CIS_CSR5_OMEGA 32
#define CIS_CSR5_SIGMA_MAX 32 /* one 32-bit bit_flag word per lane */
#define CIS_CSR5_EMPTY_FLAG 0x80000000u
#define CIS_CSR5_ROW_MASK 0x7fffffffu

typedef struct cis_fmt_csr5 {
  cis_fmt_head h;
  cis_int sigma;          /* tile height (entries per lane) */
  cis_int ntiles;         /* full tiles */
  cis_int tail_start;     /* ntiles * omega * sigma */
  cis_offsets rowptr;     /* rows + 1 */
  uint32_t *tile_ptr;     /* ntiles + 1, bit 31 = tile holds empty rows */
  uint32_t *bit_flag;     /* ntiles * omega */
  uint16_t *y_offset;     /* ntiles * omega */
  uint8_t *seg_offset;    /* ntiles * omega */
  cis_offsets empty_ptr;  /* ntiles + 1 */
  cis_int n_empty_offset; /* empty_ptr[ntiles] */
  cis_idx *empty_offset;  /* n_empty_offset */
  cis_idx *col;           /* nnz, tiles transposed, tail in CSR order */
  void *val;              /* nnz, same order */
} cis_fmt_csr5;

/* sigma the reference code picks from the average row length nnz/rows
 * (anonymouslib setSigma: <= 4 -> 4; <= 32 -> itself; <= 256 -> 32; else 6). */
cis_int cis_csr5_choose_sigma(cis_int rows, cis_int nnz);

/* y = alpha*A*x + beta*y on the CPU by walking the tiles (csr5_spmv.c): the
 * reference for the CSR5 GPU kernel. beta == 0 overwrites y. */
cis_status cis_csr5_spmv_cpu(const void *impl, double alpha, const void *x, double beta, void *y);

/* Row of tile t's first entry (flag stripped); t = ntiles gives tail_first_row. */
static inline cis_int cis_csr5_tile_row(const cis_fmt_csr5 *F, cis_int t) {
  return (cis_int)(F->tile_ptr[t] & CIS_CSR5_ROW_MASK);
}
static inline int cis_csr5_tile_has_empty(const cis_fmt_csr5 *F, cis_int t) {
  return (F->tile_ptr[t] & CIS_CSR5_EMPTY_FLAG) != 0;
}

#endif
