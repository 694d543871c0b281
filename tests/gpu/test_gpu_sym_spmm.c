/* test_gpu_sym_spmm.c: symmetric storage on the GPU (csr-sym, csr-sym-det,
 * csr-sym-win, and sym-seg with its default block rows and with blocks of
 * 64 rows, several blocks on every case)
 * and SpMM (cis_gpu_spmm on csr and on the symmetric csr) against the CPU
 * reference in double, float and double, on symmetric matrices larger than a
 * warp, with empty rows and columns, one very long row (and column), 1x1,
 * a CI-structured matrix and a 3D Laplacian; outputs poisoned with NaN
 * before every run (beta = 0 must overwrite them), padding of the SpMM
 * blocks checked untouched, csr-sym-det bitwise reproducible; bad input
 * refused with an error (non-symmetric, unknown kernel, k out of range,
 * small leading dimension, a format without SpMM); sym-seg's fixed-point
 * window at extreme scales (values 1e-150 with x 1e150 and the reverse),
 * with row blocks 1e-9 apart in size (each half checked on its own), and
 * NaN or Inf in x (every y NaN). Skipped (77) without a GPU. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "formats/sym_seg.h"
#include "gpu/gpu_cases.h"
#include "core/internal.h"
#include "gpu/gpu_plan_internal.h"
#include "operators/operator_internal.h"

/* Full symmetric matrix from the upper triangle of A (square). */
static cis_csr *sym_from(cis_csr *A) {
  cis_csr *U = NULL, *S = NULL;
  if (!A) return NULL;
  if (csr_upper(A, &U) == CIS_OK) csr_symmetric_expand(U, 0, &S);
  cis_csr_free(U);
  cis_csr_free(A);
  if (S) S->flags &= ~CIS_FLAG_UPPER;
  return S;
}

/* n x n, rows and columns i % 3 != 0 empty, the others random. */
static cis_csr *sym_empty_rows(cis_int n) {
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  uint64_t s = 99;
  if (coo_alloc(n, n, 16, CIS_F64, &C) != CIS_OK) return NULL;
  for (cis_int i = 0; i < n; i += 3)
    for (int k = 0; k < 20; ++k) {
      cis_idx j = (cis_idx)(case_rng(&s) % (uint64_t)n);
      j -= j % 3;
      if (j < i) continue;
      double v = (double)(case_rng(&s) % 2000001) / 1e6 - 1.0;
      coo_push(C, (cis_idx)i, j, v);
      if (j != i) coo_push(C, j, (cis_idx)i, v);
    }
  coo_to_csr(C, &A); /* duplicates summed on both sides alike: still symmetric */
  coo_free(C);
  return A;
}

static int sym_cases(gpu_case *c) {
  int n = 0;
  cis_csr *A = NULL;
  n = add_case(c, n, "sym random 1000", sym_from(case_random(1000, 1000, len_uniform, 1)));
  n = add_case(c, n, "sym empty rows 999", sym_empty_rows(999));
  n = add_case(c, n, "sym one row of 12000 (n 20011)", sym_from(case_random(20011, 20011, len_one_long, 3)));
  n = add_case(c, n, "sym short rows 1037", sym_from(case_random(1037, 1037, len_short, 4)));
  n = add_case(c, n, "1x1", sym_from(case_random(1, 1, len_one, 5)));
  CHECK_OK(cis_generate("ci:rows=4096,seed=1", CIS_F64, &A));
  n = add_case(c, n, "sym ci:rows=4096", sym_from(A));
  A = NULL;
  CHECK_OK(cis_generate("laplace3d:size=12", CIS_F64, &A));
  n = add_case(c, n, "laplace3d:size=12", A);
  return n;
}

/* The upper triangle of A rounded to t (checked symmetric exactly). */
static cis_csr *upper_t(const cis_csr *A, cis_dtype t) {
  cis_csr *U = NULL, *Ut = NULL;
  CHECK_OK(cis_csr_upper_symmetric(A, 0.0, &U));
  if (U) CHECK_OK(cis_csr_copy(U, t, &Ut));
  cis_csr_free(U);
  return Ut;
}

