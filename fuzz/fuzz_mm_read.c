/* fuzz_mm_read.c: libFuzzer target for the Matrix Market reader
 * (io_mm_read). Any input is read in double and float; a refused file must
 * leave a one-line message and no matrix, an accepted one a valid CSR
 * (cis_csr_check). Seeds: tests/data and tests/data/bad. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/cisparse.h"
#include "fuzz_file.h"
#include "io/io_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_path(data, size);
  if (!path) return 0;
  for (int k = 0; k < 2; ++k) {
    cis_csr *A = NULL;
    cis_status st = io_mm_read(path, k ? CIS_F32 : CIS_F64, &A);
    if (st == CIS_OK && (!A || cis_csr_check(A) != CIS_OK)) {
      fprintf(stderr, "fuzz_mm_read: accepted an invalid matrix: %s\n", cis_last_error());
      abort();
    }
    if (st != CIS_OK && (A || !cis_last_error()[0] || strchr(cis_last_error(), '\n'))) {
      fprintf(stderr, "fuzz_mm_read: a refusal without a one-line message (or with a matrix)\n");
      abort();
    }
    cis_csr_free(A);
  }
  return 0;
}
