/* sell16.c: SELL-C-sigma with 16-bit column deltas (layout in
 * format_types.h): the sliced ELLPACK of Kreutzer, Hager, Wellein, Fehske,
 * Bishop (SIAM J. Sci. Comput. 36(5) 2014, Sec. 2), each slot's column
 * stored as a 16-bit delta from the previous column of the same lane (the
 * split kernel's P threads per row read a row's slots in P interleaved
 * lanes, so the encoding is made for P lanes), starting from the slice's
 * smallest column; a delta of 16 bits or more takes three codes (an escape,
 * then its high and low halves), in the slots like any other. A stored SpMV
 * is bandwidth-bound; this cuts 2 of the 12 bytes per nonzero in double
 * (2 of 8 in float) while the columns of a lane lie within 64K of each other
 * -- stencils, and CI Hamiltonians, whose sorted columns are a few thousand
 * apart. Parameters: C = p->slice (1 ... 2^31-1; the GPU kernel takes C <=
 * 1024), sigma = p->sigma (1 = no sort, no perm; or a positive multiple of
 * C), as sellcs; lanes from cis_sell16_lanes. */
#include <stdlib.h>
#include "core/internal.h"
#include "formats/format_util.h"
#include "core/options.h"

static void sell16_destroy(void *impl) {
  cis_fmt_sell16 *F = impl;
  if (!F) return;
  cis_free(F->slice_ptr);
  cis_free(F->base);
  cis_free(F->off);
  cis_free(F->val);
  cis_free(F->perm);
  cis_free(F);
}

int cis_sell16_lanes(const cis_csr *A, cis_int C) {
  if (C > 1024) return 1;
  if (cis_opt_str(CIS_OPT_SELL_P)) {
    const long p = cis_opt_int(CIS_OPT_SELL_P, 1);
    return p >= 1 && p * C <= 1024 ? (int)p : 1;
  }
  return cis_sell_threads_per_row((A->rows + C - 1) / C * C, C, A->nnz, CIS_SELL16_PLAN_SMS);
}

/* The codes of one lane: columns c (increasing) from prev; returns the count,
 * writes them (and the values, 0 on escape codes) when off != NULL at
 * off[m * stride] for the m-th code. */
static int64_t lane_codes(const cis_csr *A, cis_int i, int lane, int lanes, cis_idx prev, uint16_t *off, void *val,
                          cis_dtype t, int64_t stride) {
  int64_t m = 0;
  for (cis_int k = A->rowptr[i] + lane; k < A->rowptr[i + 1]; k += lanes) {
    const int64_t d = (int64_t)A->colind[k] - prev;
    prev = A->colind[k];
    if (d <= CIS_SELL16_SPAN) {
      if (off) off[m * stride] = (uint16_t)d, cis_set(val, t, m * stride, cis_get(A->val, A->dtype, k));
      m += 1;
    } else {
      if (off) {
        off[m * stride] = CIS_SELL16_ESC;
        off[(m + 1) * stride] = (uint16_t)(d >> 16);
        off[(m + 2) * stride] = (uint16_t)(d & 0xFFFF);
        cis_set(val, t, (m + 2) * stride, cis_get(A->val, A->dtype, k));
      }
      m += 3;
    }
  }
  return m;
}

void cis_sell16_scan(const cis_csr *A, cis_int C, cis_int nslices, const cis_idx *perm, int lanes, int32_t *base,
                     int64_t *width, int64_t *escapes) {
#pragma omp parallel for schedule(dynamic, 16)
  for (cis_int s = 0; s < nslices; ++s) {
    cis_idx lo = CIS_IDX_MAX;
    int64_t w = 0, esc = 0;
    const cis_int end = (s + 1) * C < A->rows ? (s + 1) * C : A->rows;
    for (cis_int pos = s * C; pos < end; ++pos) {
      const cis_int i = perm ? perm[pos] : pos;
      if (A->rowptr[i] < A->rowptr[i + 1] && A->colind[A->rowptr[i]] < lo) lo = A->colind[A->rowptr[i]];
    }
    base[s] = lo == CIS_IDX_MAX ? 0 : lo;
    for (cis_int pos = s * C; pos < end; ++pos) {
      const cis_int i = perm ? perm[pos] : pos;
      for (int l = 0; l < lanes; ++l) {
        const int64_t m = lane_codes(A, i, l, lanes, base[s], NULL, NULL, A->dtype, 0);
        const int64_t n = (A->rowptr[i + 1] - A->rowptr[i] - l + lanes - 1) / lanes; /* this lane's nonzeros */
        esc += (m - (n > 0 ? n : 0)) / 2;
        w = m > w ? m : w;
      }
    }
    width[s] = w * lanes;
    escapes[s] = esc;
  }
}

