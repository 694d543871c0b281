/* test_sym_seg_build_gpu.c: the sym-seg layout laid out on the GPU
 * (cis_sym_seg_build_device, src/gpu/sym_seg_dev.c) against its CPU
 * reference, the host builder cis_sym_seg_build: every array byte for byte
 * (the block bounds bitwise, or NaN on both), in double and float, blocks
 * of 64 rows and of the default size, sorted in one batch and in batches of
 * the widest block (many), on a CI matrix of 4096 rows, a 3D Laplacian, a
 * matrix with empty rows and missing diagonal entries, and one with a NaN
 * value. The device pool is filled with NaN before each build, so a value
 * or a padding entry the build fails to write shows. Then the plan made from
 * a device triangle (cis_gpu_plan_from_device_csr_sym, "sym-seg": laid out
 * on the GPU) against the CPU reference product, y poisoned with NaN first
 * (1e-12 of max |y| in double, 1e-5 in float). Refusals: a row out of order and one
 * below the diagonal (CIS_ERR_INVALID naming the host builder's row), a
 * batch smaller than the widest block (CIS_ERR_DEVICE_OOM, nothing kept).
 * Skipped (77) without a GPU. */
#include <cuda_runtime.h> /* internal device API: a CUDA build only (tests/CMakeLists.txt) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "formats/sym_seg.h"
#include "gpu/gpu_cases.h"
#include "gpu/gpu_internal.h"
#include "core/internal.h"

/* The upper triangle of the symmetric part of A (A freed), in dtype t. */
static cis_csr *upper_of(cis_csr *A, cis_dtype t) {
  cis_csr *U = NULL, *S = NULL, *Ut = NULL;
  if (!A) return NULL;
  if (csr_upper(A, &U) == CIS_OK && csr_symmetric_expand(U, 0, &S) == CIS_OK) {
    cis_csr_free(U);
    U = NULL;
    S->flags &= ~CIS_FLAG_UPPER;
    CHECK_OK(cis_csr_upper_symmetric(S, 0.0, &U));
  }
  if (U) CHECK_OK(cis_csr_copy(U, t, &Ut));
  cis_csr_free(A);
  cis_csr_free(S);
  cis_csr_free(U);
  return Ut;
}

/* The triangle on the device (64-bit row pointers). */
static int to_device(const cis_csr *U, int64_t **rp, cis_idx **col, void **val) {
  const size_t vs = cis_dtype_size(U->dtype), nnz = (size_t)U->nnz > 0 ? (size_t)U->nnz : 1;
  *rp = NULL, *col = NULL, *val = NULL;
  return !cis_gpu_malloc((void **)rp, (size_t)(U->rows + 1) * 8) && !cis_gpu_malloc((void **)col, nnz * 4) &&
         !cis_gpu_malloc(val, nnz * vs) && !cis_gpu_upload(*rp, U->rowptr, (size_t)(U->rows + 1) * 8) &&
         (U->nnz == 0 || (!cis_gpu_upload(*col, U->colind, (size_t)U->nnz * 4) &&
                          !cis_gpu_upload(*val, U->val, (size_t)U->nnz * vs)));
}

/* NaN over a large part of the device pool, then freed: allocations that
 * follow find it there. */
static void poison_pool(void) {
  void *d = NULL;
  const cis_int n = 64 << 20; /* 512 MiB of doubles */
  if (cis_gpu_malloc(&d, (size_t)n * 8) == CIS_OK) {
    CHECK_OK(bench_fill_nan(d, CIS_F64, n));
    CHECK_OK(cis_gpu_sync());
  }
  cis_gpu_free(d);
}

/* Device array d (count of elem bytes) equal to the host's h. */
static int same_array(const void *d, const void *h, cis_int count, size_t elem) {
  if (count <= 0) return 1;
  void *c = malloc((size_t)count * elem);
  int ok = c && !cis_gpu_download(c, d, (size_t)count * elem) && !memcmp(c, h, (size_t)count * elem);
  free(c);
  return ok;
}

static int same_bounds(const double *d, const double *h, cis_int blocks) {
  double *c = malloc((size_t)blocks * 8);
  int ok = c && !cis_gpu_download(c, d, (size_t)blocks * 8);
  for (cis_int b = 0; ok && b < blocks; ++b)
    ok = (isnan(c[b]) && isnan(h[b])) || !memcmp(&c[b], &h[b], 8);
  free(c);
  return ok;
}

/* The widest block's stored entries (the least batch). */
static cis_int widest(const cis_csr *U, cis_int R) {
  cis_int w = 0;
  for (cis_int i0 = 0; i0 < U->rows; i0 += R) {
    const cis_int i1 = i0 + R < U->rows ? i0 + R : U->rows;
    if (U->rowptr[i1] - U->rowptr[i0] > w) w = U->rowptr[i1] - U->rowptr[i0];
  }
  return w;
}

