/* sci_rdm.c: 1- and 2-particle (transition) RDMs of vectors on a
 * selected-CI product space A x B (cisparse/sci.h), OpenMP.
 *
 * String-driven as rdm.c (Knowles & Handy, Chem. Phys. Lett. 111, 315
 * (1984); Olsen et al., J. Chem. Phys. 89, 2185 (1988), §II.B): with
 *   D^s[q n + p, (M,K)] = <M,K|E^s_qp|c>     gathered through the links of M
 *                                           (or K) into the set,
 *   raw2st = sum over intermediates D^s_bra D^t_ket^T   (ci_rdm.h's layout),
 * the operators exact, not projected: E_rs|ket> may leave the space. An
 * opposite-spin product E^a_pq E^b_rs keeps one string of each side, so its
 * intermediates lie in A x B. A same-spin one may leave the set, so the
 * same-spin part goes through the N-2 electron strings instead, as PySCF's
 * selected_ci.make_rdm2s (des_des_linkstr): with X_a = every a_r a_p |I>,
 * I in A, and P[pr, (K,L)] = <K,L|a_r a_p|c> (p > r) gathered through the
 * pair links of K into A,
 *   <bra|p^+ r^+ s q|ket> = sum over X_a x B of P_bra[pr] P_ket[qs]
 * (one GEMM over n(n-1)/2 pair rows; signs for p < r, q < s), exact for
 * vectors on the space; bb the same over A x X_b. Then <E_pq E_rs> =
 * <p^+ r^+ s q> + [q == r] <p^+ s> into ci_rdm.h's raw2 and ci_rdm_finish
 * (PySCF's reorder_rdm conventions, cisparse/ci.h).
 * Static schedule and per-thread sums added in thread order: the same
 * result for the same thread count. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_rdm.h"
#include "ci/ci_rules.h"
#include "ci/sci_internal.h"
#include "core/internal.h"

/* Determinants (columns of D) per block of one thread, as rdm.c's. */
#define SCI_RDM_BLOCK_COLS 1024
#define SCI_RDM_PARALLEL_MIN 4096

/* sci_links_into with the RDMs' rows q n + p (gather_rows' link kind). */
static int links_into(const sci_set *T, uint64_t M, int n, ci_link *L) { return (int)sci_links_into(T, M, n, 1, L); }

/* X = every a_r a_p |I> (p > r) for I in T, sorted, distinct (*nx 0 when
 * T's strings hold fewer than two electrons). */
static cis_status removed_pairs(const sci_set *T, uint64_t **out, cis_int *nx) {
  cis_status st;
  uint64_t *x = NULL;
  *nx = 0;
  if (T->nel < 2) return CIS_OK;
  const int64_t per = (int64_t)T->nel * (T->nel - 1) / 2;
  CIS_TRY(cis_alloc_array((void **)&x, T->n * per, sizeof(uint64_t), "RDM intermediate strings"));
  cis_int m = 0;
  for (cis_int i = 0; i < T->n; ++i)
    for (uint64_t o1 = T->str[i]; o1; o1 &= o1 - 1)
      for (uint64_t o2 = o1 & (o1 - 1); o2; o2 &= o2 - 1) x[m++] = T->str[i] ^ (o1 & -o1) ^ (o2 & -o2);
  *nx = sci_sort_unique(x, m);
  *out = x;
  return CIS_OK;
cleanup:
  return st;
}

/* Links a^+_p a^+_r |K> = sign |J> (p > r, both empty in K) with J in T, as
 * {position of J, pair row p(p-1)/2 + r, sign}; returns their count. */
static int pair_links_into(const sci_set *T, uint64_t K, int n, ci_link *L) {
  int m = 0;
  for (int p = 1; p < n; ++p) {
    if (K >> p & 1) continue;
    for (int r = 0; r < p; ++r) {
      if (K >> r & 1) continue;
      const uint64_t J = K | 1ull << p | 1ull << r;
      const int64_t pos = ci_string_find(T->str, T->table, T->mask, J);
      if (pos < 0) continue;
      /* a^+_r first: (-1)^(K below r); then a^+_p: (-1)^(K + r below p) */
      const int par = ci_popcount(K & ((1ull << r) - 1)) + ci_popcount((K | 1ull << r) & ((1ull << p) - 1));
      L[m++] = (ci_link){(int32_t)pos, (int16_t)(p * (p - 1) / 2 + r), (int16_t)(par & 1 ? -1 : 1)};
    }
  }
  return m;
}

