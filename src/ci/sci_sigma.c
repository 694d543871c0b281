/* sci_sigma.c: sigma = P H P c on a selected-CI product space (cisparse/sci.h),
 * matrix-free, OpenMP over alpha strings.
 *
 * The string-driven sigma of Knowles & Handy (Chem. Phys. Lett. 111, 315
 * (1984)) and Olsen et al. (J. Chem. Phys. 89, 2185 (1988), eq. (14)-(20)),
 * restricted to the sets as in PySCF's selected_ci.contract_2e. With C the
 * n_alpha x n_beta matrix of the vector,
 *   sigma = (H_alpha x 1) C + (1 x H_beta) C + sum_pq,rs (pq|rs) (E^a_pq x E^b_rs) C,
 * H_spin the one-body and same-spin two-body Hamiltonian of one spin (the
 * sparse same-spin matrices of sci_links.c) and E^s_pq the single
 * replacements inside each set (p == q included: the opposite-spin Coulomb
 * terms). Row I of sigma (alpha string I) is one thread's:
 *   sigma[I,K]  = sum_J Ha[I,J] C[J,K] + sum_L Hb[K,L] C[I,L]
 *   G_I[y, l]   = s_l (x_l|y)              the signed columns of g for I's
 *                                          links l = (I -> J_l, pair x_l, s_l)
 *   W_I[y, L]   = sum_l G_I[y, l] C[J_l, L] (one GEMM: npair x links x n_beta)
 *   sigma[I,K] += sum over K's beta links (K -> L, pair y, t) of t W_I[y, L].
 * Never an intermediate over the complete string space; every sum runs in a
 * fixed order, so the result does not depend on the thread count. Equal
 * alpha and beta sets: cis_sci_sigma (sci_operator.c) hands vectors of one
 * alpha <-> beta parity to the half sigma (sci_half.c) unless the option
 * sci_half is off. */
#include <omp.h>
#include <stdlib.h>
#include "ci/ci_gemm.h"
#include "ci/ci_rules.h"
#include "ci/sci_internal.h"
#include "core/internal.h"

cis_status cis_sci_diagonal(const cis_sci_space *S, double *diag) {
  if (!S || !diag) return cis_error(CIS_ERR_INVALID, "sci diagonal: NULL argument");
  const int n = S->norb;
  const cis_int nb = S->B.n;
#pragma omp parallel for schedule(static) num_threads(S->threads) if (S->ndet >= SCI_PARALLEL_MIN)
  for (cis_int I = 0; I < S->A.n; ++I) {
    double v[64];
    for (int q = 0; q < n; ++q) v[q] = 0.0;
    for (uint64_t u = S->A.str[I]; u; u &= u - 1) {
      const double *Jp = S->coul + ci_lowest(u) * n;
      for (int q = 0; q < n; ++q) v[q] += Jp[q];
    }
    const cis_int hi = S->same ? I + 1 : nb;
    for (cis_int K = 0; K < hi; ++K) {
      double e = S->A.energy[I] + S->B.energy[K];
      for (uint64_t w = S->B.str[K]; w; w &= w - 1) e += v[ci_lowest(w)];
      diag[I * nb + K] = e;
    }
  }
  /* Equal sets: diag(I,K) = diag(K,I) bitwise (the sum's order depends on
   * which string is alpha), so that Davidson's preconditioner keeps a vector
   * of one alpha <-> beta parity so and the half sigma applies. */
  if (S->same)
#pragma omp parallel for schedule(dynamic, 16) num_threads(S->threads) if (S->ndet >= SCI_PARALLEL_MIN)
    for (cis_int I = 0; I < nb; ++I)
      for (cis_int K = I + 1; K < nb; ++K) diag[I * nb + K] = diag[K * nb + I];
  return CIS_OK;
}

/* Row I of sigma for kv vectors (c_v = C + v*n, s_v = Sig + v*n), with a
 * thread's workspace: G (npair x max_links), Cj (max_links x kv*nb), W
 * (npair x kv*nb). */
