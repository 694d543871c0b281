/* sci_half.c: the alpha <-> beta half sigma of a selected-CI space whose
 * alpha and beta sets are equal (so MS = 0): the counterpart for string sets
 * of the complete space's time-reversal half sigma (sigma.c,
 * sigma_block_half; Olsen et al., J. Chem. Phys. 89, 2185 (1988), §II.D).
 *
 * With P the transpose (P C)(A,B) = C(B,A) and equal sets, the same-spin
 * matrices of both spins are one matrix h, so P (H_alpha x 1) P = 1 x H_beta,
 * and the opposite-spin term V = sum (pq|rs) E^a_pq E^b_rs has P V P = V
 * ((pq|rs) = (rs|pq)). Write T(C) for the lower triangle of C with its
 * diagonal halved (T(C)(J,L) = C(J,L) for J > L, C(J,J)/2, 0 for J < L),
 * so that C = T(C) + P T(P C). Then for ANY vector
 *   sigma(C) = S(C) + P S(P C),   S(C) = (H_alpha x 1) C + V T(C),
 * and for a vector of one parity (P C = t C, t = +-1, the MS = 0 eigenstates
 * of a space closed under P) one S: sigma = S(C) + t P S(C). S costs the
 * alpha half of the same-spin work and half of the opposite-spin GEMM: in
 * row I (sci_sigma.c's notation, links l = (I -> J_l, x_l, s_l) sorted by
 * J_l descending) T(C)'s row J_l stops at column J_l, so the product
 *   W_I[y, L] = sum_l s_l (x_l|y) T(C)[J_l, L]
 * runs in column panels, each over the links reaching it (a prefix), and
 * stops at column max J_l. The beta links' scatter is sci_sigma.c's.
 *
 * Rows are the threads' as in sci_sigma.c and every sum runs in a fixed
 * order: the result does not depend on the thread count. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_gemm.h"
#include "ci/ci_internal.h"
#include "ci/sci_internal.h"
#include "core/internal.h"

/* Columns of one GEMM panel of W_I. */
#define SCI_PANEL 128

int sci_parity(const cis_sci_space *S, const double *x) {
  return ci_transpose_parity(x, S->A.n, SCI_PARITY_TOL, S->threads, NULL);
}

