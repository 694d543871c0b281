/* cmd_run.c: `cisparse run [SPEC]` (what `make run` calls): the paper's
 * experiment on the embedded default CI matrix ci:rows=32768,seed=1
 * (Mahmoud, Hoffmann, Reza 2018, §6): Tables 3, 4 and 5 beside the paper's
 * figures, then Table 9 (every kernel against cuSPARSE; the CPU kernels where
 * there is no GPU). */
#include <math.h>
#include <string.h>
#include "cli/cli_matrix.h"
#include "cli/run.h"

/* The paper's figures for its matrix 1 and the average of its ten
 * 32,768-row matrices (Tables 3, 4, 5). */
static const struct {
  double ref_nnz, exp_nnz, nnz, sp_ref, sp_exp, sp_total;
  double csr, ell, sell, hyb; /* MiB */
} paper1 = {21463040, 9678327, 31141367, 0.800110, 0.989985, 0.970997, 356.44, 407.25, 397.13, 356.76},
  paper_avg = {21463040, 9670080.3, 31133120.3, 0.800110, 0.9899934, 0.9710050, 356.44, 402.41, 398.12, 356.67};

/* One table row: this run, paper matrix 1, paper average ("n/a" for NaN). */
static void row3(const char *label, double ours, double p1, double pavg, const char *fmt) {
  const double v[3] = {ours, p1, pavg};
  printf("  %-34s", label);
  for (int k = 0; k < 3; ++k)
    if (isnan(v[k])) printf("%14s", "n/a"); else printf(fmt, v[k]);
  putchar('\n');
}

static int is_table5(const char *name) {
  return !strcmp(name, "csr") || !strcmp(name, "ell") || !strcmp(name, "sell") || !strcmp(name, "hyb");
}

/* Memory of format `name` in MiB, or NAN (printed as its error). */
static double mib(const cli_format_mem *mem, int n, const char *name) {
  const cli_format_mem *m = cli_find_format(mem, n, name);
  return m && m->bytes >= 0 ? m->bytes / MIB : NAN;
}

int cli_run_tables_345(const cis_csr *A, const char *spec) {
  static cli_format_mem mem[CLI_MAX_FORMATS];
  int n = 0;
  cli_stats s;
  cis_status st = cli_matrix_stats(A, spec, &s);
  if (st != CIS_OK) return cli_fail(st);
  /* the paper's split (§4.1, Figure 2): the Reference region in ELLPACK */
  cis_format_params p = cis_format_params_default();
  p.dtype = A->dtype;
  p.boundary_mode = CIS_BOUNDARY_COLUMN;
  p.boundary = s.ref_cols;
  cli_format_memory(A, &p, mem, &n);
  cli_paper_bytes pb = cli_paper_bytes_of(&s, mem, n);
  const char *hdr = "  %-34s%14s%14s%14s\n";

  printf("\nTable 3: %s, Reference region = columns [0, %lld)\n", spec, (long long)s.ref_cols);
  printf(hdr, "", "this run", "paper mat. 1", "paper avg.");
  row3("Reference nonzeros", (double)s.nnz_ref, paper1.ref_nnz, paper_avg.ref_nnz, "%14.0f");
  row3("Expansion Space nonzeros", (double)s.nnz_exp, paper1.exp_nnz, paper_avg.exp_nnz, "%14.0f");
  row3("total nonzeros", (double)s.nnz, paper1.nnz, paper_avg.nnz, "%14.0f");
  printf("  %-34s%8lld-%-5lld%8s-%-5s%14s\n", "longest row - row number", (long long)s.row_max,
         (long long)s.row_max_at, "1074", "5314", "1060..1079");

  printf("\nTable 4: sparsity (fraction of zeros)\n");
  printf(hdr, "", "this run", "paper mat. 1", "paper avg.");
  row3("Reference region", s.sp_ref, paper1.sp_ref, paper_avg.sp_ref, "%14.6f");
  row3("Expansion Space region", s.sp_exp, paper1.sp_exp, paper_avg.sp_exp, "%14.6f");
  row3("total", s.sp_total, paper1.sp_total, paper_avg.sp_total, "%14.6f");

  printf("\nTable 5: memory in MiB (2^20 bytes), %s values\n", cis_dtype_name(A->dtype));
  printf(hdr, "", "this run", "paper mat. 1", "paper avg.");
  row3("CSR", mib(mem, n, "csr"), paper1.csr, paper_avg.csr, "%14.2f");
  row3("ELL", mib(mem, n, "ell"), paper1.ell, paper_avg.ell, "%14.2f");
  row3("Sliced ELLPACK (S = 32)", mib(mem, n, "sell"), paper1.sell, paper_avg.sell, "%14.2f");
  row3("proposed hybrid (hyb)", mib(mem, n, "hyb"), paper1.hyb, paper_avg.hyb, "%14.2f");
  printf("  paper's equations (§4.1) on this matrix, MiB: CSR %.2f, ELL %.2f", pb.csr / MIB, pb.ell / MIB);
  if (pb.hyb >= 0) printf(", hybrid %.2f", pb.hyb / MIB);
  putchar('\n');
  const cli_format_mem *h = cli_find_format(mem, n, "hyb");
  if (h && h->is_hyb)
    printf("  hyb BOUNDARY = column %lld (%s mode): %lld ELLPACK slots per row, %lld nonzeros in CSR\n",
           (long long)h->boundary, h->mode == CIS_BOUNDARY_COLUMN ? "column" : "count", (long long)h->width,
           (long long)h->csr_nnz);
  printf("  other formats:");
  for (int f = 0; f < n; ++f)
    if (!is_table5(mem[f].name) && mem[f].bytes >= 0) printf(" %s %.2f", mem[f].name, mem[f].bytes / MIB);
  printf("\n");
  for (int f = 0; f < n; ++f)
    if (mem[f].bytes < 0) printf("  %s not built: %s\n", mem[f].name, mem[f].error);
  return 0;
}

int cis_cmd_run(int argc, char **argv) {
  const char *spec = DEFAULT_RUN_SPEC;
  cis_csr *A = NULL;
  cis_status st;
  int rc;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: cisparse run [SPEC]   (default %s)\n", DEFAULT_RUN_SPEC);
      return 0;
    }
    if (argv[i][0] == '-' || i > 1) return cli_usage("run: unexpected argument '%s' (cisparse run --help)", argv[i]);
    spec = argv[i];
  }
  if (cli_parse_only) return 0;
  printf("cisparse run: Mahmoud, Hoffmann, Reza 2018, Sec. 6, on %s\n", spec);
  double t0 = cis_wtime();
  if ((st = cis_generate(spec, CIS_F64, &A)) != CIS_OK) return cli_fail(st);
  printf("generated %lld x %lld, %lld nonzeros in %.2f s\n", (long long)A->rows, (long long)A->cols,
         (long long)A->nnz, cis_wtime() - t0);
  rc = cli_run_tables_345(A, spec);
  if (rc == 0) {
    rc = cli_run_table9(A, spec);
  }
  cis_csr_free(A);
  return rc;
}
