/* sym_seg.c: the sym-seg layout (sym_seg.h) from an upper triangle, and its
 * CPU reference product. Each block is built on its own (OpenMP): a
 * counting sort of the block's strict-upper entries by column (the distinct
 * columns sorted, then each column's entries in row order), in two passes:
 * sizes first, then the arrays at their offsets; then each piece's entries
 * reordered inside segments for the kernel's shared-memory banks
 * (sym_seg_balance.h, shared with the device layout). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "formats/sym_seg.h"
#include "formats/sym_seg_balance.h"
#include "core/options.h"

void cis_sym_seg_free(cis_sym_seg *S) {
  if (!S) return;
  cis_free(S->lr);
  cis_free(S->val);
  cis_free(S->segcol);
  cis_free(S->piece_heads);
  cis_free(S->block_piece);
  cis_free(S->block_bound);
  cis_free(S->diag);
  cis_free(S);
}

cis_int cis_sym_seg_bytes(const cis_sym_seg *S) {
  const cis_int vs = (cis_int)cis_dtype_size(S->dtype);
  return S->entries * (2 + vs) + S->segments * 4 + S->pieces * 8 + (S->blocks + 1) * 8 + S->blocks * 8 +
         S->n * vs;
}

cis_int cis_sym_seg_rows(cis_int n, cis_dtype t) {
  const cis_int most = CIS_SYM_SEG_WINDOW_BYTES / 8, cap = (n + 31) / 32 * 32;
  cis_int R = 32768 / (cis_int)cis_dtype_size(t);
  const long v = cis_opt_int(CIS_OPT_SYM_SEG_R, 0);
  if (v >= 32 && v <= most) R = v; /* the kernel's window: 8 bytes a row in shared memory */
  return R < cap ? R : cap < 32 ? 32 : cap;
}

/* Per-thread scratch: a count per column (zero between blocks), the list of
 * the columns the block touched, the block's entries when fetched, and the
 * absolute sums reaching each row of the block's window. */
typedef struct seg_scratch {
  int32_t *count;
  cis_idx *touched;
  cis_idx *col;
  void *val;
  double *wsum;
} seg_scratch;

/* Block b's entries: [k0, k1) of the source, their columns (and values when
 * val is wanted) in s->col / s->val. */
static cis_status block_fetch(const cis_sym_seg_source *src, cis_int R, cis_int b, seg_scratch *s, int val,
                              cis_int *k0) {
  const cis_int i0 = b * R, i1 = i0 + R < src->n ? i0 + R : src->n;
  *k0 = src->rowptr[i0];
  return src->fetch(src->ctx, src->rowptr[i0], src->rowptr[i1], s->col, val ? s->val : NULL);
}

/* Count block b's strict-upper entries per column (s->col holds them);
 * returns the number of distinct columns (listed in s->touched, unsorted),
 * *entries the entries; *bad the first row (1-based) with a column below the
 * diagonal or out of order, else 0. */
static cis_int block_count(const cis_sym_seg_source *src, cis_int R, cis_int b, seg_scratch *s, cis_int k0,
                           cis_int *entries, cis_int *bad) {
  const cis_int i0 = b * R, i1 = i0 + R < src->n ? i0 + R : src->n;
  cis_int distinct = 0, e = 0;
  for (cis_int i = i0; i < i1; ++i)
    for (cis_int k = src->rowptr[i]; k < src->rowptr[i + 1]; ++k) {
      const cis_idx j = s->col[k - k0];
      if (j < i || (k > src->rowptr[i] && j <= s->col[k - k0 - 1]) || j >= src->n) {
        if (!*bad) *bad = i + 1;
        continue;
      }
      if (j == i) continue;
      if (s->count[j]++ == 0) s->touched[distinct++] = j;
      ++e;
    }
  *entries = e;
  return distinct;
}

static void block_clear(seg_scratch *s, cis_int distinct) {
  for (cis_int q = 0; q < distinct; ++q) s->count[s->touched[q]] = 0;
}

/* Fill block b (its entries fetched from k0 on) at its offsets: entries from
 * e0 (pieces from p0, first segment seg0); its diagonal too. */
