/* sci_links.c: the lists of one string set of a selected-CI space (layout in
 * sci_internal.h): the single replacements inside the set (Olsen et al.,
 * J. Chem. Phys. 89, 2185 (1988), §II.B, restricted to the set) and the
 * same-spin Hamiltonian between its strings by the Slater-Condon rules
 * (Szabo & Ostlund §2.3.3, Tables 2.3-2.4), signs as ci_rules.h. */
#include <stdlib.h>
#include "ci/ci_rules.h"
#include "ci/sci_internal.h"
#include "core/internal.h"

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

cis_int sci_sort_unique(uint64_t *s, cis_int n) {
  if (n <= 0) return 0;
  qsort(s, (size_t)n, sizeof *s, cmp_u64);
  cis_int m = 1;
  for (cis_int i = 1; i < n; ++i)
    if (s[i] != s[m - 1]) s[m++] = s[i];
  return m;
}

cis_status sci_set_table(sci_set *S) {
  uint64_t size = 16;
  while (size < 2 * (uint64_t)S->n) size <<= 1;
  cis_status st = cis_alloc_array((void **)&S->table, (int64_t)size, sizeof(int32_t), "string set hash table");
  if (st != CIS_OK) return st;
  S->mask = size - 1;
  for (uint64_t h = 0; h < size; ++h) S->table[h] = -1;
  for (cis_int i = 0; i < S->n; ++i) {
    uint64_t h = ci_string_hash(S->str[i]) & S->mask;
    while (S->table[h] >= 0) h = (h + 1) & S->mask;
    S->table[h] = (int32_t)i;
  }
  return CIS_OK;
}

/* (ij|kl) through the full pair matrix g (npair x npair). */
static inline double eri(const double *g, cis_int npair, int i, int j, int k, int l) {
  return g[ci_pair(i, j) * npair + ci_pair(k, l)];
}

/* <I|H_spin|J> for strings of one spin differing by at most two electrons
 * (J != I; h1 row-major): the single and double rules of element() in
 * slater.c for one spin, with no other-spin term. */
static double same_spin_element(uint64_t I, uint64_t J, int norb, const double *h1, const double *g, cis_int npair) {
  const uint64_t holes = J & ~I, parts = I & ~J;
  if (ci_popcount(holes) == 1) {
    const int i = ci_lowest(holes), a = ci_lowest(parts);
    double v = h1[i * norb + a];
    for (uint64_t c = I & J; c; c &= c - 1) {
      const int k = ci_lowest(c);
      v += eri(g, npair, i, a, k, k) - eri(g, npair, i, k, k, a);
    }
    return ci_sign_between(J, i, a) * v;
  }
  const int i = ci_lowest(holes), j = ci_lowest(holes & (holes - 1));
  const int a = ci_lowest(parts), b = ci_lowest(parts & (parts - 1));
  const double s1 = ci_sign_between(J, i, a);
  const uint64_t mid = J ^ (1ull << i) ^ (1ull << a);
  const double s2 = ci_sign_between(mid, j, b);
  return s1 * s2 * (eri(g, npair, i, a, j, b) - eri(g, npair, i, b, j, a));
}

/* Sort a row's (column, value) pairs by column (Shell sort, gaps 3h+1). */
static void sort_row(int32_t *col, double *val, int64_t n) {
  int64_t h = 1;
  while (h < n / 3) h = 3 * h + 1;
  for (; h >= 1; h /= 3)
    for (int64_t i = h; i < n; ++i) {
      const int32_t c = col[i];
      const double v = val[i];
      int64_t j = i;
      for (; j >= h && col[j - h] > c; j -= h) col[j] = col[j - h], val[j] = val[j - h];
      col[j] = c, val[j] = v;
    }
}

/* Same-spin entries of string I (position a) into col/val (fill) or counted:
 * by scanning the set when it is smaller than I's excitations, else by
 * enumerating the singles and doubles and looking each up. */
