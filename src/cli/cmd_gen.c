/* cmd_gen.c: `cisparse gen SPEC -o FILE`: generate a matrix and save it
 * (.cisb binary by extension, else Matrix Market). */
#include <string.h>
#include "cli/cli.h"

static const char *usage_line = "usage: cisparse gen SPEC -o|--out FILE [--precision double|float]";

int cis_cmd_gen(int argc, char **argv) {
  const char *spec = NULL, *path = NULL;
  cis_dtype t = CIS_F64;
  cis_csr *A = NULL;
  cis_status st;
  int rc;
  for (int i = 1; i < argc; ++i) {
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s\n", usage_line); return 0; }
    if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) {
      if (!val) return cli_usage("gen: %s needs a file name", argv[i]);
      path = val; ++i;
    } else if (!strcmp(argv[i], "--precision")) {
      if ((rc = cli_dtype(val, &t))) return rc;
      ++i;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage("gen: unknown option '%s' (cisparse gen --help)", argv[i]);
    } else if (spec) {
      return cli_usage("gen: more than one spec given ('%s', '%s')", spec, argv[i]);
    } else {
      spec = argv[i];
    }
  }
  if (!spec) return cli_usage("gen: no generator spec given (cisparse gen --help)");
  if (!path) return cli_usage("gen: no output file given (-o FILE)");
  if (cli_parse_only) return 0;
  if ((st = cis_generate(spec, t, &A)) != CIS_OK) return cli_fail(st);
  st = cis_save(path, A);
  if (st == CIS_OK)
    printf("%s: %lld x %lld, %lld nonzeros (%s) -> %s\n", spec, (long long)A->rows, (long long)A->cols,
           (long long)A->nnz, cis_dtype_name(t), path);
  cis_csr_free(A);
  return st == CIS_OK ? 0 : cli_fail(st);
}