/* csr-sym-det twice on the same x: bitwise equal. */
static void check_det_repeat(cis_gpu_plan *p, const cis_csr *A, cis_dtype t, const char *what) {
  size_t vs = cis_dtype_size(t), n = (size_t)A->rows;
  void *x = malloc(vs * n), *y1 = malloc(vs * n), *y2 = malloc(vs * n), *dx = NULL, *dy = NULL;
  test_fill_random(x, t, A->rows, 5);
  int ok = x && y1 && y2 && !cis_gpu_malloc(&dx, vs * n) && !cis_gpu_malloc(&dy, vs * n) && !cis_gpu_upload(dx, x, vs * n);
  for (int r = 0; ok && r < 2; ++r)
    ok = !bench_fill_nan(dy, t, A->rows) && !cis_gpu_spmv(p, 1.0, dx, 0.0, dy, NULL) && !cis_gpu_sync() &&
         !cis_gpu_download(r ? y2 : y1, dy, vs * n);
  CHECK(ok, "%s: repeat runs failed: %s", what, cis_last_error());
  CHECK(!ok || memcmp(y1, y2, vs * n) == 0, "%s: csr-sym-det differs between two runs", what);
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x); free(y1); free(y2);
}

static void check_spmm_one(cis_gpu_plan *p, const cis_csr *A, cis_dtype t, int k, cis_layout lay, double beta,
                           int pad, const char *what);

/* Device bytes of sym-seg: the layout's arrays plus a chunk table of at
 * most a chunk per piece (12 bytes each, and one). */
static int seg_bytes_ok(const cis_csr *U, cis_int bytes) {
  cis_sym_seg *S = NULL;
  if (cis_sym_seg_build(U, cis_sym_seg_rows(U->rows, U->dtype), &S) != CIS_OK) return 0;
  const cis_int lo = cis_sym_seg_bytes(S) - (S->blocks + 1) * 8, hi = lo + 12 * (S->pieces + 1) + 8;
  cis_sym_seg_free(S);
  return bytes >= lo && bytes <= hi;
}

/* sym-seg's SpMM: column-major, one product per column; row-major refused. */
static void check_seg_spmm(cis_gpu_plan *p, const cis_csr *A, cis_dtype t, const char *what) {
  char w[1500];
  snprintf(w, sizeof w, "%s, spmm k=3 col-major", what);
  check_spmm_one(p, A, t, 3, CIS_COL_MAJOR, 0.5, 2, w);
  void *d = NULL;
  CHECK_OK(cis_gpu_malloc(&d, (size_t)A->rows * 3 * cis_dtype_size(t) + 8));
  CHECK(cis_gpu_spmm(p, 3, 1, d, 3, 0, d, 3, CIS_ROW_MAJOR, NULL) == CIS_ERR_UNSUPPORTED, "%s: row-major accepted",
        what);
  cis_gpu_free(d);
}

static void check_symv(const gpu_case *c, cis_dtype t) {
  const char *kernels[] = {"csr-sym", "csr-sym-det", "csr-sym-win", "sym-seg", "sym-seg"};
  cis_csr *U = upper_t(c->A, t);
  if (!U) return;
  for (int k = 0; k < 5; ++k) {
    cis_gpu_plan *p = NULL;
    char what[1400];
    if (k == 4) cis_option_set("sym_seg_r", "64"); /* many blocks of 64 rows */
    snprintf(what, sizeof what, "%s, %s, %s%s", c->name, cis_dtype_name(t), kernels[k], k == 4 ? " R=64" : "");
    CHECK_OK(cis_gpu_plan_create_symmetric(U, kernels[k], 0, &p));
    if (!p) continue;
    CHECK(gpu_plan_is_symmetric(p), "%s: plan not marked symmetric", what);
    CHECK(!strcmp(cis_gpu_plan_kernel(p), kernels[k]), "%s: kernel %s", what, cis_gpu_plan_kernel(p));
    if (k >= 3)
      CHECK(seg_bytes_ok(U, cis_gpu_plan_bytes(p)), "%s: %lld device bytes", what,
            (long long)cis_gpu_plan_bytes(p));
    else
      CHECK(cis_gpu_plan_bytes(p) == (U->rows + 1) * 8 + U->nnz * (cis_int)(4 + cis_dtype_size(t)),
            "%s: %lld device bytes", what, (long long)cis_gpu_plan_bytes(p));
    if (k == 4) cis_option_set("sym_seg_r", NULL);
    for (int b = 0; b < 2; ++b) {
      double beta = b ? 0.5 : 0.0, e = check_plan(p, c->A, t, beta, 11 + b);
      CHECK(e <= test_tol(t), "%s, beta %g: rel err %g (NaN never passes)", what, beta, e);
    }
    if (k == 1) check_det_repeat(p, c->A, t, what);
    if (k == 3) check_seg_spmm(p, c->A, t, what);
    cis_gpu_plan_free(p);
  }
  cis_csr_free(U);
}

