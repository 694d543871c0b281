/* test_ci_rdm.c: the host RDMs (src/ci/rdm.c, cis_ci_direct_rdm12):
 *  - against brute force from determinants (spin orbitals alpha 0..n-1, beta
 *    n..2n-1, creators in ascending order; every operator string applied to
 *    every ket determinant, the result looked up): rdm1a/b, rdm2aa/ab/ba/bb
 *    and the spin-traced sums, PySCF's conventions (cisparse/ci.h), for
 *    bra = ket and bra != ket (transition), MS2 = 0 and MS2 = 2, H2O and
 *    LiH STO-3G of ../shared/ci; 1e-12 relative;
 *  - traced-only request (one summed D) = the sums of the separated one;
 *  - one alpha string per block (many blocks) = one block, 1e-13;
 *  - the energy identity <c|H|c> = sum h_pq rdm1[q,p] + 1/2 sum (pq|rs)
 *    rdm2[p,q,r,s] against the direct sigma (a random, unnormalized c);
 *  - D blocked by irreps (rdm_irrep.c): a C1 space with a point group's
 *    ORBSYM, bra and ket of one irrep (3 irreps, MS2 = 0 and 2, H2O and LiH):
 *    the blocked path taken and equal to brute force; a ket of two irreps
 *    takes the C1 path;
 *  - bad input: NULL arguments, nothing asked. */
#include <stdlib.h>
#include <string.h>
#include "ci/ci_rdm.h"
#include "rdm_cases.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* <bra| ops |ket> for ops applied right to left (ops[0] rightmost). */
static double expect(const cis_ci_direct *D, int n, const double *bra, const double *ket, int nop, const int *ops,
                     const int *create) {
  const cis_int nd = cis_ci_direct_size(D);
  double sum = 0;
  for (cis_int J = 0; J < nd; ++J) {
    if (ket[J] == 0.0) continue;
    uint64_t a, b;
    cis_ci_direct_det(D, J, &a, &b);
    uint64_t occ = a | (b << n);
    int sgn = 1;
    for (int k = 0; k < nop && sgn; ++k) sgn *= rdm_apply(&occ, ops[k], create[k]);
    if (!sgn) continue;
    const cis_int K = ci_direct_find(D, occ & ((1ull << n) - 1), occ >> n);
    if (K >= 0) sum += bra[K] * sgn * ket[J];
  }
  return sum;
}

typedef struct brute {
  double *r1[2], *r2[4]; /* a, b; aa, ab, ba, bb */
} brute;

static void brute_force(const cis_ci_direct *D, int n, const double *bra, const double *ket, brute *B) {
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2;
  for (int s = 0; s < 2; ++s) {
    B->r1[s] = malloc((size_t)n2 * sizeof(double));
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < n; ++q) { /* <q^+ p> */
        const int ops[2] = {p + s * n, q + s * n}, cr[2] = {0, 1};
        B->r1[s][p * n + q] = expect(D, n, bra, ket, 2, ops, cr);
      }
  }
  for (int st = 0; st < 4; ++st) {
    const int s = st >> 1, t = st & 1; /* aa, ab, ba, bb */
    B->r2[st] = malloc((size_t)n4 * sizeof(double));
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < n; ++q)
        for (int r = 0; r < n; ++r)
          for (int u = 0; u < n; ++u) { /* <p_s^+ r_t^+ u_t q_s> */
            const int ops[4] = {q + s * n, u + t * n, r + t * n, p + s * n}, cr[4] = {0, 0, 1, 1};
            B->r2[st][((p * n + q) * n + r) * n + u] = expect(D, n, bra, ket, 4, ops, cr);
          }
  }
}

