/* test_gpu_kernels.c: every cisparse GPU kernel against the CPU reference,
 * in double and float, beta = 0 (output poisoned with NaN) and beta != 0, on
 * the cases of gpu_cases.h; device bytes == host format bytes. Formats not
 * built into this binary are reported and skipped. sell16 with float values
 * under double vectors: against its own CPU reference (the same rounded
 * values, double sums) to 1e-13, and against the double product to 1e-6. */
#include "gpu_cases.h"

typedef struct variant {
  const char *format, *kernel;
  int block;
  cis_int slice;           /* sell family: S; csb: block z (0 = default) */
  cis_boundary_mode mode;  /* hyb */
  cis_int boundary;        /* hyb: < 0 = choose */
  const char *lock, *g, *u; /* hyb tuning overrides (options hyb_lock, hyb_g, hyb_unroll), NULL = auto */
  const char *sp, *su, *sb; /* sell split kernel: threads per row, loads in flight,
                               blocks per SM (options sell_p, sell_u, sell_bpsm), NULL = auto */
} variant;

#define AUTO NULL, NULL, NULL, NULL, NULL, NULL
#define HYB_ONLY NULL, NULL, NULL
static const variant variants[] = {
    {"csr", "csr-vector", 0, 0, 0, -1, AUTO},  {"csr", "csr-scalar", 0, 0, 0, -1, AUTO},
    {"csr", "csr-vector", 64, 0, 0, -1, AUTO}, {"ell", "ell", 0, 0, 0, -1, AUTO},
    {"ellr", "ellr", 0, 0, 0, -1, AUTO},       {"sell", "sell", 0, 32, 0, -1, AUTO},
    {"sell", "sell", 0, 16, 0, -1, AUTO},      {"sell", "sell", 0, 1024, 0, -1, AUTO},
    {"sellr", "sellr", 0, 64, 0, -1, AUTO},    {"sellcs", "sellcs", 0, 32, 0, -1, AUTO},
    {"csb", "csb", 0, 0, 0, -1, AUTO},
    {"csb", "csb", 0, 8192, 0, -1, AUTO},  /* z = 8192: y through global atomics */         {"csr5", "csr5", 0, 0, 0, -1, AUTO},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, -1, AUTO},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, 3, AUTO},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COLUMN, -1, AUTO},
    {"hyb", "hyb-paper", 16, 0, CIS_BOUNDARY_COUNT, -1, AUTO},
    {"hyb", "hyb-paper", 32, 0, CIS_BOUNDARY_COUNT, -1, AUTO},
    {"hyb", "hyb-paper", 128, 0, CIS_BOUNDARY_COUNT, 3, AUTO},
    {"hyb", "hyb-paper", 1024, 0, CIS_BOUNDARY_COLUMN, -1, AUTO},
    /* every variant the fast kernel can pick: phase-locked, threads per row, loads in flight */
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, -1, "1024", "16", "4", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COLUMN, -1, "512", "32", "8", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, 3, "256", "8", "1", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, -1, "0", "4", "2", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COLUMN, -1, "0", "1", "4", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, -1, "0", "16", "8", HYB_ONLY},
    {"hyb", "hyb", 0, 0, CIS_BOUNDARY_COUNT, 3, "0", "32", "2", HYB_ONLY},
    /* sell split kernel: threads per row P (S*P up to 1024), loads in flight U,
       a slice height that is no power of two, a given block size */
    {"sell", "sell", 0, 32, 0, -1, NULL, NULL, NULL, "32", "1", NULL},
    {"sell", "sell", 0, 16, 0, -1, NULL, NULL, NULL, "4", "8", NULL},
    {"sell", "sell", 0, 48, 0, -1, NULL, NULL, NULL, "2", "2", NULL},
    {"sell", "sell", 512, 64, 0, -1, NULL, NULL, NULL, "8", "4", NULL},
    {"sellr", "sellr", 0, 32, 0, -1, NULL, NULL, NULL, "16", "4", NULL},
    {"sellcs", "sellcs", 0, 32, 0, -1, NULL, NULL, NULL, "8", "2", NULL},
    {"sellcs", "sellcs", 0, 128, 0, -1, NULL, NULL, NULL, "1", "8", NULL},
    /* at most one block per SM: the kernel strides over the slices */
    {"sell", "sell", 0, 32, 0, -1, NULL, NULL, NULL, "1", "4", "1"},
    {"sellcs", "sellcs", 0, 32, 0, -1, NULL, NULL, NULL, "4", "4", "1"},
    /* sell16: 16-bit offsets + far part (the "wide" and "one row of 12000" cases escape) */
    {"sell16", "sell16", 0, 32, 0, -1, AUTO},
    {"sell16", "sell16", 0, 16, 0, -1, NULL, NULL, NULL, "4", "8", NULL},
    {"sell16", "sell16", 512, 64, 0, -1, NULL, NULL, NULL, "8", "2", NULL},
    {"sell16", "sell16", 0, 32, 0, -1, NULL, NULL, NULL, "32", "1", "1"},
    {"sell16", "sell16", 0, 1024, 0, -1, AUTO},
    /* the report's thread per row, and the fallback for S > 1024 */
    {"sell", "sell-row", 0, 32, 0, -1, AUTO},
    {"sellr", "sellr-row", 0, 16, 0, -1, AUTO},
    {"sellcs", "sellcs-row", 0, 32, 0, -1, AUTO},
    {"sell", "sell", 0, 2048, 0, -1, AUTO},
};

