/* cmd_info.c: `cisparse info FILE|SPEC`: what the paper's model prints about
 * a matrix (Mahmoud et al. 2018, §4.2): nonzeros in total and per region,
 * per row, the longest row and its index, sparsity (Table 4) and the memory
 * of every storage format (Table 5) beside the paper's equations (§4.1). */
#include <math.h>
#include <string.h>
#include "cli/cli_matrix.h"

static const char *usage_line =
    "usage: cisparse info FILE|SPEC [--json [FILE]] [--rows-detail] [--dump FORMAT] " CLI_FORMAT_OPTIONS "\n"
    "  --json [FILE]  the statistics as JSON, alone on stdout, or in FILE (--json=FILE, or a word after\n"
    "                 --json beside the matrix) with the text on stdout";

/* --dump FORMAT: the arrays of one storage format as text (the paper's model
 * "can produce the components of each of the storage formats", §4.2). */
static int dump_format(const cis_csr *A, const char *format, const cis_format_params *p) {
  cis_matrix *M = NULL;
  cis_status st = cis_matrix_create(A, format, p, &M);
  if (st == CIS_OK) st = cis_matrix_dump(M, stdout);
  cis_matrix_free(M);
  return st == CIS_OK ? 0 : cli_fail(st);
}

static void json_rows(FILE *f, const cis_csr *A, cis_int ref, int part) {
  for (cis_int i = 0; i < A->rows; ++i) {
    cis_int all = A->rowptr[i + 1] - A->rowptr[i], r = cis_csr_row_count_below(A, i, ref);
    fprintf(f, "%s%lld", i ? "," : "", (long long)(part == 0 ? all : part == 1 ? r : all - r));
  }
}

static void print_json(FILE *f, const char *name, const cis_csr *A, const cli_stats *s,
                       const cli_format_mem *mem, int n, int detail) {
  const cli_format_mem *h = cli_find_format(mem, n, "hyb");
  cli_paper_bytes pb = cli_paper_bytes_of(s, mem, n);
  fputs("{\n  \"matrix\": ", f);
  cli_json_string(f, name);
  fprintf(f, ",\n  \"precision\": \"%s\",\n", cis_dtype_name(A->dtype));
  const struct { const char *k; cis_int v; } ints[] = {
      {"rows", s->rows}, {"cols", s->cols}, {"nnz", s->nnz}, {"reference_cols", s->ref_cols},
      {"nnz_reference", s->nnz_ref}, {"nnz_expansion", s->nnz_exp}, {"longest_row", s->row_max},
      {"longest_row_index", s->row_max_at}, {"row_nnz_min", s->row_min}, {"row_nnz_max", s->row_max},
      {"nonfinite", s->nonfinite}};
  for (size_t k = 0; k < sizeof ints / sizeof *ints; ++k)
    fprintf(f, "  \"%s\": %lld,\n", ints[k].k, (long long)ints[k].v);
  fputs("  \"reference_source\": ", f);
  cli_json_string(f, s->ref_source);
  fputs(",\n", f);
  fputs("  ", f);
  cli_json_num(f, "row_nnz_avg", s->row_avg, "%.9g", ",\n");
  fputs("  ", f);
  cli_json_num(f, "sparsity_reference", s->sp_ref, "%.9g", ",\n");
  fputs("  ", f);
  cli_json_num(f, "sparsity_expansion", s->sp_exp, "%.9g", ",\n");
  fputs("  ", f);
  cli_json_num(f, "sparsity_total", s->sp_total, "%.9g", ",\n");
  if (h && h->is_hyb)
    fprintf(f, "  \"boundary\": %lld,\n  \"boundary_mode\": \"%s\",\n  \"hyb_ell_width\": %lld,\n"
               "  \"hyb_csr_nnz\": %lld,\n", (long long)h->boundary,
            h->mode == CIS_BOUNDARY_COLUMN ? "column" : "count", (long long)h->width, (long long)h->csr_nnz);
  else
    fputs("  \"boundary\": null,\n", f);
  fputs("  \"formats\": [", f);
  for (int i = 0; i < n; ++i) {
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    cli_json_string(f, mem[i].name);
    if (mem[i].bytes >= 0) {
      fprintf(f, ", \"bytes\": %lld, \"mib\": %.4f}", (long long)mem[i].bytes, mem[i].bytes / MIB);
    } else {
      fputs(", \"error\": ", f);
      cli_json_string(f, mem[i].error);
      fputc('}', f);
    }
  }
  fprintf(f, "\n  ],\n  \"paper_bytes\": {\"csr\": %lld, \"ell\": %lld, \"hyb\": ", (long long)pb.csr,
          (long long)pb.ell);
  if (pb.hyb >= 0) fprintf(f, "%lld}", (long long)pb.hyb); else fputs("null}", f);
  if (detail) {
    const char *keys[] = {"row_nnz", "row_nnz_reference", "row_nnz_expansion"};
    for (int part = 0; part < 3; ++part) {
      fprintf(f, ",\n  \"%s\": [", keys[part]);
      json_rows(f, A, s->ref_cols, part);
      fputc(']', f);
    }
  }
  fputs("\n}\n", f);
}

/* A region line: nonzeros and sparsity ("n/a" for an empty region). */
static void region_line(FILE *f, const char *label, cis_int nnz, double sp) {
  fprintf(f, "  %-16s %14lld", label, (long long)nnz);
  if (isnan(sp)) fprintf(f, "  %10s\n", "n/a"); else fprintf(f, "  %10.6f\n", sp);
}

