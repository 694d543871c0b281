/* sigma.c: the direct (matrix-free) CI sigma S = H C, string-driven with one
 * GEMM over orbital pairs per alpha string, alpha strings in blocks whose
 * intermediates stay under a cap (Knowles & Handy 1984; Olsen et al. 1988;
 * PySCF fci.direct_spin1); the MS2 = 0 time-reversal half sigma; point-group
 * symmetry blocked by irreps (sigma_irrep.c) or by projection. Contract,
 * equations and determinant order in cisparse/ci.h; strings and links in
 * strings.h. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "ci/ci_gemm.h"
#include "ci/ci_internal.h"
#include "ci/sigma_irrep.h"
#include "ci/strings.h"
#include "cisparse/operator.h"
#include "core/internal.h"

/* Below this many determinants a sigma takes microseconds: one thread, no
 * fork/join (which on a loaded machine costs more than the work). */
#define CI_DIRECT_PARALLEL_MIN 4096

struct cis_ci_direct {
  const cis_fcidump *F;
  int norb, na, nb, nelec;
  cis_int npair, nsa, nsb, ndet;
  ci_strings *A, *B; /* B == A when na == nb (one set, freed once) */
  double *g;         /* npair x npair: 1/2 g_pq,rs (h1 absorbed) */
  cis_int blk;       /* alpha strings x vectors per block: X holds blk x npair x nsb */
  cis_int vec_cap;   /* vectors one pass may take: each thread's D holds npair x vec_cap*nsb */
  int threads;       /* OpenMP threads the D buffers were sized for */
  double *Dw, *Xw;   /* threads x npair x vec_cap*nsb; blk x npair x nsb */
  double *tmp;       /* ndet, for operator applies with alpha != 1 or beta != 0 (lazily) */
  double *tmpc;      /* the same for the compact operator (ISYM determinants) */
  double *pure;      /* ndet (or compact size): a nearly pure vector made exactly so (lazily) */
  int project;       /* point-group symmetry: sigma masked to the ISYM determinants */
  int no_time_reversal; /* opts.no_time_reversal: never the half sigma */
  int target;        /* ISYM - 1 (0-based irrep, XOR of the orbitals' irreps) */
  int orbsym[CIS_CI_DIRECT_MAX_ORB]; /* F's ORBSYM at create (cis_ci_direct_set_integrals checks a new F against it) */
  uint8_t *syma, *symb; /* irrep of every alpha / beta string (project only) */
  ci_irrep_sigma *R;  /* the sigma blocked by irreps (project without opts.symmetry_projection) */
  cis_ci_direct_info info;
};

cis_ci_direct_opts ci_direct_opts_default(void) {
  cis_ci_direct_opts o = {0, 0, 0, 0, 0, 0};
  return o;
}

static double gib(double b) { return b / 1073741824.0; }

/* 1/2 g_pq,rs = 1/2 [(pq|rs) + (f_pq d_rs + d_pq f_rs) / N], f_pq = h_pq - 1/2 sum_r (pr|rq)
 * (PySCF direct_spin1.absorb_h1e with fac = 1/2). */
static void build_pair_matrix(const cis_fcidump *F, int nelec, double *g) {
  const int n = F->norb;
  const cis_int np = (cis_int)n * (n + 1) / 2;
  double f[CIS_CI_DIRECT_MAX_ORB * CIS_CI_DIRECT_MAX_ORB];
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) {
      double s = 0.0;
      for (int r = 0; r < n; ++r) s += ci_eri(F, p, r, r, q);
      f[p * n + q] = ci_h1(F, p, q) - 0.5 * s;
    }
  const double inv = nelec > 0 ? 1.0 / nelec : 0.0;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < n; ++p)
    for (int q = 0; q <= p; ++q) {
      const cis_int pq = ci_pair(p, q);
      for (int r = 0; r < n; ++r)
        for (int s = 0; s <= r; ++s) {
          const cis_int rs = ci_pair(r, s);
          double v = ci_eri(F, p, q, r, s);
          if (r == s) v += f[p * n + q] * inv;
          if (p == q) v += f[r * n + s] * inv;
          g[pq * np + rs] = 0.5 * v;
        }
    }
}

/* A value above any electronic energy, for the diagonal of the determinants
 * outside the ISYM irrep: Davidson never picks them as guesses and its
 * corrections there vanish (their residuals are zero). */
#define CI_DIRECT_OFF_IRREP 1e10

static int symmetry_trivial(const cis_fcidump *F) {
  if (F->isym != 1) return 0;
  for (int p = 0; p < F->norb; ++p)
    if (F->orbsym[p] != 1) return 0;
  return 1;
}

