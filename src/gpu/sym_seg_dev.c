/* sym_seg_dev.c: cis_sym_seg_build_device (gpu_internal.h), the sym-seg
 * layout laid out on the current GPU from a device upper triangle by the
 * kernels of src/kernels/sym_seg_build.cu, in batches of whole blocks sized
 * to the memory free; its CPU reference is the host builder
 * (src/formats/sym_seg.c), whose bytes it reproduces (tests/gpu/
 * test_sym_seg_build_gpu.c). Every step on the current device's default
 * stream; the host reads only the row pointers, each block's count and each
 * batch's number of segments. */
#include <limits.h>
#include <string.h>
#include "formats/sym_seg.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_internal.h"

/* Device scratch of one build, freed together. */
typedef struct seg_scratch_dev {
  unsigned long long *count, *bad;
  uint64_t *key[2];
  uint32_t *pos[2];
  int32_t *head, *segno;
  void *bb, *temp;
  size_t temp_bytes;
} seg_scratch_dev;

static void scratch_free(seg_scratch_dev *w) {
  void *d[] = {w->count, w->bad, w->key[0], w->key[1], w->pos[0], w->pos[1], w->head, w->segno, w->bb, w->temp};
  for (size_t k = 0; k < sizeof d / sizeof *d; ++k) cis_gpu_free(d[k]);
  memset(w, 0, sizeof *w);
}

void cis_sym_seg_dev_free(cis_sym_seg_dev *g) {
  if (!g) return;
  void *d[] = {(void *)g->lr,          (void *)g->val,         (void *)g->diag,        (void *)g->segcol,
               (void *)g->piece_heads, (void *)g->chunk_piece, (void *)g->chunk_block, (void *)g->block_bound,
               g->xmax};
  for (size_t k = 0; k < sizeof d / sizeof *d; ++k) cis_gpu_free(d[k]);
  cis_free(g);
}

static cis_status dalloc(void **d, int64_t count, size_t elem, const char *what) {
  return cis_gpu_alloc_copy_for(d, NULL, (size_t)(count > 0 ? count : 1) * elem, "sym-seg on the GPU", what);
}

static int bits_for(uint64_t v) { /* the least b with v < 2^b */
  int b = 0;
  while (b < 64 && (v >> b)) ++b;
  return b;
}

/* segcol grown to hold `need` columns, the first `keep` kept. */
static cis_status grow_segcol(cis_idx **segcol, int64_t *cap, int64_t keep, int64_t need) {
  cis_status st = CIS_OK;
  if (need <= *cap) return CIS_OK;
  cis_idx *b = NULL;
  const int64_t c = need > 2 * *cap ? need : 2 * *cap;
  CIS_TRY(dalloc((void **)&b, c, sizeof(cis_idx), "segment columns"));
  if (keep > 0) CIS_CUDA_TRY(cudaMemcpy(b, *segcol, (size_t)keep * sizeof(cis_idx), cudaMemcpyDeviceToDevice));
  cis_gpu_free(*segcol);
  *segcol = b, *cap = c;
  b = NULL;
cleanup:
  cis_gpu_free(b);
  return st;
}

