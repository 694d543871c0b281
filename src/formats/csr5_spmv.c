/* csr5_spmv.c: y = alpha*A*x + beta*y on the CPU by walking the CSR5 tiles
 * exactly as the CUDA kernel (src/kernels/csr5.cu) does, lane by lane:
 * Liu & Vinter, ICS 2015, Sec. 4 — per-lane partial sums cut at the bit
 * flags, the fast segmented sum over seg_offset, row indices from y_offset
 * (and empty_offset in tiles holding empty rows), calibration of the rows
 * crossing tile boundaries, and the tail as CSR. OpenMP over tiles. */
#include "core/internal.h"
#include "formats/csr5.h"

#define OMEGA CIS_CSR5_OMEGA

cis_status cis_csr5_spmv_cpu(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_csr5 *F = impl;
  const cis_int sigma = F->sigma, W = OMEGA * sigma, ntiles = F->ntiles, ts = F->tail_start;
  cis_status st;
  void *cal = NULL; /* per tile: sum of segment 0 when it continues an earlier row */
  CIS_TRY(cis_alloc_array(&cal, ntiles, cis_dtype_size(F->h.dtype), "CSR5 calibrator"));
  CIS_FOR_DTYPE(F->h.dtype, {
    const REAL *xv = x, *av = F->val;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    REAL *yv = y, *calv = cal;
    CIS_PRAGMA(omp parallel for schedule(static))
    for (cis_int t = 0; t < ntiles; ++t) {
      REAL segsum[OMEGA * CIS_CSR5_SIGMA_MAX], head[OMEGA], scan[OMEGA], last[OMEGA];
      int lastseg[OMEGA]; /* segment the lane's last start opens; -1: no start in the lane */
      const uint32_t *bits = F->bit_flag + t * OMEGA;
      const uint16_t *yoff = F->y_offset + t * OMEGA;
      const uint8_t *soff = F->seg_offset + t * OMEGA;
      /* 1. each lane sums its sigma entries, closing a segment at every row start */
      for (int lane = 0; lane < OMEGA; ++lane) {
        const uint32_t f = bits[lane] | (lane == 0 ? 1u : 0u);
        int seg = yoff[lane], started = (int)(f & 1u);
        REAL cur = 0;
        head[lane] = 0;
        for (cis_int i = 0; i < sigma; ++i) {
          if (i > 0 && ((f >> i) & 1u)) {
            if (started) segsum[seg] = cur; /* a segment wholly inside the lane */
            else { head[lane] = cur; started = 1; }
            ++seg;
            cur = 0;
          }
          const cis_int k = t * W + i * OMEGA + lane;
          cur += av[k] * xv[F->col[k]];
        }
        if (started) { last[lane] = cur; lastseg[lane] = seg; }
        else { head[lane] = cur; lastseg[lane] = -1; }
      }
      /* 2. fast segmented sum: a lane's last segment continues through the
       *    seg_offset start-less lanes after it and the head of the next
       *    starting lane: a difference of the inclusive scan of the heads. */
      REAL run = 0;
      for (int lane = 0; lane < OMEGA; ++lane) scan[lane] = run += head[lane];
      int nseg = 0;
      for (int lane = 0; lane < OMEGA; ++lane) {
        if (lastseg[lane] < 0) continue;
        int to = lane + 1 + soff[lane];
        if (to > OMEGA - 1) to = OMEGA - 1;
        segsum[lastseg[lane]] = last[lane] + (scan[to] - scan[lane]);
        nseg = lastseg[lane] + 1;
      }
      /* 3. rows: segment k is row tile_row + k, or empty_offset[k] in a tile
       *    holding empty rows (whose writer also clears the empty rows before
       *    its row); segment 0 of a tile continuing a row is calibrated later. */
      const int starts_row = (int)(bits[0] & 1u), has_empty = cis_csr5_tile_has_empty(F, t);
      const cis_int row0 = cis_csr5_tile_row(F, t);
      const cis_int eptr = has_empty ? cis_off_get(&F->empty_ptr, t) : 0;
      calv[t] = starts_row ? (REAL)0 : segsum[0];
      for (int k = starts_row ? 0 : 1; k < nseg; ++k) {
        const cis_int row = has_empty ? (cis_int)F->empty_offset[eptr + k] : row0 + k;
        yv[row] = (beta == 0.0) ? a * segsum[k] : a * segsum[k] + b * yv[row];
        if (!has_empty) continue;
        const int64_t start = cis_off_get(&F->rowptr, row);
        for (cis_int q = row - 1; q >= 0 && cis_off_get(&F->rowptr, q) == start; --q)
          yv[q] = (beta == 0.0) ? (REAL)0 : b * yv[q];
      }
    }
    /* calibration: add segment 0 of every tile that continues a row */
    for (cis_int t = 0; t < ntiles; ++t)
      if (!(F->bit_flag[t * OMEGA] & 1u)) yv[cis_csr5_tile_row(F, t)] += a * calv[t];
    /* tail as CSR: the first row may continue from the last tile */
    CIS_PRAGMA(omp parallel for schedule(dynamic, 256))
    for (cis_int r = cis_csr5_tile_row(F, ntiles); r < F->h.rows; ++r) {
      const int64_t lo = cis_off_get(&F->rowptr, r), hi = cis_off_get(&F->rowptr, r + 1);
      REAL sum = 0;
      for (int64_t k = lo < ts ? ts : lo; k < hi; ++k) sum += av[k] * xv[F->col[k]];
      if (lo < ts) yv[r] += a * sum;
      else yv[r] = (beta == 0.0) ? a * sum : a * sum + b * yv[r];
    }
  });
cleanup:
  cis_free(cal);
  return st;
}
