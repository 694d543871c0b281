/* sell.c: the sliced ELLPACK family, one struct (cis_fmt_sell) and one SpMV:
 *   sell    Sliced ELLPACK (Mahmoud et al. 2018, §3.4, Algorithm 4; the SELL
 *           report: slices of S rows, column-major inside the slice);
 *   sellr   Sliced ELLPACK-R (§3.5, Algorithm 5): plus row lengths;
 *   sellcs  SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J.
 *           Sci. Comput. 36(5) 2014, §2): before slicing into chunks of C
 *           rows, rows are sorted by decreasing length inside each window of
 *           sigma consecutive rows (stable: equal lengths keep their order);
 *           perm maps sorted position -> original row and the SpMV writes y
 *           in the original order.
 * Slot k of local row r of slice s is at slice_ptr[s] + k*S + r; each slice
 * is padded to its longest row and the last slice to S rows (column -1,
 * value 0). bytes = (nslices+1)*8 + slots*(vs+4) [+ rows*4] [+ rows*4].
 *
 * Parameters: S = p->slice (C for sellcs), 1 <= S <= 2^31-1. sellcs:
 * sigma = p->sigma must be 1 (no sorting) or a positive multiple of C, so a
 * window never ends inside a chunk (Kreutzer et al. choose sigma as a
 * multiple of C for the same reason); sigma > rows sorts the whole matrix.
 * sell and sellr ignore p->sigma and record sigma = 1. */
#include <stdlib.h>
#include "core/internal.h"
#include "formats/format_util.h"

typedef enum { SELL, SELLR, SELLCS } sell_kind;
static const char *const kind_name[] = {"sell", "sellr", "sellcs"};

static void sell_destroy(void *impl) {
  cis_fmt_sell *F = impl;
  if (!F) return;
  cis_free(F->slice_ptr);
  cis_free(F->col);
  cis_free(F->val);
  cis_free(F->rowlen);
  cis_free(F->perm);
  cis_free(F);
}

static cis_status check_params(const cis_format_params *p, sell_kind kind) {
  const char *name = kind_name[kind], *S = kind == SELLCS ? "chunk height C" : "slice height S";
  if (p->slice < 1 || p->slice > CIS_IDX_MAX)
    return cis_error(CIS_ERR_INVALID, "%s: %s must be in [1, %d], got %lld", name, S, CIS_IDX_MAX,
                     (long long)p->slice);
  if (kind == SELLCS && (p->sigma < 1 || (p->sigma != 1 && p->sigma % p->slice != 0)))
    return cis_error(CIS_ERR_INVALID, "sellcs: sort window sigma must be 1 or a positive multiple of C = %lld, got %lld",
                     (long long)p->slice, (long long)p->sigma);
  return CIS_OK;
}

typedef struct { cis_idx len, row; } row_key;

/* Decreasing length; equal lengths by original row (a stable sort). */
static int by_decreasing_length(const void *a, const void *b) {
  const row_key *u = a, *v = b;
  if (u->len != v->len) return u->len > v->len ? -1 : 1;
  return (u->row > v->row) - (u->row < v->row);
}

/* perm[p] = original row at sorted position p: rows sorted by decreasing
 * length inside each window of sigma rows (format_util.h; sell16 uses it too). */
cis_status cis_sell_sort_windows(const cis_csr *A, cis_int sigma, cis_idx *perm) {
  cis_status st;
  row_key *keys = NULL;
  if (sigma > A->rows) sigma = A->rows > 0 ? A->rows : 1; /* one window: sort all rows */
  const cis_int nwin = (A->rows + sigma - 1) / sigma;
  CIS_TRY(cis_alloc_array((void **)&keys, A->rows, sizeof *keys, "SELL-C-sigma sort keys"));
  for (cis_int i = 0; i < A->rows; ++i) keys[i] = (row_key){(cis_idx)(A->rowptr[i + 1] - A->rowptr[i]), (cis_idx)i};
#pragma omp parallel for schedule(dynamic, 1)
  for (cis_int w = 0; w < nwin; ++w) {
    const cis_int lo = w * sigma, n = A->rows - lo < sigma ? A->rows - lo : sigma;
    qsort(keys + lo, (size_t)n, sizeof *keys, by_decreasing_length);
  }
  for (cis_int i = 0; i < A->rows; ++i) perm[i] = keys[i].row;
cleanup:
  cis_free(keys);
  return st;
}

static cis_int row_at(const cis_fmt_sell *F, cis_int pos) { return F->perm ? F->perm[pos] : pos; }
static cis_int row_len(const cis_csr *A, cis_int i) { return A->rowptr[i + 1] - A->rowptr[i]; }