/* raw2 (ci_rdm.h's <E_pq E_rs> layout) from the pair sums M[j npp + i] =
 * sum_K <bra|a^+_p a^+_r|K> <K|a_s a_q|ket> (i = pair(p > r), j = pair(q >
 * s)): <E_pq E_rs> = <p^+ r^+ s q> + [q == r] <p^+ s>, the first term
 * antisymmetric in (p, r) and in (q, s). */
static void raw2_of_pairs(int n, const double *M, const double *raw1, double *R) {
  const cis_int n2 = (cis_int)n * n, npp = (cis_int)n * (n - 1) / 2;
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      for (int r = 0; r < n; ++r)
        for (int u = 0; u < n; ++u) {
          double g = 0.0;
          if (p != r && q != u) {
            const cis_int i = p > r ? p * (p - 1) / 2 + r : r * (r - 1) / 2 + p;
            const cis_int j = q > u ? q * (q - 1) / 2 + u : u * (u - 1) / 2 + q;
            g = ((p > r) == (q > u) ? 1.0 : -1.0) * M[j * npp + i];
          }
          if (q == r) g += raw1[p * n + u];
          R[(cis_int)(r * n + u) * n2 + q * n + p] = g;
        }
}

/* One string's links into T (links_into or pair_links_into). */
typedef int (*sci_links_fn)(const sci_set *T, uint64_t M, int n, ci_link *L);

/* D (rows x nr*nc, row-major) of the strings R[0..nr) for the vector c
 * (T->n x nc, row-major; rows = T's strings) through each string's links
 * into T: with links_into (rows n^2) D[q n + p, (M, col)] = <M, col|E_qp|c>;
 * with pair_links_into (rows n(n-1)/2, N-2 strings K) D[p(p-1)/2 + r,
 * (K, col)] = <K, col|a_r a_p|c> (p > r). */
static void gather_rows(const sci_set *T, const uint64_t *R, cis_int nr, int n, cis_int rows, sci_links_fn links,
                        const double *c, cis_int nc, ci_link *L, double *Dm) {
  const cis_int m = nr * nc;
  memset(Dm, 0, (size_t)(rows * m) * sizeof(double));
  for (cis_int r = 0; r < nr; ++r) {
    const int nl = links(T, R[r], n, L);
    for (int l = 0; l < nl; ++l) {
      const double s = L[l].sign, *cj = c + (cis_int)L[l].str * nc;
      double *d = Dm + (cis_int)L[l].pair * m + r * nc;
      for (cis_int K = 0; K < nc; ++K) d[K] += s * cj[K];
    }
  }
}

/* D^b (n2 x nr*nb) of the determinants (a0 + r, K), r < nr, K < nb, from
 * the column set's links (lptr/lk: CSR over B's strings, into B). */
static void gather_cols(const int64_t *lptr, const ci_link *lk, cis_int a0, cis_int nr, cis_int nb, int n,
                        const double *c, double *Dm) {
  const cis_int m = nr * nb, n2 = (cis_int)n * n;
  memset(Dm, 0, (size_t)(n2 * m) * sizeof(double));
  for (cis_int r = 0; r < nr; ++r) {
    const double *crow = c + (a0 + r) * nb;
    for (cis_int K = 0; K < nb; ++K) {
      double *d = Dm + r * nb + K;
      for (int64_t e = lptr[K]; e < lptr[K + 1]; ++e) d[(cis_int)lk[e].pair * m] += lk[e].sign * crow[lk[e].str];
    }
  }
}

