/* fuzz_fcidump_read.c: libFuzzer target for the FCIDUMP reader
 * (cis_fcidump_read). A refused file must leave a one-line message and no
 * integrals; an accepted one is read back through the accessors (every
 * one-electron integral and the (ii|jj) integrals). Seeds: tests/data/ci and
 * fuzz/corpus/fcidump. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/cisparse.h"
#include "fuzz_file.h"
#include "ci/ci_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_path(data, size);
  cis_fcidump *F = NULL;
  if (!path) return 0;
  cis_status st = cis_fcidump_read(path, &F);
  if (st != CIS_OK) {
    if (F || !cis_last_error()[0] || strchr(cis_last_error(), '\n')) {
      fprintf(stderr, "fuzz_fcidump_read: a refusal without a one-line message (or with integrals)\n");
      abort();
    }
    return 0;
  }
  volatile double sum = F->ecore;
  for (int i = 0; i < F->norb; ++i)
    for (int j = 0; j < F->norb; ++j) sum += F->h1[i * F->norb + j] + fcidump_eri(F, i, i, j, j);
  (void)sum;
  if (cis_fcidump_nalpha(F) < 0 || cis_fcidump_nbeta(F) < 0) {
    fprintf(stderr, "fuzz_fcidump_read: accepted negative electron counts\n");
    abort();
  }
  cis_fcidump_free(F);
  return 0;
}
