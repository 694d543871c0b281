/* cli_matrix.c: format options, matrix statistics and per-format memory for
 * the `info`, `run` and `spmv` commands (see cli_matrix.h). */
#include <math.h>
#include <string.h>
#include "cli/cli_matrix.h"

cis_status cli_format_auto(const cis_csr *A, int gpu, int say, const char **format, cis_format_params *p,
                           const char **kernel) {
  if (strcmp(*format, "auto")) return CIS_OK;
  if (p->float_values) { /* the one format that stores float values under double vectors */
    if (say) fprintf(stderr, "--format auto with --values float: sell16\n");
    *format = "sell16";
    return CIS_OK;
  }
  cis_format_choice ch;
  cis_status st = gpu ? cis_format_auto(A, p->dtype, &ch) : cis_format_auto_cpu(A, p->dtype, &ch);
  if (st != CIS_OK) return st;
  if (say) fprintf(stderr, "--format auto: %s\n", ch.reason);
  const cis_dtype t = p->dtype;
  *format = ch.format;
  *p = ch.params;
  p->dtype = t;
  if (kernel && !*kernel) *kernel = ch.kernel;
  return CIS_OK;
}

int cli_format_option(int argc, char **argv, int *i, cis_format_params *p) {
  const char *opt = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
  long long v;
  int rc;
  cis_int *target = !strcmp(opt, "--slice") ? &p->slice
                    : !strcmp(opt, "--sigma") ? &p->sigma
                    : !strcmp(opt, "--block") ? &p->block
                    : !strcmp(opt, "--boundary") ? &p->boundary : NULL;
  if (target) {
    if ((rc = cli_int(opt, val, &v))) return rc;
    if (v < 0) return cli_usage("%s must not be negative, got %lld", opt, v);
    *target = (cis_int)v;
  } else if (!strcmp(opt, "--precision")) {
    if ((rc = cli_dtype(val, &p->dtype))) return rc;
  } else if (!strcmp(opt, "--values")) {
    if (val && !strcmp(val, "float")) p->float_values = 1;
    else if (val && !strcmp(val, "double")) p->float_values = 0;
    else return cli_usage("--values must be float or double, got '%s'", val ? val : "(nothing)");
  } else if (!strcmp(opt, "--boundary-mode")) {
    if (val && !strcmp(val, "count")) p->boundary_mode = CIS_BOUNDARY_COUNT;
    else if (val && !strcmp(val, "column")) p->boundary_mode = CIS_BOUNDARY_COLUMN;
    else return cli_usage("--boundary-mode must be count or column, got '%s'", val ? val : "(nothing)");
  } else {
    return -1;
  }
  *i += 1;
  return 0;
}

cis_status cli_matrix_stats(const cis_csr *A, const char *name, cli_stats *s) {
  cis_int ref = cis_gen_is_spec(name) ? cis_gen_reference_cols(name, A->cols) : 0;
  cis_csr_stats c;
  cis_status st = cis_csr_stats_get(A, ref > 0 ? ref : -1, &c);
  memset(s, 0, sizeof *s);
  if (st != CIS_OK) return st;
  s->rows = c.rows; s->cols = c.cols; s->nnz = c.nnz;
  s->ref_cols = c.ref_cols;
  s->nnz_ref = c.nnz_ref; s->nnz_exp = c.nnz_exp;
  s->sp_ref = c.sp_ref; s->sp_exp = c.sp_exp; s->sp_total = c.sp_total;
  s->row_min = c.row_min; s->row_max = c.row_max; s->row_max_at = c.row_max_at;
  s->row_avg = c.row_avg;
  s->nonfinite = c.nonfinite;
  s->ref_source = ref > 0 ? "ci spec: the first ceil(ref_frac*cols) columns"
                          : "hybrid column boundary: cis_hyb_choose_boundary(A, column)";
  return CIS_OK;
}

void cli_format_memory(const cis_csr *A, const cis_format_params *p, cli_format_mem *mem, int *n) {
  int count = cis_format_count();
  if (count > CLI_MAX_FORMATS) count = CLI_MAX_FORMATS;
  for (int f = 0; f < count; ++f) {
    cli_format_mem *m = &mem[f];
    cis_matrix *M = NULL;
    memset(m, 0, sizeof *m);
    m->name = cis_format_name(f);
    m->bytes = -1;
    if (cis_matrix_create(A, m->name, p, &M) != CIS_OK) {
      snprintf(m->error, sizeof m->error, "%s", cis_last_error());
      continue;
    }
    m->bytes = cis_matrix_bytes(M);
    cis_hyb_split h;
    if (!strcmp(m->name, "hyb") && cis_matrix_hyb_split(M, &h) == CIS_OK) {
      m->is_hyb = 1;
      m->mode = h.mode;
      m->boundary = h.boundary;
      m->width = h.width;
      m->csr_nnz = h.csr_nnz;
    }
    cis_matrix_free(M);
  }
  *n = count;
}

const cli_format_mem *cli_find_format(const cli_format_mem *mem, int n, const char *name) {
  for (int f = 0; f < n; ++f)
    if (!strcmp(mem[f].name, name)) return &mem[f];
  return NULL;
}

cli_paper_bytes cli_paper_bytes_of(const cli_stats *s, const cli_format_mem *mem, int n) {
  const cli_format_mem *h = cli_find_format(mem, n, "hyb");
  cli_paper_bytes b = {cis_paper_bytes_csr(s->rows, s->nnz), cis_paper_bytes_ell(s->rows, s->row_max), -1};
  if (h && h->is_hyb) b.hyb = cis_paper_bytes_hyb(s->rows, h->width, h->csr_nnz);
  return b;
}
