/* ci_random_cases.h: hard CI problems against an independent reference,
 * shared by tests/unit/test_ci_random_states.c (a fixed set of seeds) and
 * fuzz/fuzz_ci_states.c (seeds and options from the fuzzer's bytes).
 *
 * Problems: random integrals (no hidden symmetry: ground states of any
 * spin, either alpha <-> beta parity, near-degenerate levels) and separated
 * sites (one orbital a site, no hopping, no exchange: every arrangement of
 * the open shells at one energy, levels of mixed spin as a stretched H4),
 * solved by cis_ci_solve with small P-spaces (guesses that cover few
 * determinants, as in a large space). Reference: the whole spectrum of the
 * full CI space by dense diagonalisation (cis_ci_hamiltonian, then
 * ci_dense_eigh), and the spin of every level without any <S^2>: the
 * states of spin S at energy E number mult(E, MS = S) - mult(E, MS = S + 1)
 * (S+ maps the second space into the first and commutes with H). Checks:
 * every reported energy is the exact one (1e-7 Eh); every <S^2> is a spin's
 * S(S+1) and that spin has a state at that energy; with a spin target the
 * energies are the lowest of that spin. */
#ifndef CISPARSE_TESTS_CI_RANDOM_CASES_H
#define CISPARSE_TESTS_CI_RANDOM_CASES_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/cisparse.h"
#include "ci/ci_internal.h"