cis_status cis_ci_direct_create(const cis_fcidump *F, const cis_ci_direct_opts *o_in, cis_ci_direct **out) {
  cis_status st;
  cis_ci_direct *D = NULL;
  if (!F || !out) return cis_error(CIS_ERR_INVALID, "direct sigma: NULL argument");
  *out = NULL;
  if ((st = ci_fcidump_check_header(F)) != CIS_OK) return st;
  const cis_ci_direct_opts o = o_in ? *o_in : ci_direct_opts_default();
  const int norb = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  if (norb < 1 || norb > CIS_CI_DIRECT_MAX_ORB)
    return cis_error(CIS_ERR_UNSUPPORTED, "direct sigma: NORB = %d (1..%d supported)", norb, CIS_CI_DIRECT_MAX_ORB);
  if (na < 0 || nb < 0 || na > norb || nb > norb)
    return cis_error(CIS_ERR_INVALID, "direct sigma: %d alpha and %d beta electrons in %d orbitals", na, nb, norb);
  /* Sizes from binomials before any allocation. */
  const cis_int nsa = ci_binom(norb, na), nsb = ci_binom(norb, nb), np = (cis_int)norb * (norb + 1) / 2;
  cis_int ndet;
  if (cis_mul_overflows(nsa, nsb, &ndet))
    return cis_error(CIS_ERR_TOO_LARGE, "direct sigma: C(%d,%d) x C(%d,%d) = %lld x %lld determinants overflow 64 bits",
                     norb, na, norb, nb, (long long)nsa, (long long)nsb);
  const double mem = o.mem_limit > 0 ? (double)o.mem_limit : (double)cis_phys_memory();
  const double block_cap = o.block_bytes > 0 ? (double)o.block_bytes : 256.0 * 1048576.0;
  const int nvec = o.vectors > 0 ? o.vectors : 2;
  const double la = (double)nsa * (8.0 + 8.0 * na * (norb - na + 1));
  const double lb = na == nb ? 0.0 : (double)nsb * (8.0 + 8.0 * nb * (norb - nb + 1));
  /* Workspace: X for blk (alpha string, vector) rows and each thread's D for
   * vec_cap vectors of one alpha string; rowx = one npair x nsb slab. */
  const int threads = cis_threads();
  const double rowx = 8.0 * (double)np * (double)nsb;
  double cap = floor(block_cap / 4.0 / (threads * rowx));
  if (cap > 8) cap = 8;
  if (cap * (double)nsb > (double)ci_gemm_max_n()) cap = floor((double)ci_gemm_max_n() / (double)nsb);
  if (cap < 1) cap = 1;
  double blk = floor((block_cap - threads * cap * rowx) / rowx);
  if (blk > (double)nsa * cap) blk = (double)nsa * cap;
  if (blk < cap) blk = cap;
  /* Point-group symmetry blocked by irreps (sigma_irrep.h) needs none of the
   * C1 workspace: its own (sorted links, compact vectors, blocks) is added
   * below once the strings' irreps are known. */
  const int symmetric = !o.ignore_symmetry && !symmetry_trivial(F);
  const int blocked = symmetric && !o.symmetry_projection;
  double work = blocked ? 8.0 * (double)np * (double)np
                        : (threads * cap + blk) * rowx + 8.0 * (double)np * (double)np;
  const double vecs = 8.0 * (double)nvec * (double)ndet;
  if (nsa > INT32_MAX || nsb > INT32_MAX || (double)nsb > (double)ci_gemm_max_n() || la + lb + work + vecs > mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "direct sigma: %lld determinants (%lld alpha x %lld beta strings) need %.3f GiB "
                     "(links %.3f GiB, workspace %.3f GiB, %d vectors %.3f GiB) > %.3f GiB of memory",
                     (long long)ndet, (long long)nsa, (long long)nsb, gib(la + lb + work + vecs), gib(la + lb),
                     gib(work), nvec, gib(vecs), gib(mem));
  CIS_TRY(cis_alloc_zeroed((void **)&D, 1, sizeof *D, "direct sigma"));
  D->F = F;
  D->norb = norb;
  D->na = na;
  D->nb = nb;
  D->nelec = na + nb;
  D->npair = np;
  D->nsa = nsa;
  D->nsb = nsb;
  D->ndet = ndet;
  D->blk = (cis_int)blk;
  D->vec_cap = (cis_int)cap;
  D->threads = threads;
  ci_gemm_init();
  CIS_TRY(ci_strings_create(norb, na, &D->A));
  if (na == nb) D->B = D->A;
  else CIS_TRY(ci_strings_create(norb, nb, &D->B));
  D->project = symmetric;
  D->no_time_reversal = o.no_time_reversal;
  D->target = F->isym - 1;
  for (int p = 0; p < norb; ++p) D->orbsym[p] = F->orbsym[p];
  cis_int nsym = ndet;
  if (D->project) { /* irreps of the strings; determinants of the target irrep */
    CIS_TRY(cis_alloc_array((void **)&D->syma, nsa, 1, "alpha string irreps"));
    CIS_TRY(cis_alloc_array((void **)&D->symb, nsb, 1, "beta string irreps"));
    cis_int cnt[8] = {0};
    for (cis_int A = 0; A < nsa; ++A) D->syma[A] = (uint8_t)(ci_string_sym(F, D->A->str[A]) & 7);
    for (cis_int B = 0; B < nsb; ++B) D->symb[B] = (uint8_t)(ci_string_sym(F, D->B->str[B]) & 7), cnt[D->symb[B]]++;
    nsym = 0;
    for (cis_int A = 0; A < nsa; ++A) nsym += cnt[(D->syma[A] ^ D->target) & 7];
    if (nsym == 0) {
      char isym[48];
      st = cis_error(CIS_ERR_INVALID, "direct sigma: no determinants of symmetry %s", ci_isym_text(F, isym, sizeof isym));
      goto cleanup;
    }
  }
  if (blocked) {
    cis_int nb_sym;
    work += ci_irrep_sigma_bytes(F, D->A, D->B, D->target, threads, block_cap, &nb_sym);
    if (la + lb + work + vecs > mem) {
      st = cis_error(CIS_ERR_TOO_LARGE,
                     "direct sigma: %lld determinants of irrep ISYM %d (%lld alpha x %lld beta strings) need "
                     "%.3f GiB (links %.3f GiB, workspace %.3f GiB, %d vectors %.3f GiB) > %.3f GiB of memory",
                     (long long)nb_sym, F->isym, (long long)nsa, (long long)nsb, gib(la + lb + work + vecs),
                     gib(la + lb), gib(work), nvec, gib(vecs), gib(mem));
      goto cleanup;
    }
  }
  CIS_TRY(cis_alloc_array((void **)&D->g, np * np, sizeof(double), "direct sigma pair matrix"));
  if (!blocked) {
    CIS_TRY(cis_alloc_array((void **)&D->Dw, np * nsb * D->vec_cap * threads, sizeof(double), "direct sigma D buffers"));
    CIS_TRY(cis_alloc_array((void **)&D->Xw, np * D->blk * nsb, sizeof(double), "direct sigma X block"));
  }
  build_pair_matrix(F, D->nelec, D->g);
  if (blocked) CIS_TRY(ci_irrep_sigma_create(F, D->A, D->B, D->g, D->target, threads, block_cap, &D->R));
  D->info = (cis_ci_direct_info){ndet, nsa, nsb, np, D->A->nlink, D->B->nlink, D->blk < nsa ? D->blk : nsa, threads, (int64_t)(la + lb),
                                 (int64_t)work, (int64_t)vecs, ci_gemm_name(), 0, 0.0, 0.0, nsym, D->project, 0,
                                 blocked};
  *out = D;
  return CIS_OK;
cleanup:
  cis_ci_direct_free(D);
  return st;
}

