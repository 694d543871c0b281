/* cli_matrix.h: what `info`, `run` and `spmv` share: format options, the
 * matrix statistics the paper's model prints (§4.2; Tables 3-4) and the
 * memory of every storage format (Table 5). */
#ifndef CISPARSE_CLI_MATRIX_H
#define CISPARSE_CLI_MATRIX_H

#include "cli/cli.h"

#define MIB (1024.0 * 1024.0)

/* Parse argv[*i] if it is a format option (--precision, --slice, --sigma,
 * --block, --boundary, --boundary-mode; the value is argv[*i + 1]) into p.
 * Returns -1 when argv[*i] is not one, 0 when consumed (*i advanced past the
 * value), 2 after printing a usage error. */
int cli_format_option(int argc, char **argv, int *i, cis_format_params *p);
/* --format auto: when *format is "auto", the rule's format for where the
 * product runs (gpu: cis_format_auto, else cis_format_auto_cpu), its
 * parameters (the precision of p kept) and kernel (when *kernel is NULL)
 * for A, and, when `say` (auto asked for by name, not the default), the
 * rule's reason on stderr; any other name: nothing. Either way a "not used"
 * line on stderr for each format option of p that *format does not read (or
 * that auto replaces). */
cis_status cli_format_auto(const cis_csr *A, int gpu, int say, const char **format, cis_format_params *p,
                           const char **kernel);
#define CLI_FORMAT_OPTIONS \
  "[--precision double|float] [--slice S] [--sigma N] [--block Z] [--boundary B] [--boundary-mode count|column]\n" \
  "         [--values float|double (sell16 in double: float values, double sums)]"

/* Statistics of A (cis_csr_stats_get) and where the Reference region
 * (columns [0, ref_cols)) came from. */
typedef struct cli_stats {
  cis_int rows, cols, nnz;
  cis_int ref_cols;
  const char *ref_source;    /* how ref_cols was found */
  cis_int nnz_ref, nnz_exp;
  double sp_ref, sp_exp, sp_total; /* fraction of zeros; NaN for an empty region */
  cis_int row_min, row_max, row_max_at;
  double row_avg;
  cis_int nonfinite;         /* NaN/Inf values */
} cli_stats;

/* Fill s for A loaded from `name` (a ci: spec gives its Reference region,
 * anything else the hybrid format's column boundary). */
cis_status cli_matrix_stats(const cis_csr *A, const char *name, cli_stats *s);

/* One storage format built from A: its exact bytes, or why it failed. */
typedef struct cli_format_mem {
  const char *name;
  cis_int bytes;             /* -1 if it could not be built */
  char error[240];
  /* hyb only (is_hyb): the BOUNDARY used and its split */
  int is_hyb;
  cis_boundary_mode mode;
  cis_int boundary, width, csr_nnz;
} cli_format_mem;
#define CLI_MAX_FORMATS 32

/* Build every registered format from A with p, one at a time (build, count,
 * free), into mem[0 .. *n). Never fails as a whole: a format that cannot be
 * built records its error. */
void cli_format_memory(const cis_csr *A, const cis_format_params *p, cli_format_mem *mem, int *n);
/* The entry of format `name` in mem, or NULL. */
const cli_format_mem *cli_find_format(const cli_format_mem *mem, int n, const char *name);

/* The paper's §4.1 equations for A (bytes; -1 where not applicable). */
typedef struct cli_paper_bytes { cis_int csr, ell, hyb; } cli_paper_bytes;
cli_paper_bytes cli_paper_bytes_of(const cli_stats *s, const cli_format_mem *mem, int n);

#endif
