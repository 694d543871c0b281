/* fuzz_ci_states.c: libFuzzer target for the right states
 * (tests/ci_random_cases.h): the input's bytes choose the integrals (style,
 * orbitals, electrons, MS, seed), the request (roots, P-space size, spin
 * target) and the method (stored, direct, direct without time reversal,
 * direct over 2 CPU parts); cis_ci_solve's answer must be the dense
 * spectrum's, each <S^2> a spin present at its energy, else abort() with
 * the case. Full CI spaces of at most 441 determinants. Longer runs:
 *   build-fuzz/fuzz/fuzz_ci_states -max_total_time=600 CORPUS_DIR */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "ci_random_cases.h"

/* (norb, nelec) whose full CI at the lowest MS has at most 441 determinants. */
static const int SHAPES[][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 4}, {6, 5}, {6, 6}, {7, 3}, {7, 4}, {8, 2},
                                {9, 3}, {10, 2}, {12, 2}, {4, 3}, {5, 3}, {6, 3}, {4, 2}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 6) return 0;
  const int *sh = SHAPES[data[0] % (sizeof SHAPES / sizeof SHAPES[0])];
  const int norb = sh[0], nelec = sh[1], style = data[1] % 5 == 0 ? RC_SITES : RC_RANDOM;
  const int ms2 = nelec % 2 + 2 * (data[1] / 5 % 3 == 2); /* mostly the lowest |MS| */
  const int roots = 1 + data[2] % 3, pspace = 2 + data[3] % 40;
  const rc_variant *V = &RC_VARIANTS[data[4] % RC_NVARIANTS];
  const double spin = data[4] / RC_NVARIANTS % 3 == 0 ? 0.5 * ms2 + (data[5] % 3) : -1;
  uint64_t seed = 0;
  for (size_t k = 6; k < size && k < 14; ++k) seed = seed << 8 | data[k];
  if (ms2 > nelec) return 0;
  cis_fcidump *F = rc_fcidump(style, norb, nelec, ms2, seed);
  rc_ref R;
  char why[512];
  if (rc_reference(F, &R) && rc_check(F, &R, V, roots, pspace, spin, why, sizeof why)) {
    fprintf(stderr, "fuzz_ci_states: %s integrals seed %llu norb %d nelec %d ms2 %d roots %d pspace %d spin %g: %s\n",
            style == RC_SITES ? "sites" : "random", (unsigned long long)seed, norb, nelec, ms2, roots, pspace, spin,
            why);
    abort();
  }
  rc_ref_free(&R);
  rc_free(F);
  return 0;
}