static void block_fill(const cis_sym_seg_source *src, cis_sym_seg *S, cis_int b, seg_scratch *s, cis_int k0,
                       int64_t e0, int64_t p0, int64_t seg0) {
  const cis_int R = S->R, i0 = b * R, i1 = i0 + R < src->n ? i0 + R : src->n;
  const size_t vs = cis_dtype_size(S->dtype);
  cis_int e = 0, bad = 0, distinct = block_count(src, R, b, s, k0, &e, &bad);
  cis_sort_idx(s->touched, distinct);
  int64_t at = 0; /* count[j] becomes the position of j's next entry */
  for (cis_int q = 0; q < distinct; ++q) {
    const cis_idx j = s->touched[q];
    const int32_t c = s->count[j];
    S->segcol[seg0 + q] = j;
    s->count[j] = (int32_t)at;
    at += c;
  }
  for (cis_int w = 0; w < i1 - i0; ++w) s->wsum[w] = 0.0;
  for (cis_int i = i0; i < i1; ++i)
    for (cis_int k = src->rowptr[i]; k < src->rowptr[i + 1]; ++k) {
      const cis_idx j = s->col[k - k0];
      const char *v = (const char *)s->val + (size_t)(k - k0) * vs;
      if (j == i) {
        memcpy((char *)S->diag + (size_t)i * vs, v, vs);
        continue;
      }
      const int64_t q = e0 + s->count[j]++;
      const double a = fabs(cis_get(s->val, S->dtype, k - k0));
      S->lr[q] = (uint16_t)(i - i0);
      memcpy((char *)S->val + (size_t)q * vs, v, vs);
      s->wsum[i - i0] += a;             /* forward: a x_j to row i */
      if (j < i1) s->wsum[j - i0] += a; /* mirror inside the block: a x_i to row j */
    }
  double bound = 0.0;
  for (cis_int w = 0; w < i1 - i0; ++w)
    bound = s->wsum[w] > bound || isnan(s->wsum[w]) ? s->wsum[w] : bound; /* a NaN sticks */
  S->block_bound[b] = bound;
  for (cis_int q = 0, start = 0; q < distinct; ++q) { /* heads: where each column's run starts */
    S->lr[e0 + start] |= CIS_SYM_SEG_HEAD;
    start = s->count[s->touched[q]];
  }
  block_clear(s, distinct);
  const int64_t padded = (e + CIS_SYM_SEG_PIECE - 1) / CIS_SYM_SEG_PIECE * CIS_SYM_SEG_PIECE;
  for (int64_t q = e0 + e; q < e0 + padded; ++q) {
    S->lr[q] = CIS_SYM_SEG_PAD;
    memset((char *)S->val + (size_t)q * vs, 0, vs);
  }
  for (int64_t p = 0; p < padded / CIS_SYM_SEG_PIECE; ++p) {
    const int64_t q0 = e0 + p * CIS_SYM_SEG_PIECE;
    cis_sym_seg_piece_balance(S->lr + q0, (char *)S->val + (size_t)q0 * vs, vs);
  }
  int64_t heads = seg0;
  for (int64_t p = 0; p < padded / CIS_SYM_SEG_PIECE; ++p) {
    S->piece_heads[p0 + p] = heads;
    for (int64_t q = 0; q < CIS_SYM_SEG_PIECE; ++q)
      heads += (S->lr[e0 + p * CIS_SYM_SEG_PIECE + q] & CIS_SYM_SEG_HEAD) != 0;
  }
}

/* fetch() of a host CSR. */
static cis_status host_fetch(void *ctx, cis_int k0, cis_int k1, cis_idx *col, void *val) {
  const cis_csr *U = ctx;
  const size_t vs = cis_dtype_size(U->dtype);
  memcpy(col, U->colind + k0, (size_t)(k1 - k0) * sizeof(cis_idx));
  if (val) memcpy(val, (const char *)U->val + (size_t)k0 * vs, (size_t)(k1 - k0) * vs);
  return CIS_OK;
}

cis_status cis_sym_seg_build(const cis_csr *U, cis_int R, cis_sym_seg **out) {
  if (!out) return cis_error(CIS_ERR_INVALID, "sym-seg: NULL output");
  *out = NULL;
  if (!U) return cis_error(CIS_ERR_INVALID, "sym-seg: NULL matrix");
  if (!(U->flags & CIS_FLAG_UPPER) || U->rows != U->cols)
    return cis_error(CIS_ERR_INVALID, "sym-seg needs a square upper triangle (CIS_FLAG_UPPER)");
  const cis_sym_seg_source src = {U->rows, U->dtype, U->rowptr, host_fetch, (void *)U};
  return cis_sym_seg_build_from(&src, R, out);
}

