/* csr_sym_gpu.c: symmetric storage on the GPU: the device tables of the
 * upper-triangle CSR (kernels csr-sym, csr-sym-det, csr-sym-win of
 * src/kernels/csr_sym.cu) and of the sym-seg layout (kernel sym-seg,
 * src/kernels/sym_seg.cu), both CIS_STORE_UPPER in
 * src/formats/format_list.h; cis_gpu_plan_create_symmetric from a host
 * upper triangle, and a plan around one built on the device (the CI
 * Hamiltonian, src/ci/gpu/; sym-seg then laid out on the device,
 * sym_seg_dev.c). Row pointers are 64-bit; bytes = (rows+1)*8 + nnz*(4+vs),
 * about half the full matrix's; csr-sym-det adds rows*8 + 8 bytes of
 * workspace (the fixed-point accumulators). */
#include <stdlib.h>
#include <string.h>
#include "formats/sym_seg.h"
#include "gpu/gpu_internal.h"
#include "core/options.h"

static void sym_release(void *dev) {
  cis_csr_sym_dev *D = dev;
  if (!D) return;
  cis_gpu_free((void *)D->rowptr);
  cis_gpu_free((void *)D->col);
  cis_gpu_free((void *)D->val);
  cis_gpu_free(D->acc);
  cis_gpu_free(D->xmax);
  cis_sym_seg_dev_free(D->seg);
  cis_free(D);
}

/* Chunks of block row b at most `per` pieces long (0 when per is 0: no pieces). */
static int64_t seg_block_chunks(const cis_sym_seg *S, cis_int b, int64_t per) {
  return per > 0 ? (S->block_piece[b + 1] - S->block_piece[b] + per - 1) / per : 0;
}

/* sym-seg's chunk table: runs of at most pieces / (slots * chunks per slot)
 * pieces (option sym_seg_chunks per slot, default 8: few enough that the
 * window flushes, R atomics per chunk, stay small, enough that the last
 * wave is short; H2O FCI on the H200, 2026-11-26, three runs: 4 per slot
 * 2.56-2.63 ms per product in Davidson, 8 per slot 2.53-2.59, 16 per slot
 * 2.52-2.60), never across a block row; a block row's chunks split its
 * pieces evenly (a short remainder chunk beside full ones left SMs idle at
 * the end: +-5.5% active cycles on H2O FCI, Nsight Compute). */
static cis_status seg_chunks(const cis_sym_seg *S, int slots, int64_t **piece, int32_t **block, cis_int *count) {
  cis_status st = CIS_OK;
  const long per_slot = cis_opt_int(CIS_OPT_SYM_SEG_CHUNKS, 8);
  const int64_t want = (int64_t)slots * per_slot, per = S->pieces / want + (S->pieces % want != 0);
  cis_int c = 0;
  *piece = NULL;
  *block = NULL;
  for (cis_int b = 0; b < S->blocks; ++b) c += seg_block_chunks(S, b, per);
  CIS_TRY(cis_alloc_array((void **)piece, c + 1, sizeof(int64_t), "sym-seg chunk pieces"));
  CIS_TRY(cis_alloc_array((void **)block, c + 1, sizeof(int32_t), "sym-seg chunk blocks"));
  c = 0;
  for (cis_int b = 0; b < S->blocks; ++b) {
    const int64_t p0 = S->block_piece[b], np = S->block_piece[b + 1] - p0, k = seg_block_chunks(S, b, per);
    for (int64_t i = 0; i < k; ++i) {
      (*piece)[c] = p0 + i * np / k;
      (*block)[c++] = (int32_t)b;
    }
  }
  (*piece)[c] = S->pieces;
  *count = c;
cleanup:
  return st;
}

/* The chunk table of a layout of shape S (its counts and block_piece) for
 * blocks of `block` threads, and max|x|'s word, added to g. */
