/* test_ci_words.c: occupation strings of two 64-bit words (NORB > 64).
 *  1. The word operations of ci_bits.h on random 128-bit strings against a
 *     naive bit-by-bit reference (popcount, lowest, below/above, flips, value
 *     order, the parity between two orbitals), and the two-word
 *     instantiation against the one-word one on strings both hold (equal,
 *     hash included, so one-word tables are unchanged).
 *  2. <I|H|J> and <I|H|I> by the two-word instantiation equal the one-word
 *     ones bit for bit on random determinant pairs of H2O/6-31G.
 *  3. A space past 64 orbitals: LiH/STO-3G (6 orbitals) embedded at orbitals
 *     61..66 of 70 (so strings cross the word boundary), the other 64
 *     orbitals decoupled (only h_pp = 5 + p/100). Its CISD Hamiltonian holds
 *     the 6-orbital one exactly (every element bit for bit, through
 *     ci_space_find_bits) and no coupling out of it; counts in closed form
 *     equal the space; the reference is found at the embedded orbitals; the
 *     uint64_t entry points refuse NORB = 70 with CIS_ERR_UNSUPPORTED; <S^2> of
 *     a random vector equals the 6-orbital one; full CI
 *     of a NORB = 70 file with 10 electrons is refused by size at once. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ci/ci_internal.h"
#include "core/internal.h"
#include "test_util.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

/* Naive reference on 128 bits. */
static int naive_bit(ci_bits x, int p) { return (int)(x.w[p / 64] >> (p % 64) & 1); }
static int naive_count(ci_bits x, int lo, int hi) { /* set bits in [lo, hi) */
  int c = 0;
  for (int p = lo; p < hi; ++p) c += naive_bit(x, p);
  return c;
}

static void test_ops(void) {
  int bad = 0;
  for (int t = 0; t < 20000; ++t) {
    ci_bits x = {{rnd() & rnd(), rnd() & rnd()}}, y = {{rnd(), rnd()}};
    if (t % 7 == 0) x.w[t % 2] = 0;
    int p = (int)(rnd() % 128), q = (int)(rnd() % 128);
    bad += bits_popcount(x, 2) != naive_count(x, 0, 128);
    if (!bits_empty(x, 2)) {
      int lo = 0;
      while (!naive_bit(x, lo)) ++lo;
      bad += bits_lowest(x, 2) != lo;
    }
    bad += bits_popcount(bits_below(x, p, 2), 2) != naive_count(x, 0, p);
    bad += bits_popcount(bits_above(x, p, 2), 2) != naive_count(x, p + 1, 128);
    bad += naive_bit(bits_flip(x, p, 2), p) == naive_bit(x, p) || bits_popcount(bits_flip(x, p, 2), 2) != bits_popcount(x, 2) + (naive_bit(x, p) ? -1 : 1);
    bad += bits_test(x, p, 2) != naive_bit(x, p);
    if (p != q) {
      int lo = p < q ? p : q, hi = p < q ? q : p;
      double want = naive_count(x, lo + 1, hi) % 2 ? -1.0 : 1.0;
      bad += bits_sign_between(x, p, q, 2) != want;
    }
    int cmp = x.w[1] != y.w[1] ? (x.w[1] < y.w[1] ? -1 : 1) : x.w[0] != y.w[0] ? (x.w[0] < y.w[0] ? -1 : 1) : 0;
    bad += bits_cmp(x, y, 2) != cmp;
    bad += bits_eq(x, y, 2) != (cmp == 0) || !bits_eq(x, x, 2);
    bad += bits_popcount(bits_first(p, 2), 2) != p;
  }
  CHECK(bad == 0, "two-word operations against the naive reference: %d mismatches", bad);
  /* the two-word instantiation on one-word strings equals the one-word one */
  bad = 0;
  for (int t = 0; t < 20000; ++t) {
    ci_bits x = cis_ci_bits_from_u64(rnd()), y = cis_ci_bits_from_u64(rnd());
    int p = (int)(rnd() % 64), q = (int)(rnd() % 64);
    bad += bits_popcount(x, 1) != bits_popcount(x, 2);
    bad += x.w[0] && bits_lowest(x, 1) != bits_lowest(x, 2);
    bad += bits_sign_between(x, p, q, 1) != bits_sign_between(x, p, q, 2);
    bad += bits_sign_between(x, p, q, 1) != ci_sign_between(x.w[0], p, q);
    bad += !bits_eq(bits_below(x, p, 1), bits_below(x, p, 2), 2) || !bits_eq(bits_above(x, p, 1), bits_above(x, p, 2), 2);
    bad += !bits_eq(bits_flip2(x, p, q, 1), bits_flip2(x, p, q, 2), 2);
    bad += bits_cmp(x, y, 1) != bits_cmp(x, y, 2);
    bad += bits_hash(x, 1) != ci_string_hash(x.w[0]);
    bad += !bits_eq(bits_first(p, 1), bits_first(p, 2), 2);
  }
  CHECK(bad == 0, "two-word against one-word instantiation: %d mismatches", bad);
}