static cis_status sell_build_any(const cis_csr *A, const cis_format_params *p, sell_kind kind,
                                 void **impl) {
  cis_status st;
  cis_int slots, width_sum = 0;
  const size_t vs = cis_dtype_size(p->dtype);
  cis_fmt_sell *F = NULL;
  CIS_TRY(check_params(p, kind));
  F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate %s format header", kind_name[kind]);
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->S = p->slice;
  F->sigma = kind == SELLCS ? p->sigma : 1;
  F->nslices = (A->rows + F->S - 1) / F->S;
  if (kind == SELLCS) {
    CIS_TRY(cis_alloc_array((void **)&F->perm, A->rows, sizeof(cis_idx), "SELL-C-sigma permutation"));
    CIS_TRY(cis_sell_sort_windows(A, F->sigma, F->perm));
  }
  if (kind == SELLR) {
    CIS_TRY(cis_alloc_array((void **)&F->rowlen, A->rows, sizeof(cis_idx), "sliced ELLPACK-R row lengths"));
    for (cis_int i = 0; i < A->rows; ++i) F->rowlen[i] = (cis_idx)row_len(A, i);
  }
  CIS_TRY(cis_alloc_array((void **)&F->slice_ptr, F->nslices + 1, sizeof(int64_t), "slice pointers"));
  /* slice widths first (slice_ptr[s+1] holds slice s's width), then sizes */
  F->slice_ptr[0] = 0;
#pragma omp parallel for schedule(static)
  for (cis_int s = 0; s < F->nslices; ++s) {
    cis_int w = 0;
    for (cis_int pos = s * F->S; pos < A->rows && pos < (s + 1) * F->S; ++pos)
      if (row_len(A, row_at(F, pos)) > w) w = row_len(A, row_at(F, pos));
    F->slice_ptr[s + 1] = w;
  }
  for (cis_int s = 0; s < F->nslices; ++s) width_sum += F->slice_ptr[s + 1];
  CIS_TRY(cis_fmt_check_size(kind_name[kind], "padded slots (S x sum of slice widths)", F->S, width_sum,
                             (cis_int)(vs + sizeof(cis_idx)), &slots));
  for (cis_int s = 0; s < F->nslices; ++s) F->slice_ptr[s + 1] = F->slice_ptr[s] + F->S * F->slice_ptr[s + 1];
  CIS_TRY(cis_fmt_alloc_slots(&F->col, &F->val, slots, p->dtype, "sliced ELLPACK slots"));
#pragma omp parallel for schedule(dynamic, 64)
  for (cis_int pos = 0; pos < A->rows; ++pos) {
    const cis_int i = row_at(F, pos), s = pos / F->S, r = pos % F->S, start = A->rowptr[i];
    for (cis_int k = 0; k < row_len(A, i); ++k) {
      const int64_t slot = F->slice_ptr[s] + k * F->S + r;
      F->col[slot] = A->colind[start + k];
      cis_set(F->val, p->dtype, slot, cis_get(A->val, A->dtype, start + k));
    }
  }
  *impl = F;
  return CIS_OK;
cleanup:
  sell_destroy(F);
  return st;
}

static cis_status sell_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  return sell_build_any(A, p, SELL, impl);
}
static cis_status sellr_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  return sell_build_any(A, p, SELLR, impl);
}
static cis_status sellcs_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  return sell_build_any(A, p, SELLCS, impl);
}

static cis_int sell_bytes(const void *impl) {
  const cis_fmt_sell *F = impl;
  return (F->nslices + 1) * (cis_int)sizeof(int64_t) +
         F->slice_ptr[F->nslices] * (cis_int)(cis_dtype_size(F->h.dtype) + sizeof(cis_idx)) +
         (F->rowlen ? F->h.rows * (cis_int)sizeof(cis_idx) : 0) +
         (F->perm ? F->h.rows * (cis_int)sizeof(cis_idx) : 0);
}

static cis_status sell_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_sell *F = impl;
  const cis_ellpack_view v = {
      .dtype = F->h.dtype,
      .rows = F->h.rows,
      .nblocks = F->nslices,
      .H = F->S,
      .ld = F->S,
      .block_ptr = F->slice_ptr,
      .col = F->col,
      .val = F->val,
      .rowlen = F->rowlen,
      .perm = F->perm,
  };
  return cis_ellpack_spmv(&v, alpha, x, beta, y);
}

static cis_status sell_dump(const void *impl, FILE *f) {
  const cis_fmt_sell *F = impl;
  const char *name = F->perm ? "sellcs" : F->rowlen ? "sellr" : "sell";
  const cis_int slots = F->slice_ptr[F->nslices];
  fprintf(f, "# %s rows=%lld cols=%lld nnz=%lld S=%lld sigma=%lld nslices=%lld slots=%lld "
             "(slot k of local row r of slice s at slice_ptr[s]+k*S+r)\n",
          name, (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, (long long)F->S,
          (long long)F->sigma, (long long)F->nslices, (long long)slots);
  cis_dump_i64(f, "slice_ptr", F->slice_ptr, F->nslices + 1);
  cis_dump_idx(f, "Column", F->col, slots);
  cis_dump_vals(f, "NonZerosEntries", F->val, F->h.dtype, slots);
  if (F->rowlen) cis_dump_idx(f, "NonZerosCount", F->rowlen, F->h.rows);
  if (F->perm) cis_dump_idx(f, "perm", F->perm, F->h.rows);
  return cis_dump_done(f, name);
}

#define SELL_OPS(kind_, build_, cite_) \
  {.name = #kind_, .citation = cite_, .build = build_, .bytes = sell_bytes, \
   .spmv = sell_spmv, .dump = sell_dump, .destroy = sell_destroy}

const cis_format_ops cis_format_sell =
    SELL_OPS(sell, sell_build, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.4, Algorithm 4 (SELL, IPSJ 2018-HPC-164)");
const cis_format_ops cis_format_sellr =
    SELL_OPS(sellr, sellr_build, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.5, Algorithm 5");
const cis_format_ops cis_format_sellcs =
    SELL_OPS(sellcs, sellcs_build, "Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 2014, Sec. 2 (SELL-C-sigma)");
