/* dist_upper.c: a symmetric matrix over parts with each stored entry held
 * once (dist_matrix_create_upper_rows, dist.h). Part p builds the upper
 * triangle's rows r_p..r_{p+1}-1 and keeps them as the symmetric block of
 * the trailing rows and columns r_p..n-1 (its rows, then empty rows): one
 * symmetric product of that block gives its rows' forward terms and the
 * mirror terms A(i,j) x_i of every later row j at once. The entries between
 * two parts are then read once, by the earlier part, instead of twice (by
 * both, as full rows in dist_matrix_create_rows); the mirror terms are
 * a second exchange, the summed operator's sum onto the owners. This is
 * PETSc's MPISBAIJ product (MatMult_MPISBAIJ: the upper triangle over
 * processes, the off-diagonal block applied as B x and B^T x, the second
 * scattered back and added) with the summed operator's whole-vector
 * exchanges (dist_summed.c) as its two: the vectors padded (part p's rows at
 * p * max_rows, the blocks' columns mapped there), so that the gather is one
 * all-gather and the sum one reduce-scatter; and the one-GPU symmetric
 * kernels (sym-seg, csr-sym) on each block. */
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "cisparse/gpu.h"
#include "distributed/dist_matrix.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_internal.h"

/* The summed operator's f: the trailing block's product from x's positions
 * at the part's rows on (the whole vectors' layout) into y's. y before them
 * stays zero: over more than one part the padded whole vectors are zeroed
 * whole when the operator is made (dist_summed_new; also when the rows split
 * evenly and nothing is padding) and nothing writes there after (the sums
 * land in the x buffer or in the receive buffers), so no product clears it
 * again; with one part there is nothing before. */
static cis_status upper_part(void *ctx, int l, int rank, const void *x, void *y, cis_stream s) {
  cis_dist_matrix *D = ctx;
  const dist_part *P = &D->part[l];
  const size_t es = cis_dtype_size(D->dtype), head = (size_t)dist_whole_at(D, rank) * es;
  const void *xt = (const char *)x + head;
  void *yt = (char *)y + head;
  if (!P->Pl && !P->Ml) { /* no stored entries: nothing to add anywhere */
    const size_t all = (size_t)dist_whole_len(D) * es;
    if (dist_on_device(D)) return dd_zero_async(y, all, s);
    memset(y, 0, all);
    return CIS_OK;
  }
  return P->Pl ? cis_gpu_spmv(P->Pl, 1.0, xt, 0.0, yt, s) : cis_matrix_spmv(P->Ml, 1.0, xt, 0.0, yt);
}

/* The host form of dist_upper_slice_dev (its CPU reference): part p's
 * upper rows r0..r0+R->rows-1 (n global columns) as the square trailing
 * block of the whole vectors' layout from p's position on (pad:
 * dist_upper_pad; rows after R's empty), CIS_FLAG_UPPER, and
 * diag[0..R->rows) their diagonal (0 where absent). */
static cis_status upper_slice_host(const cis_csr *R, cis_int n, cis_int r0, const dist_upper_pad *pad, double *diag,
                                   cis_csr **out) {
  cis_status st;
  cis_csr *U = NULL;
  const cis_int rows = R->rows, m = pad->whole - pad->at;
  *out = NULL;
  if (R->cols != n || r0 < 0 || r0 + rows > n || R->rowptr[0] != 0)
    return cis_error(CIS_ERR_INVALID, "upper rows %lld..%lld of %lld columns given for a matrix of %lld", (long long)r0,
                     (long long)r0 + rows - 1, (long long)R->cols, (long long)n);
  for (cis_int i = 0; i < rows; ++i) {
    const cis_int b = R->rowptr[i], e = R->rowptr[i + 1];
    if (b < e && R->colind[b] < r0 + i)
      return cis_error(CIS_ERR_INVALID, "row %lld has an entry below its diagonal: not an upper triangle",
                       (long long)(r0 + i));
    diag[i] = b < e && R->colind[b] == r0 + i ? cis_get(R->val, R->dtype, b) : 0.0;
  }
  CIS_TRY(cis_csr_alloc(m, m, R->nnz, R->dtype, &U));
  memcpy(U->rowptr, R->rowptr, (size_t)(rows + 1) * sizeof *U->rowptr);
  for (cis_int i = rows + 1; i <= m; ++i) U->rowptr[i] = R->nnz;
  for (cis_int k = 0; k < R->nnz; ++k) U->colind[k] = (cis_idx)(dist_gathered_at(pad->row_start, pad->parts, pad->max_rows, R->colind[k]) - pad->at);
  memcpy(U->val, R->val, (size_t)R->nnz * cis_dtype_size(R->dtype));
  U->flags = CIS_FLAG_UPPER;
  *out = U;
  return CIS_OK;
cleanup:
  cis_csr_free(U);
  return st;
}