static void check_layout(const cis_csr *U, cis_int R, cis_int batch, const char *what) {
  cis_sym_seg *H = NULL, shape;
  cis_sym_seg_dev *g = NULL;
  int64_t *rp = NULL;
  cis_idx *col = NULL;
  void *val = NULL;
  const size_t vs = cis_dtype_size(U->dtype);
  CHECK_OK(cis_sym_seg_build(U, R, &H));
  CHECK(to_device(U, &rp, &col, &val), "%s: upload failed: %s", what, cis_last_error());
  poison_pool();
  cis_status st = H ? cis_sym_seg_build_device(U->rows, U->dtype, rp, col, val, R, batch, &shape, &g) : CIS_ERR_INVALID;
  CHECK(st == CIS_OK && g, "%s (R %lld, batch %lld): %s", what, (long long)R, (long long)batch, cis_last_error());
  if (st == CIS_OK && g && H) {
    CHECK(shape.n == H->n && shape.R == H->R && shape.blocks == H->blocks && shape.entries == H->entries &&
              shape.segments == H->segments && shape.pieces == H->pieces && shape.strict == H->strict &&
              g->segments == H->segments,
          "%s (R %lld, batch %lld): shape %lld entries %lld segments %lld pieces, host %lld %lld %lld", what,
          (long long)R, (long long)batch, (long long)shape.entries, (long long)shape.segments, (long long)shape.pieces,
          (long long)H->entries, (long long)H->segments, (long long)H->pieces);
    CHECK(!memcmp(shape.block_piece, H->block_piece, (size_t)(H->blocks + 1) * 8), "%s: block_piece differs", what);
    const struct {
      const void *d, *h;
      cis_int count;
      size_t elem;
      const char *name;
    } a[] = {{g->lr, H->lr, H->entries, 2, "lr"},
             {g->val, H->val, H->entries, vs, "val"},
             {g->diag, H->diag, H->n, vs, "diag"},
             {g->segcol, H->segcol, H->segments, 4, "segcol"},
             {g->piece_heads, H->piece_heads, H->pieces, 8, "piece_heads"}};
    for (size_t k = 0; k < sizeof a / sizeof *a; ++k)
      CHECK(same_array(a[k].d, a[k].h, a[k].count, a[k].elem), "%s (%s, R %lld, batch %lld): %s differs from the host's",
            what, cis_dtype_name(U->dtype), (long long)R, (long long)batch, a[k].name);
    CHECK(same_bounds(g->block_bound, H->block_bound, H->blocks), "%s (R %lld, batch %lld): block_bound differs", what,
          (long long)R, (long long)batch);
    cis_free(shape.block_piece);
  }
  cis_sym_seg_dev_free(g);
  cis_sym_seg_free(H);
  cis_gpu_free(rp);
  cis_gpu_free(col);
  cis_gpu_free(val);
}

/* The device-laid plan's product against the CPU reference of the host
 * layout (sums in double): max |y - y_ref| <= tol * max |y_ref|, y poisoned
 * with NaN first (the kernel's mirror updates are floating atomics: no
 * bitwise comparison). */
static void check_product(const cis_csr *U, const char *what) {
  const size_t vs = cis_dtype_size(U->dtype), n = (size_t)U->rows;
  const double tol = U->dtype == CIS_F64 ? 1e-12 : 1e-5;
  cis_sym_seg *H = NULL;
  cis_gpu_plan *pd = NULL;
  int64_t *rp = NULL;
  cis_idx *col = NULL;
  void *val = NULL, *dx = NULL, *dy = NULL;
  void *x = malloc(n * vs), *y = malloc(n * vs), *ref = malloc(n * vs);
  CHECK_OK(cis_sym_seg_build(U, cis_sym_seg_rows(U->rows, U->dtype), &H));
  CHECK(to_device(U, &rp, &col, &val), "%s: upload failed", what);
  CHECK_OK(cis_gpu_plan_from_device_csr_sym(U->rows, U->nnz, U->dtype, rp, col, val, "sym-seg", &pd)); /* owns them */
  test_fill_random(x, U->dtype, U->rows, 11);
  int ok = H && pd && x && y && ref && !cis_gpu_malloc(&dx, n * vs) && !cis_gpu_malloc(&dy, n * vs) &&
           !cis_gpu_upload(dx, x, n * vs) && !bench_fill_nan(dy, U->dtype, U->rows) &&
           !cis_gpu_spmv(pd, 1.0, dx, 0.0, dy, NULL) && !cis_gpu_sync() && !cis_gpu_download(y, dy, n * vs) &&
           !cis_sym_seg_spmv(H, 1.0, x, 0.0, ref);
  CHECK(ok, "%s: product failed: %s", what, cis_last_error());
  double err = 0, big = 0;
  for (size_t i = 0; ok && i < n; ++i) {
    const double a = U->dtype == CIS_F64 ? ((double *)y)[i] : ((float *)y)[i];
    const double r = U->dtype == CIS_F64 ? ((double *)ref)[i] : ((float *)ref)[i];
    const double d = fabs(a - r);
    err = d > err || isnan(d) ? d : err;
    big = fabs(r) > big ? fabs(r) : big;
  }
  CHECK(!ok || err <= tol * big, "%s (%s): the device-laid plan's product is %g from the reference (max %g)", what,
        cis_dtype_name(U->dtype), err, big);
  cis_sym_seg_free(H);
  cis_gpu_plan_free(pd);
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x), free(y), free(ref);
}