/* A random string of n electrons in norb orbitals. */
static ci_bits random_string(int n, int norb) {
  ci_bits s = bits_zero();
  for (int k = 0; k < n;) {
    int p = (int)(rnd() % (uint64_t)norb);
    if (!bits_test(s, p, 2)) { s = bits_flip(s, p, 2); ++k; }
  }
  return s;
}
/* s with up to `moves` random electron moves. */
static ci_bits excite(ci_bits s, int norb, int moves) {
  for (int m = 0; m < moves; ++m) {
    int h = (int)(rnd() % (uint64_t)norb), p = (int)(rnd() % (uint64_t)norb);
    if (bits_test(s, h, 2) && !bits_test(s, p, 2)) s = bits_flip2(s, h, p, 2);
  }
  return s;
}

static void test_rules(void) {
  char path[512];
  cis_fcidump *F = NULL;
  snprintf(path, sizeof path, "%s/ci/h2o_631g.FCIDUMP", CIS_SHARED_DIR);
  if (cis_fcidump_read(path, &F) != CIS_OK) { CHECK(0, "read %s: %s", path, cis_last_error()); return; }
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F), bad = 0, nonzero = 0;
  ci_ints I = ci_ints_of(F);
  for (int t = 0; t < 20000; ++t) {
    ci_bits ai = random_string(na, F->norb), bi = random_string(nb, F->norb);
    ci_bits aj = excite(ai, F->norb, (int)(rnd() % 3)), bj = excite(bi, F->norb, (int)(rnd() % 3));
    double e1 = ci_element_nw(F, ai, bi, aj, bj, 1), e2 = ci_element_nw(F, ai, bi, aj, bj, 2);
    double u = ci_element(F, ai.w[0], bi.w[0], aj.w[0], bj.w[0]), v = ci_element_bits(F, &ai, &bi, &aj, &bj);
    bad += memcmp(&e1, &e2, sizeof e1) != 0 || memcmp(&e1, &u, sizeof e1) != 0 || memcmp(&e1, &v, sizeof e1) != 0;
    nonzero += e1 != 0;
    double d1 = bits_rule_diagonal(&I, ai, bi, 1), d2 = bits_rule_diagonal(&I, ai, bi, 2);
    double d0 = ci_diagonal(F, ai.w[0], bi.w[0]);
    bad += memcmp(&d1, &d2, sizeof d1) != 0 || memcmp(&d1, &d0, sizeof d1) != 0;
    int i = (int)(rnd() % (uint64_t)F->norb), a = (int)(rnd() % (uint64_t)F->norb);
    double s1 = bits_rule_single(&I, i, a, ai, bi, 1), s2 = bits_rule_single(&I, i, a, ai, bi, 2);
    bad += memcmp(&s1, &s2, sizeof s1) != 0;
  }
  CHECK(bad == 0, "Slater-Condon rules, two words against one: %d of 20000 differ", bad);
  CHECK(nonzero > 1000, "too few nonzero elements tested (%d)", nonzero);
  cis_fcidump_free(F);
}

