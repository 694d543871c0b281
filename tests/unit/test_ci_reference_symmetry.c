/* test_ci_reference_symmetry.c: the reference search of symmetry ISYM
 * (cis_ci_find_reference) where no single swap of the aufbau determinant
 * reaches ISYM: four orbitals of irreps 0, 0, 1, 2 (ORBSYM 1,1,2,3), two alpha
 * electrons; the aufbau {1,2} is irrep 0, single swaps give irreps 1 and 2,
 * only {3,4} (a double swap) has irrep 3 (ISYM=4). With six orbitals the
 * lowest of ISYM by orbital energy is the one found, not the first. A space with no
 * determinant of ISYM is refused in words that name no command-line flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

/* An FCIDUMP of diagonal one-electron integrals h (and one (11|11) entry),
 * written to a temporary file and read back. */
static cis_fcidump *diagonal_fcidump(int norb, int nelec, int ms2, const int *orbsym, int isym, const double *h) {
  char path[] = "/tmp/cis_refsymXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  fprintf(f, "&FCI NORB=%d,NELEC=%d,MS2=%d,\n ORBSYM=", norb, nelec, ms2);
  for (int p = 0; p < norb; ++p) fprintf(f, "%d,", orbsym[p]);
  fprintf(f, "\n ISYM=%d,\n&END\n 0.5 1 1 1 1\n", isym);
  for (int p = 0; p < norb; ++p) fprintf(f, " %.6f %d %d 0 0\n", h[p], p + 1, p + 1);
  fprintf(f, " 0.0 0 0 0 0\n");
  fclose(f);
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(path, &F));
  remove(path);
  return F;
}

int main(void) {
  const int sym4[] = {1, 1, 2, 3};
  const double h4[] = {-1.0, -0.9, -0.5, -0.4};
  cis_fcidump *F = diagonal_fcidump(4, 2, 2, sym4, 4, h4);
  uint64_t a = 0, b = 0;
  if (F) {
    CHECK_OK(cis_ci_find_reference(F, &a, &b));
    CHECK(a == 0xCull && b == 0, "ISYM=4 beyond single swaps: alpha %#llx beta %#llx, expected 0xc / 0",
          (unsigned long long)a, (unsigned long long)b);
  }
  cis_fcidump_free(F);

  /* six orbitals of irreps 0, 0, 1, 2, 2, 1, two alpha electrons: irrep 3
   * only from one orbital of irrep 1 and one of irrep 2 (no single swap of
   * the aufbau {1,2}); the lowest such pair by orbital energy is {5,6} */
  const int sym6[] = {1, 1, 2, 3, 3, 2};
  const double h6[] = {-1.0, -0.9, -0.3, -0.35, -0.5, -0.45};
  F = diagonal_fcidump(6, 2, 2, sym6, 4, h6);
  if (F) {
    CHECK_OK(cis_ci_find_reference(F, &a, &b));
    CHECK(a == 0x30ull && b == 0, "six orbitals: alpha %#llx beta %#llx, expected {5,6} = 0x30 (the lowest of irrep 3)",
          (unsigned long long)a, (unsigned long long)b);
  }
  cis_fcidump_free(F);

  const int sym1[] = {1, 1, 1, 1};
  F = diagonal_fcidump(4, 2, 2, sym1, 2, h4);
  if (F) {
    CHECK(cis_ci_find_reference(F, &a, &b) == CIS_ERR_INVALID, "no determinant of ISYM=2 in an all-A space: refused");
    const char *msg = cis_last_error();
    CHECK(strstr(msg, "has symmetry ISYM=2") && !strstr(msg, "--"), "the refusal names no flag: %s", msg);
  }
  cis_fcidump_free(F);
  return test_summary("test_ci_reference_symmetry");
}