/* r1[i] += sum_c D[i m + c] w[c]. */
static void accumulate1(cis_int n2, cis_int m, const double *Dm, const double *w, double *r1) {
  for (cis_int i = 0; i < n2; ++i) {
    double s = 0.0;
    for (cis_int c = 0; c < m; ++c) s += Dm[i * m + c] * w[c];
    r1[i] += s;
  }
}

static void transpose(const double *a, cis_int rows, cis_int cols, double *t) {
  for (cis_int i = 0; i < rows; ++i)
    for (cis_int j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
}

/* Rows per block so a block has about SCI_RDM_BLOCK_COLS columns. */
static cis_int block_rows(cis_int nc, cis_int nrows) {
  cis_int r = (SCI_RDM_BLOCK_COLS + nc - 1) / nc;
  if (r > nrows) r = nrows;
  return r < 1 ? 1 : r;
}

cis_status cis_sci_rdm12(const cis_sci_space *S, const double *bra, const double *ket, const cis_ci_rdm12 *o) {
  cis_status st;
  ci_rdm_plan p;
  uint64_t *xa = NULL, *xb = NULL;
  cis_int nxa = 0, nxb = 0;
  int64_t *bptr = NULL;
  ci_link *blk = NULL, *lbuf = NULL;
  double *kT = NULL, *bT = NULL, *work = NULL, *sums = NULL, *pairs = NULL;
  if (!S || !ket || !o) return cis_error(CIS_ERR_INVALID, "sci RDMs: NULL argument");
  CIS_TRY(ci_rdm_plan_of(o, bra, ket, &p));
  if (!bra) bra = ket;
  const int same = p.same;
  if (p.traced) { /* intermediates differ by spin: always the four separated sums */
    p.traced = 0;
    for (int k = 0; k < 4; ++k) p.raw2[k] = o->rdm2 != NULL;
  }
  const int n = S->norb;
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2, npp = (cis_int)n * (n - 1) / 2, na = S->A.n, nb = S->B.n;
  const sci_set *A = &S->A, *B = &S->B;
  const int64_t maxl = (int64_t)n * n; /* >= nel (n - nel + 1) single and n(n-1)/2 pair links of one string */
  /* beta links into B (CSR), for the product-space blocks */
  CIS_TRY(cis_alloc_array((void **)&bptr, nb + 1, sizeof(int64_t), "RDM beta link offsets"));
  CIS_TRY(cis_alloc_array((void **)&blk, nb * maxl > 0 ? nb * maxl : 1, sizeof(ci_link), "RDM beta links"));
  bptr[0] = 0;
  for (cis_int K = 0; K < nb; ++K) bptr[K + 1] = bptr[K] + links_into(B, B->str[K], n, blk + bptr[K]);
  if (p.raw2[0]) CIS_TRY(removed_pairs(A, &xa, &nxa));
  if (p.raw2[3]) {
    CIS_TRY(removed_pairs(B, &xb, &nxb));
    CIS_TRY(cis_alloc_array((void **)&kT, na * nb, sizeof(double), "RDM transposed ket"));
    transpose(ket, na, nb, kT);
    if (!same) {
      CIS_TRY(cis_alloc_array((void **)&bT, na * nb, sizeof(double), "RDM transposed bra"));
      transpose(bra, na, nb, bT);
    }
  }
  /* tasks: product-space blocks of A (1-RDMs, ab, ba), blocks of X_a (aa), blocks of X_b (bb) */
  const cis_int ra = block_rows(nb, na), rxa = block_rows(nb, nxa), rxb = block_rows(na, nxb);
  const cis_int tp = (na + ra - 1) / ra, txa = nxa ? (nxa + rxa - 1) / rxa : 0, txb = nxb ? (nxb + rxb - 1) / rxb : 0;
  cis_int mcol = ra * nb;
  if (rxa * nb > mcol) mcol = rxa * nb;
  if (rxb * na > mcol) mcol = rxb * na;
  const cis_int per_sums = 2 * n2 + 4 * n4, per_work = 4 * n2 * mcol;
  int T = (na * nb >= SCI_RDM_PARALLEL_MIN || nxa * nb + nxb * na >= SCI_RDM_PARALLEL_MIN) ? omp_get_max_threads() : 1;
  while (T > 1 && (double)T * (double)(per_sums + per_work) * sizeof(double) > 1073741824.0) --T;
  CIS_TRY(cis_alloc_zeroed((void **)&sums, (cis_int)T * per_sums, sizeof(double), "RDM sums"));
  CIS_TRY(cis_alloc_array((void **)&work, (cis_int)T * per_work, sizeof(double), "RDM intermediate D"));
  CIS_TRY(cis_alloc_array((void **)&lbuf, (cis_int)T * maxl, sizeof(ci_link), "RDM link buffers"));
  CIS_TRY(cis_alloc_array((void **)&pairs, npp * npp > 0 ? npp * npp : 1, sizeof(double), "RDM pair sums"));
#pragma omp parallel num_threads(T)
  {
    const int me = omp_get_thread_num();
    double *r1 = sums + (cis_int)me * per_sums, *r2 = r1 + 2 * n2, *Ka = work + (cis_int)me * per_work;
    double *Kb = Ka + n2 * mcol, *Ba = same ? Ka : Kb + n2 * mcol, *Bb = same ? Kb : Ba + n2 * mcol;
    ci_link *L = lbuf + (cis_int)me * maxl;
#pragma omp for schedule(static)
    for (cis_int t = 0; t < tp + txa + txb; ++t) {
      if (t < tp) { /* M in A, K in B: 1-RDMs, ab, ba */
        const cis_int a0 = t * ra, r = na - a0 < ra ? na - a0 : ra, m = r * nb;
        gather_rows(A, A->str + a0, r, n, n2, links_into, ket, nb, L, Ka);
        gather_cols(bptr, blk, a0, r, nb, n, ket, Kb);
        if (!same) {
          gather_rows(A, A->str + a0, r, n, n2, links_into, bra, nb, L, Ba);
          gather_cols(bptr, blk, a0, r, nb, n, bra, Bb);
        }
        accumulate1(n2, m, Ka, bra + a0 * nb, r1);
        accumulate1(n2, m, Kb, bra + a0 * nb, r1 + n2);
        if (p.raw2[1]) ci_rdm_accumulate2(n2, m, Ba, Kb, r2 + n4);
        if (p.raw2[2]) ci_rdm_accumulate2(n2, m, Bb, Ka, r2 + 2 * n4);
      } else if (t < tp + txa) { /* K in X_a (N-2), L in B: aa pair sums */
        const cis_int a0 = (t - tp) * rxa, r = nxa - a0 < rxa ? nxa - a0 : rxa, m = r * nb;
        gather_rows(A, xa + a0, r, n, npp, pair_links_into, ket, nb, L, Ka);
        if (!same) gather_rows(A, xa + a0, r, n, npp, pair_links_into, bra, nb, L, Ba);
        ci_rdm_accumulate2(npp, m, Ba, Ka, r2);
      } else { /* K in X_b (N-2), M in A: bb pair sums (transposed vectors) */
        const cis_int b0 = (t - tp - txa) * rxb, r = nxb - b0 < rxb ? nxb - b0 : rxb, m = r * na;
        gather_rows(B, xb + b0, r, n, npp, pair_links_into, kT, na, L, Ka);
        if (!same) gather_rows(B, xb + b0, r, n, npp, pair_links_into, bT, na, L, Ba);
        ci_rdm_accumulate2(npp, m, Ba, Ka, r2 + 3 * n4);
      }
    }
  }
  for (int t = 1; t < T; ++t) /* fixed order */
    for (cis_int i = 0; i < per_sums; ++i) sums[i] += sums[(cis_int)t * per_sums + i];
  double *raw2[4];
  for (int k = 0; k < 4; ++k) {
    raw2[k] = sums + 2 * n2 + k * n4;
    if (k == 1 || k == 2 || !p.raw2[k]) continue;
    if (same) /* dsyrk's upper half: the lower from it */
      for (cis_int j = 0; j < npp; ++j)
        for (cis_int i = 0; i < j; ++i) raw2[k][i * npp + j] = raw2[k][j * npp + i];
    memcpy(pairs, raw2[k], (size_t)(npp * npp) * sizeof(double));
    raw2_of_pairs(n, pairs, sums + (k == 3) * n2, raw2[k]);
  }
  ci_rdm_finish(n, &p, sums, sums + n2, raw2, o);
  st = CIS_OK;
cleanup:
  cis_free(xa);
  cis_free(xb);
  cis_free(bptr);
  cis_free(blk);
  cis_free(lbuf);
  cis_free(kT);
  cis_free(bT);
  cis_free(work);
  cis_free(sums);
  cis_free(pairs);
  return st;
}

cis_status sci_s2(const cis_sci_space *S, const double *c, double *s2) {
  cis_status st;
  int64_t *bptr = NULL;
  ci_link *blk = NULL, *lbuf = NULL;
  double *work = NULL, *part = NULL;
  const int n = S->norb;
  const cis_int n2 = (cis_int)n * n, na = S->A.n, nb = S->B.n;
  const int64_t maxl = (int64_t)n * n;
  CIS_TRY(cis_alloc_array((void **)&bptr, nb + 1, sizeof(int64_t), "<S^2> beta link offsets"));
  CIS_TRY(cis_alloc_array((void **)&blk, nb * maxl > 0 ? nb * maxl : 1, sizeof(ci_link), "<S^2> beta links"));
  bptr[0] = 0;
  for (cis_int K = 0; K < nb; ++K) bptr[K + 1] = bptr[K] + links_into(&S->B, S->B.str[K], n, blk + bptr[K]);
  const cis_int ra = block_rows(nb, na), tp = (na + ra - 1) / ra, per_work = 2 * n2 * ra * nb;
  int T = na * nb >= SCI_RDM_PARALLEL_MIN ? omp_get_max_threads() : 1;
  while (T > 1 && (double)T * (double)per_work * sizeof(double) > 1073741824.0) --T;
  CIS_TRY(cis_alloc_zeroed((void **)&part, 2 * (cis_int)T, sizeof(double), "<S^2> sums"));
  CIS_TRY(cis_alloc_array((void **)&work, (cis_int)T * per_work, sizeof(double), "<S^2> intermediates"));
  CIS_TRY(cis_alloc_array((void **)&lbuf, (cis_int)T * maxl, sizeof(ci_link), "<S^2> link buffers"));
#pragma omp parallel num_threads(T)
  {
    const int me = omp_get_thread_num();
    double *Ka = work + (cis_int)me * per_work, *Kb = Ka + n2 * ra * nb, flip = 0, norm = 0;
    ci_link *L = lbuf + (cis_int)me * maxl;
#pragma omp for schedule(static)
    for (cis_int t = 0; t < tp; ++t) { /* M in A, K in B: D^a and D^b of the same intermediates */
      const cis_int a0 = t * ra, r = na - a0 < ra ? na - a0 : ra, m = r * nb;
      gather_rows(&S->A, S->A.str + a0, r, n, n2, links_into, c, nb, L, Ka);
      gather_cols(bptr, blk, a0, r, nb, n, c, Kb);
      for (cis_int i = 0; i < n2 * m; ++i) flip += Ka[i] * Kb[i];
      for (cis_int i = a0 * nb; i < (a0 + r) * nb; ++i) norm += c[i] * c[i];
    }
    part[2 * me] = flip, part[2 * me + 1] = norm;
  }
  double flip = 0, norm = 0;
  for (int t = 0; t < T; ++t) flip += part[2 * t], norm += part[2 * t + 1]; /* fixed order */
  const double sz = 0.5 * (S->A.nel - S->B.nel);
  *s2 = norm > 0 ? S->B.nel + sz + sz * sz - flip / norm : NAN;
  st = CIS_OK;
cleanup:
  cis_free(bptr);
  cis_free(blk);
  cis_free(lbuf);
  cis_free(work);
  cis_free(part);
  return st;
}