static int64_t same_row(const sci_set *S, cis_int a, int norb, const double *h1, const double *g, cis_int npair,
                        int32_t *col, double *val) {
  const uint64_t I = S->str[a], full = norb == 64 ? ~0ull : (1ull << norb) - 1, empty = full & ~I;
  const int64_t no = ci_popcount(I), nv = norb - no;
  const int64_t nexc = no * nv + no * (no - 1) / 2 * (nv * (nv - 1) / 2);
  int64_t m = 0;
  if (S->n <= nexc) {
    for (cis_int b = 0; b < S->n; ++b) {
      const int d = ci_popcount(I ^ S->str[b]);
      if (d > 4) continue;
      if (col) {
        col[m] = (int32_t)b;
        val[m] = b == a ? S->energy[a] : same_spin_element(I, S->str[b], norb, h1, g, npair);
      }
      ++m;
    }
    return m;
  }
#define SCI_ADD(J)                                                                  \
  do {                                                                              \
    const int64_t pos_ = ci_string_find(S->str, S->table, S->mask, (J));            \
    if (pos_ >= 0) {                                                                \
      if (col) col[m] = (int32_t)pos_, val[m] = same_spin_element(I, (J), norb, h1, g, npair); \
      ++m;                                                                          \
    }                                                                               \
  } while (0)
  if (col) col[m] = (int32_t)a, val[m] = S->energy[a];
  ++m;
  for (uint64_t o = I; o; o &= o - 1)
    for (uint64_t e = empty; e; e &= e - 1) SCI_ADD(I ^ (o & -o) ^ (e & -e));
  for (uint64_t o1 = I; o1; o1 &= o1 - 1)
    for (uint64_t o2 = o1 & (o1 - 1); o2; o2 &= o2 - 1)
      for (uint64_t e1 = empty; e1; e1 &= e1 - 1)
        for (uint64_t e2 = e1 & (e1 - 1); e2; e2 &= e2 - 1) SCI_ADD(I ^ (o1 & -o1) ^ (o2 & -o2) ^ (e1 & -e1) ^ (e2 & -e2));
#undef SCI_ADD
  if (col) sort_row(col, val, m);
  return m;
}

int64_t sci_links_into(const sci_set *T, uint64_t M, int norb, int rdm_rows, ci_link *L) {
  int64_t m = 0;
  for (uint64_t o = M; o; o &= o - 1) {
    const int q = ci_lowest(o);
    for (int p = 0; p < norb; ++p) {
      if (p != q && (M >> p & 1)) continue;
      const uint64_t J = (M & ~(1ull << q)) | (1ull << p);
      const int64_t pos = ci_string_find(T->str, T->table, T->mask, J);
      if (pos < 0) continue;
      if (L)
        L[m] = (ci_link){(int32_t)pos, (int16_t)(rdm_rows ? q * norb + p : ci_pair(p, q)),
                         (int16_t)(p == q ? 1 : (int)ci_sign_between(M, p, q))};
      ++m;
    }
  }
  return m;
}

void sci_set_lists(sci_set *S, int norb, const double *h1, const double *g, cis_int npair, int fill) {
  const cis_int n = S->n;
  if (!fill) {
#pragma omp parallel for schedule(dynamic, 16) if (n >= 64)
    for (cis_int a = 0; a < n; ++a) {
      S->link_ptr[a + 1] = sci_links_into(S, S->str[a], norb, 0, NULL);
      S->same_ptr[a + 1] = same_row(S, a, norb, h1, g, npair, NULL, NULL);
    }
    S->link_ptr[0] = S->same_ptr[0] = 0;
    for (cis_int a = 0; a < n; ++a) {
      S->link_ptr[a + 1] += S->link_ptr[a];
      S->same_ptr[a + 1] += S->same_ptr[a];
    }
    return;
  }
  int maxl = 0;
#pragma omp parallel for schedule(dynamic, 16) if (n >= 64) reduction(max : maxl)
  for (cis_int a = 0; a < n; ++a) {
    double e = 0;
    const uint64_t I = S->str[a];
    for (uint64_t u = I; u; u &= u - 1) {
      const int p = ci_lowest(u);
      e += h1[p * norb + p];
      for (uint64_t w = u & (u - 1); w; w &= w - 1) {
        const int q = ci_lowest(w);
        e += eri(g, npair, p, p, q, q) - eri(g, npair, p, q, q, p);
      }
    }
    S->energy[a] = e;
    const int64_t nl = sci_links_into(S, S->str[a], norb, 0, S->link + S->link_ptr[a]);
    if (nl > maxl) maxl = (int)nl;
    same_row(S, a, norb, h1, g, npair, S->same_col + S->same_ptr[a], S->same_val + S->same_ptr[a]);
  }
  S->max_links = maxl;
}