/* The layout's host bytes against the memory available now. */
static cis_status check_host_memory(const cis_sym_seg *S) {
  const double need = (double)cis_sym_seg_bytes(S), have = (double)cis_available_memory();
  if (need > 0.9 * have)
    return cis_error(CIS_ERR_ALLOC, "sym-seg: the layout of %lld entries needs %.1f GiB of host memory, %.1f GiB "
                                    "available", (long long)S->strict, need / 1073741824.0, have / 1073741824.0);
  return CIS_OK;
}

/* One pass over the blocks (OpenMP), each fetched into its thread's scratch:
 * fill = 0 counts (bent, bseg: entries and distinct columns) and checks
 * (bbad: the first bad row, 1-based); fill = 1 fills S at the offsets
 * (bseg: first segments). A failed fetch or a bad row is the status. */
static cis_status each_block(const cis_sym_seg_source *src, cis_sym_seg *S, seg_scratch *scr, int nt, int fill,
                             cis_int *bent, cis_int *bseg, cis_int *bbad) {
  CIS_PRAGMA(omp parallel for schedule(dynamic, 1) num_threads(nt))
  for (cis_int b = 0; b < S->blocks; ++b) {
    seg_scratch *s = &scr[omp_get_thread_num()];
    cis_int k0 = 0;
    cis_status fs = block_fetch(src, S->R, b, s, fill, &k0);
    if (fs != CIS_OK) {
      bbad[b] = -(cis_int)fs;
      continue;
    }
    if (fill) {
      block_fill(src, S, b, s, k0, S->block_piece[b] * CIS_SYM_SEG_PIECE, S->block_piece[b], bseg[b]);
    } else {
      bseg[b] = block_count(src, S->R, b, s, k0, &bent[b], &bbad[b]);
      block_clear(s, bseg[b]);
    }
  }
  for (cis_int b = 0; b < S->blocks; ++b) {
    if (bbad[b] < 0) return (cis_status)-bbad[b]; /* the source's own message stands */
    if (bbad[b] > 0)
      return cis_error(CIS_ERR_INVALID, "sym-seg: row %lld of the upper triangle has a column below the diagonal, "
                                        "out of order, repeated or out of range", (long long)bbad[b]);
  }
  return CIS_OK;
}