static cis_status seg_finish(const cis_sym_seg *S, int block, cis_sym_seg_dev *g) {
  cis_status st;
  int64_t *chunk_piece = NULL;
  int32_t *chunk_block = NULL;
  int slots = 0;
  CIS_TRY(cis_sym_seg_slots(S->dtype, S->R, block, &slots));
  CIS_TRY(seg_chunks(S, slots, &chunk_piece, &chunk_block, &g->chunks));
  CIS_TRY(cis_gpu_upload_array((void **)&g->chunk_piece, chunk_piece, g->chunks + 1, 8, "sym-seg chunks",
                               &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->chunk_block, chunk_block, g->chunks + 1, 4, "sym-seg chunk rows",
                               &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->xmax, NULL, 1, 8, "sym-seg max|x|", &g->bytes));
cleanup:
  cis_free(chunk_piece);
  cis_free(chunk_block);
  return st;
}

/* Upload the layout S and its chunk table for blocks of `block` threads. */
static cis_status seg_upload(const cis_sym_seg *S, int block, cis_sym_seg_dev **out) {
  cis_status st;
  cis_sym_seg_dev *g = NULL;
  const size_t vs = cis_dtype_size(S->dtype);
  CIS_TRY(cis_alloc_zeroed((void **)&g, 1, sizeof *g, "sym-seg device header"));
  *g = (cis_sym_seg_dev){.t = S->dtype, .n = S->n, .R = S->R, .segments = S->segments};
  CIS_TRY(cis_gpu_upload_array((void **)&g->lr, S->lr, S->entries, 2, "sym-seg rows", &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->val, S->val, S->entries, vs, "sym-seg values", &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->diag, S->diag, S->n, vs, "sym-seg diagonal", &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->segcol, S->segcol, S->segments, sizeof(cis_idx), "sym-seg columns",
                               &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->piece_heads, S->piece_heads, S->pieces, 8, "sym-seg piece table",
                               &g->bytes));
  CIS_TRY(cis_gpu_upload_array((void **)&g->block_bound, S->block_bound, S->blocks, 8, "sym-seg block bounds",
                               &g->bytes));
  CIS_TRY(seg_finish(S, block, g));
  *out = g;
  g = NULL;
cleanup:
  cis_sym_seg_dev_free(g);
  return st;
}

/* csr-sym-det's workspace and the bound colmax (one pass over U). */
static cis_status sym_det_setup(cis_csr_sym_dev *D, cis_int *ws) {
  cis_status st;
  double *colsum = NULL;
  unsigned long long bits = 0;
  CIS_TRY(cis_gpu_upload_array((void **)&D->acc, NULL, D->rows, 8, "csr-sym-det accumulators", ws));
  CIS_TRY(cis_gpu_upload_array((void **)&D->xmax, NULL, 1, 8, "csr-sym-det max|x|", ws));
  CIS_TRY(cis_gpu_alloc_copy((void **)&colsum, NULL, (size_t)D->rows * 8 + 8, "csr-sym-det column sums"));
  CIS_TRY(cis_launch_csr_sym_colmax(D, colsum, D->xmax, NULL));
  if (cudaMemset(D->acc, 0, (size_t)D->rows * 8) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "%s:%d: clearing the csr-sym-det accumulators failed", __FILE__, __LINE__);
    goto cleanup;
  }
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(&bits, D->xmax, 8));
  memcpy(&D->colmax, &bits, 8);
  D->colmax *= 1.0 + 1e-12; /* the device sum was rounded: keep it an upper bound */
cleanup:
  cis_gpu_free(colsum);
  return st;
}

/* A plan around device arrays (owned by the plan from the call on). */
static cis_status sym_plan(cis_csr_sym_dev *D, const char *kernel, int block, cis_gpu_plan **out);

static cis_status sym_spmv(const void *dev, const char *kernel, int block, double alpha, const void *x,
                           double beta, void *y, cis_stream s) {
  (void)kernel; /* D->det, window and seg were set from the kernel name at creation */
  const cis_csr_sym_dev *D = dev;
  if (D->seg) return cis_launch_sym_seg(D->seg, alpha, x, beta, y, block, (cudaStream_t)s);
  return cis_launch_csr_sym(dev, alpha, x, beta, y, block, (cudaStream_t)s);
}