static cis_status sell16_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_int slots, width_sum = 0;
  const cis_dtype vt = p->float_values ? CIS_F32 : p->dtype;
  const size_t vs = cis_dtype_size(vt);
  cis_fmt_sell16 *F = NULL;
  int64_t *esc = NULL;
  if (p->slice < 1 || p->slice > CIS_IDX_MAX)
    return cis_error(CIS_ERR_INVALID, "sell16: chunk height C must be in [1, %d], got %lld", CIS_IDX_MAX,
                     (long long)p->slice);
  if (p->sigma < 1 || (p->sigma != 1 && p->sigma % p->slice != 0))
    return cis_error(CIS_ERR_INVALID, "sell16: sort window sigma must be 1 or a positive multiple of C = %lld, got %lld",
                     (long long)p->slice, (long long)p->sigma);
  F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate sell16 format header");
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->vdtype = vt;
  F->C = p->slice;
  F->sigma = p->sigma;
  F->nslices = (A->rows + F->C - 1) / F->C;
  F->lanes = cis_sell16_lanes(A, F->C);
  if (F->sigma > 1) {
    CIS_TRY(cis_alloc_array((void **)&F->perm, A->rows, sizeof(cis_idx), "sell16 permutation"));
    CIS_TRY(cis_sell_sort_windows(A, F->sigma, F->perm));
  }
  CIS_TRY(cis_alloc_array((void **)&F->slice_ptr, F->nslices + 1, sizeof(int64_t), "sell16 slice pointers"));
  CIS_TRY(cis_alloc_array((void **)&F->base, F->nslices, sizeof(int32_t), "sell16 slice starts"));
  CIS_TRY(cis_alloc_array((void **)&esc, F->nslices, sizeof(int64_t), "sell16 escape counts"));
  F->slice_ptr[0] = 0;
  cis_sell16_scan(A, F->C, F->nslices, F->perm, F->lanes, F->base, F->slice_ptr + 1, esc);
  for (cis_int s = 0; s < F->nslices; ++s) width_sum += F->slice_ptr[s + 1], F->escapes += esc[s];
  CIS_TRY(cis_fmt_check_size("sell16", "padded slots (C x sum of slice widths)", F->C, width_sum,
                             (cis_int)(vs + sizeof(uint16_t)), &slots));
  for (cis_int s = 0; s < F->nslices; ++s) F->slice_ptr[s + 1] = F->slice_ptr[s] + F->C * F->slice_ptr[s + 1];
  CIS_TRY(cis_alloc_array((void **)&F->off, slots, sizeof(uint16_t), "sell16 column codes"));
  CIS_TRY(cis_alloc_zeroed(&F->val, slots, vs, "sell16 values"));
  for (cis_int q = 0; q < slots; ++q) F->off[q] = CIS_SELL16_PAD;
  /* lane l of local row r: its m-th code at slot k = l + m*lanes, i.e. at
   * slice_ptr[s] + (l + m*lanes)*C + r */
#pragma omp parallel for schedule(dynamic, 64)
  for (cis_int pos = 0; pos < A->rows; ++pos) {
    const cis_int i = F->perm ? F->perm[pos] : pos, s = pos / F->C, r = pos % F->C;
    for (int l = 0; l < F->lanes; ++l) {
      const int64_t q0 = F->slice_ptr[s] + (int64_t)l * F->C + r;
      lane_codes(A, i, l, F->lanes, F->base[s], F->off + q0, (char *)F->val + q0 * (int64_t)vs, vt,
                 (int64_t)F->lanes * F->C);
    }
  }
  cis_free(esc);
  *impl = F;
  return CIS_OK;
