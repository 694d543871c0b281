/* test_sci_rdm.c: RDMs on a selected-CI product space (cis_sci_rdm12):
 *  - against brute force from determinants (spin orbitals alpha 0..n-1,
 *    beta n..2n-1; every operator string applied to every ket determinant
 *    of the space, the result looked up in the space): rdm1a/b,
 *    rdm2aa/ab/ba/bb and the spin-traced sums in PySCF's conventions
 *    (cisparse/ci.h), state and transition (bra != ket), random sets with
 *    closed and open shells, nalpha != nbeta, equal sets, one-string sets,
 *    one electron of a spin, no beta electron; outputs poisoned with NaN;
 *    a traced-only request = the separated one; 1e-12 relative;
 *  - the energy identity <c|H|c> (cis_sci_sigma) = sum h_pq rdm1[q,p] +
 *    1/2 sum (pq|rs) rdm2[p,q,r,s] (no core energy);
 *  - the full string sets = cis_ci_direct_rdm12 (same order);
 *  - 1 thread = 2 threads to 1e-13;
 *  - refusals; every allocation failing in turn. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rdm_cases.h"
#include "sci_cases.h"
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* Position of x in the sorted s[0..n), or -1. */
static cis_int find(const uint64_t *s, cis_int n, uint64_t x) {
  cis_int lo = 0, hi = n - 1;
  while (lo <= hi) {
    const cis_int mid = (lo + hi) / 2;
    if (s[mid] == x) return mid;
    if (s[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* <bra| ops |ket> for ops applied right to left (ops[0] rightmost), the
 * full operators: only the final determinant must be in the space. */
static double expect(const cis_sci_space *S, int n, const double *bra, const double *ket, int nop, const int *ops,
                     const int *create) {
  cis_int na, nb;
  const uint64_t *A = cis_sci_space_strings(S, 0, &na), *B = cis_sci_space_strings(S, 1, &nb);
  double sum = 0;
  for (cis_int J = 0; J < na * nb; ++J) {
    uint64_t occ = A[J / nb] | (B[J % nb] << n);
    int sgn = 1;
    for (int k = 0; k < nop && sgn; ++k) sgn *= rdm_apply(&occ, ops[k], create[k]);
    if (!sgn) continue;
    const cis_int ia = find(A, na, occ & ((1ull << n) - 1)), ib = find(B, nb, occ >> n);
    if (ia >= 0 && ib >= 0) sum += bra[ia * nb + ib] * sgn * ket[J];
  }
  return sum;
}

/* Brute-force RDMs in PySCF's conventions: r[0..1] rdm1a/b, r[2..5]
 * rdm2aa/ab/ba/bb (aa, bb averaged with their particle transpose), r[6]
 * rdm1, r[7] rdm2 (averaged): the layout of rdm_outs (rdm_cases.h). */
static double *brute_force(const cis_sci_space *S, int n, const double *bra, const double *ket) {
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2;
  double *b = malloc((size_t)(3 * n2 + 5 * n4) * sizeof(double)), *raw = malloc((size_t)(4 * n4) * sizeof(double));
  double *r1[2] = {b + n2, b + 2 * n2}, *r2[4] = {b + 3 * n2 + n4, b + 3 * n2 + 2 * n4, b + 3 * n2 + 3 * n4,
                                                  b + 3 * n2 + 4 * n4};
  for (int s = 0; s < 2; ++s)
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < n; ++q) { /* <q^+ p> */
        const int ops[2] = {p + s * n, q + s * n}, cr[2] = {0, 1};
        r1[s][p * n + q] = expect(S, n, bra, ket, 2, ops, cr);
      }
  for (int st = 0; st < 4; ++st) {
    const int s = st >> 1, t = st & 1;
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < n; ++q)
        for (int r = 0; r < n; ++r)
          for (int u = 0; u < n; ++u) { /* <p_s^+ r_t^+ u_t q_s> */
            const int ops[4] = {q + s * n, u + t * n, r + t * n, p + s * n}, cr[4] = {0, 0, 1, 1};
            raw[st * n4 + ((p * n + q) * n + r) * n + u] = expect(S, n, bra, ket, 4, ops, cr);
          }
  }
  for (cis_int i = 0; i < n2; ++i) b[i] = r1[0][i] + r1[1][i];
  for (cis_int i = 0; i < n2; ++i)
    for (cis_int j = 0; j < n2; ++j) {
      double tot = 0, tot_t = 0;
      for (int st = 0; st < 4; ++st) {
        const double x = raw[st * n4 + i * n2 + j], y = raw[st * n4 + j * n2 + i];
        r2[st][i * n2 + j] = st == 1 || st == 2 ? x : (x + y) * .5;
        tot += x, tot_t += y;
      }
      b[3 * n2 + i * n2 + j] = (tot + tot_t) * .5;
    }
  free(raw);
  return b;
}

/* <c|H|c> from the sigma = the RDM energy expression. */
static void energy_identity(const char *name, const cis_fcidump *F, const cis_sci_space *S, const double *c,
                            const cis_ci_rdm12 *o) {
  const int n = F->norb;
  const cis_int nd = cis_sci_space_size(S);
  double *s = malloc((size_t)nd * sizeof(double)), ehc = 0, erdm = 0, scale = 0;
  CHECK_OK(cis_sci_sigma(S, 1, c, s));
  for (cis_int i = 0; i < nd; ++i) ehc += c[i] * s[i];
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) {
      erdm += F->h1[p * n + q] * o->rdm1[q * n + p];
      scale += fabs(F->h1[p * n + q] * o->rdm1[q * n + p]);
      for (int r = 0; r < n; ++r)
        for (int u = 0; u < n; ++u) {
          const double t = 0.5 * fcidump_eri(F, p, q, r, u) * o->rdm2[((p * n + q) * n + r) * n + u];
          erdm += t, scale += fabs(t);
        }
    }
  CHECK(fabs(ehc - erdm) <= 1e-12 * scale, "%s: <c|H|c> %.15g vs RDM energy %.15g", name, ehc, erdm);
  free(s);
}

/* One case: random sets of ma and mb strings (same: the beta set is the
 * alpha set), state and transition RDMs against brute force. */
static void check_case(const sc_case *cs) {
  const int norb = cs->norb, nelec = cs->nelec, ms2 = cs->ms2, same = cs->same;
  const uint64_t seed = cs->seed;
  cis_int ma = cs->ma, mb = cs->mb;
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int nall_a, nall_b;
  uint64_t *all_a = sc_all_strings(norb, cis_fcidump_nalpha(F), &nall_a);
  uint64_t *all_b = sc_all_strings(norb, cis_fcidump_nbeta(F), &nall_b), s = seed;
  if (ma > nall_a) ma = nall_a;
  if (mb > nall_b) mb = nall_b;
  uint64_t *sa = sc_random_set(all_a, nall_a, ma, 0, &s), *sb = same ? sa : sc_random_set(all_b, nall_b, mb, 0, &s);
  free(all_a), free(all_b);
  cis_sci_space *S = NULL;
  CHECK_OK(cis_sci_space_create(F, sa, ma, sb, same ? ma : mb, 0, &S));
  if (S) {
    const cis_int nd = cis_sci_space_size(S), n2 = (cis_int)norb * norb, len = 3 * n2 + 5 * n2 * n2;
    double *bra = malloc((size_t)nd * sizeof(double)), *ket = malloc((size_t)nd * sizeof(double));
    test_fill_random(bra, CIS_F64, nd, seed + 3);
    test_fill_random(ket, CIS_F64, nd, seed + 5);
    for (int trans = 0; trans < 2; ++trans) {
      const double *b = trans ? bra : NULL;
      double *ref = brute_force(S, norb, trans ? bra : ket, ket);
      rdm_outs x, t;
      rdm_outs_alloc(&x, norb);
      rdm_outs_alloc(&t, norb);
      cis_ci_rdm12 tr = {t.o.rdm1, t.o.rdm2, NULL, NULL, NULL, NULL, NULL, NULL};

      CHECK_OK(cis_sci_rdm12(S, b, ket, &x.o));
      CHECK_OK(cis_sci_rdm12(S, b, ket, &tr));

      const double d = rdm_rel_diff(x.buf, ref, len);
      const double dt = rdm_rel_diff(t.buf, ref, n2) + rdm_rel_diff(t.o.rdm2, ref + 3 * n2, n2 * n2);
      CHECK(d <= 1e-12, "norb %d nelec %d ms2 %d sets %lld x %lld%s%s: rel diff %.3e vs brute force", norb, nelec, ms2,
            (long long)ma, (long long)(same ? ma : mb), same ? " (equal)" : "", trans ? " trans" : "", d);
      CHECK(dt <= 1e-12, "norb %d nelec %d ms2 %d%s: traced-only request rel diff %.3e", norb, nelec, ms2,
            trans ? " trans" : "", dt);
      if (!trans) energy_identity("sci rdm", F, S, ket, &x.o);
      free(ref), free(x.buf), free(t.buf);
    }
    free(bra), free(ket);
  }
  cis_sci_space_free(S);
  rc_free(F);
  free(sa);
  if (sb != sa) free(sb);
}

/* Full string sets = cis_ci_direct_rdm12 (the same order, test_sci_sigma). */
static void check_full(int norb, int nelec, int ms2, uint64_t seed) {
  cis_sci_space *S = NULL;
  cis_ci_direct *D = NULL;
  cis_fcidump *F = sc_full_space(norb, nelec, ms2, seed, &S, &D);
  CHECK(S && D, "full sets norb %d nelec %d ms2 %d: %s", norb, nelec, ms2, cis_last_error());
  if (S && D) {
    const cis_int n = cis_sci_space_size(S), n2 = (cis_int)norb * norb, len = 3 * n2 + 5 * n2 * n2;
    double *bra = malloc((size_t)n * sizeof(double)), *ket = malloc((size_t)n * sizeof(double));
    test_fill_random(bra, CIS_F64, n, seed);
    test_fill_random(ket, CIS_F64, n, seed + 1);
    for (int trans = 0; trans < 2; ++trans) {
      rdm_outs x, y;
      rdm_outs_alloc(&x, norb);
      rdm_outs_alloc(&y, norb);
      CHECK_OK(cis_sci_rdm12(S, trans ? bra : NULL, ket, &x.o));
      CHECK_OK(cis_ci_direct_rdm12(D, trans ? bra : NULL, ket, &y.o));
      const double d = rdm_rel_diff(x.buf, y.buf, len);
      CHECK(d <= 1e-12, "full sets norb %d nelec %d ms2 %d%s: rel diff %.3e vs direct RDMs", norb, nelec, ms2,
            trans ? " trans" : "", d);
      free(x.buf), free(y.buf);
    }
    free(bra), free(ket);
  }
  cis_ci_direct_free(D);
  cis_sci_space_free(S);
  rc_free(F);
}

/* 1 thread = 2 threads (threaded path: >= 4096 determinants). */
static void test_threads(void) {
  cis_sci_space *S = NULL;
  cis_fcidump *F = sc_random_space(10, 10, 0, 31, 100, 90, &S);
  CHECK(S != NULL, "threads case: %s", cis_last_error());
  if (S) {
    const cis_int n = cis_sci_space_size(S), n2 = 100, len = 3 * n2 + 5 * n2 * n2;
    double *c = malloc((size_t)n * sizeof(double));
    test_fill_random(c, CIS_F64, n, 8);
    rdm_outs x, y;
    rdm_outs_alloc(&x, 10);
    rdm_outs_alloc(&y, 10);
    const int prev = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_OK(cis_sci_rdm12(S, NULL, c, &x.o));
    omp_set_num_threads(2);
    CHECK_OK(cis_sci_rdm12(S, NULL, c, &y.o));
    omp_set_num_threads(prev);
    const double d = rdm_rel_diff(y.buf, x.buf, len);
    CHECK(d <= 1e-13, "1 thread vs 2 threads rel diff %.3e", d);
    free(c), free(x.buf), free(y.buf);
  }
  cis_sci_space_free(S);
  rc_free(F);
}

static void test_refusals(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 5, 1, 44);
  const uint64_t a[] = {0x7, 0xb, 0x13}, b[] = {0x3, 0x5};
  cis_sci_space *S = NULL;
  CHECK_OK(cis_sci_space_create(F, a, 3, b, 2, 0, &S));
  double c[6] = {1, 2, 3, 4, 5, 6}, r1[36];
  cis_ci_rdm12 none = {0}, one = {r1, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK(cis_sci_rdm12(NULL, NULL, c, &one) == CIS_ERR_INVALID, "NULL space accepted");
  CHECK(cis_sci_rdm12(S, NULL, NULL, &one) == CIS_ERR_INVALID, "NULL ket accepted");
  CHECK(cis_sci_rdm12(S, NULL, c, NULL) == CIS_ERR_INVALID, "NULL outputs accepted");
  CHECK(cis_sci_rdm12(S, NULL, c, &none) == CIS_ERR_INVALID && !strchr(cis_last_error(), '\n') &&
            strstr(cis_last_error(), "no output asked"),
        "nothing asked: '%s'", cis_last_error());
  cis_sci_space_free(S);
  rc_free(F);
}

typedef struct rdm_call { const cis_sci_space *S; const double *c; cis_ci_rdm12 *o; } rdm_call;

static cis_status rdm_run(void *ctx) {
  rdm_call *r = ctx;
  return cis_sci_rdm12(r->S, NULL, r->c, r->o);
}

/* Every allocation of the RDMs made to fail in turn: CIS_ERR_ALLOC each
 * time, then success (test_alloc_every). */
static void test_alloc_failures(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 6, 0, 51);
  const uint64_t a[] = {0x7, 0xb, 0x13, 0x38}, b[] = {0x7, 0x15, 0x26};
  cis_sci_space *S = NULL;
  CHECK_OK(cis_sci_space_create(F, a, 4, b, 3, 0, &S));
  double c[12], buf[3 * 36 + 5 * 1296];
  test_fill_random(c, CIS_F64, 12, 1);
  cis_ci_rdm12 o = {buf, buf + 36, buf + 36 + 1296, buf + 72 + 1296, buf + 108 + 1296, buf + 108 + 2 * 1296,
                    buf + 108 + 3 * 1296, buf + 108 + 4 * 1296};
  rdm_call r = {S, c, &o};
  if (S) test_alloc_every("cis_sci_rdm12", rdm_run, NULL, &r);
  cis_sci_space_free(S);
  rc_free(F);
}

int main(void) {
  cis_alloc_poison(0xff); /* nothing read that was not written */
  test_refusals();
  for (int k = 0; k < SC_NCASES; ++k) check_case(&SC_CASES[k]);
  static const int full[3][4] = {{6, 6, 0, 11}, {7, 5, 3, 12}, {8, 8, 2, 13}}; /* the last 56 x 28 determinants */
  for (int k = 0; k < 3; ++k) check_full(full[k][0], full[k][1], full[k][2], (uint64_t)full[k][3]);
  test_threads();
  test_alloc_failures();
  return test_summary("test_sci_rdm");
}
