/* test_ci_random_states.c: the right states on hard integrals. Random
 * integrals of 4-7 orbitals (no hidden symmetry, ground states of any spin,
 * near-degenerate levels), solved by cis_ci_solve with small P-spaces (the
 * situation of a large space: guesses that cover few determinants) by every
 * method (stored, direct, direct with parts), against a dense
 * diagonalisation of the whole Hamiltonian (cis_ci_hamiltonian, then
 * cis_dense_eigh): every reported root must be the exact one, to 1e-7 Eh.
 * Argument: the number of seeds (default 240). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

/* A splitmix64 stream: uniform in [-1, 1). */
static double unif(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* Random integrals: h symmetric in [-1, 1) (diagonal lowered), (ij|kl) =
 * sum_Q B_ij^Q B_kl^Q + a small symmetric random part (positive-ish as real
 * integrals, with the full 8-fold symmetry). Caller frees h1, eri, F. */
static cis_fcidump *random_fcidump(int norb, int nelec, int ms2, uint64_t seed) {
  cis_fcidump *F = calloc(1, sizeof *F);
  uint64_t s = seed * 0x2545F4914F6CDD1DULL + 1;
  F->norb = norb, F->nelec = nelec, F->ms2 = ms2, F->isym = 1, F->isym_file = 1;
  for (int p = 0; p < CIS_CI_MAX_ORB; ++p) F->orbsym[p] = 1;
  F->npair = (cis_int)norb * (norb + 1) / 2;
  F->neri = F->npair * (F->npair + 1) / 2;
  F->h1 = calloc((size_t)norb * norb, sizeof(double));
  F->eri = calloc((size_t)F->neri, sizeof(double));
  F->ecore = unif(&s);
  for (int i = 0; i < norb; ++i)
    for (int j = 0; j <= i; ++j) F->h1[i * norb + j] = F->h1[j * norb + i] = unif(&s) - (i == j ? 1.0 + 0.3 * i : 0.0);
  const int nq = norb;
  double *B = malloc((size_t)nq * F->npair * sizeof(double));
  for (cis_int k = 0; k < (cis_int)nq * F->npair; ++k) B[k] = 0.5 * unif(&s);
  for (cis_int a = 0; a < F->npair; ++a)
    for (cis_int b = 0; b <= a; ++b) {
      double v = 0.1 * unif(&s);
      for (int q = 0; q < nq; ++q) v += B[(size_t)q * F->npair + a] * B[(size_t)q * F->npair + b];
      F->eri[a * (a + 1) / 2 + b] = v;
    }
  free(B);
  return F;
}

static void free_fcidump(cis_fcidump *F) {
  free(F->h1);
  free(F->eri);
  free(F);
}

/* The whole spectrum of F's full CI (ascending, *n of them) and each
 * eigenvalue's <S^2>. */
static double *dense_spectrum(const cis_fcidump *F, cis_int *n, double **s2) {
  cis_ci_bits a, b;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  *n = 0;
  *s2 = NULL;
  CHECK_OK(cis_ci_find_reference_bits(F, &a, &b));
  CHECK_OK(cis_ci_space_create_bits(F, -1, &a, &b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (!H) { cis_ci_space_free(S); return NULL; }
  const cis_int m = cis_ci_space_size(S);
  double *A = calloc((size_t)m * m, sizeof(double)), *w = malloc((size_t)m * sizeof(double));
  double *col = malloc((size_t)m * sizeof(double));
  *s2 = malloc((size_t)m * sizeof(double));
  const cis_int *rp = H->rowptr;
  const cis_idx *ci = H->colind;
  const double *v = H->val;
  for (cis_int i = 0; i < m; ++i)
    for (cis_int k = rp[i]; k < rp[i + 1]; ++k) A[(size_t)i * m + ci[k]] = v[k];
  CHECK_OK(cis_dense_eigh(A, (int)m, w));
  for (cis_int j = 0; j < m; ++j) { /* column j of row-major A */
    for (cis_int i = 0; i < m; ++i) col[i] = A[(size_t)i * m + j];
    CHECK_OK(cis_ci_s2(F, S, col, &(*s2)[j]));
  }
  free(A);
  free(col);
  cis_csr_free(H);
  cis_ci_space_free(S);
  *n = m;
  for (cis_int i = 0; i < m; ++i) w[i] += F->ecore;
  return w;
}

typedef struct variant { const char *name; cis_ci_method method; int cpu_parts, no_tr; } variant;
static const variant VARIANTS[] = {
    {"stored", CIS_CI_METHOD_STORED, 0, 0},
    {"direct", CIS_CI_METHOD_DIRECT, 0, 0},
    {"direct --no-time-reversal", CIS_CI_METHOD_DIRECT, 0, 1},
    {"direct --cpu-parts 2", CIS_CI_METHOD_DIRECT, 2, 0},
};

static int fails_shown = 0;

static void check_case(const cis_fcidump *F, const double *w, const double *s2, cis_int m, int roots, int pspace,
                       const variant *V, uint64_t seed) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.method = V->method;
  o.roots = roots;
  o.pspace = pspace;
  o.cpu_parts = V->cpu_parts;
  o.no_time_reversal = V->no_tr;
  o.tol = 1e-7;
  cis_ci_result *R = NULL;
  cis_status st = cis_ci_solve(F, &o, &R);
  CHECK(st == CIS_OK, "seed %llu %s: %s", (unsigned long long)seed, V->name, cis_last_error());
  if (st != CIS_OK) { cis_ci_result_free(R); return; }
  for (int k = 0; k < roots && k < m; ++k) {
    const int ok = fabs(R->energies[k] - w[k]) < 1e-7;
    CHECK(ok || fails_shown > 20, "seed %llu norb %d nelec %d ms2 %d %s roots %d pspace %d: root %d %.10f (<S^2> %.4f) vs exact %.10f (<S^2> %.4f)",
          (unsigned long long)seed, F->norb, F->nelec, F->ms2, V->name, roots, pspace, k, R->energies[k], R->s2[k],
          w[k], s2[k]);
    if (!ok) { ++fails_shown; break; }
  }
  cis_ci_result_free(R);
}

int main(int argc, char **argv) {
  const int seeds = argc > 1 ? atoi(argv[1]) : 240;
  int cases = 0;
  for (int sd = 0; sd < seeds; ++sd) {
    const uint64_t seed = (uint64_t)sd + 1;
    const int norb = 4 + sd % 4;                          /* 4..7 */
    const int nelec = norb - 1 + (sd / 4) % 3;            /* one below, at, one above half filling */
    const int ms2 = (sd / 12) % 3 == 2 ? nelec % 2 + 2 : nelec % 2; /* mostly the lowest |MS| */
    if (ms2 > nelec || nelec > 2 * norb) continue;
    cis_fcidump *F = random_fcidump(norb, nelec, ms2, seed);
    cis_int m = 0;
    double *s2 = NULL, *w = dense_spectrum(F, &m, &s2);
    if (w) {
      const int roots = 1 + sd % 3, pspace = 4 + (int)(seed % 5) * 6;
      for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; ++v) {
        check_case(F, w, s2, m, roots, pspace, &VARIANTS[v], seed);
        ++cases;
      }
    }
    free(w);
    free(s2);
    free_fcidump(F);
  }
  printf("%d solves of %d random-integral files against the dense spectrum\n", cases, seeds);
  return test_summary("test_ci_random_states");
}