/* One SpMM: Y (ld with padding, padding and, for beta 0, Y poisoned) against
 * the reference column by column; the padding must stay NaN. */
static void check_spmm_one(cis_gpu_plan *p, const cis_csr *A, cis_dtype t, int k, cis_layout lay, double beta,
                           int pad, const char *what) {
  const size_t vs = cis_dtype_size(t);
  const int cm = lay == CIS_COL_MAJOR;
  const cis_int n = A->rows, ld = cm ? n + pad : k + pad; /* leading dimension, maybe padded */
  const size_t len = (size_t)(cm ? ld * k : n * ld);
  const double alpha = -0.75;
  void *X = malloc(vs * len + 8), *Y0 = malloc(vs * len + 8), *Y = malloc(vs * len + 8), *dX = NULL, *dY = NULL;
  void *xc = malloc(vs * (size_t)n + 8), *yc = malloc(vs * (size_t)n + 8);
  double worst = 0;
  int pad_ok = 1;
  if (!X || !Y0 || !Y || !xc || !yc) { CHECK(0, "out of memory"); goto done; }
  test_fill_random(X, t, (cis_int)len, 31 + k);
  test_fill_random(Y0, t, (cis_int)len, 37 + k);
  for (size_t q = 0; q < len; ++q) { /* padding of X and Y poisoned */
    size_t inner = cm ? q % (size_t)ld : q % (size_t)ld, lim = cm ? (size_t)n : (size_t)k;
    if (inner >= lim) { cis_set(X, t, (int64_t)q, NAN); cis_set(Y0, t, (int64_t)q, NAN); }
  }
  if (beta == 0.0)
    for (size_t q = 0; q < len; ++q) cis_set(Y0, t, (int64_t)q, NAN);
  CHECK_OK(cis_gpu_malloc(&dX, vs * len));
  CHECK_OK(cis_gpu_malloc(&dY, vs * len));
  if (!dX || !dY) goto done;
  CHECK_OK(cis_gpu_upload(dX, X, vs * len));
  CHECK_OK(cis_gpu_upload(dY, Y0, vs * len));
  cis_status st = cis_gpu_spmm(p, k, alpha, dX, ld, beta, dY, ld, lay, NULL);
  CHECK(st == CIS_OK, "%s: spmm: %s", what, cis_last_error());
  if (st != CIS_OK) goto done;
  CHECK_OK(cis_gpu_sync());
  test_fill_nan(Y, t, (cis_int)len);
  CHECK_OK(cis_gpu_download(Y, dY, vs * len));
  for (int c = 0; c < k; ++c) {
    for (cis_int i = 0; i < n; ++i) {
      size_t at = cm ? (size_t)(c * ld + i) : (size_t)(i * ld + c);
      memcpy((char *)xc + i * vs, (char *)X + at * vs, vs);
      memcpy((char *)yc + i * vs, (char *)Y0 + at * vs, vs);
    }
    double *ref = reference_spmv(A, t, xc, alpha, beta, yc);
    for (cis_int i = 0; i < n; ++i) {
      size_t at = cm ? (size_t)(c * ld + i) : (size_t)(i * ld + c);
      memcpy((char *)yc + i * vs, (char *)Y + at * vs, vs);
    }
    double e = rel_err_vs(yc, t, ref, n);
    if (!(e <= worst)) worst = e;
    free(ref);
  }
  for (size_t q = 0; q < len; ++q) {
    size_t inner = q % (size_t)ld, lim = cm ? (size_t)n : (size_t)k;
    if (inner >= lim && !isnan(cis_get(Y, t, (int64_t)q))) pad_ok = 0;
  }
  CHECK(worst <= test_tol(t), "%s: rel err %g (NaN never passes)", what, worst);
  CHECK(pad_ok, "%s: a padding entry of Y was written", what);
done:
  cis_gpu_free(dX);
  cis_gpu_free(dY);
  free(X); free(Y0); free(Y); free(xc); free(yc);
}