static void print_text(FILE *f, const char *name, const cis_csr *A, const cli_stats *s,
                       const cli_format_mem *mem, int n, int detail) {
  const cli_format_mem *h = cli_find_format(mem, n, "hyb");
  cli_paper_bytes pb = cli_paper_bytes_of(s, mem, n);
  fprintf(f, "matrix %s (%s values)\n", name, cis_dtype_name(A->dtype));
  fprintf(f, "rows %lld  cols %lld  nonzeros %lld\n", (long long)s->rows, (long long)s->cols, (long long)s->nnz);
  fprintf(f, "Reference region: columns [0, %lld) (%s); Expansion Space region: columns [%lld, %lld)\n",
          (long long)s->ref_cols, s->ref_source, (long long)s->ref_cols, (long long)s->cols);
  fprintf(f, "  %-16s %14s  %10s\n", "region", "nonzeros", "sparsity");
  region_line(f, "Reference", s->nnz_ref, s->sp_ref);
  region_line(f, "Expansion Space", s->nnz_exp, s->sp_exp);
  region_line(f, "total", s->nnz, s->sp_total);
  fprintf(f, "  (sparsity = fraction of zeros, as Table 4)\n");
  fprintf(f, "nonzeros per row: min %lld  avg %.2f  max %lld\n", (long long)s->row_min, s->row_avg,
          (long long)s->row_max);
  fprintf(f, "longest row: %lld nonzeros, row %lld\n", (long long)s->row_max, (long long)s->row_max_at);
  fprintf(f, "memory (MiB = 2^20 bytes; %s values):\n  %-8s %14s %10s   %s\n", cis_dtype_name(A->dtype),
          "format", "bytes", "MiB", "paper equation, double values (MiB)");
  for (int i = 0; i < n; ++i) {
    const char *nm = mem[i].name;
    cis_int paper = !strcmp(nm, "csr") ? pb.csr : !strcmp(nm, "ell") ? pb.ell : !strcmp(nm, "hyb") ? pb.hyb : -1;
    if (mem[i].bytes < 0) {
      fprintf(f, "  %-8s error: %s\n", nm, mem[i].error);
      continue;
    }
    fprintf(f, "  %-8s %14lld %10.2f", nm, (long long)mem[i].bytes, mem[i].bytes / MIB);
    if (paper >= 0) fprintf(f, "   %10.2f", paper / MIB);
    fputc('\n', f);
  }
  if (h && h->is_hyb)
    fprintf(f, "hyb BOUNDARY %lld (%s mode): ELLPACK part %lld slots per row, CSR part %lld nonzeros\n",
            (long long)h->boundary, h->mode == CIS_BOUNDARY_COLUMN ? "column" : "count",
            (long long)h->width, (long long)h->csr_nnz);
  if (detail) {
    fprintf(f, "%10s %10s %10s %10s\n", "row", "nonzeros", "reference", "expansion");
    for (cis_int i = 0; i < A->rows; ++i) {
      cis_int all = A->rowptr[i + 1] - A->rowptr[i], r = cis_csr_row_count_below(A, i, s->ref_cols);
      fprintf(f, "%10lld %10lld %10lld %10lld\n", (long long)i, (long long)all, (long long)r, (long long)(all - r));
    }
  }
}

int cis_cmd_info(int argc, char **argv) {
  const char *name = NULL, *dump = NULL;
  int detail = 0, rc, n = 0;
  cli_json json = {0};
  cis_format_params p = cis_format_params_default();
  cis_csr *A = NULL;
  cli_stats s;
  static cli_format_mem mem[CLI_MAX_FORMATS];
  cis_status st;
  for (int i = 1; i < argc; ++i) {
    if (cli_stray_value(argv, i)) return 2;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s\n", usage_line); return 0; }
    if ((rc = cli_json_option(argc, argv, &i, &json)) >= 0) { if (rc) return rc; }
    else if (!strcmp(argv[i], "--rows-detail")) detail = 1;
    else if (!strcmp(argv[i], "--dump")) {
      if (++i >= argc) return cli_usage("info: --dump needs a format name");
      dump = argv[i];
    }
    else if ((rc = cli_format_option(argc, argv, &i, &p)) >= 0) { if (rc) return rc; }
    else if (argv[i][0] == '-' && argv[i][1]) return cli_usage("info: unknown option '%s' (cisparse info --help)", argv[i]);
    else if (name) return cli_usage("info: more than one matrix given ('%s', '%s')", name, argv[i]);
    else name = argv[i];
  }
  cli_json_settle(&json, &name);
  if (!name) return cli_usage("info: no matrix given (cisparse info --help)");
  if (cli_parse_only) return 0;
  if ((st = cli_load(name, p.dtype, &A)) != CIS_OK) return cli_fail(st);
  if (dump) {
    rc = dump_format(A, dump, &p);
    cis_csr_free(A);
    return rc;
  }
  if ((st = cli_matrix_stats(A, name, &s)) != CIS_OK) { cis_csr_free(A); return cli_fail(st); }
  if (s.nonfinite > 0) fprintf(stderr, "warning: %lld non-finite values (NaN/Inf)\n", (long long)s.nonfinite);
  cli_format_memory(A, &p, mem, &n);
  if (!cli_json_stdout(&json)) print_text(stdout, name, A, &s, mem, n, detail);
  st = fflush(stdout) || ferror(stdout) ? cis_error(CIS_ERR_IO, "info: cannot write the output") : CIS_OK;
  if (st == CIS_OK && json.path) {
    FILE *f = cli_json_open(&json, 0);
    if (f) print_json(f, name, A, &s, mem, n, detail);
    st = f ? cli_json_close(&json, f) : CIS_ERR_IO;
  }
  cis_csr_free(A);
  return st == CIS_OK ? 0 : cli_fail(st);
}