/* Where the rows come from and how each block is kept. */
typedef struct upper_src {
  cis_dist_rows_fn host;
  cis_dist_rows_gpu_fn dev;
  void *ctx;
  const char *format, *kernel; /* the block's format; the GPU plan's kernel */
} upper_src;

/* Local part l: its rows built, made its trailing block, stored (a plan on
 * its GPU, or a host matrix), their diagonal into D->diag. */
static cis_status part_store(cis_dist_matrix *D, int l, const upper_src *src) {
  cis_status st;
  dist_part *P = &D->part[l];
  cis_csr *R = NULL, *U = NULL;
  cis_matrix *M = NULL;
  const cis_int r0 = P->row0, r1 = P->row0 + P->rows;
  const dist_upper_pad pad = {D->plan.row_start, D->plan.parts, D->plan.max_rows, dist_whole_at(D, P->rank),
                              dist_whole_len(D)};
  double *diag = D->diag + r0, t0 = cis_wtime();
  if (src->dev) {
    cis_gpu_csr Rd;
    memset(&Rd, 0, sizeof Rd);
    CIS_TRY(dist_set_dev(D, l));
    st = src->dev(src->ctx, l, r0, r1, &Rd);
    if (st == CIS_OK && (Rd.rows != r1 - r0 || Rd.cols != D->n))
      st = cis_error(CIS_ERR_INVALID, "the row builder gave %lld x %lld for rows %lld..%lld of %lld columns",
                     (long long)Rd.rows, (long long)Rd.cols, (long long)r0, (long long)r1 - 1, (long long)D->n);
    if (st == CIS_OK) { /* the rows' build is the builder's time; the block's, the store's */
      t0 = cis_wtime();
      st = dist_upper_slice_dev(&Rd, D->n, r0, &pad, src->kernel, diag, &P->Pl); /* frees Rd's arrays */
      const double t = cis_wtime() - t0;
      CIS_PRAGMA(omp critical(dist_part_times)) /* the slowest part's (the parts run at once) */
      D->t_store = t > D->t_store ? t : D->t_store;
      return st;
    }
    cis_gpu_free(Rd.rowptr);
    cis_gpu_free(Rd.colind);
    cis_gpu_free(Rd.val);
    return st;
  }
  CIS_TRY(src->host(src->ctx, r0, r1, &R));
  t0 = cis_wtime(); /* the rows' build is the builder's time */
  if (!R || R->rows != r1 - r0)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "the row builder gave %lld rows for rows %lld..%lld", R ? (long long)R->rows : -1LL,
                      (long long)r0, (long long)r1 - 1));
  CIS_TRY(upper_slice_host(R, D->n, r0, &pad, diag, &U));
  cis_csr_free(R);
  R = NULL;
  if (U->dtype != D->dtype) { /* the vectors' value type (a GPU plan keeps its block's) */
    CIS_TRY(cis_csr_copy(U, D->dtype, &R));
    cis_csr_free(U);
    U = R;
    R = NULL;
  }
  if (U->nnz > 0 && dist_on_device(D)) { /* host rows, GPU parts: the symmetric plan from the block */
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(cis_gpu_plan_create_symmetric(U, src->kernel, 0, &P->Pl));
  } else if (U->nnz > 0) {
    cis_format_params fp = cis_format_params_default();
    fp.dtype = D->dtype;
    CIS_TRY(cis_matrix_create(U, src->format, &fp, &M));
    P->Ml = M;
    M = NULL;
  }
  D->t_store += cis_wtime() - t0;
  st = CIS_OK;
cleanup:
  cis_csr_free(R);
  cis_csr_free(U);
  cis_matrix_free(M);
  return st;
}

/* o->format checked: a symmetric storage format (sym-seg, csr-sym; auto:
 * sym-seg on GPUs, csr-sym on host parts); the GPU kernel sym-seg's own, or
 * o->kernel for csr-sym. */
static cis_status upper_format(const cis_dist_opts *o, int on_device, upper_src *src) {
  const char *f = o->format && strcmp(o->format, "auto") ? o->format : on_device ? "sym-seg" : "csr-sym";
  if (!cis_format_is_symmetric(f))
    return cis_error(CIS_ERR_UNSUPPORTED, "a symmetric matrix stored once over parts keeps each block in sym-seg or "
                     "csr-sym, not '%s'", f);
  src->format = f;
  src->kernel = !strcmp(f, "sym-seg") ? "sym-seg" : o->kernel;
  return CIS_OK;
}