static void compare_brute(const char *name, cis_ci_direct *D, int n, const double *bra, const double *ket) {
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2;
  brute B;
  brute_force(D, n, bra ? bra : ket, ket, &B);
  rdm_outs x, t, y;
  rdm_outs_alloc(&x, n);
  rdm_outs_alloc(&t, n);
  rdm_outs_alloc(&y, n);
  CHECK_OK(cis_ci_direct_rdm12(D, bra, ket, &x.o));
  /* traced-only request: the one-D path */
  cis_ci_rdm12 tr = {t.o.rdm1, t.o.rdm2, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK_OK(cis_ci_direct_rdm12(D, bra, ket, &tr));
  /* one alpha string per block */
  cis_int blocks = 0;
  CHECK_OK(ci_rdm12_blocked(D, bra, ket, &y.o, 1, &blocks));
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  CHECK(blocks == di.alpha_strings, "%s: %lld blocks for %lld alpha strings", name, (long long)blocks,
        (long long)di.alpha_strings);
  /* brute force in PySCF's conventions: the particle-transpose average for aa, bb, traced */
  double *e1 = malloc((size_t)n2 * sizeof(double)), *e2 = malloc((size_t)n4 * sizeof(double));
  double *sym[4];
  for (int st = 0; st < 4; ++st) {
    sym[st] = malloc((size_t)n4 * sizeof(double));
    for (cis_int i = 0; i < n2; ++i)
      for (cis_int j = 0; j < n2; ++j)
        sym[st][i * n2 + j] = st == 1 || st == 2 ? B.r2[st][i * n2 + j]
                                                 : (B.r2[st][i * n2 + j] + B.r2[st][j * n2 + i]) * .5;
  }
  for (cis_int i = 0; i < n2; ++i) e1[i] = B.r1[0][i] + B.r1[1][i];
  for (cis_int i = 0; i < n2; ++i)
    for (cis_int j = 0; j < n2; ++j) {
      double a = 0, b = 0;
      for (int st = 0; st < 4; ++st) a += B.r2[st][i * n2 + j], b += B.r2[st][j * n2 + i];
      e2[i * n2 + j] = (a + b) * .5;
    }
  double worst = 0;
  const double d[] = {rdm_rel_diff(x.o.rdm1a, B.r1[0], n2), rdm_rel_diff(x.o.rdm1b, B.r1[1], n2),
                      rdm_rel_diff(x.o.rdm2aa, sym[0], n4), rdm_rel_diff(x.o.rdm2ab, sym[1], n4),
                      rdm_rel_diff(x.o.rdm2ba, sym[2], n4), rdm_rel_diff(x.o.rdm2bb, sym[3], n4),
                      rdm_rel_diff(x.o.rdm1, e1, n2),       rdm_rel_diff(x.o.rdm2, e2, n4),
                      rdm_rel_diff(t.o.rdm1, e1, n2),       rdm_rel_diff(t.o.rdm2, e2, n4)};
  static const char *what[] = {"rdm1a", "rdm1b", "rdm2aa", "rdm2ab", "rdm2ba", "rdm2bb",
                               "rdm1",  "rdm2",  "rdm1 (traced only)", "rdm2 (traced only)"};
  for (size_t k = 0; k < sizeof d / sizeof *d; ++k) {
    CHECK(d[k] <= 1e-12, "%s: %s vs brute force rel diff %.3e", name, what[k], d[k]);
    worst = d[k] > worst || d[k] != d[k] ? d[k] : worst;
  }
  const double db = rdm_rel_diff(y.buf, x.buf, 3 * n2 + 5 * n4);
  CHECK(db <= 1e-13, "%s: one alpha string per block vs one block rel diff %.3e", name, db);
  printf("%-24s %6lld dets  vs brute force %.2e  blocked (%lld) %.2e\n", name, (long long)cis_ci_direct_size(D),
         worst, (long long)blocks, db);
  for (int s = 0; s < 2; ++s) free(B.r1[s]);
  for (int st = 0; st < 4; ++st) free(B.r2[st]), free(sym[st]);
  free(e1), free(e2), free(x.buf), free(t.buf), free(y.buf);
}

/* <c|H|c> from the direct sigma = the RDM energy expression (no core energy). */
static void energy_identity(const char *name, const cis_fcidump *F, cis_ci_direct *D, const double *c) {
  const int n = F->norb;
  const cis_int nd = cis_ci_direct_size(D), n2 = (cis_int)n * n;
  double *s = malloc((size_t)nd * sizeof(double)), *r1 = malloc((size_t)n2 * sizeof(double)),
         *r2 = malloc((size_t)(n2 * n2) * sizeof(double));
  CHECK_OK(cis_ci_direct_sigma(D, 1, c, s));
  double ehc = 0, erdm = 0, scale = 0;
  for (cis_int i = 0; i < nd; ++i) ehc += c[i] * s[i];
  cis_ci_rdm12 o = {r1, r2, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK_OK(cis_ci_direct_rdm12(D, NULL, c, &o));
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) {
      erdm += F->h1[p * n + q] * r1[q * n + p];
      scale += fabs(F->h1[p * n + q] * r1[q * n + p]);
      for (int r = 0; r < n; ++r)
        for (int u = 0; u < n; ++u) {
          const double t = 0.5 * fcidump_eri(F, p, q, r, u) * r2[((p * n + q) * n + r) * n + u];
          erdm += t;
          scale += fabs(t);
        }
    }
  CHECK(fabs(ehc - erdm) <= 1e-12 * scale, "%s: <c|H|c> %.15g vs RDM energy %.15g", name, ehc, erdm);
  printf("%-24s <c|H|c> %.12f  RDM energy %.12f  diff %.1e\n", name, ehc, erdm, ehc - erdm);
  free(s), free(r1), free(r2);
}

static void test_bad_input(cis_ci_direct *D, const double *c) {
  double r1[64];
  cis_ci_rdm12 none = {0}, one = {r1, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK(cis_ci_direct_rdm12(NULL, NULL, c, &one) == CIS_ERR_INVALID, "NULL D accepted");
  CHECK(cis_ci_direct_rdm12(D, NULL, NULL, &one) == CIS_ERR_INVALID, "NULL ket accepted");
  CHECK(cis_ci_direct_rdm12(D, NULL, c, NULL) == CIS_ERR_INVALID, "NULL outputs accepted");
  CHECK(cis_ci_direct_rdm12(D, NULL, c, &none) == CIS_ERR_INVALID, "nothing asked accepted");
}

/* Irrep (0-based) of determinant J of D under orbsym (1-based). */
static int det_irrep(const cis_ci_direct *D, const int *orbsym, cis_int J) {
  uint64_t a, b;
  cis_ci_direct_det(D, J, &a, &b);
  int g = 0;
  for (int p = 0; p < 64; ++p) /* a doubly occupied orbital's irrep cancels */
    if (((a ^ b) >> p) & 1) g ^= orbsym[p] - 1;
  return g;
}

/* D blocked by irreps (rdm_irrep.c): a C1 space with a point group's ORBSYM
 * (opts.ignore_symmetry), kets and bras of one irrep take the blocked path
 * and equal brute force; a vector of two irreps takes the C1 path. */
static void irrep_blocked(const char *mol, int ms2) {
  char sub[64], path[512], name[80];
  snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mol);
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
  if (!F) return;
  static const int sym[] = {1, 5, 2, 1, 6, 3, 8, 4, 7, 2};
  F->ms2 = ms2;
  F->isym = 1;
  for (int p = 0; p < F->norb; ++p) F->orbsym[p] = sym[p % 10];
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.ignore_symmetry = 1;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, &o, &D));
  if (D) {
    const cis_int nd = cis_ci_direct_size(D);
    double *bra = malloc((size_t)nd * sizeof(double)), *ket = malloc((size_t)nd * sizeof(double));
    int orbsym[64] = {0};
    for (int p = 0; p < 64; ++p) orbsym[p] = p < F->norb ? F->orbsym[p] : 1;
    for (int w = 0; w < 8; w += 3) {
      test_fill_random(bra, CIS_F64, nd, 41 + w);
      test_fill_random(ket, CIS_F64, nd, 43 + w);
      int held = 0;
      for (cis_int J = 0; J < nd; ++J)
        if (det_irrep(D, orbsym, J) != w) bra[J] = ket[J] = 0.0;
        else ++held;
      if (!held) continue;
      ci_direct_view v;
      ci_rdm_irreps s;
      ci_direct_get_view(D, &v);
      CHECK_OK(ci_rdm_irreps_of(&v, bra, ket, &s));
      CHECK(s.on && s.w == w, "%s MS2=%d irrep %d: blocked path not taken (on %d, w %d)", mol, ms2, w, s.on, s.w);
      ci_rdm_irreps_free(&s);
      snprintf(name, sizeof name, "%s MS2=%d irrep %d", mol, ms2, w);
      compare_brute(name, D, F->norb, NULL, ket);
      snprintf(name, sizeof name, "%s MS2=%d irrep %d trans", mol, ms2, w);
      compare_brute(name, D, F->norb, bra, ket);
    }
    /* two irreps in the ket: the C1 path (still exact) */
    test_fill_random(ket, CIS_F64, nd, 47);
    for (cis_int J = 0; J < nd; ++J)
      if (det_irrep(D, orbsym, J) > 1) ket[J] = 0.0;
    ci_direct_view v;
    ci_rdm_irreps s;
    ci_direct_get_view(D, &v);
    CHECK_OK(ci_rdm_irreps_of(&v, NULL, ket, &s));
    CHECK(!s.on, "%s MS2=%d: a ket of two irreps took the blocked path", mol, ms2);
    snprintf(name, sizeof name, "%s MS2=%d two irreps", mol, ms2);
    compare_brute(name, D, F->norb, NULL, ket);
    free(bra), free(ket);
  }
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