static int cmp_key(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Row I of Y_v = S(c_v) for kv vectors (c_v = C + v*n, Y_v = Y + v*n), with
 * a thread's workspace: G (npair x max_links), Cj (max_links x kv*nb), W
 * (npair x kv*nb), key (max_links). */
static void half_row(const cis_sci_space *S, cis_int I, int kv, const double *C, double *Y, double *G, double *Cj,
                     double *W, uint64_t *key) {
  const cis_int nb = S->B.n, n = S->ndet, np = S->npair;
  const sci_set *A = &S->A, *B = &S->B;
  for (int v = 0; v < kv; ++v) sci_alpha_same(A, I, C + v * n, nb, Y + v * n + I * nb); /* the alpha side only */
  const ci_link *La = A->link + A->link_ptr[I];
  const int nl = (int)(A->link_ptr[I + 1] - A->link_ptr[I]);
  if (nl == 0 || B->link_ptr[nb] == 0) return;
  /* links by J descending, ties in list order: key = (2^31 - 1 - J) << 32 | l */
  for (int l = 0; l < nl; ++l) key[l] = (uint64_t)(INT32_MAX - La[l].str) << 32 | (uint64_t)l;
  qsort(key, (size_t)nl, sizeof *key, cmp_key);
  const cis_int ncol = (cis_int)La[key[0] & 0xffffffffu].str + 1, m = (cis_int)kv * ncol;
  for (int j = 0; j < nl; ++j) {
    const ci_link k = La[key[j] & 0xffffffffu];
    const cis_int J = k.str;
    for (cis_int y = 0; y < np; ++y) G[y * nl + j] = k.sign * S->g[y * np + k.pair];
    for (int v = 0; v < kv; ++v) { /* row j of Cj: T(c_v)'s row J on columns 0 .. ncol-1 */
      const double *cj = C + v * n + J * nb;
      double *d = Cj + j * m + v * ncol;
      for (cis_int L = 0; L < J; ++L) d[L] = cj[L];
      d[J] = 0.5 * cj[J];
      for (cis_int L = J + 1; L < ncol; ++L) d[L] = 0.0;
    }
  }
  int p = nl; /* links reaching the panel: J_j >= L0, a prefix */
  for (cis_int L0 = 0; L0 < ncol; L0 += SCI_PANEL) {
    const int w = (int)(ncol - L0 < SCI_PANEL ? ncol - L0 : SCI_PANEL);
    while (p > 1 && (cis_int)(INT32_MAX - (int64_t)(key[p - 1] >> 32)) < L0) --p;
    for (int v = 0; v < kv; ++v)
      ci_gemm_rm_ld((int)np, w, p, G, nl, Cj + v * ncol + L0, (int)m, W + v * ncol + L0, (int)m);
  }
  for (int v = 0; v < kv; ++v) sci_beta_scatter(B, W + v * ncol, m, ncol, Y + v * n + I * nb); /* V T(C) */
}

/* Y_v = S(c_v) for g vectors on T threads (work: T x per_thread doubles). */
static void half_pass(const cis_sci_space *S, int g, const double *C, double *Y, int T, double *work,
                      cis_int per_thread) {
  const cis_int np = S->npair, ml = S->A.max_links > 0 ? S->A.max_links : 1, nb = S->B.n;
#pragma omp parallel num_threads(T) if (T > 1)
  {
    double *G = work + (cis_int)omp_get_thread_num() * per_thread, *Cj = G + np * ml, *W = Cj + ml * (cis_int)g * nb;
    uint64_t *key = (uint64_t *)(W + np * (cis_int)g * nb);
#pragma omp for schedule(dynamic, 1)
    for (cis_int I = 0; I < S->A.n; ++I) half_row(S, I, g, C, Y, G, Cj, W, key);
  }
}

/* Y <- Y + t Y^T (t = +-1): exactly of parity t; 32 x 32 tiles, both sides
 * in cache, tile pairs (a, b <= a) one thread's. */
static void mirror(const cis_sci_space *S, double *Y, double t) {
  const cis_int n = S->A.n, TL = 32, nt = (n + TL - 1) / TL;
#pragma omp parallel for schedule(dynamic, 1) num_threads(S->threads) if (S->ndet >= SCI_PARALLEL_MIN)
  for (cis_int ta = 0; ta < nt; ++ta)
    for (cis_int tb = 0; tb <= ta; ++tb)
      for (cis_int A = ta * TL; A < (ta + 1) * TL && A < n; ++A)
        for (cis_int B = tb * TL; B < (tb + 1) * TL && B <= A; ++B) {
          if (B == A) {
            Y[A * n + A] += t * Y[A * n + A];
            continue;
          }
          const double u = Y[A * n + B] + t * Y[B * n + A];
          Y[A * n + B] = u;
          Y[B * n + A] = t * u;
        }
}

/* Y <- Y + Z^T, or with transpose_only Y <- Z^T (P x); tiles as mirror's,
 * row tiles of Y one thread's. */
static void add_transpose(const cis_sci_space *S, double *Y, const double *Z, int transpose_only) {
  const cis_int n = S->A.n, TL = 32, nt = (n + TL - 1) / TL;
#pragma omp parallel for schedule(dynamic, 1) num_threads(S->threads) if (S->ndet >= SCI_PARALLEL_MIN)
  for (cis_int ta = 0; ta < nt; ++ta)
    for (cis_int tb = 0; tb < nt; ++tb)
      for (cis_int A = ta * TL; A < (ta + 1) * TL && A < n; ++A)
        for (cis_int B = tb * TL; B < (tb + 1) * TL && B < n; ++B)
          Y[A * n + B] = transpose_only ? Z[B * n + A] : Y[A * n + B] + Z[B * n + A];
}

cis_status sci_sigma_half(const cis_sci_space *S, int k, const double *C, double *Sig, int mode) {
  cis_status st;
  double *work = NULL, *px = NULL;
  int *par = NULL;
  const cis_int n = S->ndet, nb = S->B.n, np = S->npair, ml = S->A.max_links > 0 ? S->A.max_links : 1;
  const int T = n >= SCI_PARALLEL_MIN ? S->threads : 1;
  CIS_TRY(cis_alloc_array((void **)&par, k, sizeof(int), "sci half sigma parities"));
  for (int v = 0; v < k; ++v) par[v] = sci_parity(S, C + (cis_int)v * n);
  const int kv = sci_vectors_per_pass(S, T, k);
  const cis_int per_thread = np * ml + (ml + np) * (cis_int)kv * nb + ml;
  for (int v0 = 0; v0 < k;) {
    int v1 = v0 + 1; /* a run of vectors of one class (pure or not), at most kv */
    while (v1 < k && v1 - v0 < kv && (par[v1] != 0) == (par[v0] != 0)) ++v1;
    const double *c = C + (cis_int)v0 * n;
    double *s = Sig + (cis_int)v0 * n;
    if (!par[v0] && !mode) { /* auto: a mixed vector costs the general sigma's work either way */
      CIS_TRY(sci_sigma_general(S, v1 - v0, c, s));
      v0 = v1;
      continue;
    }
    if (!work) {
      CIS_TRY(cis_alloc_array((void **)&work, per_thread * T, sizeof(double), "sci half sigma workspace"));
      ci_gemm_init();
    }
    if (par[v0]) { /* S(c), then + t P S(c) */
      half_pass(S, v1 - v0, c, s, T, work, per_thread);
      for (int v = v0; v < v1; ++v) mirror(S, Sig + (cis_int)v * n, par[v]);
      __atomic_fetch_add(&S->counts->half, v1 - v0, __ATOMIC_RELAXED);
    } else { /* on, mixed: S(c) + P S(P c), one vector at a time */
      if (!px) CIS_TRY(cis_alloc_array((void **)&px, 2 * n, sizeof(double), "sci half sigma: P x and S(P x)"));
      for (int v = v0; v < v1; ++v) {
        const double *x = C + (cis_int)v * n;
        double *pxs = px + n;
        add_transpose(S, px, x, 1);
        half_pass(S, 1, x, Sig + (cis_int)v * n, T, work, per_thread);
        half_pass(S, 1, px, pxs, T, work, per_thread);
        add_transpose(S, Sig + (cis_int)v * n, pxs, 0);
      }
      __atomic_fetch_add(&S->counts->mixed, v1 - v0, __ATOMIC_RELAXED);
    }
    v0 = v1;
  }
  st = CIS_OK;
cleanup:
  cis_free(par), cis_free(work), cis_free(px);
  return st;
}
