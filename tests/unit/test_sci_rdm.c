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
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the random-states helpers */
#include "ci_random_cases.h"
#pragma GCC diagnostic pop
#include "core/internal.h"
#include "test_util.h"

/* All strings of nel electrons in norb orbitals, ascending (*n of them). */
static uint64_t *all_strings(int norb, int nel, cis_int *n) {
  cis_int c = 0, cap = 1;
  for (int i = 0; i < nel; ++i) cap = cap * (norb - i) / (i + 1);
  uint64_t *s = malloc((size_t)cap * sizeof *s);
  for (uint64_t x = 0; x < (1ull << norb); ++x)
    if (__builtin_popcountll(x) == nel) s[c++] = x;
  *n = c;
  return s;
}

/* m distinct strings drawn from all (partial Fisher-Yates), unsorted. */
static uint64_t *random_set(const uint64_t *all, cis_int nall, cis_int m, uint64_t *seed) {
  uint64_t *pool = malloc((size_t)nall * sizeof *pool), *s = malloc((size_t)m * sizeof *s);
  memcpy(pool, all, (size_t)nall * sizeof *pool);
  for (cis_int i = 0; i < m; ++i) {
    cis_int j = i + (cis_int)((rc_unif(seed) + 1.0) * 0.5 * (double)(nall - i));
    if (j >= nall) j = nall - 1;
    const uint64_t t = pool[i];
    pool[i] = pool[j], pool[j] = t;
    s[i] = pool[i];
  }
  free(pool);
  return s;
}

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

/* Annihilate (create = 0) or create (create = 1) spin orbital k in occ;
 * 0 when the result vanishes, else the sign (-1)^(occupied below k). */
static int apply(uint64_t *occ, int k, int create) {
  const uint64_t bit = 1ull << k;
  if (create == !!(*occ & bit)) return 0;
  const int sgn = (__builtin_popcountll(*occ & (bit - 1)) & 1) ? -1 : 1;
  *occ ^= bit;
  return sgn;
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
    for (int k = 0; k < nop && sgn; ++k) sgn *= apply(&occ, ops[k], create[k]);
    if (!sgn) continue;
    const cis_int ia = find(A, na, occ & ((1ull << n) - 1)), ib = find(B, nb, occ >> n);
    if (ia >= 0 && ib >= 0) sum += bra[ia * nb + ib] * sgn * ket[J];
  }
  return sum;
}

/* Brute-force RDMs in PySCF's conventions: r[0..1] rdm1a/b, r[2..5]
 * rdm2aa/ab/ba/bb (aa, bb averaged with their particle transpose), r[6]
 * rdm1, r[7] rdm2 (averaged): the layout of outs below. */
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

static double rel_diff(const double *a, const double *b, cis_int len) {
  double worst = 0, big = 0;
  for (cis_int i = 0; i < len; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (!(d <= worst)) worst = d; /* NaN sticks */
    big = fabs(b[i]) > big ? fabs(b[i]) : big;
  }
  return big > 0 ? worst / big : worst;
}

/* All eight outputs in one NaN-poisoned buffer: rdm1, rdm1a, rdm1b, rdm2,
 * rdm2aa, rdm2ab, rdm2ba, rdm2bb. */
typedef struct outs {
  double *buf;
  cis_ci_rdm12 o;
} outs;

static void outs_alloc(outs *x, int n) {
  const size_t n2 = (size_t)n * n, n4 = n2 * n2;
  x->buf = malloc((3 * n2 + 5 * n4) * sizeof(double));
  test_fill_nan(x->buf, CIS_F64, (cis_int)(3 * n2 + 5 * n4));
  double *b = x->buf;
  x->o = (cis_ci_rdm12){b, b + 3 * n2, b + n2, b + 2 * n2, b + 3 * n2 + n4, b + 3 * n2 + 2 * n4, b + 3 * n2 + 3 * n4,
                        b + 3 * n2 + 4 * n4};
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
          const double t = 0.5 * cis_fcidump_eri(F, p, q, r, u) * o->rdm2[((p * n + q) * n + r) * n + u];
          erdm += t, scale += fabs(t);
        }
    }
  CHECK(fabs(ehc - erdm) <= 1e-12 * scale, "%s: <c|H|c> %.15g vs RDM energy %.15g", name, ehc, erdm);
  free(s);
}

/* One case: random sets of ma and mb strings (same: the beta set is the
 * alpha set), state and transition RDMs against brute force. */
static void check_case(int norb, int nelec, int ms2, cis_int ma, cis_int mb, int same, uint64_t seed) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int nall_a, nall_b;
  uint64_t *all_a = all_strings(norb, cis_fcidump_nalpha(F), &nall_a);
  uint64_t *all_b = all_strings(norb, cis_fcidump_nbeta(F), &nall_b), s = seed;
  if (ma > nall_a) ma = nall_a;
  if (mb > nall_b) mb = nall_b;
  uint64_t *sa = random_set(all_a, nall_a, ma, &s), *sb = same ? sa : random_set(all_b, nall_b, mb, &s);
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
      outs x, t;
      outs_alloc(&x, norb);
      outs_alloc(&t, norb);
      cis_ci_rdm12 tr = {t.o.rdm1, t.o.rdm2, NULL, NULL, NULL, NULL, NULL, NULL};

      CHECK_OK(cis_sci_rdm12(S, b, ket, &x.o));
      CHECK_OK(cis_sci_rdm12(S, b, ket, &tr));

      const double d = rel_diff(x.buf, ref, len), dt = rel_diff(t.buf, ref, n2) + rel_diff(t.o.rdm2, ref + 3 * n2, n2 * n2);
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
  if (sb != sa) free(sb);
  free(sa), free(all_a), free(all_b);
  rc_free(F);
}