int main(void) {
  static const char *mols[] = {"h2o_sto3g", "lih_sto3g"};
  for (size_t m = 0; m < sizeof mols / sizeof *mols; ++m)
    for (int ms2 = 0; ms2 <= 2; ms2 += 2) {
      char sub[64], path[512], name[64];
      snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mols[m]);
      cis_fcidump *F = NULL;
      CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
      if (!F) continue;
      F->ms2 = ms2;
      F->isym = 1;
      for (int p = 0; p < F->norb; ++p) F->orbsym[p] = 1;
      cis_ci_direct *D = NULL;
      CHECK_OK(cis_ci_direct_create(F, NULL, &D));
      if (D) {
        const cis_int nd = cis_ci_direct_size(D);
        double *bra = malloc((size_t)nd * sizeof(double)), *ket = malloc((size_t)nd * sizeof(double));
        test_fill_random(bra, CIS_F64, nd, 11 + ms2);
        test_fill_random(ket, CIS_F64, nd, 29 + ms2);
        snprintf(name, sizeof name, "%s MS2=%d", mols[m], ms2);
        compare_brute(name, D, F->norb, NULL, ket);
        snprintf(name, sizeof name, "%s MS2=%d trans", mols[m], ms2);
        compare_brute(name, D, F->norb, bra, ket);
        snprintf(name, sizeof name, "%s MS2=%d", mols[m], ms2);
        energy_identity(name, F, D, ket);
        if (m == 0 && ms2 == 0) test_bad_input(D, ket);
        free(bra), free(ket);
      }
      cis_ci_direct_free(D);
      cis_fcidump_free(F);
    }
  for (int ms2 = 0; ms2 <= 2; ms2 += 2) {
    irrep_blocked("h2o_sto3g", ms2);
    irrep_blocked("lih_sto3g", ms2);
  }
  return test_summary("test_ci_rdm");
}