cis_status cis_ci_direct_set_integrals(cis_ci_direct *D, const cis_fcidump *F) {
  if (!D || !F) return cis_error(CIS_ERR_INVALID, "direct sigma: set integrals: NULL argument");
  cis_status st = ci_fcidump_check_header(F);
  if (st != CIS_OK) return st;
  if (F->norb != D->norb || cis_fcidump_nalpha(F) != D->na || cis_fcidump_nbeta(F) != D->nb)
    return cis_error(CIS_ERR_INVALID,
                     "direct sigma: set integrals: %d orbitals, %d alpha and %d beta electrons, the space has %d, %d, %d",
                     F->norb, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), D->norb, D->na, D->nb);
  if (F->isym - 1 != D->target)
    return cis_error(CIS_ERR_INVALID, "direct sigma: set integrals: ISYM %d, the space has %d", F->isym, D->target + 1);
  for (int p = 0; p < D->norb; ++p)
    if (F->orbsym[p] != D->orbsym[p])
      return cis_error(CIS_ERR_INVALID, "direct sigma: set integrals: orbital %d in irrep %d, the space has %d", p + 1,
                       F->orbsym[p], D->orbsym[p]);
  D->F = F;
  build_pair_matrix(F, D->nelec, D->g);
  if (D->R) ci_irrep_sigma_set_pairs(D->R, F, D->g);
  return CIS_OK;
}

void cis_ci_direct_free(cis_ci_direct *D) {
  if (!D) return;
  if (D->B != D->A) ci_strings_free(D->B);
  ci_strings_free(D->A);
  cis_free(D->g);
  cis_free(D->Dw);
  cis_free(D->Xw);
  cis_free(D->tmp);
  cis_free(D->tmpc);
  cis_free(D->pure);
  cis_free(D->syma);
  cis_free(D->symb);
  ci_irrep_sigma_free(D->R);
  cis_free(D);
}

cis_int cis_ci_direct_size(const cis_ci_direct *D) { return D ? D->ndet : 0; }

void ci_direct_get_view(const cis_ci_direct *D, ci_direct_view *v) {
  *v = (ci_direct_view){D->norb, D->na, D->nb, D->nelec, D->npair, D->nsa, D->nsb, D->ndet, D->A->nlink,
                        D->B->nlink, D->A->link, D->B->link, D->g, D->project, D->target, D->syma, D->symb,
                        D->A == D->B, D->no_time_reversal, D->R, D->orbsym};
}
void ci_direct_get_info(const cis_ci_direct *D, cis_ci_direct_info *info) { *info = D->info; }
void ci_direct_set_info(cis_ci_direct *D, const cis_ci_direct_info *info) { D->info = *info; }

void cis_ci_direct_det(const cis_ci_direct *D, cis_int i, uint64_t *alpha, uint64_t *beta) {
  *alpha = D->A->str[i / D->nsb];
  *beta = D->B->str[i % D->nsb];
}

cis_int ci_direct_find(const cis_ci_direct *D, uint64_t alpha, uint64_t beta) {
  if (ci_popcount(alpha) != D->na || ci_popcount(beta) != D->nb) return -1;
  if (D->norb < 64 && ((alpha | beta) >> D->norb)) return -1;
  return ci_string_addr(alpha) * D->nsb + ci_string_addr(beta);
}

/* Rows and columns of a tile of the diagonal's mirror copy: 64 x 64 doubles
 * (32 KiB written, each source cache line read for 8 rows in turn). */
#define DIAG_TILE 64

/* diag(A,B) = E(A) + E(B) + sum_{q in B} v_A[q], v_A[q] = sum_{p in A} (pp|qq):
 * the Slater-Condon diagonal (ci_rule_diagonal) split into its string
 * parts, the same-spin energies E once per string and the opposite-spin
 * Coulomb sum through v_A once per alpha string, so a determinant costs nb
 * additions instead of O(norb^2) integral look-ups. */
cis_status ci_direct_diagonal(const cis_ci_direct *D, double *diag) {
  cis_status st;
  double *ea = NULL, *eb = NULL;
  if (!D || !diag) return cis_error(CIS_ERR_INVALID, "direct diagonal: NULL argument");
  const int n = D->norb;
  double J[CIS_CI_MAX_ORB * CIS_CI_MAX_ORB];
  const ci_ints I = ci_ints_of(D->F);
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) J[p * n + q] = ci_ints_eri(&I, p, p, q, q);
  CIS_TRY(cis_alloc_array((void **)&ea, D->nsa, sizeof(double), "alpha string energies"));
  CIS_TRY(cis_alloc_array((void **)&eb, D->nsb, sizeof(double), "beta string energies"));
#pragma omp parallel for schedule(static) if (D->nsa >= 256)
  for (cis_int A = 0; A < D->nsa; ++A) ea[A] = ci_rule_same_spin_energy(&I, D->A->str[A]);
#pragma omp parallel for schedule(static) if (D->nsb >= 256)
  for (cis_int B = 0; B < D->nsb; ++B) eb[B] = ci_rule_same_spin_energy(&I, D->B->str[B]);
  /* With one string set (MS2 = 0) the diagonal is made exactly symmetric,
   * diag(A,B) = diag(B,A) bitwise (the sum's order depends on which string
   * is alpha), so that Davidson's preconditioner keeps (anti)symmetric
   * vectors exactly so (the half sigma then applies). */
  const int mirror = D->A == D->B;
  const cis_int nsb = D->nsb;
#pragma omp parallel for schedule(dynamic, 16) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  for (cis_int A = 0; A < D->nsa; ++A) {
    double v[CIS_CI_MAX_ORB];
    for (int q = 0; q < n; ++q) v[q] = 0.0;
    for (uint64_t u = D->A->str[A]; u; u &= u - 1) {
      const double *Jp = J + ci_lowest(u) * n;
      for (int q = 0; q < n; ++q) v[q] += Jp[q];
    }
    const cis_int hi = mirror ? A + 1 : nsb;
    for (cis_int B = 0; B < hi; ++B) {
      double e = ea[A] + eb[B];
      for (uint64_t w = D->B->str[B]; w; w &= w - 1) e += v[ci_lowest(w)];
      diag[A * nsb + B] =
          D->project && ((D->syma[A] ^ D->symb[B]) & 7) != D->target ? CI_DIRECT_OFF_IRREP : e;
    }
  }
  if (mirror) { /* the upper triangle copied from the lower in tiles: each column read a cache line at a time */
    const cis_int T = DIAG_TILE, tiles = (nsb + T - 1) / T;
#pragma omp parallel for schedule(dynamic, 1) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
    for (cis_int ta = 0; ta < tiles; ++ta)
      for (cis_int tb = ta; tb < tiles; ++tb) {
        const cis_int a1 = (ta + 1) * T < nsb ? (ta + 1) * T : nsb, b1 = (tb + 1) * T < nsb ? (tb + 1) * T : nsb;
        for (cis_int A = ta * T; A < a1; ++A)
          for (cis_int B = tb == ta ? A + 1 : tb * T; B < b1; ++B) diag[A * nsb + B] = diag[B * nsb + A];
      }
  }
  st = CIS_OK;