static void check_spmm(const gpu_case *c, cis_dtype t) {
  const int ks[] = {1, 2, 3, 4, 8, 16};
  cis_format_params fp = cis_format_params_default();
  cis_matrix *M = NULL;
  cis_csr *U = upper_t(c->A, t);
  cis_gpu_plan *plans[2] = {NULL, NULL};
  fp.dtype = t;
  CHECK_OK(cis_matrix_create(c->A, "csr", &fp, &M));
  if (M) CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &plans[0]));
  if (U) CHECK_OK(cis_gpu_plan_create_symmetric(U, NULL, 0, &plans[1]));
  for (int pi = 0; pi < 2; ++pi)
    for (size_t ki = 0; plans[pi] && ki < sizeof ks / sizeof *ks; ++ki)
      for (int lay = 0; lay < 2; ++lay)
        for (int b = 0; b < 2; ++b)
          for (int pad = 0; pad < 4; pad += 3) { /* ld = k or n (the 16-byte vector path), and padded */
            char what[1400];
            snprintf(what, sizeof what, "%s, %s, spmm %s k=%d %s beta %g ld +%d", c->name, cis_dtype_name(t),
                     pi ? "csr-sym" : "csr", ks[ki], lay ? "col-major" : "row-major", b ? 0.5 : 0.0, pad);
            check_spmm_one(plans[pi], c->A, t, ks[ki], (cis_layout)lay, b ? 0.5 : 0.0, pad, what);
          }
  cis_gpu_plan_free(plans[0]);
  cis_gpu_plan_free(plans[1]);
  cis_matrix_free(M);
  cis_csr_free(U);
}

/* Davidson on a GPU plan, 4 roots, with and without block products (the
 * new vectors by one SpMM): the same eigenvalues. */
static void check_davidson_block(void) {
  cis_csr *A = NULL, *U = NULL;
  cis_gpu_plan *p[2] = {NULL, NULL};
  cis_matrix *M = NULL;
  CHECK_OK(cis_generate("laplace3d:size=10", CIS_F64, &A));
  if (!A) return;
  double *diag = malloc(sizeof(double) * (size_t)A->rows);
  CHECK_OK(cis_csr_diagonal(A, diag));
  CHECK_OK(cis_matrix_create(A, "csr", NULL, &M));
  if (M) CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &p[0]));
  CHECK_OK(cis_csr_upper_symmetric(A, 0.0, &U));
  if (U) CHECK_OK(cis_gpu_plan_create_symmetric(U, NULL, 0, &p[1]));
  for (int pi = 0; pi < 2; ++pi) {
    cis_operator *op = NULL;
    double e[2][4];
    if (!p[pi]) continue;
    CHECK_OK(cis_operator_from_gpu_plan(p[pi], &op));
    if (!op) continue;
    CHECK(operator_has_block(op), "plan %d: no block product", pi);
    for (int b = 0; b < 2; ++b) {
      cis_davidson_opts o = cis_davidson_opts_default();
      cis_davidson_info info;
      o.roots = 4;
      o.block_products = b;
      for (int r = 0; r < 4; ++r) e[b][r] = NAN;
      CHECK_OK(cis_davidson_operator(op, diag, &o, e[b], NULL, &info));
    }
    for (int r = 0; r < 4; ++r)
      CHECK(fabs(e[0][r] - e[1][r]) <= 1e-8 * fabs(e[0][r]), "plan %d root %d: %.15g (one by one) vs %.15g (block)", pi,
            r, e[0][r], e[1][r]);
    cis_operator_free(op);
  }
  cis_gpu_plan_free(p[0]);
  cis_gpu_plan_free(p[1]);
  cis_matrix_free(M);
  cis_csr_free(A);
  cis_csr_free(U);
  free(diag);
}

/* Two independent random symmetric blocks of n rows (a direct sum), the
 * second scaled by small, all scaled by a; its upper triangle. */