static void set_or_clear(const char *name, const char *value) { CHECK_OK(cis_option_set(name, value)); }

static int format_built(const char *name) {
  for (int i = 0; i < cis_format_count(); ++i)
    if (!strcmp(cis_format_name(i), name)) return 1;
  return 0;
}

static void run_variant(const gpu_case *c, const variant *v, cis_dtype t) {
  cis_format_params fp = cis_format_params_default();
  cis_matrix *M = NULL;
  cis_gpu_plan *p = NULL;
  cis_status st;
  fp.dtype = t;
  set_or_clear("hyb_lock", v->lock);
  set_or_clear("hyb_g", v->g);
  set_or_clear("hyb_unroll", v->u);
  set_or_clear("sell_p", v->sp);
  set_or_clear("sell_u", v->su);
  set_or_clear("sell_bpsm", v->sb);
  if (v->slice && !strcmp(v->format, "csb")) fp.block = v->slice;
  else if (v->slice) fp.slice = v->slice;
  fp.boundary_mode = v->mode;
  fp.boundary = v->boundary;
  st = cis_matrix_create(c->A, v->format, &fp, &M);
  CHECK(st == CIS_OK, "%s: build %s: %s", c->name, v->format, cis_last_error());
  if (st != CIS_OK) return;
  st = cis_gpu_plan_create(M, v->kernel, v->block, &p);
  CHECK(st == CIS_OK, "%s: plan %s/%s: %s", c->name, v->format, v->kernel, cis_last_error());
  if (st == CIS_OK) {
    CHECK(cis_gpu_plan_bytes(p) == cis_matrix_bytes(M), "%s %s: device bytes %lld != host %lld",
          c->name, v->kernel, (long long)cis_gpu_plan_bytes(p), (long long)cis_matrix_bytes(M));
    CHECK(!strcmp(cis_gpu_plan_kernel(p), v->kernel), "kernel name %s", cis_gpu_plan_kernel(p));
    for (int b = 0; b < 2; ++b) {
      double beta = b ? -0.5 : 0.0;
      double err = check_plan(p, c->A, t, beta, 11 + (uint64_t)b);
      CHECK(err <= test_tol(t), "%s: %s/%s block %d slice %lld lock/G/U %s/%s/%s P/U %s/%s %s beta %g: rel err %.3g",
            c->name, v->format, v->kernel, v->block, (long long)v->slice, v->lock ? v->lock : "auto",
            v->g ? v->g : "auto", v->u ? v->u : "auto", v->sp ? v->sp : "auto",
            v->su ? v->su : "auto", cis_dtype_name(t), beta, err);
    }
  }
  cis_gpu_plan_free(p);
  cis_matrix_free(M);
}