cleanup:
  cis_free(ea);
  cis_free(eb);
  return st;
}

/* [lo, hi) of n split evenly over the threads of the current team. */
static void thread_range(cis_int n, cis_int *lo, cis_int *hi) {
  const cis_int t = omp_get_thread_num(), T = omp_get_num_threads();
  *lo = n * t / T;
  *hi = n * (t + 1) / T;
}

/* One block: alpha strings a0 .. a0+nr-1 of gv vectors (C_v at C + v*n).
 * Phase 1, one thread per alpha string A (its D_A in the thread's buffer,
 * npair x gv*nsb, L2-sized for the usual spaces):
 *   D_A[rs, (v,B)] = (E_rs c_v)(A,B): alpha links of A (rows J of c) and beta
 *                    links of every B (within row A);
 *   X_A = (1/2 g) D_A                (one GEMM, single-threaded in the thread);
 *   sigma_v(A, I) += s X_A[pq, (v,B)] over the beta links a^+_p a_q|B> = s|I>
 *                    (row A of sigma is this thread's alone).
 * Phase 2, threads own ranges of beta strings:
 *   sigma_v(I, B) += s X_A[pq, (v,B)] over the alpha links a^+_p a_q|A> = s|I>.
 * No element of sigma is written by two threads, and every sum runs in a
 * fixed order: the result does not depend on the thread count. */
static void sigma_block(cis_ci_direct *D, int gv, cis_int a0, cis_int nr, const double *C, double *S) {
  const cis_int nsb = D->nsb, n = D->ndet, m = (cis_int)gv * nsb, np = D->npair;
  const ci_link *La = D->A->link, *Lb = D->B->link;
  const int nla = D->A->nlink, nlb = D->B->nlink;
  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(D->threads) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  {
    double *Dt = D->Dw + (cis_int)omp_get_thread_num() * np * m;
#pragma omp for schedule(dynamic, 1)
    for (cis_int ia = 0; ia < nr; ++ia) {
      const cis_int A = a0 + ia;
      double *X = D->Xw + ia * np * m;
      for (cis_int pq = 0; pq < np * m; ++pq) Dt[pq] = 0.0;
      for (int v = 0; v < gv; ++v) {
        const double *c = C + v * n;
        for (int l = 0; l < nla; ++l) {
          const ci_link k = La[A * nla + l];
          const double s = k.sign, *cj = c + (cis_int)k.str * nsb;
          double *d = Dt + (cis_int)k.pair * m + v * nsb;
          for (cis_int ib = 0; ib < nsb; ++ib) d[ib] += s * cj[ib];
        }
        const double *crow = c + A * nsb;
        for (cis_int ib = 0; ib < nsb; ++ib) {
          const ci_link *L = Lb + ib * nlb;
          double *d = Dt + v * nsb + ib;
          for (int l = 0; l < nlb; ++l) d[(cis_int)L[l].pair * m] += L[l].sign * crow[L[l].str];
        }
      }
      ci_gemm_rm((int)np, m, (int)np, D->g, Dt, X);
      for (int v = 0; v < gv; ++v) {
        double *sg = S + v * n + A * nsb;
        for (cis_int ib = 0; ib < nsb; ++ib) {
          const ci_link *L = Lb + ib * nlb;
          const double *x = X + v * nsb + ib;
          for (int l = 0; l < nlb; ++l) sg[L[l].str] += L[l].sign * x[(cis_int)L[l].pair * m];
        }
      }
    }
  }
  double t1 = omp_get_wtime();
#pragma omp parallel num_threads(D->threads) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  {
    cis_int b0, b1;
    thread_range(nsb, &b0, &b1);
    for (cis_int ia = 0; ia < nr; ++ia) {
      const cis_int A = a0 + ia;
      const double *X = D->Xw + ia * np * m;
      for (int l = 0; l < nla; ++l) {
        const ci_link k = La[A * nla + l];
        const double s = k.sign;
        for (int v = 0; v < gv; ++v) {
          const double *x = X + (cis_int)k.pair * m + v * nsb;
          double *sg = S + v * n + (cis_int)k.str * nsb;
          for (cis_int ib = b0; ib < b1; ++ib) sg[ib] += s * x[ib];
        }
      }
    }
  }
  D->info.phase1_seconds += t1 - t0;
  D->info.phase2_seconds += omp_get_wtime() - t1;
}

/* Time-reversal half sigma (MS2 = 0, one vector with c(A,B) = t c(B,A), t = +-1,
 * exactly). Then D(B,A) = t D(A,B) and X(B,A) = t X(A,B): only the columns
 * B <= A of each alpha string A are gathered and multiplied (half the GEMM).
 * With X_L the lower triangle of X (B <= A) and X_L' its strict part, the
 * alpha scatter of the upper triangle is t times the transpose of the beta
 * scatter of X_L', and the beta half of sigma is t times the transpose of
 * the alpha half, so
 *   sigma = Q + t Q^T,  Q = E^a X_L + E^b X_L':
 *   (i)  rows R, columns C <= R, alpha links of R:  Q(I, C) += s X(R, C)
 *   (ii) row A, columns B < A, beta links of B:     Q(A, I) += s X(A, B)
 * (ii) is row-local (phase 1, the thread of A); (i) by threads owning column
 * ranges balanced by work (phase 2). Then S <- S + t S^T, exactly
 * (anti)symmetric. X rows are stored compactly (row R has R+1 columns, at
 * Xw + ia*npair*nsb with stride R+1). */
