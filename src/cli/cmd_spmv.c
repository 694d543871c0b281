/* cmd_spmv.c: `cisparse spmv FILE|SPEC --format NAME --out FILE`: one
 * product y = alpha*A*x + beta*y in a chosen storage format, on the CPU
 * (the format's OpenMP SpMV) or the GPU (a plan of cisparse/gpu.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_matrix.h"

static const char *usage_line =
    "usage: cisparse spmv FILE|SPEC [--format NAME|auto] --out FILE [--out-format mm|text]\n"
    "         [--x FILE|ones|random] [--seed N] [--alpha a] [--beta b] [--y FILE]\n"
    "         [--device cpu|gpu] [--kernel NAME] [--symmetric] [--json [FILE]] " CLI_FORMAT_OPTIONS "\n"
    "  --format     storage format (default auto: the rule for the device, reason on stderr)\n"
    "  --json [FILE]  what ran as JSON in FILE (--json=FILE, or a word after --json beside the matrix), or\n"
    "               on stdout (no FILE, or '-'; the summary line then on stderr): matrix, rows, nnz,\n"
    "               format, device, kernel (null: the format's default, or the CPU), precision, alpha,\n"
    "               beta, x, y (null: none), out, matrix_bytes, norm_y (2-norm of the result)\n"
    "  --symmetric  store only the upper triangle (refused if A is not symmetric); --format csr;\n"
    "               GPU kernels csr-sym (atomics, default) or csr-sym-det (deterministic)";

typedef struct spmv_opts {
  const char *matrix, *format, *x, *y, *out, *kernel;
  cli_json json;
  int gpu, text, symmetric, format_given;
  double alpha, beta;
  long long seed;
  cis_format_params p;
} spmv_opts;

static int parse(int argc, char **argv, spmv_opts *o) {
  int rc;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    const char **str = !strcmp(a, "--format") ? &o->format : !strcmp(a, "--x") ? &o->x
                     : !strcmp(a, "--y") ? &o->y : !strcmp(a, "--out") ? &o->out
                     : !strcmp(a, "--kernel") ? &o->kernel : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if ((rc = cli_json_option(argc, argv, &i, &o->json)) >= 0) {
      if (rc) return rc;
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s\n", usage_line); return -1; }
    if (!strcmp(a, "--symmetric")) { o->symmetric = 1; continue; }
    if (str) {
      if (!val) return cli_usage("spmv: %s needs a value", a);
      *str = val;
    } else if (!strcmp(a, "--alpha") || !strcmp(a, "--beta")) {
      if ((rc = cli_double(a, val, a[2] == 'a' ? &o->alpha : &o->beta))) return rc;
    } else if (!strcmp(a, "--seed")) {
      if ((rc = cli_int(a, val, &o->seed))) return rc;
    } else if (!strcmp(a, "--device")) {
      if (!val || (strcmp(val, "cpu") && strcmp(val, "gpu")))
        return cli_usage("spmv: --device must be cpu or gpu, got '%s'", val ? val : "(nothing)");
      o->gpu = !strcmp(val, "gpu");
    } else if (!strcmp(a, "--out-format")) {
      if (!val || (strcmp(val, "mm") && strcmp(val, "text")))
        return cli_usage("spmv: --out-format must be mm or text, got '%s'", val ? val : "(nothing)");
      o->text = !strcmp(val, "text");
    } else if ((rc = cli_format_option(argc, argv, &i, &o->p)) >= 0) {
      if (rc) return rc;
      continue;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage("spmv: unknown option '%s' (cisparse spmv --help)", a);
    } else if (o->matrix) {
      return cli_usage("spmv: more than one matrix given ('%s', '%s')", o->matrix, a);
    } else {
      o->matrix = a;
      continue;
    }
    ++i; /* the option's value */
  }
  cli_json_settle(&o->json, &o->matrix);
  if (!o->matrix) return cli_usage("spmv: no matrix given (cisparse spmv --help)");
  o->format_given = o->format != NULL;
  if (!o->format) o->format = o->symmetric ? "csr" : "auto";
  if (!o->out) return cli_usage("spmv: no --out FILE given");
  if (o->kernel && !o->gpu) return cli_usage("spmv: --kernel applies to --device gpu only");
  if (o->beta != 0 && !o->y) return cli_usage("spmv: --beta %g scales y: give it with --y FILE", o->beta);
  if (o->symmetric && strcmp(o->format, "csr"))
    return cli_usage("spmv: --symmetric stores the upper triangle in csr; got --format %s", o->format);
  return 0;
}