static void test_random_sets(void) {
  check_case(6, 6, 0, 10, 12, 0, 1);  /* closed shell, different sets */
  check_case(6, 6, 0, 9, 9, 1, 2);    /* equal sets */
  check_case(7, 6, 2, 14, 11, 0, 3);  /* open shell, nalpha 4, nbeta 2 */
  check_case(7, 5, 1, 20, 15, 0, 4);  /* odd electrons */
  check_case(6, 4, 0, 1, 7, 0, 5);    /* one alpha string */
  check_case(6, 4, 0, 1, 1, 0, 6);    /* one determinant */
  check_case(5, 2, 2, 6, 1, 0, 7);    /* no beta electron */
  check_case(5, 2, 0, 5, 5, 0, 8);    /* one electron of each spin */
  check_case(7, 8, 2, 30, 25, 0, 9);  /* larger: nalpha 5, nbeta 3 */
}

/* Full string sets = cis_ci_direct_rdm12 (the same order, test_sci_sigma). */
static void check_full(int norb, int nelec, int ms2, uint64_t seed) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int na, nb;
  uint64_t *A = all_strings(norb, cis_fcidump_nalpha(F), &na), *B = all_strings(norb, cis_fcidump_nbeta(F), &nb);
  cis_sci_space *S = NULL;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_sci_space_create(F, A, na, B, nb, 0, &S));
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (S && D) {
    const cis_int n = cis_sci_space_size(S), n2 = (cis_int)norb * norb, len = 3 * n2 + 5 * n2 * n2;
    double *bra = malloc((size_t)n * sizeof(double)), *ket = malloc((size_t)n * sizeof(double));
    test_fill_random(bra, CIS_F64, n, seed);
    test_fill_random(ket, CIS_F64, n, seed + 1);
    for (int trans = 0; trans < 2; ++trans) {
      outs x, y;
      outs_alloc(&x, norb);
      outs_alloc(&y, norb);
      CHECK_OK(cis_sci_rdm12(S, trans ? bra : NULL, ket, &x.o));
      CHECK_OK(cis_ci_direct_rdm12(D, trans ? bra : NULL, ket, &y.o));
      const double d = rel_diff(x.buf, y.buf, len);
      CHECK(d <= 1e-12, "full sets norb %d nelec %d ms2 %d%s: rel diff %.3e vs direct RDMs", norb, nelec, ms2,
            trans ? " trans" : "", d);
      free(x.buf), free(y.buf);
    }
    free(bra), free(ket);
  }
  cis_ci_direct_free(D);
  cis_sci_space_free(S);
  free(A), free(B);
  rc_free(F);
}

static void test_full_sets(void) {
  check_full(6, 6, 0, 11);
  check_full(7, 5, 3, 12);
  check_full(8, 8, 2, 13); /* 56 x 28 = 1568 determinants */
}

/* 1 thread = 2 threads (threaded path: >= 4096 determinants). */
static void test_threads(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 10, 10, 0, 31);
  cis_int nall;
  uint64_t *all = all_strings(10, 5, &nall), s = 31;
  uint64_t *sa = random_set(all, nall, 100, &s), *sb = random_set(all, nall, 90, &s);
  cis_sci_space *S = NULL;
  CHECK_OK(cis_sci_space_create(F, sa, 100, sb, 90, 0, &S));
  if (S) {
    const cis_int n = cis_sci_space_size(S), n2 = 100, len = 3 * n2 + 5 * n2 * n2;
    double *c = malloc((size_t)n * sizeof(double));
    test_fill_random(c, CIS_F64, n, 8);
    outs x, y;
    outs_alloc(&x, 10);
    outs_alloc(&y, 10);
    const int prev = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_OK(cis_sci_rdm12(S, NULL, c, &x.o));
    omp_set_num_threads(2);
    CHECK_OK(cis_sci_rdm12(S, NULL, c, &y.o));
    omp_set_num_threads(prev);
    const double d = rel_diff(y.buf, x.buf, len);
    CHECK(d <= 1e-13, "1 thread vs 2 threads rel diff %.3e", d);
    free(c), free(x.buf), free(y.buf);
  }
  cis_sci_space_free(S);
  free(all), free(sa), free(sb);
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

static void test_alloc_failures(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 6, 0, 51);
  const uint64_t a[] = {0x7, 0xb, 0x13, 0x38}, b[] = {0x7, 0x15, 0x26};
  cis_sci_space *S = NULL;
  CHECK_OK(cis_sci_space_create(F, a, 4, b, 3, 0, &S));
  double c[12], buf[3 * 36 + 5 * 1296];
  test_fill_random(c, CIS_F64, 12, 1);
  cis_ci_rdm12 o = {buf, buf + 36, buf + 36 + 1296, buf + 72 + 1296, buf + 108 + 1296, buf + 108 + 2 * 1296,
                    buf + 108 + 3 * 1296, buf + 108 + 4 * 1296};
  int ok = 0;
  for (int64_t k = 1; k <= 32 && !ok && S; ++k) {
    cis_alloc_fail_after(k);
    const cis_status st = cis_sci_rdm12(S, NULL, c, &o);
    cis_alloc_fail_after(0);
    if (st == CIS_OK) ok = 1;
    else CHECK(st == CIS_ERR_ALLOC, "allocation %lld failing: %s (%s)", (long long)k, cis_status_name(st), cis_last_error());
  }
  CHECK(ok, "the RDMs never succeeded within 32 allocations");
  cis_sci_space_free(S);
  rc_free(F);
}

int main(void) {
  cis_alloc_poison(0xff); /* nothing read that was not written */
  test_random_sets();
  test_full_sets();
  test_threads();
  test_refusals();
  test_alloc_failures();
  return test_summary("test_sci_rdm");
}