static void sigma_block_half(cis_ci_direct *D, cis_int a0, cis_int nr, const double *c, double *S) {
  const cis_int nsb = D->nsb, np = D->npair;
  const ci_link *L = D->A->link;
  const int nl = D->A->nlink;
  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(D->threads) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  {
    double *Dt = D->Dw + (cis_int)omp_get_thread_num() * np * D->vec_cap * nsb;
#pragma omp for schedule(dynamic, 1)
    for (cis_int ia = 0; ia < nr; ++ia) {
      const cis_int A = a0 + ia, m = A + 1;
      double *X = D->Xw + ia * np * nsb;
      for (cis_int pq = 0; pq < np * m; ++pq) Dt[pq] = 0.0;
      for (int l = 0; l < nl; ++l) { /* alpha links of A: D[pq, B] += s c(J, B), B <= A */
        const ci_link k = L[A * nl + l];
        const double s = k.sign, *cj = c + (cis_int)k.str * nsb;
        double *d = Dt + (cis_int)k.pair * m;
        for (cis_int ib = 0; ib < m; ++ib) d[ib] += s * cj[ib];
      }
      const double *crow = c + A * nsb;
      for (cis_int ib = 0; ib < m; ++ib) { /* beta links of B: D[pq, B] += s c(A, J) */
        const ci_link *Lb = L + ib * nl;
        double *d = Dt + ib;
        for (int l = 0; l < nl; ++l) d[(cis_int)Lb[l].pair * m] += Lb[l].sign * crow[Lb[l].str];
      }
      ci_gemm_rm((int)np, m, (int)np, D->g, Dt, X);
      /* (ii): row A of Q: beta links of B < A */
      double *sg = S + A * nsb;
      for (cis_int ib = 0; ib < A; ++ib) {
        const ci_link *Lb = L + ib * nl;
        const double *x = X + ib;
        for (int l = 0; l < nl; ++l) sg[Lb[l].str] += Lb[l].sign * x[(cis_int)Lb[l].pair * m];
      }
    }
  }
  double t1 = omp_get_wtime();
#pragma omp parallel num_threads(D->threads) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  {
    /* (i) for column c covers the block's rows R >= c: split the columns so
     * that every thread gets the same number of (row, column) pairs. */
    const cis_int T = omp_get_num_threads(), me = omp_get_thread_num();
    const double total = (double)nr * (double)a0 + (double)nr * (double)(nr + 1) / 2.0;
    /* boundary j = number of columns whose prefix weight is below j/T of the
     * total: the same formula on every thread, so the ranges tile 0..nsb. */
    const double lo_thr = total * (double)me / (double)T, hi_thr = total * (double)(me + 1) / (double)T;
    cis_int b0 = 0, b1 = 0;
    double prefix = 0.0;
    for (cis_int c = 0; c < nsb; ++c) {
      b0 += me > 0 && prefix < lo_thr;
      b1 += prefix < hi_thr;
      const cis_int lo = c > a0 ? c : a0, w = a0 + nr - lo;
      prefix += w > 0 ? (double)w : 0.0;
    }
    if (me == T - 1) b1 = nsb;
    for (cis_int ia = 0; ia < nr; ++ia) { /* (i): columns b0..b1-1 of Q are this thread's */
      const cis_int R = a0 + ia, m = R + 1, hi = b1 < m ? b1 : m;
      const double *X = D->Xw + ia * np * nsb;
      if (b0 < hi)
        for (int l = 0; l < nl; ++l) {
          const ci_link k = L[R * nl + l];
          const double s = k.sign, *x = X + (cis_int)k.pair * m;
          double *sg = S + (cis_int)k.str * nsb;
          for (cis_int ib = b0; ib < hi; ++ib) sg[ib] += s * x[ib];
        }
    }
  }
  D->info.phase1_seconds += t1 - t0;
  D->info.phase2_seconds += omp_get_wtime() - t1;
}

/* Davidson's vectors are (anti)symmetric under alpha <-> beta only to
 * round-off once both parities are in its subspace (a Gram-Schmidt
 * coefficient or a Ritz combination of about 1e-17 across parities), so an
 * exact test would rarely allow the half sigma: within CI_PARITY_TOL
 * (ci_internal.h) the sigma of the pure part is taken. */

/* The scratch vector for the pure part (ndet doubles, room for the compact
 * layout too; made once); NULL when it cannot be allocated (then the caller
 * takes the full sigma). */
static double *pure_scratch(cis_ci_direct *D) {
  if (!D->pure && cis_alloc_array((void **)&D->pure, D->ndet, sizeof(double), "pure part of a CI vector") != CIS_OK) {
    cis_clear_error();
    return NULL;
  }
  return D->pure;
}

int ci_transpose_parity(const double *x, cis_int n, double tol, int threads, int *exact) {
  double norm = 0, dsym = 0, danti = 0; /* ||x||^2, ||x - x^T||^2 / 2, ||x + x^T||^2 / 2 */
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads()) \
    reduction(+ : norm, dsym, danti) if (n * n >= CI_DIRECT_PARALLEL_MIN)
  for (cis_int A = 0; A < n; ++A)
    for (cis_int B = 0; B <= A; ++B) {
      const double u = x[A * n + B], v = x[B * n + A];
      norm += B == A ? u * u : u * u + v * v;
      dsym += B == A ? 0.0 : (u - v) * (u - v);
      danti += B == A ? 2.0 * u * u : (u + v) * (u + v);
    }
  const int t = dsym <= tol * norm ? 1 : danti <= tol * norm ? -1 : 0;
  if (exact) *exact = t && (t > 0 ? dsym : danti) == 0;
  return t;
}

/* ci_transpose_parity of D's ns x ns vector x. */
static int parity_of(const cis_ci_direct *D, const double *x, double tol, int *exact) {
  return ci_transpose_parity(x, D->nsa, tol, 0, exact);
}

/* out = (x + t x^T) / 2, the diagonal zero for t = -1; out == x allowed (each
 * mirror pair read, then written). */
static void purify(const cis_ci_direct *D, const double *x, int t, double *out) {
  const cis_int n = D->nsa;
#pragma omp parallel for schedule(static) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  for (cis_int A = 0; A < n; ++A)
    for (cis_int B = 0; B <= A; ++B) {
      if (B == A) { out[A * n + A] = t > 0 ? x[A * n + A] : 0.0; continue; }
      const double u = 0.5 * (x[A * n + B] + t * x[B * n + A]);
      out[A * n + B] = u;
      out[B * n + A] = t * u;
    }
}

/* +1 or -1 when x(A,B) = t x(B,A) for all A, B to CI_PARITY_TOL, 0 otherwise
 * or when the alpha and beta strings differ; *use = x when exactly so,
 * else D->pure holding the pure part of x. */
