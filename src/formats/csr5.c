/* csr5.c: building the CSR5 format from CSR (Liu & Vinter, ICS 2015, Sec. 3:
 * the tile pointer, the tile descriptor and the in-tile transposition),
 * its byte count and dump. The layout is documented in csr5.h; the CPU SpMV
 * that walks it is in csr5_spmv.c. */
#include <string.h>
#include "core/internal.h"
#include "formats/csr5.h"
#include "formats/format_util.h"

cis_int cis_csr5_choose_sigma(cis_int rows, cis_int nnz) {
  cis_int per_row = rows > 0 ? nnz / rows : 0;
  if (per_row <= 4) return 4;
  if (per_row <= 32) return per_row;
  if (per_row <= 256) return 32;
  return 6;
}

static void csr5_destroy(void *impl) {
  cis_fmt_csr5 *F = impl;
  if (!F) return;
  cis_offsets_free(&F->rowptr);
  cis_offsets_free(&F->empty_ptr);
  cis_free(F->tile_ptr);
  cis_free(F->bit_flag);
  cis_free(F->y_offset);
  cis_free(F->seg_offset);
  cis_free(F->empty_offset);
  cis_free(F->col);
  cis_free(F->val);
  cis_free(F);
}

/* First i in [0, n) with a[i] >= key (n if none); a nondecreasing. */
static cis_int lower_bound(const cis_int *a, cis_int n, cis_int key) {
  cis_int lo = 0, hi = n;
  while (lo < hi) {
    cis_int mid = lo + (hi - lo) / 2;
    if (a[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* Tile t: tile_ptr (with the empty-row flag), bit flags, y_offset and
 * seg_offset; returns its number of segments. Rows whose rowptr lies in the
 * tile are [a, b). */
static cis_int describe_tile(cis_fmt_csr5 *F, const cis_csr *A, cis_int t) {
  const cis_int W = CIS_CSR5_OMEGA * F->sigma, lo = t * W;
  const cis_int a = lower_bound(A->rowptr, A->rows, lo), b = lower_bound(A->rowptr, A->rows, lo + W);
  uint32_t *bits = F->bit_flag + t * CIS_CSR5_OMEGA;
  uint16_t *yoff = F->y_offset + t * CIS_CSR5_OMEGA;
  uint8_t *soff = F->seg_offset + t * CIS_CSR5_OMEGA;
  int empty = 0;
  memset(bits, 0, CIS_CSR5_OMEGA * sizeof *bits);
  for (cis_int r = a; r < b; ++r) {
    cis_int pos = A->rowptr[r] - lo;
    if (A->rowptr[r + 1] == A->rowptr[r]) empty = 1;
    else bits[pos / F->sigma] |= 1u << (pos % F->sigma);
  }
  /* the row holding entry lo: the last row starting at or before it */
  cis_int first_row = lower_bound(A->rowptr, A->rows + 1, lo + 1) - 1;
  F->tile_ptr[t] = (uint32_t)first_row | (empty ? CIS_CSR5_EMPTY_FLAG : 0u);
  /* y_offset: row starts at positions 1 .. lane*sigma (position 0 is segment 0) */
  cis_int starts = 0;
  for (int lane = 0; lane < CIS_CSR5_OMEGA; ++lane) {
    int first_is_start = lane > 0 && (bits[lane] & 1u);
    yoff[lane] = (uint16_t)(starts + first_is_start);
    starts += __builtin_popcount(lane == 0 ? bits[lane] & ~1u : bits[lane]);
  }
  /* seg_offset: consecutive start-less lanes after each lane (lane 0 always starts) */
  soff[CIS_CSR5_OMEGA - 1] = 0;
  for (int lane = CIS_CSR5_OMEGA - 2; lane >= 0; --lane)
    soff[lane] = bits[lane + 1] ? 0 : (uint8_t)(soff[lane + 1] + 1);
  return starts + 1;
}

/* empty_offset of flagged tile t: row of each segment in order. */
static void list_tile_rows(cis_fmt_csr5 *F, const cis_csr *A, cis_int t) {
  const cis_int W = CIS_CSR5_OMEGA * F->sigma, lo = t * W;
  const cis_int a = lower_bound(A->rowptr, A->rows, lo), b = lower_bound(A->rowptr, A->rows, lo + W);
  cis_idx *out = F->empty_offset + cis_off_get(&F->empty_ptr, t);
  cis_int k = 0;
  out[k++] = (cis_idx)cis_csr5_tile_row(F, t);
  for (cis_int r = a; r < b; ++r)
    if (A->rowptr[r + 1] > A->rowptr[r] && A->rowptr[r] > lo) out[k++] = (cis_idx)r;
}

/* Values and columns: tiles transposed (slot i*omega + lane), tail as is. */
static void transpose_entries(cis_fmt_csr5 *F, const cis_csr *A) {
  const cis_int W = CIS_CSR5_OMEGA * F->sigma, sigma = F->sigma;
  const cis_dtype ft = F->h.dtype;
  CIS_PRAGMA(omp parallel for schedule(static))
  for (cis_int t = 0; t < F->ntiles; ++t)
    for (cis_int lane = 0; lane < CIS_CSR5_OMEGA; ++lane)
      for (cis_int i = 0; i < sigma; ++i) {
        cis_int src = t * W + lane * sigma + i, dst = t * W + i * CIS_CSR5_OMEGA + lane;
        F->col[dst] = A->colind[src];
        cis_set(F->val, ft, dst, cis_get(A->val, A->dtype, src));
      }
  for (cis_int k = F->tail_start; k < A->nnz; ++k) {
    F->col[k] = A->colind[k];
    cis_set(F->val, ft, k, cis_get(A->val, A->dtype, k));
  }
}

/* First row the CSR tail handles: the row holding entry tail_start if it
 * started earlier, else the first row with rowptr >= tail_start. */
static cis_int tail_first_row(const cis_csr *A, cis_int tail_start) {
  cis_int a = lower_bound(A->rowptr, A->rows + 1, tail_start);
  return A->rowptr[a] > tail_start ? a - 1 : a;
}

static cis_status csr5_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_int sigma = p->csr5_sigma > 0 ? p->csr5_sigma : cis_csr5_choose_sigma(A->rows, A->nnz);
  if (sigma > CIS_CSR5_SIGMA_MAX)
    return cis_error(CIS_ERR_INVALID, "csr5: sigma %lld out of range 1..%d (0 = choose)",
                     (long long)sigma, CIS_CSR5_SIGMA_MAX);
  cis_int *nseg = NULL;
  cis_fmt_csr5 *F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate CSR5 format header");
  const cis_int W = CIS_CSR5_OMEGA * sigma;
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->sigma = sigma;
  F->ntiles = A->nnz / W;
  F->tail_start = F->ntiles * W;
  const cis_int lanes = F->ntiles * CIS_CSR5_OMEGA;
  CIS_TRY(cis_offsets_alloc(&F->rowptr, A->rows + 1, A->nnz));
  CIS_TRY(cis_offsets_alloc(&F->empty_ptr, F->ntiles + 1, A->nnz));
  CIS_TRY(cis_alloc_array((void **)&F->tile_ptr, F->ntiles + 1, sizeof(uint32_t), "CSR5 tile_ptr"));
  CIS_TRY(cis_alloc_array((void **)&F->bit_flag, lanes, sizeof(uint32_t), "CSR5 bit_flag"));
  CIS_TRY(cis_alloc_array((void **)&F->y_offset, lanes, sizeof(uint16_t), "CSR5 y_offset"));
  CIS_TRY(cis_alloc_array((void **)&F->seg_offset, lanes, sizeof(uint8_t), "CSR5 seg_offset"));
  CIS_TRY(cis_alloc_array((void **)&F->col, A->nnz, sizeof(cis_idx), "CSR5 columns"));
  CIS_TRY(cis_alloc_array(&F->val, A->nnz, cis_dtype_size(p->dtype), "CSR5 values"));
  CIS_TRY(cis_alloc_array((void **)&nseg, F->ntiles, sizeof(cis_int), "CSR5 segment counts"));
  for (cis_int i = 0; i <= A->rows; ++i) cis_off_set(&F->rowptr, i, A->rowptr[i]);

  CIS_PRAGMA(omp parallel for schedule(static))
  for (cis_int t = 0; t < F->ntiles; ++t) nseg[t] = describe_tile(F, A, t);
  F->tile_ptr[F->ntiles] = (uint32_t)tail_first_row(A, F->tail_start);

  cis_int total = 0;
  for (cis_int t = 0; t < F->ntiles; ++t) {
    cis_off_set(&F->empty_ptr, t, total);
    if (cis_csr5_tile_has_empty(F, t)) total += nseg[t];
  }
  cis_off_set(&F->empty_ptr, F->ntiles, total);
  F->n_empty_offset = total;
  CIS_TRY(cis_alloc_array((void **)&F->empty_offset, total, sizeof(cis_idx), "CSR5 empty_offset"));
  CIS_PRAGMA(omp parallel for schedule(static))
  for (cis_int t = 0; t < F->ntiles; ++t)
    if (cis_csr5_tile_has_empty(F, t)) list_tile_rows(F, A, t);

  transpose_entries(F, A);
  cis_free(nseg);
  *impl = F;
  return CIS_OK;
cleanup:
  cis_free(nseg);
  csr5_destroy(F);
  return st;
}

static cis_int csr5_bytes(const void *impl) {
  const cis_fmt_csr5 *F = impl;
  const cis_int lanes = F->ntiles * CIS_CSR5_OMEGA;
  return cis_offsets_bytes(&F->rowptr, F->h.rows + 1) + (F->ntiles + 1) * (cis_int)sizeof(uint32_t) +
         lanes * (cis_int)(sizeof(uint32_t) + sizeof(uint16_t) + sizeof(uint8_t)) +
         cis_offsets_bytes(&F->empty_ptr, F->ntiles + 1) + F->n_empty_offset * (cis_int)sizeof(cis_idx) +
         F->h.nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(F->h.dtype));
}

static cis_status csr5_dump(const void *impl, FILE *f) {
  const cis_fmt_csr5 *F = impl;
  const cis_int lanes = F->ntiles * CIS_CSR5_OMEGA;
  fprintf(f, "# csr5 rows=%lld cols=%lld nnz=%lld omega=%d sigma=%lld tiles=%lld tail_start=%lld offset_bits=%d\n",
          (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, CIS_CSR5_OMEGA,
          (long long)F->sigma, (long long)F->ntiles, (long long)F->tail_start, F->rowptr.wide ? 64 : 32);
  cis_dump_offsets(f, "RowPtr", &F->rowptr, F->h.rows + 1);
  fprintf(f, "TilePtr"); /* row, '*' = tile holds empty rows */
  for (cis_int t = 0; t <= F->ntiles; ++t)
    fprintf(f, " %lld%s", (long long)cis_csr5_tile_row(F, t), cis_csr5_tile_has_empty(F, t) ? "*" : "");
  fprintf(f, "\nBitFlag");
  for (cis_int k = 0; k < lanes; ++k) fprintf(f, " %x", F->bit_flag[k]);
  fputc('\n', f);
  cis_dump_u16(f, "YOffset", F->y_offset, lanes);
  fprintf(f, "SegOffset");
  for (cis_int k = 0; k < lanes; ++k) fprintf(f, " %u", (unsigned)F->seg_offset[k]);
  fputc('\n', f);
  cis_dump_offsets(f, "EmptyPtr", &F->empty_ptr, F->ntiles + 1);
  cis_dump_idx(f, "EmptyOffset", F->empty_offset, F->n_empty_offset);
  cis_dump_idx(f, "Column", F->col, F->h.nnz);
  cis_dump_vals(f, "Value", F->val, F->h.dtype, F->h.nnz);
  return cis_dump_done(f, "CSR5");
}

const cis_format_ops cis_format_csr5 = {
    .name = "csr5",
    .citation = "Liu & Vinter, ICS 2015 (CSR5), Sec. 3 (tiles, tile_ptr, tile descriptor)",
    .build = csr5_build,
    .bytes = csr5_bytes,
    .spmv = cis_csr5_spmv_cpu,
    .dump = csr5_dump,
    .destroy = csr5_destroy,
};
