/* auto.c: cis_format_auto -- the storage format, GPU kernel and parameters
 * for a matrix, chosen from its row-length statistics (no timing).
 *
 * A stored SpMV is bandwidth-bound (bench/NOTES.md: the floor is bytes over
 * the measured read bandwidth), so the rule picks the layout that moves the
 * fewest bytes among the kernels that run near the bandwidth:
 *   fill(S, sigma) = slots of a sliced ELLPACK of slice S after sorting rows
 *   by length inside windows of sigma rows, over nnz (1 = no padding);
 *   bytes(sell)   = fill(32, 1) * nnz * (value + 4-byte index),
 *   bytes(sellcs) = fill(32, 1024) * nnz * (value + index) + 4 * rows (perm);
 *   1. empty matrix, or fewer than CIS_AUTO_SMALL_NNZ = 10^6 nonzeros -> csr,
 *      kernel csr-vector: a small product takes ~10 us and is bound by
 *      latency, not bandwidth; a warp per row has the most parallelism
 *      (measured on the H200: csr-vector within 1.7% of the best cisparse
 *      kernel on all 19 shared SuiteSparse matrices, 1,910-355,460
 *      nonzeros; the limit between those and the 25M-nonzero matrices where
 *      the sliced formats win is not measured);
 *   2. the smaller of bytes(sell), bytes(sellcs) (sell on a tie), if its fill
 *      is <= 1.05 -> sell, S = 32 (rows of nearly equal length: stencils,
 *      FEM) or sellcs, C = 32, sigma = 1024 (lengths vary but sorting in
 *      windows removes the padding: CI Hamiltonians; Kreutzer et al. 2014,
 *      Sec. 2, choose sigma the same way), both with the split kernel;
 *      then sell16 with the same C and sigma if it stores at most
 *      CIS_AUTO_SELL16_RATIO = 0.85 of those bytes and the mean row has at
 *      least CIS_AUTO_SELL16_ROW = 32 nonzeros (16-bit column deltas per
 *      lane, escapes in the slots: sell16.c). Measured on the H200
 *      (2026-11-23 21:41 UTC, bench/NOTES.md "sell16 and auto"): long CI
 *      rows gain what the bytes promise, less a little -- ci 32k 0.0960 ms
 *      against sellcs 0.0998, ci 524k 1.842 against 2.006, H2O 6-31G FCI
 *      2.959 against 3.181 -- while the 7-nonzero rows of laplace3d 160 lose
 *      (0.1401 against sell 0.1128: a short row pays the lane's decode and
 *      start for few codes);
 *   3. otherwise (power-law rows: padding even after sorting) -> csr5: work
 *      shared by nonzeros, not rows (Liu & Vinter, ICS 2015), so one row of
 *      200,000 nonzeros is spread like any other. Measured on an H100
 *      (2026-11-27, `bench powerlaw:rows=200000,seed=3,alpha=A`, ms per
 *      SpMV, csr5 / hyb / csr-vector): alpha 1.5 0.193 / 6.29 / 2.20,
 *      alpha 2 0.054 / 6.18 / 2.20, 2.5 0.047 / 0.569 / 0.189, 3 0.046 /
 *      0.126 / 0.058, 4 0.045 / 0.047 / 0.048; 10^6 and 2·10^6 rows (alpha
 *      2) 0.185 / 32.1 and 0.330 / 62.2: hyb (ELLPACK for the common
 *      length, CSR for the tails, Mahmoud et al. 2018, Sec. 4.1), the
 *      earlier pick, runs a long tail row on one warp and lost up to 190x.
 * The thresholds and their measurements: bench/NOTES.md, "--format auto".
 *
 * On the CPU (cis_format_auto_cpu) the sliced layouts serve no purpose (they
 * exist for coalesced GPU warps) and cost the padding and the permutation:
 * csr, rows shared among the OpenMP threads in chunks of 256, moves the
 * fewest bytes and was the fastest CPU kernel or within 1.25x of it on every
 * matrix measured (bench/results/format_auto_cpu.md; sell16, the GPU rule's
 * pick for long CI rows, was 2-10x slower), unless the rows are too uneven to
 * share: when the heaviest 256-row chunk holds more than 2 nnz / T nonzeros
 * (T threads, as many as the SpMV takes for this many nonzeros), csr's time
 * is that chunk's, more than twice the even share, and csr5, shared by
 * nonzeros (Liu & Vinter, ICS 2015; 1.3-2x slower than csr where rows share
 * well), takes over. With two threads that never happens. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "formats/format_util.h"

enum { CIS_AUTO_SMALL_NNZ = 1000000, CIS_AUTO_CPU_CHUNK = 256 };
#define CIS_AUTO_SELL16_RATIO 0.85
#define CIS_AUTO_SELL16_ROW 32

/* Bytes of A in sell16 with chunk C and sort window sigma (sell16_bytes in
 * sell16.c without building it): slots at vs + 2 bytes, perm and slice
 * arrays; *escaped = the nonzeros stored as three codes, over nnz. */