static int transpose_parity(cis_ci_direct *D, const double *x, const double **use) {
  int exact;
  *use = x;
  if (D->A != D->B || D->no_time_reversal) return 0;
  const int t = parity_of(D, x, CI_PARITY_TOL, &exact);
  if (!t || exact) return t;
  double *p = pure_scratch(D);
  if (!p) return 0;
  purify(D, x, t, p);
  *use = p;
  return t;
}

int ci_direct_time_reversal(const cis_ci_direct *D, double *c) {
  int exact;
  if (!D || !c || D->A != D->B || D->no_time_reversal) return 0;
  const int t = parity_of(D, c, CI_PURE_TOL, &exact);
  if (t && !exact) purify(D, c, t, c);
  return t;
}

cis_status cis_ci_direct_correct_c1(void *ctx, void *t, cis_stream s) {
  (void)s;
  if (ctx && t) ci_direct_time_reversal(ctx, t);
  return CIS_OK;
}

cis_status cis_ci_direct_correct_compact(void *ctx, void *t, cis_stream s) {
  const cis_ci_direct *D = ctx;
  (void)s;
  if (!D || !t || !D->R) return cis_ci_direct_correct_c1(ctx, t, s);
  if (!D->no_time_reversal) ci_irrep_time_reversal(D->R, t);
  return CIS_OK;
}

/* g = s + a, s = (g + g^T)/2 in place; a = (g - g^T)/2 into anti when not
 * NULL (each exactly pure by construction); *ns, *na their squared norms. */
static void split_c1(const cis_ci_direct *D, double *g, double *anti, double *ns_out, double *na_out) {
  const cis_int n = D->nsa;
  double ns = 0, na = 0;
  for (cis_int A = 0; A < n; ++A)
    for (cis_int B = 0; B <= A; ++B) {
      const double u = g[A * n + B], w = g[B * n + A], sy = 0.5 * (u + w), an = 0.5 * (u - w);
      g[A * n + B] = g[B * n + A] = sy;
      ns += B == A ? sy * sy : 2 * sy * sy;
      if (anti) {
        anti[A * n + B] = an;
        anti[B * n + A] = -an;
      }
      na += 2 * an * an;
    }
  *ns_out = ns, *na_out = na;
}

cis_status ci_direct_split_guesses(const cis_ci_direct *D, int compact, double *guess, int nin, int cap, int *nout,
                                   int *sector) {
  if (!D || !guess || !nout || nin < 0 || cap < nin)
    return cis_error(CIS_ERR_INVALID, "ci_direct_split_guesses: NULL argument or %d guesses in room for %d", nin, cap);
  if (D->A != D->B) return cis_error(CIS_ERR_INVALID, "alpha <-> beta parities need one string set");
  compact = compact && D->R;
  const cis_int len = compact ? ci_irrep_sigma_size(D->R) : D->ndet;
  int m = nin;
  for (int v = 0; v < nin; ++v) {
    double *g = guess + (size_t)v * (size_t)len, *a = m < cap ? guess + (size_t)m * (size_t)len : NULL, ns, na;
    int exact;
    const int t = compact ? ci_irrep_parity(D->R, g, CI_PURE_TOL, &exact) : parity_of(D, g, CI_PURE_TOL, &exact);
    if (sector) sector[v] = t < 0;
    if (t) { /* near one parity: made exactly so */
      if (!exact) {
        if (compact) ci_irrep_purify(D->R, g, t, g);
        else purify(D, g, t, g);
      }
      continue;
    }
    if (compact) ci_irrep_split(D->R, g, a, &ns, &na);
    else split_c1(D, g, a, &ns, &na);
    if (!a || !(na > 1e-20 * (ns + na))) continue; /* no room, or a part that is (numerically) zero */
    if (sector) sector[m] = 1;
    ++m;
  }
  *nout = m;
  return CIS_OK;
}

cis_status ci_direct_parity_correct(void *ctx, void *t, cis_stream s) {
  const ci_direct_parity_ctx *c = ctx;
  (void)s;
  if (!c || !c->D || !t || c->D->A != c->D->B) return CIS_OK;
  if (c->compact && c->D->R) ci_irrep_purify(c->D->R, t, c->want, t);
  else purify(c->D, t, c->want, t);
  return CIS_OK;
}

cis_status cis_ci_direct_pure_guesses(const cis_ci_direct *D, double *guess, int nin, int cap, int *nout) {
  if (!D || !guess || !nout || nin < 0 || cap < nin)
    return cis_error(CIS_ERR_INVALID, "cis_ci_direct_pure_guesses: NULL argument or %d guesses in room for %d", nin, cap);
  *nout = nin;
  if (D->A != D->B || D->no_time_reversal) return CIS_OK; /* no half sigma to keep */
  return ci_direct_split_guesses(D, 0, guess, nin, cap, nout, NULL);
}

cis_status cis_ci_direct_keep_symmetric(const cis_ci_direct *D, int compact, double *guess, int nin, int *nout) {
  if (!D || !guess || !nout || nin < 0)
    return cis_error(CIS_ERR_INVALID, "cis_ci_direct_keep_symmetric: NULL argument or %d guesses", nin);
  if (D->A != D->B || D->no_time_reversal)
    return cis_error(CIS_ERR_INVALID, "alpha <-> beta symmetric vectors need one string set and time reversal on");
  compact = compact && D->R;
  const cis_int len = compact ? ci_irrep_sigma_size(D->R) : D->ndet;
  int m = 0;
  for (int v = 0; v < nin; ++v) {
    double *g = guess + (size_t)v * (size_t)len;
    int exact;
    const int t = compact ? ci_irrep_parity(D->R, g, CI_PURE_TOL, &exact) : parity_of(D, g, CI_PURE_TOL, &exact);
    if (t <= 0) continue;
    if (m != v) memcpy(guess + (size_t)m * (size_t)len, g, (size_t)len * sizeof(double));
    ++m;
  }
  *nout = m;
  return CIS_OK;
}

/* S (zeroed by the caller) += the contributions of the alpha strings
 * lo .. hi-1 to H C for k C1 vectors: their gathers, products and scatters
 * (sigma_block / sigma_block_half), then the half sigma's S <- S + t S^T and
 * the projection, both linear, so that the parts of a split sum to the
 * whole sigma. The half sigma for one exactly or nearly pure vector. */