/* splitmix64: uniform in [-1, 1). */
static double rc_unif(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

enum { RC_RANDOM = 0, RC_SITES = 1 };

static cis_int rc_pair(int i, int j) { return i > j ? (cis_int)i * (i + 1) / 2 + j : (cis_int)j * (j + 1) / 2 + i; }

/* Integrals of `style` (RC_RANDOM: h in [-1, 1) with a falling diagonal,
 * (ij|kl) = sum_Q B_ij^Q B_kl^Q + a small symmetric random part, 8-fold
 * symmetric; RC_SITES: h_ii = -1, (ii|ii) = 1, (ii|jj) = 0.25, nothing
 * else). Free with rc_free. */
static cis_fcidump *rc_fcidump(int style, int norb, int nelec, int ms2, uint64_t seed) {
  cis_fcidump *F = calloc(1, sizeof *F);
  uint64_t s = seed * 0x2545F4914F6CDD1DULL + 1;
  F->norb = norb, F->nelec = nelec, F->ms2 = ms2, F->isym = 1, F->isym_file = 1;
  for (int p = 0; p < CIS_CI_MAX_ORB; ++p) F->orbsym[p] = 1;
  F->npair = (cis_int)norb * (norb + 1) / 2;
  F->neri = F->npair * (F->npair + 1) / 2;
  F->h1 = calloc((size_t)norb * norb, sizeof(double));
  F->eri = calloc((size_t)F->neri, sizeof(double));
  if (style == RC_SITES) {
    for (int i = 0; i < norb; ++i) {
      F->h1[i * norb + i] = -1.0;
      for (int j = 0; j <= i; ++j) {
        const cis_int a = rc_pair(i, i), b = rc_pair(j, j);
        F->eri[a * (a + 1) / 2 + b] = i == j ? 1.0 : 0.25;
      }
    }
    return F;
  }
  F->ecore = rc_unif(&s);
  for (int i = 0; i < norb; ++i)
    for (int j = 0; j <= i; ++j) F->h1[i * norb + j] = F->h1[j * norb + i] = rc_unif(&s) - (i == j ? 1.0 + 0.3 * i : 0.0);
  double *B = malloc((size_t)norb * F->npair * sizeof(double));
  for (cis_int k = 0; k < (cis_int)norb * F->npair; ++k) B[k] = 0.5 * rc_unif(&s);
  for (cis_int a = 0; a < F->npair; ++a)
    for (cis_int b = 0; b <= a; ++b) {
      double v = 0.1 * rc_unif(&s);
      for (int q = 0; q < norb; ++q) v += B[(size_t)q * F->npair + a] * B[(size_t)q * F->npair + b];
      F->eri[a * (a + 1) / 2 + b] = v;
    }
  free(B);
  return F;
}

static void rc_free(cis_fcidump *F) {
  if (!F) return;
  free(F->h1);
  free(F->eri);
  free(F);
}

/* The ascending spectrum of F's full CI at MS2 = ms2 (*m values; NULL
 * with *m = 0 when that MS has no determinant). */
static double *rc_spectrum(const cis_fcidump *F0, int ms2, cis_int *m) {
  cis_fcidump F = *F0;
  F.ms2 = ms2;
  *m = 0;
  const int na = (F.nelec + ms2) / 2, nb = (F.nelec - ms2) / 2;
  if (na > F.norb || nb < 0 || (F.nelec + ms2) % 2) return NULL;
  cis_ci_bits a, b;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  if (ci_find_reference_bits(&F, &a, &b) != CIS_OK || ci_space_create_bits(&F, -1, &a, &b, &S) != CIS_OK ||
      cis_ci_hamiltonian(&F, S, 0, &H) != CIS_OK) {
    fprintf(stderr, "rc_spectrum: %s\n", cis_last_error());
    cis_ci_space_free(S);
    return NULL;
  }
  const cis_int n = ci_space_size(S);
  double *A = calloc((size_t)n * n, sizeof(double)), *w = malloc((size_t)n * sizeof(double));
  const double *v = H->val;
  for (cis_int i = 0; i < n; ++i)
    for (cis_int k = H->rowptr[i]; k < H->rowptr[i + 1]; ++k) A[(size_t)i * n + H->colind[k]] = v[k];
  if (ci_dense_eigh(A, (int)n, w) != CIS_OK) { free(w); w = NULL; }
  for (cis_int i = 0; w && i < n; ++i) w[i] += F.ecore;
  free(A);
  cis_csr_free(H);
  cis_ci_space_free(S);
  *m = w ? n : 0;
  return w;
}

/* The reference of F at its MS2: the spectrum e[0..n) and, for each value,
 * the spins with a state at that energy (bit 2S of spins[i], from the
 * multiplicities at MS = S and S + 1). */
typedef struct rc_ref {
  cis_int n;
  double *e;
  uint32_t *spins;
  double *ems[2 * CIS_CI_MAX_ORB + 3]; /* the spectrum at MS2 = ms2 + 2j (j = index), nms[j] values */
  cis_int nms[2 * CIS_CI_MAX_ORB + 3];
  int ms2;
} rc_ref;

#define RC_DEGEN 1e-7 /* Eh: one level in the dense spectra */

static cis_int rc_mult(const double *e, cis_int n, double E) {
  cis_int c = 0;
  for (cis_int i = 0; i < n; ++i) c += fabs(e[i] - E) < RC_DEGEN;
  return c;
}

static int rc_reference(const cis_fcidump *F, rc_ref *R) {
  memset(R, 0, sizeof *R);
  R->ms2 = F->ms2;
  for (int j = 0, twos = F->ms2; twos <= F->nelec + 2 && j < 2 * CIS_CI_MAX_ORB + 3; ++j, twos += 2)
    R->ems[j] = rc_spectrum(F, twos, &R->nms[j]);
  R->e = R->ems[0], R->n = R->nms[0];
  if (!R->e) return 0;
  R->spins = calloc((size_t)R->n, sizeof(uint32_t));
  for (int j = 0; R->ems[j]; ++j)
    for (cis_int i = 0; i < R->n; ++i)
      if (rc_mult(R->ems[j], R->nms[j], R->e[i]) > rc_mult(R->ems[j + 1], R->nms[j + 1], R->e[i]))
        R->spins[i] |= 1u << (R->ms2 + 2 * j);
  return 1;
}

static void rc_ref_free(rc_ref *R) {
  for (int j = 0; j < 2 * CIS_CI_MAX_ORB + 3; ++j) free(R->ems[j]);
  free(R->spins);
  memset(R, 0, sizeof *R);
}

/* The k-th lowest energy of spin 2S = twos in R (counting each state), or
 * NaN when there are fewer. */
static double rc_spin_energy(const rc_ref *R, int twos, int k) {
  const int j = (twos - R->ms2) / 2;
  if (twos < R->ms2 || (twos - R->ms2) % 2 || j + 1 >= 2 * CIS_CI_MAX_ORB + 3 || !R->ems[j]) return NAN;
  const double *e1 = R->ems[j], *e2 = R->ems[j + 1];
  const cis_int n1 = R->nms[j], n2 = R->nms[j + 1];
  double E = NAN;
  int seen = 0;
  for (cis_int i = 0; i < n1 && isnan(E);) { /* level by level */
    cis_int l = i;
    while (l < n1 && fabs(e1[l] - e1[i]) < RC_DEGEN) ++l;
    const cis_int c = (l - i) - rc_mult(e2, n2, e1[i]);
    if (seen + c > k) E = e1[i];
    seen += (int)c;
    i = l;
  }
  return E;
}

/* One way of solving. */
typedef struct rc_variant {
  const char *name;
  cis_ci_method method;
  int cpu_parts, no_tr, gpu;
} rc_variant;

/* The host methods, then the GPU ones (RC_NVARIANTS_GPU, where a GPU is). */
static const rc_variant RC_VARIANTS[] = {
    {"stored", CIS_CI_METHOD_STORED, 0, 0, 0},
    {"direct", CIS_CI_METHOD_DIRECT, 0, 0, 0},
    {"direct no time reversal", CIS_CI_METHOD_DIRECT, 0, 1, 0},
    {"direct 2 cpu parts", CIS_CI_METHOD_DIRECT, 2, 0, 0},
    {"direct on the GPU", CIS_CI_METHOD_DIRECT, 0, 0, 1},
    {"stored on the GPU", CIS_CI_METHOD_STORED, 0, 0, 1},
};
#define RC_NVARIANTS 4
#define RC_NVARIANTS_GPU 2

/* Solve F with variant V for `roots` (of spin `spin` when >= 0) from a
 * P-space of `pspace`; compare with R. Returns 0 when right, else 1 with
 * the reason in why. A refusal counts as wrong unless it is a space too
 * small for the parts. */
static int rc_check(const cis_fcidump *F, const rc_ref *R, const rc_variant *V, int roots, int pspace, double spin,
                    char *why, size_t len) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.method = V->method;
  o.roots = roots;
  o.pspace = pspace;
  o.cpu_parts = V->cpu_parts;
  o.no_time_reversal = V->no_tr;
  o.gpu = V->gpu;
  o.spin = spin;
  o.tol = 1e-7;
  o.max_iter = 400;
  cis_ci_result *res = NULL;
  int bad = 0;
  why[0] = 0;
  const cis_status st = cis_ci_solve(F, &o, &res);
  if (st != CIS_OK) {
    const char *msg = cis_last_error();
    if (V->cpu_parts && strstr(msg, "at most one part per alpha string")) { cis_ci_result_free(res); return 0; }
    const double Es = spin >= 0 ? rc_spin_energy(R, (int)floor(2 * spin + 0.5), roots - 1) : NAN;
    if (spin >= 0 && st == CIS_ERR_INVALID && isnan(Es)) {
      cis_ci_result_free(res); /* refused: fewer states of that spin than asked, rightly */
      return 0;
    }
    if (spin >= 0 && st == CIS_ERR_NOT_FOUND && rc_mult(R->e, R->n, Es) + (roots - 1) > 63) {
      cis_ci_result_free(res); /* refused: the state lies in a level wider than the 64 roots a filter computes */
      return 0;
    }
    snprintf(why, len, "%s: refused: %s", V->name, msg);
    cis_ci_result_free(res);
    return 1;
  }
  for (int k = 0; k < roots && !bad; ++k) {
    const double E = res->energies[k], s2 = res->s2[k];
    const double Sx = 0.5 * (-1.0 + sqrt(1.0 + 4.0 * fmax(s2, 0.0)));
    const int twos = (int)floor(2 * Sx + 0.5);
    const double want = spin >= 0 ? rc_spin_energy(R, (int)floor(2 * spin + 0.5), k) : R->e[k];
    if (!(fabs(E - want) < 1e-7)) {
      snprintf(why, len, "%s: root %d E %.10f (<S^2> %.4f) vs exact %.10f", V->name, k, E, s2, want);
      bad = 1;
    } else if (fabs(0.25 * twos * (twos + 2) - s2) > 1e-4) {
      snprintf(why, len, "%s: root %d E %.10f: <S^2> %.6f is no spin's", V->name, k, E, s2);
      bad = 1;
    } else {
      uint32_t have = 0; /* the spins of the reference's level at E */
      for (cis_int i = 0; i < R->n; ++i)
        if (fabs(R->e[i] - E) < 1e-6) have |= R->spins[i];
      if (!(have >> twos & 1u)) {
        snprintf(why, len, "%s: root %d E %.10f: no state of S = %g there (<S^2> %.6f)", V->name, k, E, 0.5 * twos, s2);
        bad = 1;
      }
    }
  }
  cis_ci_result_free(res);
  return bad;
}

#endif