static cis_status sell16_bytes_of(const cis_csr *A, cis_int C, cis_int sigma, size_t vs, double *bytes,
                                  double *escaped) {
  cis_status st;
  const cis_int nslices = (A->rows + C - 1) / C;
  cis_idx *perm = NULL;
  int32_t *base = NULL;
  int64_t *width = NULL, *esc = NULL, slots = 0, nesc = 0;
  if (sigma > 1) {
    CIS_TRY(cis_alloc_array((void **)&perm, A->rows, sizeof *perm, "sell16 estimate: permutation"));
    CIS_TRY(cis_sell_sort_windows(A, sigma, perm));
  }
  CIS_TRY(cis_alloc_array((void **)&base, nslices, sizeof *base, "sell16 estimate: slice starts"));
  CIS_TRY(cis_alloc_array((void **)&width, nslices, sizeof *width, "sell16 estimate: widths"));
  CIS_TRY(cis_alloc_array((void **)&esc, nslices, sizeof *esc, "sell16 estimate: escapes"));
  cis_sell16_scan(A, C, nslices, perm, cis_sell16_lanes(A, C), base, width, esc);
  for (cis_int s = 0; s < nslices; ++s) slots += width[s] * C, nesc += esc[s];
  *escaped = (double)nesc / (double)(A->nnz > 0 ? A->nnz : 1);
  *bytes = (double)slots * (double)(vs + 2) + (perm ? 4.0 * (double)A->rows : 0) + 12.0 * (double)nslices + 8;
cleanup:
  cis_free(perm);
  cis_free(base);
  cis_free(width);
  cis_free(esc);
  return st;
}

static int by_decreasing(const void *a, const void *b) {
  const cis_int u = *(const cis_int *)a, v = *(const cis_int *)b;
  return (u < v) - (u > v);
}

/* Slots of sliced ELLPACK with slices of S rows after sorting each window of
 * sigma rows by decreasing length (sigma = 1: no sort); len is overwritten. */
static double sliced_slots(cis_int *len, cis_int rows, cis_int S, cis_int sigma) {
  double slots = 0;
  if (sigma > 1)
    for (cis_int lo = 0; lo < rows; lo += sigma)
      qsort(len + lo, (size_t)(rows - lo < sigma ? rows - lo : sigma), sizeof *len, by_decreasing);
  for (cis_int lo = 0; lo < rows; lo += S) {
    cis_int w = 0;
    for (cis_int i = lo; i < rows && i < lo + S; ++i) w = len[i] > w ? len[i] : w;
    slots += (double)w * (double)S;
  }
  return slots;
}