static void c1_sigma_rows(cis_ci_direct *D, int k, const double *C, double *S, cis_int lo, cis_int hi) {
  const cis_int n = D->ndet, total = n * k;
  const double *C1 = C; /* k == 1: C, or its exactly pure part */
  const cis_int g = k < D->vec_cap ? k : D->vec_cap, r = D->blk / g > 0 ? D->blk / g : 1;
  const int parity = k == 1 ? transpose_parity(D, C, &C1) : 0;
  if (parity) { /* half the work, then S <- S + t S^T */
    const double t = parity;
    const cis_int rr = D->blk, ns = D->nsa;
    for (cis_int a0 = lo; a0 < hi; a0 += rr) sigma_block_half(D, a0, hi - a0 < rr ? hi - a0 : rr, C1, S);
    const cis_int T = 32, nt = (ns + T - 1) / T; /* 32 x 32 tiles: both sides in cache */
#pragma omp parallel for schedule(dynamic, 1) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
    for (cis_int ta = 0; ta < nt; ++ta)
      for (cis_int tb = 0; tb <= ta; ++tb)
        for (cis_int A = ta * T; A < (ta + 1) * T && A < ns; ++A)
          for (cis_int B = tb * T; B < (tb + 1) * T && B <= A; ++B) {
            if (B == A) { S[A * ns + A] += t * S[A * ns + A]; continue; }
            const double u = S[A * ns + B] + t * S[B * ns + A];
            S[A * ns + B] = u;
            S[B * ns + A] = t * u;
          }
    D->info.half_sigmas += lo == 0; /* once per product when split into parts */
  }
  for (int v0 = 0; v0 < k && !parity; v0 += (int)g) {
    const int gv = k - v0 < g ? k - v0 : (int)g;
    for (cis_int a0 = lo; a0 < hi; a0 += r)
      sigma_block(D, gv, a0, hi - a0 < r ? hi - a0 : r, C + (cis_int)v0 * n, S + (cis_int)v0 * n);
  }
  if (D->project) { /* S = P H C = P H P C: H commutes with the irrep projector P */
#pragma omp parallel for schedule(static) if (total >= CI_DIRECT_PARALLEL_MIN)
    for (cis_int i = 0; i < total; ++i) {
      const cis_int j = i % n;
      if (((D->syma[j / D->nsb] ^ D->symb[j % D->nsb]) & 7) != D->target) S[i] = 0.0;
    }
  }
}

/* The compact vector x's time-reversal parity for the half sigma, with the
 * pure part in D->pure when x is only nearly pure (*use: what to multiply). */
static int compact_parity(cis_ci_direct *D, const double *x, const double **use) {
  int exact = 0;
  *use = x;
  int tr = D->A == D->B && !D->no_time_reversal ? ci_irrep_parity(D->R, x, CI_PARITY_TOL, &exact) : 0;
  if (tr && !exact) { /* nearly pure: its pure part (transpose_parity's comment) */
    double *p = pure_scratch(D);
    if (p) ci_irrep_purify(D->R, x, tr, p);
    else tr = 0;
    *use = p ? p : x;
  }
  return tr;
}

cis_status cis_ci_direct_sigma(cis_ci_direct *D, int k, const double *C, double *S) {
  if (!D || !C || !S || k < 1) return cis_error(CIS_ERR_INVALID, "direct sigma: NULL argument or k = %d < 1", k);
  const cis_int n = D->ndet;
  cis_first_touch(S, n * k); /* zeroed by all threads */
  D->info.sigma_vectors += k;
  if (D->nelec == 0) return CIS_OK; /* the vacuum: H = 0 (electronic) */
  /* The workspace holds blk alpha strings of one vector (X) and one per
   * thread (D); k vectors share a pass when they fit: g vectors of r alpha
   * strings per block. */
  if (D->R) { /* blocked by irreps: the target irrep's determinants only */
    const double *C1 = C;
    const int tr = k == 1 ? transpose_parity(D, C, &C1) : 0;
    for (int v = 0; v < k; ++v)
      ci_irrep_sigma_apply(D->R, k == 1 ? C1 : C + (cis_int)v * n, tr, S + (cis_int)v * n, &D->info.phase1_seconds,
                           &D->info.phase2_seconds);
    D->info.half_sigmas += tr != 0;
    return CIS_OK;
  }
  c1_sigma_rows(D, k, C, S, 0, D->nsa);
  return CIS_OK;
}

cis_status ci_direct_sigma_part(cis_ci_direct *D, int compact, const double *x, double *y, cis_int lo, cis_int hi) {
  compact = compact && D->R;
  const cis_int n = compact ? ci_irrep_sigma_size(D->R) : D->ndet;
  if (lo < 0 || hi > D->nsa || lo > hi)
    return cis_error(CIS_ERR_INVALID, "direct sigma part: alpha strings %lld .. %lld of %lld", (long long)lo,
                     (long long)hi - 1, (long long)D->nsa);
  cis_first_touch(y, n);
  if (lo == 0) D->info.sigma_vectors++; /* one product, counted by the part that starts it */
  if (D->nelec == 0 || lo == hi) return CIS_OK;
  if (!compact) {
    if (D->R) return cis_error(CIS_ERR_INVALID, "direct sigma part: a space blocked by irreps takes compact vectors");
    c1_sigma_rows(D, 1, x, y, lo, hi);
    return CIS_OK;
  }
  const double *use;
  const int tr = compact_parity(D, x, &use);
  D->info.half_sigmas += tr != 0 && lo == 0;
  ci_irrep_sigma_compact_range(D->R, use, tr, y, lo, hi, &D->info.phase1_seconds, &D->info.phase2_seconds);
  return CIS_OK;
}

void ci_fill_random(double *x, cis_int n) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (cis_int i = 0; i < n; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}

void ci_direct_alpha_rows(const cis_ci_direct *D, int compact, cis_int *off) {
  if (compact && D->R) {
    ci_irrep_view v;
    ci_irrep_get_view(D->R, &v);
    memcpy(off, v.off, (size_t)(D->nsa + 1) * sizeof(cis_int));
    return;
  }
  for (cis_int A = 0; A <= D->nsa; ++A) off[A] = A * D->nsb;
}