/* --json: what ran (cli_json_open's stream). */
static cis_status write_json(const spmv_opts *o, const cis_csr *A, int64_t bytes, double norm_y) {
  FILE *f = cli_json_open(&o->json, 0);
  if (!f) return CIS_ERR_IO;
  fprintf(f, "{\"command\": \"spmv\", \"matrix\": ");
  cli_json_string(f, o->matrix);
  fprintf(f, ", \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, \"format\": ", (long long)A->rows, (long long)A->cols,
          (long long)A->nnz);
  cli_json_string(f, o->format);
  fprintf(f, ", \"symmetric\": %s, \"device\": \"%s\", \"kernel\": ", o->symmetric ? "true" : "false",
          o->gpu ? "gpu" : "cpu");
  cli_json_string(f, o->gpu ? o->kernel : NULL);
  fprintf(f, ", \"precision\": \"%s\", \"alpha\": %.17g, \"beta\": %.17g, \"x\": ", cis_dtype_name(o->p.dtype),
          o->alpha, o->beta);
  cli_json_string(f, o->x ? o->x : "ones");
  fprintf(f, ", \"y\": ");
  cli_json_string(f, o->y);
  fprintf(f, ", \"out\": ");
  cli_json_string(f, o->out);
  fprintf(f, ", \"out_format\": \"%s\", \"matrix_bytes\": %lld, \"norm_y\": %.17g}\n", o->text ? "text" : "mm",
          (long long)bytes, norm_y);
  return cli_json_close(&o->json, f);
}

/* x: ones, uniform (-1, 1) from the seed (value i from stream i, so any
 * length is reproducible), or read from a file (exactly n values). */
static cis_status make_x(const char *how, long long seed, cis_dtype t, cis_int n, void **x) {
  if (how && strcmp(how, "ones") && strcmp(how, "random")) return cis_vector_read(how, t, n, x);
  if (!(*x = malloc((size_t)(n + 1) * cis_dtype_size(t))))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the x vector (%lld values)", (long long)n);
  if (how && !strcmp(how, "random")) cis_gen_random_vector((uint64_t)seed, t, n, *x);
  else for (cis_int i = 0; i < n; ++i) cis_set(*x, t, i, 1.0);
  return CIS_OK;
}

/* M or (symmetric storage) U: one product on the device. */
static cis_status spmv_gpu(const cis_matrix *M, const cis_csr *U, const char *kernel, double alpha, const void *x,
                           double beta, void *y) {
  cis_status st = CIS_OK;
  cis_gpu_plan *plan = NULL;
  void *dx = NULL, *dy = NULL;
  char why[256] = "";
  const size_t vs = cis_dtype_size(U ? U->dtype : cis_matrix_dtype(M));
  const size_t nx = (size_t)(U ? U->cols : cis_matrix_cols(M)) * vs, ny = (size_t)(U ? U->rows : cis_matrix_rows(M)) * vs;
  if (cis_gpu_count(why, sizeof why) == 0)
    return cis_error(CIS_ERR_NO_GPU, "--device gpu: no usable GPU (%s)", why[0] ? why : "none found");
  if (U) CIS_TRY(cis_gpu_plan_create_symmetric(U, kernel, 0, &plan));
  else CIS_TRY(cis_gpu_plan_create(M, kernel, 0, &plan));
  CIS_TRY(cis_gpu_malloc(&dx, nx));
  CIS_TRY(cis_gpu_malloc(&dy, ny));
  CIS_TRY(cis_gpu_upload(dx, x, nx));
  CIS_TRY(cis_gpu_upload(dy, y, ny));
  CIS_TRY(cis_gpu_spmv(plan, alpha, dx, beta, dy, NULL));
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(y, dy, ny));
cleanup:
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  cis_gpu_plan_free(plan);
  return st;
}