/* sell16, float values, double x and y (NaN-poisoned y, beta 0 and -0.5). */
static void check_float_values(const gpu_case *c) {
  cis_format_params fp = cis_format_params_default();
  cis_matrix *M = NULL;
  cis_gpu_plan *p = NULL;
  const cis_int nx = c->A->cols ? c->A->cols : 1, ny = c->A->rows ? c->A->rows : 1;
  double *x = malloc(8 * (size_t)nx), *y0 = malloc(8 * (size_t)ny), *y = malloc(8 * (size_t)ny);
  double *yc = malloc(8 * (size_t)ny);
  void *dx = NULL, *dy = NULL;
  fp.float_values = 1;
  cis_option_set("sell_p", NULL);
  cis_option_set("sell_u", NULL);
  cis_option_set("sell_bpsm", NULL);
  CHECK_OK(cis_matrix_create(c->A, "sell16", &fp, &M));
  if (M) CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &p));
  if (!p || !x || !y0 || !y || !yc) goto done;
  CHECK(cis_gpu_plan_bytes(p) == cis_matrix_bytes(M), "%s float values: device bytes %lld != host %lld", c->name,
        (long long)cis_gpu_plan_bytes(p), (long long)cis_matrix_bytes(M));
  test_fill_random(x, CIS_F64, nx, 21);
  test_fill_random(y0, CIS_F64, ny, 22);
  CHECK_OK(cis_gpu_malloc(&dx, 8 * (size_t)nx));
  CHECK_OK(cis_gpu_malloc(&dy, 8 * (size_t)ny));
  if (!dx || !dy) goto done;
  CHECK_OK(cis_gpu_upload(dx, x, 8 * (size_t)nx));
  for (int b = 0; b < 2; ++b) {
    const double beta = b ? -0.5 : 0.0;
    CHECK_OK(beta == 0.0 ? bench_fill_nan(dy, CIS_F64, ny) : cis_gpu_upload(dy, y0, 8 * (size_t)ny));
    CHECK_OK(cis_gpu_spmv(p, 1.5, dx, beta, dy, NULL));
    CHECK_OK(cis_gpu_sync());
    test_fill_nan(y, CIS_F64, ny);
    CHECK_OK(cis_gpu_download(y, dy, 8 * (size_t)ny));
    memcpy(yc, y0, 8 * (size_t)ny);
    if (beta == 0.0) test_fill_nan(yc, CIS_F64, ny);
    CHECK_OK(cis_matrix_spmv(M, 1.5, x, beta, yc));
    double e = rel_err_vs(y, CIS_F64, yc, c->A->rows);
    CHECK(e <= 1e-13, "%s float values beta %g: rel err %.3g against the CPU sell16 (NaN never passes)", c->name,
          beta, e);
    double *ref = reference_spmv(c->A, CIS_F64, x, 1.5, beta, y0);
    e = rel_err_vs(y, CIS_F64, ref, c->A->rows);
    CHECK(e <= 1e-6, "%s float values beta %g: rel err %.3g against the double product", c->name, beta, e);
    free(ref);
  }
done:
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x); free(y0); free(y); free(yc);
  cis_gpu_plan_free(p);
  cis_matrix_free(M);
}

int main(void) {
  char why[200];
  gpu_case cases[16];
  int n;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);

  n = gpu_cases(cases);

  for (size_t k = 0; k < sizeof variants / sizeof *variants; ++k) {
    if (!format_built(variants[k].format)) {
      printf("note: format %s not built in; its kernel is not tested\n", variants[k].format);
      continue;
    }
    for (int i = 0; i < n; ++i)
      for (int t = 0; t < 2; ++t) run_variant(&cases[i], &variants[k], t ? CIS_F32 : CIS_F64);
  }
  if (format_built("sell16"))
    for (int i = 0; i < n; ++i) check_float_values(&cases[i]);
  gpu_cases_free(cases, n);
  return test_summary("test_gpu_kernels");
}