double ci_direct_alpha_work(const cis_ci_direct *D, int compact, cis_int A) {
  double width = (double)D->nsb;
  if (compact && D->R) {
    ci_irrep_view v;
    ci_irrep_get_view(D->R, &v);
    width = (double)(v.off[A + 1] - v.off[A]);
  }
  const int half = D->A == D->B && !D->no_time_reversal;
  return half ? width * (double)(A + 1) / (double)D->nsa : width;
}

cis_int ci_direct_compact_size(const cis_ci_direct *D) {
  return !D ? 0 : D->R ? ci_irrep_sigma_size(D->R) : D->ndet;
}

void ci_direct_compress(const cis_ci_direct *D, const double *c, double *cc) {
  if (D->R) ci_irrep_compress(D->R, c, cc);
  else if (cc != c) memcpy(cc, c, (size_t)D->ndet * sizeof(double));
}

void ci_direct_expand(const cis_ci_direct *D, const double *cc, double *c) {
  if (D->R) ci_irrep_expand(D->R, cc, c);
  else if (cc != c) memcpy(c, cc, (size_t)D->ndet * sizeof(double));
}

cis_status ci_direct_compact_diagonal(const cis_ci_direct *D, double *dc) {
  if (!D || !dc) return cis_error(CIS_ERR_INVALID, "direct compact diagonal: NULL argument");
  return D->R ? ci_irrep_diagonal(D->R, D->F, dc) : ci_direct_diagonal(D, dc);
}

void ci_direct_compact_det(const cis_ci_direct *D, cis_int i, uint64_t *alpha, uint64_t *beta) {
  if (D->R) ci_irrep_det(D->R, i, alpha, beta);
  else cis_ci_direct_det(D, i, alpha, beta);
}

cis_status cis_ci_direct_compact_pure_guesses(const cis_ci_direct *D, double *guess, int nin, int cap, int *nout) {
  if (!D || !D->R) return cis_ci_direct_pure_guesses(D, guess, nin, cap, nout);
  if (!guess || !nout || nin < 0 || cap < nin)
    return cis_error(CIS_ERR_INVALID, "cis_ci_direct_compact_pure_guesses: NULL argument or %d guesses in room for %d",
                     nin, cap);
  *nout = nin;
  if (D->A != D->B || D->no_time_reversal) return CIS_OK;
  return ci_direct_split_guesses(D, 1, guess, nin, cap, nout, NULL);
}

/* Compact operator callback (blocked by irreps): y = alpha H x + beta y on
 * vectors of the ISYM determinants. */
static cis_status compact_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_ci_direct *D = ctx;
  cis_status st;
  double *yy = y;
  const cis_int n = ci_irrep_sigma_size(D->R);
  (void)s;
  const double *use;
  const int tr = compact_parity(D, x, &use);
  x = use;
  D->info.sigma_vectors++;
  D->info.half_sigmas += tr != 0;
  if (D->nelec == 0) {
    for (cis_int i = 0; i < n; ++i) yy[i] = beta == 0.0 ? 0.0 : beta * yy[i];
    return CIS_OK;
  }
  if (alpha == 1.0 && beta == 0.0) {
    ci_irrep_sigma_compact(D->R, x, tr, yy, &D->info.phase1_seconds, &D->info.phase2_seconds);
    return CIS_OK;
  }
  if (!D->tmpc) CIS_TRY(cis_alloc_array((void **)&D->tmpc, n, sizeof(double), "compact sigma product"));
  ci_irrep_sigma_compact(D->R, x, tr, D->tmpc, &D->info.phase1_seconds, &D->info.phase2_seconds);
#pragma omp parallel for schedule(static) if (n >= CI_DIRECT_PARALLEL_MIN)
  for (cis_int i = 0; i < n; ++i) yy[i] = alpha * D->tmpc[i] + (beta == 0.0 ? 0.0 : beta * yy[i]);
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_direct_compact_operator(cis_ci_direct *D, cis_operator **out) {
  cis_status st;
  double *diag = NULL, *dc = NULL;
  cis_operator *op = NULL;
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "direct compact operator: NULL argument");
  if (!D->R) return ci_direct_operator(D, out);
  *out = NULL;
  const cis_int n = ci_irrep_sigma_size(D->R);
  CIS_TRY(cis_operator_from_callback(n, n, CIS_F64, CIS_MEM_HOST, compact_apply, D, NULL, &op));
  CIS_TRY(cis_alloc_array((void **)&dc, n, sizeof(double), "compact diagonal"));
  CIS_TRY(ci_irrep_diagonal(D->R, D->F, dc)); /* ci_direct_diagonal's ISYM entries, no C1 vector */
  CIS_TRY(cis_operator_set_diagonal(op, dc));
  cis_free(diag);
  cis_free(dc);
  *out = op;
  return CIS_OK;
cleanup:
  cis_free(diag);
  cis_free(dc);
  cis_operator_free(op);
  return st;
}

/* Operator callback: y = alpha H x + beta y. */
static cis_status direct_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_ci_direct *D = ctx;
  cis_status st;
  double *yy = y;
  if (alpha == 1.0 && beta == 0.0) return cis_ci_direct_sigma(D, 1, x, yy);
  if (!D->tmp) CIS_TRY(cis_alloc_array((void **)&D->tmp, D->ndet, sizeof(double), "direct sigma product"));
  CIS_TRY(cis_ci_direct_sigma(D, 1, x, D->tmp));
#pragma omp parallel for schedule(static) if (D->ndet >= CI_DIRECT_PARALLEL_MIN)
  for (cis_int i = 0; i < D->ndet; ++i) yy[i] = alpha * D->tmp[i] + (beta == 0.0 ? 0.0 : beta * yy[i]);
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_direct_operator(cis_ci_direct *D, cis_operator **out) {
  cis_status st;
  double *diag = NULL;
  cis_operator *op = NULL;
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "direct operator: NULL argument");
  *out = NULL;
  CIS_TRY(cis_operator_from_callback(D->ndet, D->ndet, CIS_F64, CIS_MEM_HOST, direct_apply, D, NULL, &op));
  CIS_TRY(cis_alloc_array((void **)&diag, D->ndet, sizeof(double), "direct sigma diagonal"));
  CIS_TRY(ci_direct_diagonal(D, diag));
  CIS_TRY(cis_operator_set_diagonal(op, diag));
  cis_free(diag);
  *out = op;
  return CIS_OK;
cleanup:
  cis_free(diag);
  cis_operator_free(op);
  return st;
}