/* LiH/STO-3G embedded at orbitals off..off+5 of `norb` (see the top). */
static const char *write_embedded(const cis_fcidump *G, int norb, int off, int nelec, char *path, size_t n) {
  snprintf(path, n, "/tmp/cis_test_words_%d_%d.FCIDUMP", (int)getpid(), norb);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  fprintf(f, "&FCI NORB=%d,NELEC=%d,MS2=0,ISYM=1 &END\n", norb, nelec);
  for (int i = 0; i < G->norb; ++i)
    for (int j = 0; j <= i; ++j)
      for (int k = 0; k < G->norb; ++k)
        for (int l = 0; l <= k; ++l) {
          if (ci_pair(i, j) < ci_pair(k, l)) continue;
          double v = fcidump_eri(G, i, j, k, l);
          if (v != 0) fprintf(f, "%.17g %d %d %d %d\n", v, i + off + 1, j + off + 1, k + off + 1, l + off + 1);
        }
  for (int i = 0; i < G->norb; ++i)
    for (int j = 0; j <= i; ++j)
      if (G->h1[i * G->norb + j] != 0) fprintf(f, "%.17g %d %d 0 0\n", G->h1[i * G->norb + j], i + off + 1, j + off + 1);
  for (int p = 0; p < norb; ++p)
    if (p < off || p >= off + G->norb) fprintf(f, "%.17g %d %d 0 0\n", 5.0 + p / 100.0, p + 1, p + 1);
  fprintf(f, "%.17g 0 0 0 0\n", G->ecore);
  fclose(f);
  return path;
}

/* Value of H(i, j) in a CSR with sorted columns; found = 0 when absent. */
static double csr_at(const cis_csr *H, cis_int i, cis_int j, int *found) {
  const double *v = H->val;
  for (cis_int k = H->rowptr[i]; k < H->rowptr[i + 1]; ++k)
    if (H->colind[k] == j) { *found = 1; return v[k]; }
  *found = 0;
  return 0;
}

