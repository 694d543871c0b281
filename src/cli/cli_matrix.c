/* cli_matrix.c: format options, matrix statistics and per-format memory for
 * the `info`, `run` and `spmv` commands (see cli_matrix.h). */
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "cli/cli_matrix.h"

int cli_is_fcidump(const char *path) {
  const size_t len = strlen(path);
  char head[64] = "";
  struct stat sb;
  if (len >= 7 && !strcmp(path + len - 7, "FCIDUMP")) return 1;
  if (stat(path, &sb) || !S_ISREG(sb.st_mode)) return 0; /* a pipe (standard input) is read once, by the loader */
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const int ok = fscanf(f, " %63s", head) == 1;
  fclose(f);
  return ok && !strncasecmp(head, "&FCI", 4);
}

cis_status cli_load(const char *name, cis_dtype t, cis_csr **A) {
  *A = NULL;
  if (cli_is_fcidump(name))
    return cis_error(CIS_ERR_INVALID, "%s is an FCIDUMP file (integrals, not a matrix): `cisparse ci %s` solves it, "
                     "`cisparse bench %s` times its full-CI Hamiltonian", name, name, name);
  return cis_load(name, t, A);
}

/* 1 when name is one of the space-separated words of list. */
static int among(const char *name, const char *list) {
  const size_t n = strlen(name);
  for (const char *w = strstr(list, name); w; w = strstr(w + 1, name))
    if ((w == list || w[-1] == ' ') && (w[n] == ' ' || w[n] == '\0')) return 1;
  return 0;
}

/* A line on stderr for each format option given (differing from its default)
 * that format does not read, or that --format auto replaces: none is
 * dropped without a word. */
static void say_unused_options(const char *format, const cis_format_params *p) {
  const cis_format_params d = cis_format_params_default();
  const struct { const char *opt; int given; const char *formats; } use[] = {
      {"--slice", p->slice != d.slice, "sell sellr sellcs sell16"},
      {"--sigma", p->sigma != d.sigma, "sellcs sell16"},
      {"--block", p->block != d.block, "csb"},
      {"--boundary", p->boundary != d.boundary, "hyb"},
      {"--boundary-mode", p->boundary_mode != d.boundary_mode, "hyb"}};
  for (size_t k = 0; k < sizeof use / sizeof use[0]; ++k) {
    if (!use[k].given || among(format, use[k].formats)) continue;
    if (!strcmp(format, "auto"))
      fprintf(stderr, "cisparse: %s not used: --format auto chooses the format and its parameters (name the "
                      "format: %s)\n", use[k].opt, use[k].formats);
    else
      fprintf(stderr, "cisparse: %s not used: --format %s has no such parameter (it is for %s)\n", use[k].opt,
              format, use[k].formats);
  }
}

cis_status cli_format_auto(const cis_csr *A, int gpu, int say, const char **format, cis_format_params *p,
                           const char **kernel) {
  say_unused_options(*format, p);
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