cis_status cis_format_auto(const cis_csr *A, cis_dtype dtype, cis_format_choice *out) {
  cis_status st;
  cis_int *len = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_format_auto: NULL output");
  memset(out, 0, sizeof *out);
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_format_auto: NULL matrix");
  if (dtype != CIS_F64 && dtype != CIS_F32)
    return cis_error(CIS_ERR_INVALID, "cis_format_auto: unknown value type %d", (int)dtype);
  CIS_TRY(cis_csr_check(A));
  out->params = cis_format_params_default();
  out->params.dtype = dtype;
  out->format = "csr";
  out->kernel = "csr-vector";
  if (A->rows == 0 || A->nnz == 0) {
    snprintf(out->reason, sizeof out->reason, "empty matrix: csr, csr-vector");
    return CIS_OK;
  }
  CIS_TRY(cis_alloc_array((void **)&len, A->rows, sizeof *len, "row lengths"));
  for (cis_int i = 0; i < A->rows; ++i) {
    len[i] = A->rowptr[i + 1] - A->rowptr[i];
    if (len[i] > out->max_row) out->max_row = len[i];
  }
  out->mean_row = (double)A->nnz / (double)A->rows;
  out->sell_fill = sliced_slots(len, A->rows, 32, 1) / (double)A->nnz;
  out->sellcs_fill = sliced_slots(len, A->rows, 32, 1024) / (double)A->nnz;
  if (A->nnz < CIS_AUTO_SMALL_NNZ) {
    snprintf(out->reason, sizeof out->reason, "%lld nonzeros < %lld (latency-bound): csr, csr-vector",
             (long long)A->nnz, (long long)CIS_AUTO_SMALL_NNZ);
    goto cleanup;
  }
  const double per = (double)cis_dtype_size(dtype) + sizeof(cis_idx);
  const double b_sell = out->sell_fill * (double)A->nnz * per;
  const double b_sellcs = out->sellcs_fill * (double)A->nnz * per + 4.0 * (double)A->rows;
  const int cs = b_sellcs < b_sell;
  if ((cs ? out->sellcs_fill : out->sell_fill) <= 1.05) {
    const double b = cs ? b_sellcs : b_sell;
    double b16 = 0, far = 0;
    out->params.slice = 32;
    out->params.sigma = cs ? 1024 : 1;
    CIS_TRY(sell16_bytes_of(A, out->params.slice, out->params.sigma, cis_dtype_size(dtype), &b16, &far));
    out->sell16_ratio = b16 / b;
    out->sell16_escaped = far;
    const int use16 = out->sell16_ratio <= CIS_AUTO_SELL16_RATIO && out->mean_row >= CIS_AUTO_SELL16_ROW;
    out->format = out->kernel = use16 ? "sell16" : cs ? "sellcs" : "sell";
    snprintf(out->reason, sizeof out->reason,
             "fill sell %.3f (%.1f MB), sellcs %.3f (%.1f MB); sell16 %.3f of %s, %.2f%% escaped, "
             "mean row %.1f: %s, %s = 32%s",
             out->sell_fill, b_sell / 1e6, out->sellcs_fill, b_sellcs / 1e6, out->sell16_ratio,
             cs ? "sellcs" : "sell", 100.0 * far, out->mean_row, out->format,
             cs || use16 ? "C" : "S", cs ? ", sigma = 1024" : "");
  } else {
    out->format = "csr5";
    out->kernel = "csr5";
    snprintf(out->reason, sizeof out->reason,
             "fill sellcs %.3f > 1.05 (mean row %.1f, longest %lld): csr5", out->sellcs_fill,
             out->mean_row, (long long)out->max_row);
  }
cleanup:
  cis_free(len);
  return st;
}

cis_status cis_format_auto_cpu_threads(const cis_csr *A, cis_dtype dtype, int threads, cis_format_choice *out) {
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_format_auto_cpu: NULL output");
  memset(out, 0, sizeof *out);
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_format_auto_cpu: NULL matrix");
  if (dtype != CIS_F64 && dtype != CIS_F32)
    return cis_error(CIS_ERR_INVALID, "cis_format_auto_cpu: unknown value type %d", (int)dtype);
  cis_status st = cis_csr_check(A);
  if (st != CIS_OK) return st;
  out->params = cis_format_params_default();
  out->params.dtype = dtype;
  out->format = out->kernel = "csr";
  cis_int heaviest = 0; /* nonzeros of the heaviest chunk of rows */
  for (cis_int i = 0; i < A->rows; ++i) {
    const cis_int len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > out->max_row) out->max_row = len;
    if (i % CIS_AUTO_CPU_CHUNK == 0) {
      const cis_int end = i + CIS_AUTO_CPU_CHUNK < A->rows ? i + CIS_AUTO_CPU_CHUNK : A->rows;
      const cis_int chunk = A->rowptr[end] - A->rowptr[i];
      if (chunk > heaviest) heaviest = chunk;
    }
  }
  out->mean_row = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0.0;
  /* the threads the SpMV will take (cis_matrix_spmv: one per CIS_GRAIN_NNZ) */
  const int64_t by_work = (A->nnz + A->rows) / CIS_GRAIN_NNZ;
  if (by_work < threads) threads = by_work > 1 ? (int)by_work : 1;
  const double share = threads > 1 ? 2.0 * (double)A->nnz / threads : INFINITY;
  if (A->nnz > 0 && (double)heaviest > share) {
    out->format = out->kernel = "csr5";
    snprintf(out->reason, sizeof out->reason,
             "CPU, %d threads: a 256-row chunk holds %lld of %lld nonzeros (> 2 nnz / threads): csr5 (shared by "
             "nonzeros)", threads, (long long)heaviest, (long long)A->nnz);
  } else {
    snprintf(out->reason, sizeof out->reason,
             "CPU, %d threads: csr (rows shared by the threads; no padding: the fewest bytes per nonzero)", threads);
  }
  return CIS_OK;
}

cis_status cis_format_auto_cpu(const cis_csr *A, cis_dtype dtype, cis_format_choice *out) {
  return cis_format_auto_cpu_threads(A, dtype, cis_threads(), out);
}