cis_status cis_sym_seg_build_from(const cis_sym_seg_source *src, cis_int R, cis_sym_seg **out) {
  cis_status st = CIS_OK;
  cis_sym_seg *S = NULL;
  cis_int *bent = NULL, *bseg = NULL, *bbad = NULL, widest = 0; /* per block: entries, segments, bad row */
  seg_scratch *scr = NULL;
  const int nt = omp_get_max_threads();
  if (!out || !src) return cis_error(CIS_ERR_INVALID, "sym-seg: NULL argument");
  *out = NULL;
  if (R < 32 || R > CIS_SYM_SEG_MAX_R)
    return cis_error(CIS_ERR_INVALID, "sym-seg: block of %lld rows outside 32 ... %d", (long long)R,
                     CIS_SYM_SEG_MAX_R);
  CIS_TRY(cis_alloc_zeroed((void **)&S, 1, sizeof *S, "sym-seg header"));
  S->dtype = src->dtype;
  S->n = src->n;
  S->R = R;
  S->blocks = (src->n + R - 1) / R;
  for (cis_int b = 0; b < S->blocks; ++b) {
    const cis_int i0 = b * R, i1 = i0 + R < src->n ? i0 + R : src->n;
    if (src->rowptr[i1] - src->rowptr[i0] > widest) widest = src->rowptr[i1] - src->rowptr[i0];
  }
  CIS_TRY(cis_alloc_zeroed((void **)&scr, nt, sizeof *scr, "sym-seg scratch"));
  for (int t = 0; t < nt; ++t) {
    CIS_TRY(cis_alloc_zeroed((void **)&scr[t].count, src->n + 1, sizeof(int32_t), "sym-seg column counts"));
    CIS_TRY(cis_alloc_array((void **)&scr[t].touched, src->n + 1, sizeof(cis_idx), "sym-seg column lists"));
    CIS_TRY(cis_alloc_array((void **)&scr[t].col, widest + 1, sizeof(cis_idx), "sym-seg block columns"));
    CIS_TRY(cis_alloc_array(&scr[t].val, widest + 1, cis_dtype_size(src->dtype), "sym-seg block values"));
    CIS_TRY(cis_alloc_array((void **)&scr[t].wsum, R, sizeof(double), "sym-seg window sums"));
  }
  CIS_TRY(cis_alloc_zeroed((void **)&bent, S->blocks + 1, sizeof(cis_int), "sym-seg block sizes"));
  CIS_TRY(cis_alloc_zeroed((void **)&bseg, S->blocks + 1, sizeof(cis_int), "sym-seg block segments"));
  CIS_TRY(cis_alloc_zeroed((void **)&bbad, S->blocks + 1, sizeof(cis_int), "sym-seg block checks"));
  CIS_TRY(each_block(src, S, scr, nt, 0, bent, bseg, bbad));
  CIS_TRY(cis_alloc_zeroed((void **)&S->block_piece, S->blocks + 1, sizeof(int64_t), "sym-seg block pieces"));
  for (cis_int b = 0; b < S->blocks; ++b) {
    S->strict += bent[b];
    S->segments += bseg[b];
    S->block_piece[b + 1] = S->block_piece[b] + (bent[b] + CIS_SYM_SEG_PIECE - 1) / CIS_SYM_SEG_PIECE;
  }
  S->pieces = S->block_piece[S->blocks];
  S->entries = S->pieces * CIS_SYM_SEG_PIECE;
  CIS_TRY(check_host_memory(S));
  CIS_TRY(cis_alloc_array((void **)&S->lr, S->entries, 2, "sym-seg rows"));
  CIS_TRY(cis_alloc_array(&S->val, S->entries, cis_dtype_size(S->dtype), "sym-seg values"));
  CIS_TRY(cis_alloc_array((void **)&S->segcol, S->segments, sizeof(cis_idx), "sym-seg segment columns"));
  CIS_TRY(cis_alloc_array((void **)&S->piece_heads, S->pieces, sizeof(int64_t), "sym-seg piece table"));
  CIS_TRY(cis_alloc_zeroed((void **)&S->block_bound, S->blocks + 1, sizeof(double), "sym-seg block bounds"));
  CIS_TRY(cis_alloc_zeroed(&S->diag, S->n, cis_dtype_size(S->dtype), "sym-seg diagonal"));
  int64_t seg0 = 0;
  for (cis_int b = 0; b < S->blocks; ++b) { /* bseg becomes each block's first segment */
    const cis_int c = bseg[b];
    bseg[b] = seg0;
    seg0 += c;
  }
  CIS_TRY(each_block(src, S, scr, nt, 1, bent, bseg, bbad));
  *out = S;
  S = NULL;
cleanup:
  for (int t = 0; scr && t < nt; ++t) {
    cis_free(scr[t].count);
    cis_free(scr[t].touched);
    cis_free(scr[t].col);
    cis_free(scr[t].val);
    cis_free(scr[t].wsum);
  }
  cis_free(scr);
  cis_free(bent);
  cis_free(bseg);
  cis_free(bbad);
  cis_sym_seg_free(S);
  return st;
}

cis_status cis_sym_seg_spmv(const cis_sym_seg *S, double alpha, const void *x, double beta, void *y) {
  cis_status st;
  double *acc = NULL;
  if (!S || !x || !y) return cis_error(CIS_ERR_INVALID, "cis_sym_seg_spmv: NULL argument");
  CIS_TRY(cis_alloc_zeroed((void **)&acc, S->n + 1, sizeof(double), "sym-seg reference sums"));
  for (cis_int i = 0; i < S->n; ++i) acc[i] = cis_get(S->diag, S->dtype, i) * cis_get(x, S->dtype, i);
  for (cis_int b = 0; b < S->blocks; ++b)
    for (int64_t p = S->block_piece[b]; p < S->block_piece[b + 1]; ++p) {
      int64_t seg = S->piece_heads[p] - 1;
      for (int64_t q = p * CIS_SYM_SEG_PIECE; q < (p + 1) * CIS_SYM_SEG_PIECE; ++q) {
        const unsigned code = S->lr[q];
        if (code & CIS_SYM_SEG_HEAD) ++seg;
        if (code == CIS_SYM_SEG_PAD) continue;
        const cis_int i = b * S->R + (code & CIS_SYM_SEG_PAD), j = S->segcol[seg];
        const double a = cis_get(S->val, S->dtype, q);
        acc[i] += a * cis_get(x, S->dtype, j);
        acc[j] += a * cis_get(x, S->dtype, i);
      }
    }
  for (cis_int i = 0; i < S->n; ++i)
    cis_set(y, S->dtype, i, alpha * acc[i] + (beta == 0.0 ? 0.0 : beta * cis_get(y, S->dtype, i)));
cleanup:
  cis_free(acc);
  return st;
}