static cis_status sym_spmm(const void *dev, int block, int k, double alpha, const void *X, cis_int ldx,
                           double beta, void *Y, cis_int ldy, int col_major, cis_stream s) {
  const cis_csr_sym_dev *D = dev;
  if (D->seg) { /* no CSR arrays: one product per column */
    const size_t vs = cis_dtype_size(D->t);
    if (!col_major)
      return cis_error(CIS_ERR_UNSUPPORTED, "sym-seg: SpMM takes column-major blocks only (csr-sym takes both)");
    for (int c = 0; c < k; ++c) {
      cis_status st = cis_launch_sym_seg(D->seg, alpha, (const char *)X + (size_t)c * ldx * vs, beta,
                                         (char *)Y + (size_t)c * ldy * vs, block, (cudaStream_t)s);
      if (st != CIS_OK) return st;
    }
    return CIS_OK;
  }
  return cis_launch_csr_spmm(D->t, 1, 1, D->rows, D->nnz, D->rowptr, D->col, D->val, k, alpha, X, ldx, beta, Y,
                             ldy, col_major, block, (cudaStream_t)s);
}

static cis_status no_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  (void)impl; (void)dev; (void)bytes; (void)ws;
  return cis_error(CIS_ERR_UNSUPPORTED, "symmetric plans (csr-sym, sym-seg) come from cis_gpu_plan_create_symmetric");
}

const cis_gpu_format_ops cis_gpu_format_csr_sym = {
    .format = "csr-sym",
    .kernels = {"csr-sym", "csr-sym-det", "csr-sym-win", "sym-seg", NULL},
    .citation = "Buluc et al. SPAA 2009 (symmetric case); Gkountouvas et al. IPDPS 2013 (atomic scatter); "
                "Sengupta et al. GH 2007 (segmented scan, sym-seg)",
    .upload = no_upload,
    .spmv = sym_spmv,
    .release = sym_release,
    .spmm = sym_spmm,
};

/* The sym-seg layout's table (format_list.h): the plans of kernel sym-seg,
 * made through the symmetric entry points above with csr-sym's kernel list. */
const cis_gpu_format_ops cis_gpu_format_sym_seg = {
    .format = "sym-seg",
    .kernels = {"sym-seg", NULL},
    .citation = "Buluc et al. SPAA 2009 (symmetric case); Sengupta et al. GH 2007 (segmented scan)",
    .upload = no_upload,
    .spmv = sym_spmv,
    .release = sym_release,
    .spmm = sym_spmm,
};

static cis_status sym_plan(cis_csr_sym_dev *D, const char *kernel, int block, cis_gpu_plan **out) {
  cis_status st;
  cis_int ws = 0;
  D->det = !strcmp(kernel, "csr-sym-det");
  D->window = !strcmp(kernel, "csr-sym-win");
  if (D->det && (st = sym_det_setup(D, &ws)) != CIS_OK) {
    sym_release(D);
    return st;
  }
  cis_int bytes = D->seg ? D->seg->bytes
                         : (D->rows + 1) * 8 + D->nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(D->t));
  const cis_gpu_format_ops *table = D->seg ? &cis_gpu_format_sym_seg : &cis_gpu_format_csr_sym;
  CIS_TRY(cis_gpu_plan_wrap(table, D, kernel, D->rows, D->rows, D->nnz, D->t, bytes, ws, out));
  (*out)->block = block;
  return CIS_OK;
cleanup:
  return st;
}

static cis_status need_sym_kernel(const char **kernel, int block) {
  if (!*kernel) *kernel = cis_gpu_format_csr_sym.kernels[0];
  if (!cis_gpu_kernel_known(&cis_gpu_format_csr_sym, *kernel))
    return cis_gpu_unknown_kernel(&cis_gpu_format_csr_sym, *kernel);
  const int most = strcmp(*kernel, "sym-seg") ? 256 : 1024;
  if (block < 0 || block > most || block % 32)
    return cis_error(CIS_ERR_INVALID, "symmetric kernel %s: block size %d must be 0 or a multiple of 32 up to %d",
                     *kernel, block, most);
  return CIS_OK;
}