/* A bad row: the device names the host builder's row. */
static void check_bad(const cis_csr *U0, int below) {
  cis_csr *U = NULL;
  cis_sym_seg *H = NULL, shape;
  cis_sym_seg_dev *g = NULL;
  int64_t *rp = NULL;
  cis_idx *col = NULL;
  void *val = NULL;
  char host[256] = "", dev[256] = "";
  CHECK_OK(cis_csr_copy(U0, U0->dtype, &U));
  if (!U) return;
  cis_int r = U->rows / 2;
  while (r < U->rows && U->rowptr[r + 1] - U->rowptr[r] < 3) ++r;
  if (r == U->rows) return;
  cis_idx *c = U->colind + U->rowptr[r];
  if (below) c[0] = (cis_idx)(r - 1); /* below the diagonal */
  else {
    const cis_idx t = c[1];
    c[1] = c[2], c[2] = t; /* out of order */
  }
  CHECK(cis_sym_seg_build(U, 64, &H) == CIS_ERR_INVALID, "host builder accepted a bad row");
  snprintf(host, sizeof host, "%s", cis_last_error());
  CHECK(to_device(U, &rp, &col, &val), "bad row: upload failed");
  CHECK(cis_sym_seg_build_device(U->rows, U->dtype, rp, col, val, 64, 0, &shape, &g) == CIS_ERR_INVALID && !g,
        "device layout accepted a row %s", below ? "below the diagonal" : "out of order");
  snprintf(dev, sizeof dev, "%s", cis_last_error());
  CHECK(!strcmp(host, dev), "bad row: host says '%s', device '%s'", host, dev);
  cis_sym_seg_free(H);
  cis_gpu_free(rp);
  cis_gpu_free(col);
  cis_gpu_free(val);
  cis_csr_free(U);
}

static void check_small_batch(const cis_csr *U) {
  cis_sym_seg shape;
  cis_sym_seg_dev *g = NULL;
  int64_t *rp = NULL;
  cis_idx *col = NULL;
  void *val = NULL;
  CHECK(to_device(U, &rp, &col, &val), "small batch: upload failed");
  CHECK(cis_sym_seg_build_device(U->rows, U->dtype, rp, col, val, 64, widest(U, 64) - 1, &shape, &g) ==
            CIS_ERR_DEVICE_OOM && !g && !shape.block_piece,
        "a batch below the widest block was not refused as out of memory");
  cis_gpu_free(rp);
  cis_gpu_free(col);
  cis_gpu_free(val);
}

int main(void) {
  char why[200];
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  for (int t = 0; t < 2; ++t) {
    const cis_dtype dt = t ? CIS_F32 : CIS_F64;
    cis_csr *A = NULL, *U[4] = {NULL, NULL, NULL, NULL};
    const char *names[4] = {"ci:rows=4096", "laplace3d:size=16", "empty rows, missing diagonal 3001", "NaN value"};
    CHECK_OK(cis_generate("ci:rows=4096,seed=1", CIS_F64, &A));
    U[0] = upper_of(A, dt);
    A = NULL;
    CHECK_OK(cis_generate("laplace3d:size=16", CIS_F64, &A));
    U[1] = upper_of(A, dt);
    A = NULL;
    U[2] = upper_of(case_random(3001, 3001, len_empty_rows, 7), dt);
    if (U[0]) CHECK_OK(cis_csr_copy(U[0], dt, &U[3]));
    if (U[3]) { /* one value NaN: its block's bound NaN on both */
      if (dt == CIS_F64) ((double *)U[3]->val)[U[3]->nnz / 3] = NAN;
      else ((float *)U[3]->val)[U[3]->nnz / 3] = NAN;
    }
    for (int c = 0; c < 4; ++c) {
      if (!U[c]) {
        CHECK(0, "case %s not made", names[c]);
        continue;
      }
      const cis_int Rs[2] = {64, cis_sym_seg_rows(U[c]->rows, dt)};
      for (int r = 0; r < 2; ++r) {
        check_layout(U[c], Rs[r], 0, names[c]);
        check_layout(U[c], Rs[r], widest(U[c], Rs[r]), names[c]);
      }
      if (c < 3) check_product(U[c], names[c]);
    }
    if (U[0]) {
      check_bad(U[0], 0);
      check_bad(U[0], 1);
      check_small_batch(U[0]);
    }
    for (int c = 0; c < 4; ++c) cis_csr_free(U[c]);
  }
  return test_summary("test_sym_seg_build_gpu");
}