cis_status cis_sym_seg_build_device(cis_int n, cis_dtype t, const int64_t *d_rowptr, const cis_idx *d_col,
                                    const void *d_val, cis_int R, cis_int batch, cis_sym_seg *shape,
                                    cis_sym_seg_dev **out) {
  cis_status st = CIS_OK;
  seg_scratch_dev w;
  memset(&w, 0, sizeof w);
  cis_sym_seg_dev *g = NULL;
  int64_t *rowptr = NULL, *bb = NULL, segcap = 0;
  unsigned long long *cnt = NULL, bad = 0;
  cis_idx *segcol = NULL;
  if (!out || !shape || !d_rowptr || (n > 0 && (!d_col || !d_val)))
    return cis_error(CIS_ERR_INVALID, "cis_sym_seg_build_device: NULL argument");
  *out = NULL;
  memset(shape, 0, sizeof *shape);
  if (t != CIS_F64 && t != CIS_F32) return cis_error(CIS_ERR_INVALID, "sym-seg on the GPU: unknown value type %d", (int)t);
  if (n < 1 || n > INT32_MAX) return cis_error(CIS_ERR_INVALID, "sym-seg on the GPU: %lld rows", (long long)n);
  if (R < 32 || R > CIS_SYM_SEG_MAX_R)
    return cis_error(CIS_ERR_INVALID, "sym-seg: block of %lld rows outside 32 ... %d", (long long)R, CIS_SYM_SEG_MAX_R);
  const size_t vs = cis_dtype_size(t);
  const cis_int blocks = (n + R - 1) / R;
  CIS_TRY(cis_alloc_zeroed((void **)&g, 1, sizeof *g, "sym-seg device header"));
  *g = (cis_sym_seg_dev){.t = t, .n = n, .R = R};
  CIS_TRY(cis_alloc_array((void **)&rowptr, n + 1, sizeof(int64_t), "sym-seg row pointers"));
  CIS_TRY(cis_gpu_download(rowptr, d_rowptr, (size_t)(n + 1) * sizeof(int64_t)));
  /* 1. rows: checks, the diagonal, each block's strict entries */
  CIS_TRY(dalloc((void **)&w.count, blocks, sizeof *w.count, "block counts"));
  CIS_TRY(dalloc((void **)&w.bad, 1, sizeof *w.bad, "row check"));
  CIS_TRY(dalloc((void **)&g->diag, n, vs, "diagonal"));
  CIS_CUDA_TRY(cudaMemset(w.count, 0, (size_t)blocks * sizeof *w.count));
  CIS_CUDA_TRY(cudaMemset(w.bad, 0xff, sizeof *w.bad));
  CIS_CUDA_TRY(cudaMemset((void *)g->diag, 0, (size_t)n * vs));
  CIS_TRY(cis_launch_sym_seg_rows(d_rowptr, d_col, d_val, t, n, R, (void *)g->diag, w.count, w.bad, 0));
  CIS_TRY(cis_alloc_array((void **)&cnt, blocks, sizeof *cnt, "sym-seg block counts"));
  CIS_TRY(cis_gpu_download(cnt, w.count, (size_t)blocks * sizeof *cnt));
  CIS_TRY(cis_gpu_download(&bad, w.bad, sizeof bad));
  if (bad != ~0ull)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "sym-seg: row %llu of the upper triangle has a column below the diagonal, "
                                       "out of order, repeated or out of range", bad));
  /* 2. the shape (the host builder's arithmetic) and the layout's arrays */
  shape->dtype = t, shape->n = n, shape->R = R, shape->blocks = blocks;
  CIS_TRY(cis_alloc_zeroed((void **)&shape->block_piece, blocks + 1, sizeof(int64_t), "sym-seg block pieces"));
  int64_t widest = 0;
  for (cis_int b = 0; b < blocks; ++b) {
    const cis_int i0 = b * R, i1 = i0 + R < n ? i0 + R : n;
    shape->strict += (cis_int)cnt[b];
    shape->block_piece[b + 1] = shape->block_piece[b] + ((int64_t)cnt[b] + CIS_SYM_SEG_PIECE - 1) / CIS_SYM_SEG_PIECE;
    if (rowptr[i1] - rowptr[i0] > widest) widest = rowptr[i1] - rowptr[i0];
  }
  shape->pieces = shape->block_piece[blocks];
  shape->entries = shape->pieces * CIS_SYM_SEG_PIECE;
  CIS_TRY(dalloc((void **)&g->lr, shape->entries, 2, "rows"));
  CIS_TRY(dalloc((void **)&g->val, shape->entries, vs, "values"));
  CIS_TRY(dalloc((void **)&g->piece_heads, shape->pieces, 8, "piece table"));
  CIS_TRY(dalloc((void **)&g->block_bound, blocks, 8, "block bounds"));
  /* 3. the batch: whole blocks, 32 bytes an entry (two keys, two positions,
   * a head and its count) and the sort's scratch, in the memory free less a
   * reserve of 1/16 */
  int64_t cap = batch;
  if (cap <= 0) {
    size_t fr = 0, tot = 0;
    CIS_CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    cap = (int64_t)((fr - fr / 16) / 40);
  }
  if (cap > INT32_MAX) cap = INT32_MAX;
  if (cap < widest)
    CIS_TRY(cis_error(CIS_ERR_DEVICE_OOM, "sym-seg on the GPU: a batch of %lld entries fits, the widest block has %lld",
                      (long long)cap, (long long)widest));
  if (cap > rowptr[n]) cap = rowptr[n] > widest ? rowptr[n] : widest;
  for (int k = 0; k < 2; ++k) {
    CIS_TRY(dalloc((void **)&w.key[k], cap, 8, "sort keys"));
    CIS_TRY(dalloc((void **)&w.pos[k], cap, 4, "sort positions"));
  }
  CIS_TRY(dalloc((void **)&w.head, cap, 4, "segment heads"));
  CIS_TRY(dalloc((void **)&w.segno, cap, 4, "segment numbers"));
  const size_t bbs = cis_sym_seg_batch_block_bytes();
  CIS_TRY(dalloc(&w.bb, blocks, bbs, "batch blocks"));
  CIS_TRY(cis_alloc_array((void **)&bb, blocks * 4, sizeof(int64_t), "sym-seg batch blocks"));
  segcap = shape->strict / 16 + blocks;
  CIS_TRY(dalloc((void **)&segcol, segcap, sizeof(cis_idx), "segment columns"));
  const int colbits = bits_for((uint64_t)(n - 1)) > 0 ? bits_for((uint64_t)(n - 1)) : 1;
  int64_t segbase = 0;
  for (cis_int b0 = 0, b1; b0 < blocks; b0 = b1) {
    const int64_t K0 = rowptr[b0 * R];
    int64_t m = 0;
    for (b1 = b0 + 1; b1 < blocks && rowptr[(b1 + 1) * R < n ? (b1 + 1) * R : n] - K0 <= cap; ++b1) {}
    const cis_int i1 = b1 * R < n ? b1 * R : n, nb = b1 - b0;
    for (cis_int b = b0; b < b1; ++b) { /* e0, sorted start, count, first piece */
      int64_t *e = bb + 4 * (b - b0);
      e[0] = shape->block_piece[b] * CIS_SYM_SEG_PIECE, e[1] = m, e[2] = (int64_t)cnt[b], e[3] = shape->block_piece[b];
      m += (int64_t)cnt[b];
    }
    const int end_bit = colbits + bits_for((uint64_t)nb);
    const uint64_t last = end_bit >= 64 ? ~0ull : (1ull << end_bit) - 1;
    size_t tb = 0;
    int sel = 0;
    int32_t segs = 0;
    if (rowptr[i1] > K0) {
      CIS_TRY(cis_launch_sym_seg_keys(d_rowptr, d_col, b0 * R, i1, K0, R, b0, colbits, last, w.key[0], w.pos[0], 0));
      CIS_TRY(cis_launch_sym_seg_sort(NULL, &tb, w.key[0], w.key[1], w.pos[0], w.pos[1], rowptr[i1] - K0, end_bit,
                                      NULL, 0));
      CIS_TRY(cis_gpu_scratch_grow(&w.temp, &w.temp_bytes, tb, "sym-seg sort scratch"));
      CIS_TRY(cis_launch_sym_seg_sort(w.temp, &tb, w.key[0], w.key[1], w.pos[0], w.pos[1], rowptr[i1] - K0, end_bit,
                                      &sel, 0));
    }
    CIS_TRY(cis_launch_sym_seg_heads(NULL, &tb, w.key[sel], m, w.head, w.segno, 0));
    CIS_TRY(cis_gpu_scratch_grow(&w.temp, &w.temp_bytes, tb, "sym-seg sort scratch"));
    CIS_TRY(cis_launch_sym_seg_heads(w.temp, &tb, w.key[sel], m, w.head, w.segno, 0));
    if (m > 0) CIS_TRY(cis_gpu_download(&segs, w.segno + m - 1, sizeof segs));
    CIS_TRY(grow_segcol(&segcol, &segcap, segbase, segbase + segs));
    CIS_TRY(cis_gpu_upload(w.bb, bb, (size_t)nb * bbs));
    CIS_TRY(cis_launch_sym_seg_fill(w.key[sel], w.pos[sel], w.head, w.segno, w.bb, d_rowptr, d_col, d_val, t, m, nb, n,
                                    R, b0, K0, colbits, segbase, (uint16_t *)g->lr, (void *)g->val, segcol,
                                    (int64_t *)g->piece_heads, (double *)g->block_bound, 0));
    segbase += segs;
  }
  CIS_CUDA_TRY(cudaDeviceSynchronize());
  scratch_free(&w);
  /* the segment columns at their size */
  CIS_TRY(dalloc((void **)&g->segcol, segbase, sizeof(cis_idx), "segment columns"));
  if (segbase > 0)
    CIS_CUDA_TRY(cudaMemcpy((void *)g->segcol, segcol, (size_t)segbase * sizeof(cis_idx), cudaMemcpyDeviceToDevice));
  shape->segments = segbase;
  g->segments = segbase;
  g->bytes = shape->entries * (2 + (cis_int)vs) + segbase * 4 + shape->pieces * 8 + blocks * 8 + n * (cis_int)vs;
  *out = g;
  g = NULL;
cleanup:
  scratch_free(&w);
  cis_gpu_free(segcol);
  cis_sym_seg_dev_free(g);
  cis_free(rowptr);
  cis_free(cnt);
  cis_free(bb);
  if (st != CIS_OK) {
    cis_free(shape->block_piece);
    memset(shape, 0, sizeof *shape);
  }
  return st;
}