int cis_cmd_spmv(int argc, char **argv) {
  spmv_opts o = {.alpha = 1.0, .beta = 0.0, .seed = 1, .p = cis_format_params_default()};
  cis_status st = CIS_OK;
  cis_csr *A = NULL;
  cis_matrix *M = NULL;
  cis_csr *U = NULL;
  void *x = NULL, *y = NULL;
  int rc = parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  const cis_dtype t = o.p.dtype;
  CIS_TRY(cli_load(o.matrix, t, &A));
  if (!o.symmetric) CIS_TRY(cli_format_auto(A, o.gpu, o.format_given, &o.format, &o.p, &o.kernel));
  if (o.symmetric) CIS_TRY(cis_csr_upper_symmetric(A, CLI_SYM_TOL, &U));
  else CIS_TRY(cis_matrix_create(A, o.format, &o.p, &M));
  CIS_TRY(make_x(o.x, o.seed, t, A->cols, &x));
  if (o.y) {
    CIS_TRY(cis_vector_read(o.y, t, A->rows, &y));
  } else {
    if (!(y = calloc((size_t)A->rows + 1, cis_dtype_size(t)))) {
      st = cis_error(CIS_ERR_ALLOC, "cannot allocate the y vector (%lld values)", (long long)A->rows);
      goto cleanup;
    }
    /* beta == 0 overwrites y: poison it so that a row left unwritten shows as NaN */
    for (cis_int i = 0; o.beta == 0.0 && i < A->rows; ++i) cis_set(y, t, i, NAN);
  }
  if (o.gpu) CIS_TRY(spmv_gpu(M, U, o.kernel, o.alpha, x, o.beta, y));
  else if (U) CIS_TRY(cis_csr_symv(U, o.alpha, x, o.beta, y));
  else CIS_TRY(cis_matrix_spmv(M, o.alpha, x, o.beta, y));
  /* A non-finite result (an overflow such as --alpha 1e308, or NaN/Inf in A,
   * x or y) is an error: nothing is written. */
  double norm_y = 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    double v = cis_get(y, t, i);
    norm_y += v * v;
    if (!isfinite(v)) {
      cis_int bad = 0;
      for (cis_int k = i; k < A->rows; ++k) bad += !isfinite(cis_get(y, t, k));
      st = cis_error(CIS_ERR_NUMERIC,
                     "spmv: %lld of %lld results are not finite (first: y[%lld] = %g, %s); %s not written",
                     (long long)bad, (long long)A->rows, (long long)i + 1, v,
                     (A->flags & CIS_FLAG_NONFINITE) ? "the matrix holds NaN/Inf" : "overflow in the product or NaN/Inf in x or y",
                     o.out);
      goto cleanup;
    }
  }
  CIS_TRY(o.text ? cis_text_write_vector(o.out, y, t, A->rows) : cis_mm_write_vector(o.out, y, t, A->rows));
  if (o.json.path) CIS_TRY(write_json(&o, A, U ? cis_csr_bytes(U) : cis_matrix_bytes(M), sqrt(norm_y)));
  fprintf(cli_json_stdout(&o.json) ? stderr : stdout, "y = %g*A*x + %g*y: %lld values (%s, %s, %s) -> %s\n", o.alpha, o.beta, (long long)A->rows,
         U ? "csr symmetric (upper triangle)" : o.format, o.gpu ? "gpu" : "cpu", cis_dtype_name(t), o.out);
cleanup:
  free(x);
  free(y);
  cis_matrix_free(M);
  cis_csr_free(U);
  cis_csr_free(A);
  return st == CIS_OK ? 0 : cli_fail(st);
}