static void sigma_row(const cis_sci_space *S, cis_int I, int kv, const double *C, double *Sig, double *G, double *Cj,
                      double *W) {
  const cis_int nb = S->B.n, n = S->ndet, np = S->npair, m = (cis_int)kv * nb;
  const sci_set *A = &S->A, *B = &S->B;
  for (int v = 0; v < kv; ++v) { /* same-spin parts */
    const double *c = C + v * n;
    double *s = Sig + v * n + I * nb;
    sci_alpha_same(A, I, c, nb, s);
    const double *ci = c + I * nb;
    for (cis_int K = 0; K < nb; ++K) {
      double t = 0.0;
      for (int64_t e = B->same_ptr[K]; e < B->same_ptr[K + 1]; ++e) t += B->same_val[e] * ci[B->same_col[e]];
      s[K] += t;
    }
  }
  const ci_link *La = A->link + A->link_ptr[I];
  const int nl = (int)(A->link_ptr[I + 1] - A->link_ptr[I]);
  if (nl == 0 || B->link_ptr[nb] == 0) return; /* no electron of one spin: no opposite-spin term */
  for (cis_int y = 0; y < np; ++y)
    for (int l = 0; l < nl; ++l) G[y * nl + l] = La[l].sign * S->g[y * np + La[l].pair];
  for (int l = 0; l < nl; ++l)
    for (int v = 0; v < kv; ++v) {
      const double *cj = C + v * n + (cis_int)La[l].str * nb;
      double *d = Cj + l * m + v * nb;
      for (cis_int L = 0; L < nb; ++L) d[L] = cj[L];
    }
  ci_gemm_rm((int)np, m, nl, G, Cj, W);
  for (int v = 0; v < kv; ++v) sci_beta_scatter(B, W + v * nb, m, nb, Sig + v * n + I * nb);
}

int sci_vectors_per_pass(const cis_sci_space *S, int T, int k) {
  const cis_int nb = S->B.n, np = S->npair, ml = S->A.max_links > 0 ? S->A.max_links : 1;
  const double per_vec = 8.0 * T * (double)(ml + np) * (double)nb;
  int kv = (int)(SCI_WORK_CAP / per_vec);
  if (kv > k) kv = k;
  if ((double)kv * nb > (double)ci_gemm_max_n()) kv = (int)(ci_gemm_max_n() / nb);
  return kv < 1 ? 1 : kv;
}

cis_status sci_sigma_general(const cis_sci_space *S, int k, const double *C, double *Sig) {
  cis_status st;
  double *work = NULL;
  const cis_int nb = S->B.n, np = S->npair, ml = S->A.max_links > 0 ? S->A.max_links : 1;
  const int T = S->ndet >= SCI_PARALLEL_MIN ? S->threads : 1;
  const int kv = sci_vectors_per_pass(S, T, k);
  const cis_int per_thread = np * ml + (ml + np) * (cis_int)kv * nb;
  CIS_TRY(cis_alloc_array((void **)&work, per_thread * T, sizeof(double), "sci sigma workspace"));
  ci_gemm_init();
  for (int v0 = 0; v0 < k; v0 += kv) {
    const int g = k - v0 < kv ? k - v0 : kv;
    const double *c = C + (cis_int)v0 * S->ndet;
    double *s = Sig + (cis_int)v0 * S->ndet;
#pragma omp parallel num_threads(T) if (T > 1)
    {
      double *G = work + (cis_int)omp_get_thread_num() * per_thread, *Cj = G + np * ml, *W = Cj + ml * (cis_int)g * nb;
#pragma omp for schedule(dynamic, 1)
      for (cis_int I = 0; I < S->A.n; ++I) sigma_row(S, I, g, c, s, G, Cj, W);
    }
  }
  __atomic_fetch_add(&S->counts->general, k, __ATOMIC_RELAXED);
  st = CIS_OK;
cleanup:
  cis_free(work);
  return st;
}