static cis_csr *upper_two_scales(cis_int n, double small, double a) {
  cis_coo *C = NULL;
  cis_csr *A = NULL, *U = NULL;
  uint64_t s = 17;
  if (coo_alloc(2 * n, 2 * n, 16, CIS_F64, &C) != CIS_OK) return NULL;
  for (cis_int i = 0; i < 2 * n; ++i)
    for (int k = 0; k < 30; ++k) {
      const cis_int base = i < n ? 0 : n;
      const cis_idx j = (cis_idx)(base + (cis_int)(case_rng(&s) % (uint64_t)n));
      const double v = ((double)(case_rng(&s) % 2000001) / 1e6 - 1.0) * a * (i < n ? 1.0 : small);
      if (j >= i) coo_push(C, (cis_idx)i, j, v);
    }
  coo_to_csr(C, &A);
  coo_free(C);
  if (A) A->flags |= CIS_FLAG_UPPER;
  if (A) CHECK_OK(cis_csr_copy(A, CIS_F64, &U));
  if (U) U->flags |= CIS_FLAG_UPPER;
  cis_csr_free(A);
  return U;
}

/* sym-seg (blocks of 64 rows) on U and x (x scaled by xs; x[bad] = v when
 * bad >= 0) in double against cis_csr_symv: the relative error of each half
 * of the rows, or, when expect_nan, whether every y is NaN (1 / 0). */
static double seg_special(const cis_csr *U, double xs, cis_int bad, double v, int expect_nan, double *err2) {
  const cis_int n = U->rows;
  double *x = malloc(8 * (size_t)n), *y = malloc(8 * (size_t)n), *ref = malloc(8 * (size_t)n), e1 = INFINITY;
  void *dx = NULL, *dy = NULL;
  cis_gpu_plan *p = NULL;
  *err2 = INFINITY;
  cis_option_set("sym_seg_r", "64");
  CHECK_OK(cis_gpu_plan_create_symmetric(U, "sym-seg", 0, &p));
  cis_option_set("sym_seg_r", NULL);
  if (x && y && ref && p) {
    test_fill_random(x, CIS_F64, n, 8);
    for (cis_int i = 0; i < n; ++i) x[i] *= xs;
    if (bad >= 0) x[bad] = v;
    CHECK_OK(cis_csr_symv(U, 1.0, x, 0.0, ref));
    CHECK_OK(cis_gpu_malloc(&dx, 8 * (size_t)n));
    CHECK_OK(cis_gpu_malloc(&dy, 8 * (size_t)n));
    CHECK_OK(cis_gpu_upload(dx, x, 8 * (size_t)n));
    CHECK_OK(bench_fill_nan(dy, CIS_F64, n));
    CHECK_OK(cis_gpu_spmv(p, 1.0, dx, 0.0, dy, NULL));
    CHECK_OK(cis_gpu_sync());
    CHECK_OK(cis_gpu_download(y, dy, 8 * (size_t)n));
    if (expect_nan) {
      e1 = 1.0;
      for (cis_int i = 0; i < n; ++i) e1 = isnan(y[i]) ? e1 : 0.0;
    } else {
      e1 = test_rel_err(y, ref, CIS_F64, n / 2);
      *err2 = test_rel_err(y + n / 2, ref + n / 2, CIS_F64, n - n / 2);
    }
  }
  cis_gpu_plan_free(p);
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x); free(y); free(ref);
  return e1;
}

static void check_seg_fixed_point(void) {
  const double tol = test_tol(CIS_F64), scales[][3] = {{1e-150, 1e150, 1.0}, {1e150, 1e-150, 1.0}, {1.0, 1.0, 1e-9}};
  for (int c = 0; c < 3; ++c) {
    /* halves of 1024 rows: whole blocks of 64 (fixed point is exact to the
     * block's largest row, not to a smaller row beside it) */
    cis_csr *U = upper_two_scales(1024, scales[c][2], scales[c][0]);
    double e2 = 0.0, e1 = U ? seg_special(U, scales[c][1], -1, 0.0, 0, &e2) : INFINITY;
    CHECK(e1 <= tol && e2 <= tol, "sym-seg, values x %g, x x %g, second block x %g: rel err %g and %g", scales[c][0],
          scales[c][1], scales[c][2], e1, e2);
    cis_csr_free(U);
  }
  cis_csr *U = upper_two_scales(1024, 1.0, 1.0);
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (int b = 0; U && b < 3; ++b) {
    double e2 = 0.0;
    CHECK(seg_special(U, 1.0, 1500, bad[b], 1, &e2) == 1.0, "sym-seg: x with %g gave a y that is not all NaN", bad[b]);
  }
  cis_csr_free(U);
}

