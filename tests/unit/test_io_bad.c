/* test_io_bad.c: every fixture in tests/data/bad/ (listed with its expected
 * status and message in EXPECTED.tsv) is refused by cis_load with exactly
 * that status and a one-line message containing "FILE:LINE: problem". */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

/* "CIS_ERR_PARSE" -> CIS_ERR_PARSE (names in enum order); -1 if unknown. */
static cis_status status_named(const char *name) {
  static const char *names[] = {"CIS_OK", "CIS_ERR_INVALID", "CIS_ERR_ALLOC", "CIS_ERR_IO", "CIS_ERR_PARSE",
                                "CIS_ERR_RANGE", "CIS_ERR_OVERFLOW", "CIS_ERR_TOO_LARGE", "CIS_ERR_UNSUPPORTED",
                                "CIS_ERR_NOT_FOUND", "CIS_ERR_NO_GPU", "CIS_ERR_CUDA", "CIS_ERR_DEVICE_OOM",
                                "CIS_ERR_CUSPARSE", "CIS_ERR_NOT_CONVERGED", "CIS_ERR_NUMERIC"};
  for (int s = 0; s < (int)(sizeof names / sizeof *names); ++s)
    if (!strcmp(name, names[s])) return (cis_status)s;
  return (cis_status)-1;
}

int main(void) {
  char line[1024], path[1024];
  FILE *f = fopen(CIS_TEST_DATA "/bad/EXPECTED.tsv", "r");
  int cases = 0;
  if (!f) {
    CHECK(0, "cannot open %s", CIS_TEST_DATA "/bad/EXPECTED.tsv");
    return test_summary("test_io_bad");
  }
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || line[0] == '#') continue;
    char *file = strtok(line, "\t"), *code = strtok(NULL, "\t"), *text = strtok(NULL, "\t");
    CHECK(file && code && text && (int)status_named(code) >= 0, "malformed EXPECTED.tsv line: %s", line);
    if (!file || !code || !text) continue;
    snprintf(path, sizeof path, "%s/bad/%s", CIS_TEST_DATA, file);
    cis_csr *A = NULL;

    cis_status st = cis_load(path, CIS_F64, &A);

    const char *msg = cis_last_error();
    CHECK(st == status_named(code), "%s: status %s, expected %s (%s)", file, cis_status_name(st), code, msg);
    CHECK(strstr(msg, text) != NULL, "%s: message \"%s\" lacks \"%s\"", file, msg, text);
    CHECK(!strchr(msg, '\n') && strstr(msg, path) == msg, "%s: message is not one line starting with the path", file);
    CHECK(A == NULL, "%s: a matrix was returned with an error", file);
    cis_csr_free(A);
    cases++;
  }
  fclose(f);
  CHECK(cases >= 30, "only %d fixtures listed", cases);
  return test_summary("test_io_bad");
}