/* A sym-seg plan around the layout L of nnz stored entries (uploaded; L
 * stays the caller's). */
static cis_status seg_plan(const cis_sym_seg *L, cis_int nnz, int block, cis_gpu_plan **out) {
  cis_status st;
  cis_csr_sym_dev *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan");
  D->t = L->dtype;
  D->rows = L->n;
  D->nnz = nnz;
  if ((st = seg_upload(L, block, &D->seg)) != CIS_OK) {
    sym_release(D);
    return st;
  }
  return sym_plan(D, "sym-seg", block, out);
}

cis_status cis_gpu_plan_create_symmetric(const cis_csr *U, const char *kernel, int block, cis_gpu_plan **out) {
  cis_status st;
  cis_csr_sym_dev *D = NULL;
  cis_int total = 0;
  char why[160];
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_symmetric: NULL output");
  *out = NULL;
  if (!U) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_symmetric: NULL matrix");
  if (!(U->flags & CIS_FLAG_UPPER) || U->rows != U->cols)
    return cis_error(CIS_ERR_INVALID, "symmetric storage needs a square upper triangle (CIS_FLAG_UPPER; "
                                      "cis_csr_upper_symmetric makes one)");
  for (cis_int i = 0; i < U->rows; ++i)
    if (U->rowptr[i + 1] > U->rowptr[i] && U->colind[U->rowptr[i]] < i)
      return cis_error(CIS_ERR_INVALID, "upper triangle has entry (%lld, %d) below the diagonal", (long long)i + 1,
                       U->colind[U->rowptr[i]] + 1);
  CIS_TRY(need_sym_kernel(&kernel, block));
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  if (!strcmp(kernel, "sym-seg")) {
    cis_sym_seg *L = NULL;
    if ((st = cis_sym_seg_build(U, cis_sym_seg_rows(U->rows, U->dtype), &L)) == CIS_OK)
      st = seg_plan(L, U->nnz, block, out);
    cis_sym_seg_free(L);
    return st;
  }
  if (!(D = cis_calloc(1, sizeof *D))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan");
  D->t = U->dtype;
  D->rows = U->rows;
  D->nnz = U->nnz;
  CIS_TRY(cis_gpu_upload_array((void **)&D->rowptr, U->rowptr, U->rows + 1, 8, "symmetric CSR row pointers", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->col, U->colind, U->nnz, sizeof(cis_idx), "symmetric CSR columns", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->val, U->val, U->nnz, cis_dtype_size(U->dtype), "symmetric CSR values",
                               &total));
  return sym_plan(D, kernel, block, out);
cleanup:
  sym_release(D);
  return st;
}

/* The entries of a device CSR, for cis_sym_seg_build_from. */
typedef struct dev_csr {
  const cis_idx *col;
  const void *val;
  size_t vs;
} dev_csr;

static cis_status dev_fetch(void *ctx, cis_int k0, cis_int k1, cis_idx *col, void *val) {
  const dev_csr *d = ctx;
  cis_status st = cis_gpu_download(col, d->col + k0, (size_t)(k1 - k0) * sizeof(cis_idx));
  if (st == CIS_OK && val)
    st = cis_gpu_download(val, (const char *)d->val + (size_t)k0 * d->vs, (size_t)(k1 - k0) * d->vs);
  return st;
}

/* sym-seg laid out on the GPU (sym_seg_dev.c) into a plan; the triangle's
 * arrays stay the caller's. CIS_ERR_DEVICE_OOM when the GPU cannot hold the
 * triangle, the layout and a batch's sort at once. */
static cis_status seg_plan_on_device(cis_int rows, cis_int nnz, cis_dtype t, const int64_t *d_rowptr,
                                     const cis_idx *d_col, const void *d_val, cis_gpu_plan **out) {
  cis_status st;
  cis_sym_seg shape;
  cis_sym_seg_dev *g = NULL;
  cis_csr_sym_dev *D = NULL;
  CIS_TRY(cis_sym_seg_build_device(rows, t, d_rowptr, d_col, d_val, cis_sym_seg_rows(rows, t), 0, &shape, &g));
  st = seg_finish(&shape, 0, g);
  cis_free(shape.block_piece);
  CIS_TRY(st);
  if (!(D = cis_calloc(1, sizeof *D))) CIS_TRY(cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan"));
  D->t = t, D->rows = rows, D->nnz = nnz, D->seg = g;
  g = NULL;
  return sym_plan(D, "sym-seg", 0, out);
cleanup:
  cis_sym_seg_dev_free(g);
  return st;
}

/* sym-seg from a device-built upper triangle: laid out on the GPU when it
 * holds the triangle, the layout and a sort batch at once
 * (option sym_seg_layout=host: never); else on the host block by block
 * from the device (the host never holds the whole CSR), the triangle freed
 * before the layout is uploaded (the device never holds both). */
static cis_status seg_from_device(cis_int rows, cis_int nnz, cis_dtype t, int64_t *d_rowptr, cis_idx *d_col,
                                  void *d_val, cis_gpu_plan **out) {
  cis_status st;
  cis_int *rowptr = NULL;
  cis_sym_seg *L = NULL;
  dev_csr src_ctx = {d_col, d_val, cis_dtype_size(t)};
  if (!cis_opt_is(CIS_OPT_SYM_SEG_LAYOUT, "host")) {
    st = seg_plan_on_device(rows, nnz, t, d_rowptr, d_col, d_val, out);
    if (st != CIS_ERR_DEVICE_OOM) goto cleanup; /* done, or a real failure */
    cis_clear_error();
  }
  CIS_TRY(cis_alloc_array((void **)&rowptr, rows + 1, sizeof(cis_int), "sym-seg row pointers"));
  CIS_TRY(cis_gpu_download(rowptr, d_rowptr, (size_t)(rows + 1) * sizeof(cis_int)));
  const cis_sym_seg_source src = {rows, t, rowptr, dev_fetch, &src_ctx};
  CIS_TRY(cis_sym_seg_build_from(&src, cis_sym_seg_rows(rows, t), &L));
  cis_gpu_free(d_rowptr);
  cis_gpu_free(d_col);
  cis_gpu_free(d_val);
  d_rowptr = NULL, d_col = NULL, d_val = NULL;
  st = seg_plan(L, nnz, 0, out);
cleanup:
  cis_gpu_free(d_rowptr);
  cis_gpu_free(d_col);
  cis_gpu_free(d_val);
  cis_sym_seg_free(L);
  cis_free(rowptr);
  return st;
}

cis_status cis_gpu_plan_from_device_csr_sym(cis_int rows, cis_int nnz, cis_dtype t, int64_t *d_rowptr,
                                            cis_idx *d_col, void *d_val, const char *kernel,
                                            cis_gpu_plan **out) {
  cis_status st;
  cis_csr_sym_dev *D = NULL;
  *out = NULL;
  if (kernel && !strcmp(kernel, "sym-seg")) return seg_from_device(rows, nnz, t, d_rowptr, d_col, d_val, out);
  D = cis_calloc(1, sizeof *D);
  if (!D) {
    st = cis_error(CIS_ERR_ALLOC, "cannot allocate the device CSR header");
  } else {
    *D = (cis_csr_sym_dev){t, rows, nnz, d_rowptr, d_col, d_val, 0, 0, NULL, NULL, 0.0, NULL};
    if ((st = need_sym_kernel(&kernel, 0)) == CIS_OK) return sym_plan(D, kernel, 0, out);
    sym_release(D);
    return st;
  }
  cis_gpu_free(d_rowptr);
  cis_gpu_free(d_col);
  cis_gpu_free(d_val);
  return st;
}