cleanup:
  cis_free(esc);
  sell16_destroy(F);
  return st;
}

static cis_int sell16_bytes(const void *impl) {
  const cis_fmt_sell16 *F = impl;
  const cis_int vs = (cis_int)cis_dtype_size(F->vdtype);
  return (F->nslices + 1) * 8 + F->nslices * 4 + F->slice_ptr[F->nslices] * (vs + 2) + (F->perm ? F->h.rows * 4 : 0);
}

/* The CPU reference: row by row in sorted order, lane by lane, decoding
 * each lane's codes from the slice start. */
#define SELL16_SPMV(T, V)                                                                   \
  do {                                                                                      \
    const V *val = F->val;                                                                  \
    const T *xx = x;                                                                        \
    T *yy = y;                                                                              \
    const int64_t stride = (int64_t)F->lanes * F->C;                                        \
    _Pragma("omp parallel for schedule(dynamic, 64)")                                       \
    for (cis_int pos = 0; pos < F->h.rows; ++pos) {                                        \
      const cis_int s = pos / F->C, r = pos % F->C, i = F->perm ? F->perm[pos] : pos;      \
      const int64_t end = F->slice_ptr[s + 1];                                              \
      T sum = 0;                                                                            \
      for (int l = 0; l < F->lanes; ++l) {                                                  \
        int64_t c = F->base[s];                                                             \
        int mode = 0;                                                                       \
        unsigned hi = 0;                                                                    \
        for (int64_t q = F->slice_ptr[s] + (int64_t)l * F->C + r; q < end; q += stride) {  \
          const unsigned d = F->off[q];                                                     \
          if (mode == 1) hi = d, mode = 2;                                                  \
          else if (mode == 2) c += ((int64_t)hi << 16) | d, sum += (T)val[q] * xx[c], mode = 0; \
          else if (d <= CIS_SELL16_SPAN) c += d, sum += (T)val[q] * xx[c];                  \
          else if (d == CIS_SELL16_ESC) mode = 1;                                           \
        }                                                                                   \
      }                                                                                     \
      yy[i] = beta == 0.0 ? (T)alpha * sum : (T)alpha * sum + (T)beta * yy[i];              \
    }                                                                                       \
  } while (0)

static cis_status sell16_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_sell16 *F = impl;
  if (F->h.dtype == CIS_F32) SELL16_SPMV(float, float);
  else if (F->vdtype == CIS_F32) SELL16_SPMV(double, float); /* float values, double sums */
  else SELL16_SPMV(double, double);
  return CIS_OK;
}

static cis_status sell16_dump(const void *impl, FILE *f) {
  const cis_fmt_sell16 *F = impl;
  const cis_int slots = F->slice_ptr[F->nslices];
  fprintf(f, "# sell16 rows=%lld cols=%lld nnz=%lld C=%lld sigma=%lld lanes=%d nslices=%lld slots=%lld escapes=%lld "
             "(lane l of local row r of slice s: its m-th code at slice_ptr[s]+(l+m*lanes)*C+r; column = previous "
             "column of the lane (base[s] first) + code; 65534 = padding; 65535, hi, lo = a 32-bit delta)\n",
          (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, (long long)F->C, (long long)F->sigma,
          F->lanes, (long long)F->nslices, (long long)slots, (long long)F->escapes);
  cis_dump_i64(f, "slice_ptr", F->slice_ptr, F->nslices + 1);
  cis_dump_idx(f, "base", F->base, F->nslices);
  cis_dump_u16(f, "code", F->off, slots);
  cis_dump_vals(f, "NonZerosEntries", F->val, F->vdtype, slots);
  if (F->perm) cis_dump_idx(f, "perm", F->perm, F->h.rows);
  return cis_dump_done(f, "sell16");
}

const cis_format_ops cis_format_sell16 = {
    .name = "sell16",
    .citation = "Kreutzer et al., SIAM J. Sci. Comput. 2014 (SELL-C-sigma), 16-bit column deltas per lane with in-slot escapes (issue 10)",
    .build = sell16_build,
    .bytes = sell16_bytes,
    .spmv = sell16_spmv,
    .dump = sell16_dump,
    .destroy = sell16_destroy};