cis_status dist_matrix_create_upper_rows(cis_int n, const cis_int *upper_nnz, cis_dist_rows_fn build,
                                             cis_dist_rows_gpu_fn build_gpu, void *ctx, cis_dist_comm *c,
                                             const cis_dist_opts *o_in, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  cis_int *rs = NULL;
  const cis_dist_opts o = o_in ? *o_in : cis_dist_opts_default();
  upper_src src = {build, build_gpu, ctx, NULL, NULL};
  if (!c || !out || !build == !build_gpu)
    return cis_error(CIS_ERR_INVALID, "dist_matrix_create_upper_rows: NULL argument, or not exactly one builder");
  *out = NULL;
  const int G = c->ranks, on_device = c->where == CIS_MEM_DEVICE;
  const cis_dtype t = (int)o.dtype < 0 ? CIS_F64 : o.dtype; /* default: the rows' (double) */
  if (n < G) return cis_error(CIS_ERR_INVALID, "%lld rows cannot be spread over %d parts", (long long)n, G);
  if (n > CIS_IDX_MAX) return cis_error(CIS_ERR_OVERFLOW, "%lld rows exceed 32-bit column indices", (long long)n);
  if (build_gpu && !on_device)
    return cis_error(CIS_ERR_INVALID, "rows built on a GPU need GPU parts (a device communicator, not %s)",
                     cis_dist_comm_name(c));
  if (build_gpu && t != CIS_F64)
    return cis_error(CIS_ERR_UNSUPPORTED, "rows built on a GPU are stored as double, not %s", cis_dtype_name(t));
  CIS_TRY(upper_format(&o, on_device, &src));
  CIS_TRY(cis_alloc_array((void **)&rs, G + 1, sizeof(cis_int), "row split"));
  CIS_TRY(dist_partition_counts(n, upper_nnz, G, rs));
  cis_int max_rows = 0;
  for (int p = 0; p < G; ++p) max_rows = rs[p + 1] - rs[p] > max_rows ? rs[p + 1] - rs[p] : max_rows;
  if ((int64_t)G * max_rows > CIS_IDX_MAX) /* the blocks' columns are positions in the padded whole vectors */
    CIS_TRY(cis_error(CIS_ERR_OVERFLOW, "%d parts of up to %lld rows: the padded whole vectors (%lld values) exceed "
                      "32-bit column indices", G, (long long)max_rows, (long long)G * max_rows));
  /* padded whole vectors: the gather one all-gather, the sum one reduce-scatter (NCCL's collectives; the
   * rank-order sum with option dist_sum=rank) */
  CIS_TRY(dist_summed_new(n, rs, NULL, t, upper_part, NULL, c, 1, &D));
  CIS_TRY(dist_summed_set_sum(D, CIS_DIST_SUM_COLLECTIVE));
  D->summed_ctx = D;
  D->summed_async = 1; /* upper_part only queues a memset and a product */
  snprintf(D->format, sizeof D->format, "upper %s", src.format);
  D->has_diag = 1; /* filled by the parts (zeros elsewhere until shared) */
  DIST_EACH_PART_WAITING_IF(D, on_device && build_gpu, l, pst, { pst = part_store(D, l, &src); });
  if (c->nlocal < G) CIS_TRY(dist_share_values(c, 0, D->diag, NULL, n, D->diag, NULL));
  CIS_TRY(dist_summed_warm(D)); /* NCCL's connections made in the set-up, not in the first product */
  *out = D;
  D = NULL;
  st = CIS_OK;
cleanup:
  cis_free(rs);
  cis_dist_matrix_free(D);
  return st;
}

/* Rows r0..r1-1 of the upper triangle U (ctx), global columns: the row
 * builder of dist_matrix_create_once. */
static cis_status upper_rows_of(void *ctx, cis_int r0, cis_int r1, cis_csr **rows) {
  return csr_rows((const cis_csr *)ctx, r0, r1, rows);
}

/* The symmetric formats' tolerance (formats/csr_sym.c's SYMMETRY_TOL). */
#define ONCE_SYMMETRY_TOL 1e-12

cis_status dist_matrix_create_once(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out) {
  cis_status st;
  cis_csr *U = NULL;
  cis_int *counts = NULL;
  cis_dist_opts oo = *o;
  if ((int)oo.dtype < 0) oo.dtype = A->dtype; /* the matrix's values, as cis_dist_matrix_create keeps them */
  CIS_TRY(cis_csr_upper_symmetric(A, ONCE_SYMMETRY_TOL, &U));
  CIS_TRY(cis_alloc_array((void **)&counts, U->rows > 0 ? U->rows : 1, sizeof(cis_int), "row counts"));
  for (cis_int i = 0; i < U->rows; ++i) counts[i] = U->rowptr[i + 1] - U->rowptr[i];
  st = dist_matrix_create_upper_rows(U->rows, counts, upper_rows_of, NULL, U, c, &oo, out);
cleanup:
  cis_free(counts);
  cis_csr_free(U);
  return st;
}