static void test_embedded_space(void) {
  char path[512], big[512];
  cis_fcidump *G = NULL, *F = NULL;
  cis_ci_space *SG = NULL, *SF = NULL;
  cis_csr *HG = NULL, *HF = NULL;
  const int off = 61, norb = 70;
  snprintf(path, sizeof path, "%s/ci/lih_sto3g.FCIDUMP", CIS_SHARED_DIR);
  CHECK_OK(cis_fcidump_read(path, &G));
  if (!G) return;
  CHECK(write_embedded(G, norb, off, G->nelec, big, sizeof big) != NULL, "cannot write %s", big);
  CHECK_OK(cis_fcidump_read(big, &F));
  if (!F) goto done;

  /* the reference: at the embedded orbitals; the one-word entry points refuse */
  ci_bits ga, gb, fa, fb;
  uint64_t u, w;
  CHECK_OK(ci_find_reference_bits(G, &ga, &gb));
  CHECK_OK(ci_find_reference_bits(F, &fa, &fb));
  int moved = 1;
  for (int p = 0; p < G->norb; ++p) moved &= bits_test(ga, p, 2) == bits_test(fa, p + off, 2) && bits_test(gb, p, 2) == bits_test(fb, p + off, 2);
  CHECK(moved && bits_popcount(fa, 2) == bits_popcount(ga, 2), "reference of the embedded file not at orbitals %d..", off + 1);
  CHECK(cis_ci_find_reference(F, &u, &w) == CIS_ERR_UNSUPPORTED, "cis_ci_find_reference accepted NORB = 70");
  CHECK(strstr(cis_last_error(), "NORB = 70") != NULL, "message: %s", cis_last_error());
  CHECK(ci_parse_occ(F, "62,63", &u, &w) == CIS_ERR_UNSUPPORTED, "ci_parse_occ accepted NORB = 70");
  ci_bits oa, ob;
  CHECK_OK(ci_parse_occ_bits(F, "62,66", &oa, &ob));
  CHECK(bits_test(oa, 61, 2) && bits_test(oa, 65, 2) && bits_popcount(oa, 2) == 2 && bits_eq(oa, ob, 2), "--occ 62,66 parsed wrong");

  /* the spaces, their counts in closed form, and the Hamiltonians */
  CHECK_OK(ci_space_create_bits(G, 2, &ga, &gb, &SG));
  CHECK_OK(ci_space_create_bits(F, 2, &fa, &fb, &SF));
  if (!SG || !SF) goto done;
  CHECK(ci_space_words(SG) == 1 && ci_space_words(SF) == 2, "words %d %d", ci_space_words(SG), ci_space_words(SF));
  cis_ci_counts c;
  CHECK_OK(ci_count_bits(F, 2, &fa, &fb, &c));
  CHECK(c.determinants == (double)ci_space_size(SF) && c.words == 2, "count %.0f, space %lld", c.determinants,
        (long long)ci_space_size(SF));
  CHECK_OK(cis_ci_hamiltonian(G, SG, 0, &HG));
  CHECK_OK(cis_ci_hamiltonian(F, SF, 0, &HF));
  if (!HG || !HF) goto done;
  cis_int n = ci_space_size(SG), *map = malloc((size_t)n * sizeof *map);
  int bad = 0;
  for (cis_int i = 0; i < n; ++i) { /* determinant i of the small space in the big one */
    ci_bits a, b, a2 = bits_zero(), b2 = bits_zero();
    ci_space_det_bits(SG, i, &a, &b);
    CI_FOR_BITS(p, a, 2) a2 = bits_flip(a2, p + off, 2);
    CI_FOR_BITS(p, b, 2) b2 = bits_flip(b2, p + off, 2);
    map[i] = ci_space_find_bits(SF, &a2, &b2);
    bad += map[i] < 0;
  }
  CHECK(bad == 0, "%d determinants of the 6-orbital space missing from the 70-orbital one", bad);
  if (bad == 0) {
    int found;
    for (cis_int i = 0; i < n; ++i) {
      bad += HF->rowptr[map[i] + 1] - HF->rowptr[map[i]] != HG->rowptr[i + 1] - HG->rowptr[i]; /* no coupling out */
      for (cis_int k = HG->rowptr[i]; k < HG->rowptr[i + 1]; ++k) {
        double g = ((const double *)HG->val)[k], f = csr_at(HF, map[i], map[HG->colind[k]], &found);
        bad += !found || memcmp(&g, &f, sizeof g) != 0;
      }
    }
    CHECK(bad == 0, "embedded CISD Hamiltonian: %d elements or rows differ from the 6-orbital one", bad);
  }
  double *dg = malloc((size_t)n * sizeof(double)), *df = malloc((size_t)ci_space_size(SF) * sizeof(double));
  CHECK_OK(ci_diagonal_all(G, SG, dg));
  CHECK_OK(ci_diagonal_all(F, SF, df));
  bad = 0;
  for (cis_int i = 0; i < n && map[0] >= 0; ++i) bad += dg[i] != df[map[i]];
  CHECK(bad == 0, "diagonal of the embedded space: %d differ", bad);
  /* <S^2> of a random vector (open shells across the word boundary) */
  cis_int nf = ci_space_size(SF);
  double *cg = malloc((size_t)n * sizeof(double)), *cf = calloc((size_t)nf, sizeof(double)), s2g = -1, s2f = -2;
  for (cis_int i = 0; i < n; ++i) cg[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
  for (cis_int i = 0; i < n && map[0] >= 0; ++i) cf[map[i]] = cg[i];
  CHECK_OK(ci_s2(G, SG, cg, &s2g));
  CHECK_OK(ci_s2(F, SF, cf, &s2f));
  CHECK(fabs(s2g - s2f) < 1e-12 * fmax(1.0, fabs(s2g)) && s2g > 0.1, "<S^2> one word %.15g, two words %.15g", s2g, s2f);
  free(cg); free(cf);
  free(dg); free(df); free(map);

  /* full CI of 10 electrons in 70 orbitals: refused by size, before allocating */
  cis_fcidump *F10 = NULL;
  cis_ci_space *S10 = NULL;
  CHECK(write_embedded(G, norb, off, 10, big, sizeof big) != NULL, "cannot write %s", big);
  CHECK_OK(cis_fcidump_read(big, &F10));
  if (F10) {
    ci_bits ra = bits_first(5, 2);
    double t0 = cis_wtime();
    cis_status st = ci_space_create_bits(F10, -1, &ra, &ra, &S10);
    CHECK(st == CIS_ERR_TOO_LARGE && strstr(cis_last_error(), "determinants"), "full CI in 70 orbitals: %s %s",
          cis_status_name(st), cis_last_error());
    CHECK(cis_wtime() - t0 < 1.0, "full CI refusal took %.2f s", cis_wtime() - t0);
    cis_ci_space_free(S10);
    cis_fcidump_free(F10);
  }
done:
  unlink(big);
  cis_csr_free(HG); cis_csr_free(HF);
  cis_ci_space_free(SG); cis_ci_space_free(SF);
  cis_fcidump_free(G); cis_fcidump_free(F);
}

int main(void) {
  test_ops();
  test_rules();
  test_embedded_space();
  return test_summary("test_ci_words");
}