static void check_refusals(void) {
  cis_csr *A = case_random(100, 100, len_uniform, 9), *U = NULL, *L = NULL;
  cis_gpu_plan *p = NULL;
  cis_matrix *M = NULL;
  void *d = NULL;
  CHECK(A != NULL, "no test matrix");
  if (!A) return;
  /* a non-symmetric matrix: refused, not halved */
  CHECK(cis_csr_upper_symmetric(A, 0.0, &U) == CIS_ERR_INVALID && !U, "non-symmetric matrix accepted");
  CHECK(strstr(cis_last_error(), "not symmetric") != NULL, "message: %s", cis_last_error());
  /* a full (not upper-flagged) matrix as symmetric storage */
  CHECK(cis_gpu_plan_create_symmetric(A, NULL, 0, &p) == CIS_ERR_INVALID && !p, "full matrix accepted as upper");
  CHECK_OK(csr_upper(A, &U));
  CHECK(cis_gpu_plan_create_symmetric(U, "csr-sym-fast", 0, &p) == CIS_ERR_NOT_FOUND && !p, "unknown kernel accepted");
  CHECK(cis_gpu_plan_create_symmetric(U, NULL, 48, &p) == CIS_ERR_INVALID && !p, "block 48 accepted");
  CHECK(cis_gpu_plan_create_symmetric(U, NULL, 512, &p) == CIS_ERR_INVALID && !p, "csr-sym block 512 accepted");
  CHECK(cis_gpu_plan_create_symmetric(U, "sym-seg", 2048, &p) == CIS_ERR_INVALID && !p, "sym-seg block 2048 accepted");
  /* an upper flag on a matrix with entries below the diagonal */
  CHECK_OK(cis_csr_copy(A, CIS_F64, &L));
  if (L) L->flags |= CIS_FLAG_UPPER;
  CHECK(cis_gpu_plan_create_symmetric(L, NULL, 0, &p) == CIS_ERR_INVALID && !p, "lower entries accepted");
  CHECK_OK(cis_gpu_plan_create_symmetric(U, NULL, 0, &p));
  CHECK_OK(cis_gpu_malloc(&d, 100 * 17 * 8));
  CHECK(cis_gpu_spmm(p, 0, 1, d, 100, 0, d, 100, CIS_COL_MAJOR, NULL) == CIS_ERR_INVALID, "k = 0 accepted");
  CHECK(cis_gpu_spmm(p, 17, 1, d, 100, 0, d, 100, CIS_COL_MAJOR, NULL) == CIS_ERR_INVALID, "k = 17 accepted");
  CHECK(cis_gpu_spmm(p, 4, 1, d, 99, 0, d, 100, CIS_COL_MAJOR, NULL) == CIS_ERR_INVALID, "ldx 99 < n accepted");
  CHECK(cis_gpu_spmm(p, 4, 1, d, 3, 0, d, 4, CIS_ROW_MAJOR, NULL) == CIS_ERR_INVALID, "ldx 3 < k accepted");
  cis_gpu_plan_free(p);
  p = NULL;
  CHECK_OK(cis_matrix_create(A, "ell", NULL, &M));
  if (M) CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &p));
  CHECK(!p || cis_gpu_spmm(p, 2, 1, d, 2, 0, d, 2, CIS_ROW_MAJOR, NULL) == CIS_ERR_UNSUPPORTED, "ell SpMM accepted");
  cis_gpu_plan_free(p);
  cis_matrix_free(M);
  cis_gpu_free(d);
  cis_csr_free(A);
  cis_csr_free(U);
  cis_csr_free(L);
}

/* argv[1] == "quick": the first three cases in double only (for a
 * compute-sanitizer run, which is ~100x slower). */
int main(int argc, char **argv) {
  char why[200];
  gpu_case c[16];
  const int quick = argc > 1 && !strcmp(argv[1], "quick");
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  int n = sym_cases(c);
  for (int i = 0; i < (quick ? 3 : n); ++i)
    for (int t = 0; t < (quick ? 1 : 2); ++t) {
      check_symv(&c[i], (cis_dtype)t);
      check_spmm(&c[i], (cis_dtype)t);
    }
  check_refusals();
  check_seg_fixed_point();
  if (!quick) check_davidson_block();
  gpu_cases_free(c, n);
  return test_summary("test_gpu_sym_spmm");
}
