/* test_ci_random_states.c: the right states on hard integrals
 * (tests/ci_random_cases.h): random integrals of 5-10 orbitals and
 * separated sites (degenerate levels of mixed spin), MS = 0 and not, 1-3
 * roots, P-spaces of 4-28 determinants, each seed solved by two of the
 * four methods (stored, direct, direct without time reversal, direct over 2
 * CPU parts: each method on half the seeds) and once with a spin target
 * (stored or direct), where a GPU is also direct and stored on the GPU,
 * each against the dense spectrum and its spins.
 * Argument: the number of seeds (default 240, 60 under the sanitizers);
 * fuzz/fuzz_ci_states runs
 * the same checks on cases of its choosing. */
#include "test_util.h"
#include "ci_random_cases.h"

/* (norb, nelec, ms2) families whose full CI has at most 441 determinants. */
static const int FAMILIES[][3] = {{6, 6, 0}, {6, 4, 0}, {5, 4, 0}, {7, 4, 0}, {8, 2, 0}, {10, 2, 0},
                                  {5, 5, 1}, {6, 5, 1}, {9, 3, 1}, {6, 6, 2}, {4, 4, 0}, {7, 3, 1}};
static const int SITES[][3] = {{4, 4, 0}, {6, 6, 0}, {12, 2, 0}, {5, 5, 1}, {6, 4, 0}};

#ifndef RC_DEFAULT_SEEDS
#define RC_DEFAULT_SEEDS 240
#endif

int main(int argc, char **argv) {
  const int seeds = argc > 1 ? atoi(argv[1]) : RC_DEFAULT_SEEDS;
  int solves = 0, shown = 0;
  char why[512], gpu_why[256];
  const int gpus = cis_gpu_count(gpu_why, sizeof gpu_why);
  printf("GPU methods: %s\n", gpus > 0 ? "direct and stored on the GPU as well" : gpu_why);
  const int nfam = (int)(sizeof FAMILIES / sizeof FAMILIES[0]), nsit = (int)(sizeof SITES / sizeof SITES[0]);
  for (int sd = 0; sd < seeds; ++sd) {
    const uint64_t seed = (uint64_t)sd + 1;
    const int sites = sd % 8 == 7; /* one in eight: a degenerate level of mixed spin */
    const int *f = sites ? SITES[(sd / 8) % nsit] : FAMILIES[sd % nfam];
    cis_fcidump *F = rc_fcidump(sites ? RC_SITES : RC_RANDOM, f[0], f[1], f[2], seed);
    rc_ref R;
    CHECK(rc_reference(F, &R), "seed %llu: the dense reference", (unsigned long long)seed);
    const int roots = 1 + (int)(seed % 3), pspace = 4 + (int)(seed % 5) * 6;
    for (int t = 0; t < 2 && R.e; ++t) { /* two of the four methods a seed, each method every other seed */
      const int v = (sd + 2 * t + sd / RC_NVARIANTS) % RC_NVARIANTS;
      const int bad = rc_check(F, &R, &RC_VARIANTS[v], roots, pspace, -1, why, sizeof why);
      CHECK(!bad || shown > 30, "seed %llu %s norb %d nelec %d ms2 %d roots %d pspace %d: %s", (unsigned long long)seed,
            sites ? "sites" : "random", f[0], f[1], f[2], roots, pspace, why);
      shown += bad;
      ++solves;
    }
    for (int t = 0; t < RC_NVARIANTS_GPU && gpus > 0 && R.e; ++t) { /* where a GPU is: its methods too */
      const int bad = rc_check(F, &R, &RC_VARIANTS[RC_NVARIANTS + t], roots, pspace, t ? -1 : (sd % 2 ? 0.0 : -1),
                               why, sizeof why);
      CHECK(!bad || shown > 30, "seed %llu %s norb %d nelec %d ms2 %d roots %d pspace %d: %s", (unsigned long long)seed,
            sites ? "sites" : "random", f[0], f[1], f[2], roots, pspace, why);
      shown += bad;
      ++solves;
    }
    /* a spin target: the lowest states of that spin (stored and direct) */
    const double spin = f[2] == 0 ? (double)(sd / 2 % 3) : 0.5 * f[2] + (sd / 2 % 2);
    for (int v = sd / 2 % 2; v == sd / 2 % 2 && R.e; ++v) { /* stored or direct */
      const int bad = rc_check(F, &R, &RC_VARIANTS[v], 1 + (int)(seed % 2), pspace, spin, why, sizeof why);
      CHECK(!bad || shown > 30, "seed %llu %s norb %d nelec %d ms2 %d spin %g pspace %d: %s", (unsigned long long)seed,
            sites ? "sites" : "random", f[0], f[1], f[2], spin, pspace, why);
      shown += bad;
      ++solves;
    }
    rc_ref_free(&R);
    rc_free(F);
  }
  printf("%d solves of %d integral files against their dense spectra\n", solves, seeds);
  return test_summary("test_ci_random_states");
}
