/* sigma_irrep.c: the direct CI sigma blocked by irreps (scheme, citations and
 * vector layout in sigma_irrep.h). */
#include "ci/sigma_irrep.h"
#include <omp.h>
#include <stdlib.h>
#include "ci/ci_gemm.h"
#include "ci/ci_internal.h"
#include "core/internal.h"

#define NIRREP 8
#define IRREP_PARALLEL_MIN 4096

struct ci_irrep_sigma {
  const ci_strings *A, *B;
  int target, threads;
  cis_int nsa, nsb, npair, nsym;
  uint8_t *syma, *symb;           /* irrep of every alpha / beta string */
  cis_int nbg[NIRREP], bstart[NIRREP + 1]; /* beta strings per irrep; their range in blist */
  int32_t *blist, *bpos;          /* beta strings sorted by (irrep, address); position of B in its irrep */
  int npi[NIRREP];                /* orbital pairs per pair irrep */
  cis_int goff[NIRREP];           /* block h of g (npi[h] x npi[h]) at gblk + goff[h] */
  double *gblk;
  ci_link *alink, *blink;         /* links sorted by pair irrep; pair = position in the irrep;
                                     alpha: str = J's address; beta: str = bpos[I] */
  int32_t *astart, *bstart_l;     /* per string 9 offsets into its sorted links */
  cis_int *off;                   /* nsa + 1: compact row offsets (row A: nbg[syma[A] ^ target]) */
  cis_int xgo[NIRREP][NIRREP + 1];/* X of an alpha string of irrep ga: block gb at xgo[ga][gb], size xgo[ga][8] */
  cis_int dmax, xcap;             /* per-thread D doubles; X doubles of one alpha block */
  double *cbuf, *sbuf, *Dw, *Xw;  /* compact vectors (nsym), thread D buffers, X block */
  const double *cc;               /* the compact input and output of the sigma under way */
  double *sc;
  cis_int *xo;                    /* X offset of each alpha string within its block */
};

/* Irreps of the strings, the beta strings per irrep and the pair counts. */
static void irrep_counts(const cis_fcidump *F, const ci_strings *S, cis_int *cnt, uint8_t *sym) {
  for (int h = 0; h < NIRREP; ++h) cnt[h] = 0;
  for (cis_int i = 0; i < S->count; ++i) {
    const int g = ci_string_sym(F, S->str[i]) & 7;
    if (sym) sym[i] = (uint8_t)g;
    cnt[g]++;
  }
}

static int pair_sym(const cis_fcidump *F, int p, int q) { return ((F->orbsym[p] - 1) ^ (F->orbsym[q] - 1)) & 7; }

static void pair_counts(const cis_fcidump *F, int *npi) {
  for (int h = 0; h < NIRREP; ++h) npi[h] = 0;
  for (int p = 0; p < F->norb; ++p)
    for (int q = 0; q <= p; ++q) npi[pair_sym(F, p, q)]++;
}

/* psym[pq] = the irrep of pair pq, ppos[pq] = its position among the pairs
 * of that irrep (pairs in ci_pair order). */
static void pair_positions(const cis_fcidump *F, int8_t *psym, int16_t *ppos) {
  int fill[NIRREP] = {0};
  for (int p = 0; p < F->norb; ++p)
    for (int q = 0; q <= p; ++q) {
      const cis_int pq = ci_pair(p, q);
      const int h = pair_sym(F, p, q);
      psym[pq] = (int8_t)h;
      ppos[pq] = (int16_t)fill[h]++;
    }
}

/* R's blocks of g: gblk[goff[h] + ppos[pq] * npi[h] + ppos[rs]] = g[pq, rs]. */
static void fill_blocks(ci_irrep_sigma *R, cis_int np, const int8_t *psym, const int16_t *ppos, const double *g) {
  for (cis_int pq = 0; pq < np; ++pq)
    for (cis_int rs = 0; rs < np; ++rs)
      if (psym[pq] == psym[rs]) {
        const int h = psym[pq];
        R->gblk[R->goff[h] + (cis_int)ppos[pq] * R->npi[h] + ppos[rs]] = g[pq * np + rs];
      }
}

void ci_irrep_sigma_set_pairs(ci_irrep_sigma *R, const cis_fcidump *F, const double *g) {
  int8_t psym[CIS_CI_DIRECT_MAX_ORB * (CIS_CI_DIRECT_MAX_ORB + 1) / 2];
  int16_t ppos[CIS_CI_DIRECT_MAX_ORB * (CIS_CI_DIRECT_MAX_ORB + 1) / 2];
  pair_positions(F, psym, ppos);
  fill_blocks(R, R->npair, psym, ppos, g);
}

/* xgo for every alpha irrep; returns the largest D block (doubles). */
static cis_int x_layout(const cis_int *nbg, const int *npi, int target, cis_int xgo[NIRREP][NIRREP + 1]) {
  cis_int dmax = 1;
  for (int ga = 0; ga < NIRREP; ++ga) {
    cis_int o = 0;
    for (int gb = 0; gb < NIRREP; ++gb) {
      xgo[ga][gb] = o;
      const cis_int d = (cis_int)npi[ga ^ gb ^ target] * nbg[gb];
      o += d;
      if (d > dmax) dmax = d;
    }
    xgo[ga][NIRREP] = o;
  }
  return dmax;
}

double ci_irrep_sigma_bytes(const cis_fcidump *F, const ci_strings *A, const ci_strings *B, int target, int threads,
                            double block_bytes, cis_int *nsym) {
  cis_int na[NIRREP], nb[NIRREP], xgo[NIRREP][NIRREP + 1];
  int npi[NIRREP];
  irrep_counts(F, A, na, NULL);
  irrep_counts(F, B, nb, NULL);
  pair_counts(F, npi);
  const cis_int dmax = x_layout(nb, npi, target, xgo);
  cis_int n = 0, xmax = 1;
  double gb = 0;
  for (int h = 0; h < NIRREP; ++h) {
    n += na[h] * nb[h ^ target];
    if (na[h] && xgo[h][NIRREP] > xmax) xmax = xgo[h][NIRREP];
    gb += (double)npi[h] * npi[h];
  }
  *nsym = n;
  const double links = 8.0 * ((double)A->count * A->nlink + (double)B->count * B->nlink) +
                       4.0 * 9.0 * (double)(A->count + B->count);
  const double strs = 2.0 * (double)(A->count + B->count) * 4.0 + 8.0 * (double)(A->count + 1) * 2.0;
  double x = block_bytes / 8.0 - (double)threads * dmax;
  if (x < xmax) x = xmax;
  return links + strs + 8.0 * (2.0 * n + gb + (double)threads * dmax + x);
}

/* The links of every string of S sorted (stably) by pair irrep, pair indices
 * renumbered within their irrep, string addresses through pos (or kept). */
static void sort_links(const cis_fcidump *F, const ci_strings *S, const int8_t *psym, const int16_t *ppos,
                       const int32_t *pos, ci_link *out, int32_t *start) {
  const int nl = S->nlink;
  (void)F;
#pragma omp parallel for schedule(static) if (S->count >= 256)
  for (cis_int i = 0; i < S->count; ++i) {
    const ci_link *L = S->link + i * nl;
    ci_link *O = out + i * nl;
    int32_t *st = start + i * (NIRREP + 1);
    int n = 0;
    for (int h = 0; h < NIRREP; ++h) {
      st[h] = n;
      for (int l = 0; l < nl; ++l)
        if (psym[L[l].pair] == h) {
          O[n] = L[l];
          O[n].pair = ppos[L[l].pair];
          if (pos) O[n].str = pos[L[l].str];
          ++n;
        }
    }
    st[NIRREP] = n;
  }
}

cis_status ci_irrep_sigma_create(const cis_fcidump *F, const ci_strings *A, const ci_strings *B, const double *g,
                                 int target, int threads, double block_bytes, ci_irrep_sigma **out) {
  cis_status st;
  ci_irrep_sigma *R = NULL;
  int8_t *psym = NULL;
  int16_t *ppos = NULL;
  *out = NULL;
  const int n = F->norb;
  const cis_int np = (cis_int)n * (n + 1) / 2;
  CIS_TRY(cis_alloc_zeroed((void **)&R, 1, sizeof *R, "irrep sigma"));
  R->A = A;
  R->B = B;
  R->target = target & 7;
  R->threads = threads;
  R->nsa = A->count;
  R->nsb = B->count;
  R->npair = np;
  CIS_TRY(cis_alloc_array((void **)&R->syma, R->nsa, 1, "alpha string irreps"));
  CIS_TRY(cis_alloc_array((void **)&R->symb, R->nsb, 1, "beta string irreps"));
  cis_int nag[NIRREP];
  irrep_counts(F, A, nag, R->syma);
  irrep_counts(F, B, R->nbg, R->symb);
  /* beta strings by irrep */
  CIS_TRY(cis_alloc_array((void **)&R->blist, R->nsb, sizeof(int32_t), "beta strings by irrep"));
  CIS_TRY(cis_alloc_array((void **)&R->bpos, R->nsb, sizeof(int32_t), "beta string positions"));
  R->bstart[0] = 0;
  for (int h = 0; h < NIRREP; ++h) R->bstart[h + 1] = R->bstart[h] + R->nbg[h];
  {
    cis_int fill[NIRREP];
    for (int h = 0; h < NIRREP; ++h) fill[h] = 0;
    for (cis_int b = 0; b < R->nsb; ++b) {
      const int h = R->symb[b];
      R->blist[R->bstart[h] + fill[h]] = (int32_t)b;
      R->bpos[b] = (int32_t)fill[h]++;
    }
  }
  /* compact rows */
  CIS_TRY(cis_alloc_array((void **)&R->off, R->nsa + 1, sizeof(cis_int), "compact row offsets"));
  R->off[0] = 0;
  for (cis_int a = 0; a < R->nsa; ++a) R->off[a + 1] = R->off[a] + R->nbg[R->syma[a] ^ R->target];
  R->nsym = R->off[R->nsa];
  if (R->nsym == 0) {
    char isym[48];
    st = cis_error(CIS_ERR_INVALID, "direct sigma: no determinants of symmetry %s", ci_isym_text(F, isym, sizeof isym));
    goto cleanup;
  }
  /* pairs by irrep and the blocks of g */
  CIS_TRY(cis_alloc_array((void **)&psym, np, 1, "pair irreps"));
  CIS_TRY(cis_alloc_array((void **)&ppos, np, sizeof(int16_t), "pair positions"));
  pair_counts(F, R->npi);
  pair_positions(F, psym, ppos);
  cis_int gtot = 0;
  for (int h = 0; h < NIRREP; ++h) R->goff[h] = gtot, gtot += (cis_int)R->npi[h] * R->npi[h];
  CIS_TRY(cis_alloc_array((void **)&R->gblk, gtot > 0 ? gtot : 1, sizeof(double), "pair matrix blocks"));
  fill_blocks(R, np, psym, ppos, g);
  /* links sorted by pair irrep */
  CIS_TRY(cis_alloc_array((void **)&R->alink, R->nsa * (cis_int)(A->nlink > 0 ? A->nlink : 1), sizeof(ci_link),
                          "alpha links by irrep"));
  CIS_TRY(cis_alloc_array((void **)&R->blink, R->nsb * (cis_int)(B->nlink > 0 ? B->nlink : 1), sizeof(ci_link),
                          "beta links by irrep"));
  CIS_TRY(cis_alloc_array((void **)&R->astart, R->nsa * (NIRREP + 1), sizeof(int32_t), "alpha link offsets"));
  CIS_TRY(cis_alloc_array((void **)&R->bstart_l, R->nsb * (NIRREP + 1), sizeof(int32_t), "beta link offsets"));
  sort_links(F, A, psym, ppos, NULL, R->alink, R->astart);
  sort_links(F, B, psym, ppos, R->bpos, R->blink, R->bstart_l);
  /* workspace */
  R->dmax = x_layout(R->nbg, R->npi, R->target, R->xgo);
  cis_int xmax = 1;
  for (int h = 0; h < NIRREP; ++h)
    if (nag[h] && R->xgo[h][NIRREP] > xmax) xmax = R->xgo[h][NIRREP];
  double x = block_bytes / 8.0 - (double)threads * R->dmax;
  R->xcap = x < (double)xmax ? xmax : (cis_int)x;
  CIS_TRY(cis_alloc_array((void **)&R->cbuf, R->nsym, sizeof(double), "compact vector"));
  CIS_TRY(cis_alloc_array((void **)&R->sbuf, R->nsym, sizeof(double), "compact sigma"));
  CIS_TRY(cis_alloc_array((void **)&R->Dw, R->dmax * threads, sizeof(double), "irrep D buffers"));
  CIS_TRY(cis_alloc_array((void **)&R->Xw, R->xcap, sizeof(double), "irrep X block"));
  CIS_TRY(cis_alloc_array((void **)&R->xo, R->nsa, sizeof(cis_int), "X offsets"));
  free(psym);
  free(ppos);
  *out = R;
  return CIS_OK;
cleanup:
  free(psym);
  free(ppos);
  ci_irrep_sigma_free(R);
  return st;
}

void ci_irrep_sigma_free(ci_irrep_sigma *R) {
  if (!R) return;
  cis_free(R->syma);
  cis_free(R->symb);
  cis_free(R->blist);
  cis_free(R->bpos);
  cis_free(R->off);
  cis_free(R->gblk);
  cis_free(R->alink);
  cis_free(R->blink);
  cis_free(R->astart);
  cis_free(R->bstart_l);
  cis_free(R->cbuf);
  cis_free(R->sbuf);
  cis_free(R->Dw);
  cis_free(R->Xw);
  cis_free(R->xo);
  cis_free(R);
}

/* Columns of row A's block gb that one pass takes: all nbg[gb], or with the
 * time-reversal half only those B <= A (a prefix: the list is sorted). */
static cis_int block_width(const ci_irrep_sigma *R, cis_int A, int gb, int half) {
  const cis_int nb = R->nbg[gb];
  if (!half) return nb;
  const int32_t *bl = R->blist + R->bstart[gb];
  cis_int lo = 0, hi = nb; /* first j with bl[j] > A */
  while (lo < hi) {
    const cis_int mid = (lo + hi) / 2;
    if (bl[mid] <= A) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Phase 1 for alpha string A (X_A at X): per beta irrep gb the pair irrep h,
 *   D[rs, j] = sum over alpha links (J, rs) of A of s c(J, B_j)
 *            + sum over beta links (I, rs) of B_j of s c(A, I)   (rs of irrep h)
 *   X = g_h D;  sigma(A, I) += s X[pq, j] over the beta links (I, pq) of B_j. */
static void irrep_alpha_string(ci_irrep_sigma *R, cis_int A, double *Dt, double *X, int half) {
  const int ga = R->syma[A], t = R->target, nla = R->A->nlink, nlb = R->B->nlink;
  const double *cA = R->cc + R->off[A];
  double *sA = R->sc + R->off[A];
  const ci_link *La = R->alink + A * nla;
  const int32_t *sa = R->astart + A * (NIRREP + 1);
  for (int gb = 0; gb < NIRREP; ++gb) {
    const cis_int nb = block_width(R, A, gb, half); /* the columns taken (stride of D and X) */
    const int h = ga ^ gb ^ t, nph = R->npi[h];
    if (nb == 0 || nph == 0) continue;
    const int32_t *bl = R->blist + R->bstart[gb];
    for (cis_int i = 0; i < (cis_int)nph * nb; ++i) Dt[i] = 0.0;
    for (int l = sa[h]; l < sa[h + 1]; ++l) { /* row J has the beta strings of irrep gb */
      const ci_link k = La[l];
      const double s = k.sign, *cj = R->cc + R->off[k.str];
      double *d = Dt + (cis_int)k.pair * nb;
      for (cis_int j = 0; j < nb; ++j) d[j] += s * cj[j];
    }
    for (cis_int j = 0; j < nb; ++j) {
      const cis_int B = bl[j];
      const ci_link *Lb = R->blink + B * nlb;
      const int32_t *sb = R->bstart_l + B * (NIRREP + 1);
      double *d = Dt + j;
      for (int l = sb[h]; l < sb[h + 1]; ++l) d[(cis_int)Lb[l].pair * nb] += Lb[l].sign * cA[Lb[l].str];
    }
    double *Xg = X + R->xgo[ga][gb];
    ci_gemm_rm(nph, nb, nph, R->gblk + R->goff[h], Dt, Xg);
    const cis_int nscat = half && bl[nb - 1] == A ? nb - 1 : nb; /* half: beta scatter of B < A only */
    for (cis_int j = 0; j < nscat; ++j) {
      const cis_int B = bl[j];
      const ci_link *Lb = R->blink + B * nlb;
      const int32_t *sb = R->bstart_l + B * (NIRREP + 1);
      const double *x = Xg + j;
      for (int l = sb[h]; l < sb[h + 1]; ++l) sA[Lb[l].str] += Lb[l].sign * x[(cis_int)Lb[l].pair * nb];
    }
  }
}

/* Alpha strings a0 .. a1-1 (X offsets in xo): phase 1 one thread per alpha
 * string (row A of sigma is its own); phase 2 the alpha scatter
 * sigma(J, j) += s X_A[pq, j] over the alpha links (J, pq) of A, each thread
 * owning the same slice of every beta irrep's columns (row J of the
 * compact vector has the columns of irrep gb): no element written by two
 * threads, sums in a fixed order (results independent of the thread count). */
static void irrep_block(ci_irrep_sigma *R, cis_int a0, cis_int a1, int half, double *t1, double *t2) {
  const int nla = R->A->nlink, t = R->target;
  const double w0 = omp_get_wtime();
#pragma omp parallel num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  {
    double *Dt = R->Dw + (cis_int)omp_get_thread_num() * R->dmax;
#pragma omp for schedule(dynamic, 4)
    for (cis_int A = a0; A < a1; ++A) irrep_alpha_string(R, A, Dt, R->Xw + R->xo[A], half);
  }
  const double w1 = omp_get_wtime();
#pragma omp parallel num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  {
    const cis_int me = omp_get_thread_num(), T = omp_get_num_threads();
    for (cis_int A = a0; A < a1; ++A) {
      const int ga = R->syma[A];
      const ci_link *La = R->alink + A * nla;
      const int32_t *sa = R->astart + A * (NIRREP + 1);
      for (int gb = 0; gb < NIRREP; ++gb) {
        const cis_int nall = R->nbg[gb], j0 = nall * me / T, j1a = nall * (me + 1) / T;
        const int h = ga ^ gb ^ t;
        if (j0 >= j1a || R->npi[h] == 0) continue;
        const cis_int nb = block_width(R, A, gb, half), j1 = j1a < nb ? j1a : nb; /* stride nb */
        if (j0 >= j1) continue;
        const double *Xg = R->Xw + R->xo[A] + R->xgo[ga][gb];
        for (int l = sa[h]; l < sa[h + 1]; ++l) {
          const ci_link k = La[l];
          const double s = k.sign, *x = Xg + (cis_int)k.pair * nb;
          double *sj = R->sc + R->off[k.str];
          for (cis_int j = j0; j < j1; ++j) sj[j] += s * x[j];
        }
      }
    }
  }
  *t1 += w1 - w0;
  *t2 += omp_get_wtime() - w1;
}

cis_int ci_irrep_sigma_size(const ci_irrep_sigma *R) { return R->nsym; }

void ci_irrep_get_view(const ci_irrep_sigma *R, ci_irrep_view *v) {
  *v = (ci_irrep_view){R->target, R->A->nlink, R->B->nlink, R->A == R->B, R->nsa, R->nsb, R->nsym, R->syma,
                       R->symb, R->nbg, R->bstart, R->blist, R->bpos, R->npi, R->goff, R->gblk, R->alink,
                       R->blink, R->astart, R->bstart_l, R->off};
}

void ci_irrep_compress(const ci_irrep_sigma *R, const double *c, double *cc) {
  const cis_int nsb = R->nsb;
  const int t = R->target;
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) {
    const int gc = R->syma[A] ^ t;
    const int32_t *bl = R->blist + R->bstart[gc];
    const double *row = c + A * nsb;
    double *cr = cc + R->off[A];
    for (cis_int j = 0; j < R->nbg[gc]; ++j) cr[j] = row[bl[j]];
  }
}

void ci_irrep_expand(const ci_irrep_sigma *R, const double *cc, double *c) {
  const cis_int nsb = R->nsb;
  const int t = R->target;
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) {
    const int gc = R->syma[A] ^ t;
    const int32_t *bl = R->blist + R->bstart[gc];
    double *row = c + A * nsb;
    const double *cr = cc + R->off[A];
    for (cis_int B = 0; B < nsb; ++B) row[B] = 0.0;
    for (cis_int j = 0; j < R->nbg[gc]; ++j) row[bl[j]] = cr[j];
  }
}

int ci_irrep_parity(const ci_irrep_sigma *R, const double *cc, double tol, int *exact) {
  const int t = R->target;
  double norm = 0, dsym = 0, danti = 0; /* as sigma.c's transpose_parity, on the compact layout */
  *exact = 0;
  if (R->A != R->B) return 0;
#pragma omp parallel for schedule(static) num_threads(R->threads) reduction(+ : norm, dsym, danti) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) {
    const int gc = R->syma[A] ^ t;
    const int32_t *bl = R->blist + R->bstart[gc];
    const double *cr = cc + R->off[A];
    for (cis_int j = 0; j < R->nbg[gc] && bl[j] <= A; ++j) {
      const double u = cr[j], v = cc[R->off[bl[j]] + R->bpos[A]];
      const int diag = bl[j] == A;
      norm += diag ? u * u : u * u + v * v;
      dsym += diag ? 0.0 : (u - v) * (u - v);
      danti += diag ? 2.0 * u * u : (u + v) * (u + v);
    }
  }
  const int par = dsym <= tol * norm ? 1 : danti <= tol * norm ? -1 : 0;
  *exact = par && (par > 0 ? dsym : danti) == 0;
  return par;
}

void ci_irrep_purify(const ci_irrep_sigma *R, const double *cc, int par, double *out) {
  const int t = R->target;
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) {
    const int gc = R->syma[A] ^ t;
    const int32_t *bl = R->blist + R->bstart[gc];
    for (cis_int j = 0; j < R->nbg[gc] && bl[j] <= A; ++j) {
      const cis_int i = R->off[A] + j, m = R->off[bl[j]] + R->bpos[A];
      if (bl[j] == A) { out[i] = par > 0 ? cc[i] : 0.0; continue; }
      const double u = 0.5 * (cc[i] + par * cc[m]);
      out[i] = u;
      out[m] = par * u;
    }
  }
}

void ci_irrep_sigma_compact(ci_irrep_sigma *R, const double *cc, int tr, double *sc, double *t1, double *t2) {
  ci_irrep_sigma_compact_range(R, cc, tr, sc, 0, R->nsa, t1, t2);
}

void ci_irrep_sigma_compact_range(ci_irrep_sigma *R, const double *cc, int tr, double *sc, cis_int lo, cis_int hi,
                                  double *t1, double *t2) {
  const cis_int t = R->target;
  R->cc = cc;
  R->sc = sc;
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int i = 0; i < R->nsym; ++i) sc[i] = 0.0;
  for (cis_int a0 = lo; a0 < hi;) { /* alpha blocks whose X fits xcap */
    cis_int a1 = a0, used = 0;
    while (a1 < hi && (a1 == a0 || used + R->xgo[R->syma[a1]][NIRREP] <= R->xcap)) {
      R->xo[a1] = used;
      used += R->xgo[R->syma[a1]][NIRREP];
      ++a1;
    }
    irrep_block(R, a0, a1, tr != 0, t1, t2);
    a0 = a1;
  }
  if (tr) { /* sigma = Q + t Q^T: (A, B) and (B, A) both in the space, (B, A) at off[B] + bpos[A] */
    const double tt = tr;
#pragma omp parallel for schedule(dynamic, 16) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
    for (cis_int A = 0; A < R->nsa; ++A) {
      const int gc = R->syma[A] ^ (int)t;
      const int32_t *bl = R->blist + R->bstart[gc];
      double *sr = R->sc + R->off[A];
      for (cis_int j = 0; j < R->nbg[gc] && bl[j] <= A; ++j) {
        const cis_int B = bl[j];
        double *mirror = R->sc + R->off[B] + R->bpos[A];
        if (B == A) { sr[j] += tt * sr[j]; continue; }
        const double u = sr[j] + tt * *mirror;
        sr[j] = u;
        *mirror = tt * u;
      }
    }
  }
}

cis_status ci_irrep_sigma_apply(ci_irrep_sigma *R, const double *c, int tr, double *S, double *t1, double *t2) {
  const cis_int nsb = R->nsb, t = R->target;
  ci_irrep_compress(R, c, R->cbuf);
  ci_irrep_sigma_compact(R, R->cbuf, tr, R->sbuf, t1, t2);
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) { /* unpack */
    const int gc = R->syma[A] ^ (int)t;
    const int32_t *bl = R->blist + R->bstart[gc];
    double *row = S + A * nsb;
    const double *sr = R->sc + R->off[A];
    for (cis_int j = 0; j < R->nbg[gc]; ++j) row[bl[j]] += sr[j];
  }
  return CIS_OK;
}

void ci_irrep_det(const ci_irrep_sigma *R, cis_int i, uint64_t *alpha, uint64_t *beta) {
  cis_int lo = 0, hi = R->nsa; /* the row A with off[A] <= i < off[A+1] */
  while (hi - lo > 1) {
    const cis_int mid = (lo + hi) / 2;
    if (R->off[mid] <= i) lo = mid;
    else hi = mid;
  }
  const int gc = R->syma[lo] ^ R->target;
  *alpha = R->A->str[lo];
  *beta = R->B->str[R->blist[R->bstart[gc] + (i - R->off[lo])]];
}

cis_status ci_irrep_diagonal(const ci_irrep_sigma *R, const cis_fcidump *F, double *dc) {
  cis_status st;
  double *ea = NULL, *eb = NULL;
  const int n = F->norb;
  double J[CIS_CI_DIRECT_MAX_ORB * CIS_CI_DIRECT_MAX_ORB];
  const ci_ints I = ci_ints_of(F);
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) J[p * n + q] = ci_ints_eri(&I, p, p, q, q);
  CIS_TRY(cis_alloc_array((void **)&ea, R->nsa, sizeof(double), "alpha string energies"));
  CIS_TRY(cis_alloc_array((void **)&eb, R->nsb, sizeof(double), "beta string energies"));
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsa >= 256)
  for (cis_int A = 0; A < R->nsa; ++A) ea[A] = ci_rule_same_spin_energy(&I, R->A->str[A]);
#pragma omp parallel for schedule(static) num_threads(R->threads) if (R->nsb >= 256)
  for (cis_int B = 0; B < R->nsb; ++B) eb[B] = ci_rule_same_spin_energy(&I, R->B->str[B]);
  /* sigma.c's ci_direct_diagonal on the ISYM entries: e = ea + eb + sum
   * over B's orbitals of v_A; one string set: (B, A) copied from (A, B) */
  const int mirror = R->A == R->B, t = R->target;
#pragma omp parallel for schedule(dynamic, 16) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
  for (cis_int A = 0; A < R->nsa; ++A) {
    double v[CIS_CI_DIRECT_MAX_ORB];
    for (int q = 0; q < n; ++q) v[q] = 0.0;
    for (uint64_t u = R->A->str[A]; u; u &= u - 1) {
      const double *Jp = J + ci_lowest(u) * n;
      for (int q = 0; q < n; ++q) v[q] += Jp[q];
    }
    const int gc = R->syma[A] ^ t;
    const int32_t *bl = R->blist + R->bstart[gc];
    double *row = dc + R->off[A];
    for (cis_int j = 0; j < R->nbg[gc] && (!mirror || bl[j] <= A); ++j) {
      double e = ea[A] + eb[bl[j]];
      for (uint64_t w = R->B->str[bl[j]]; w; w &= w - 1) e += v[ci_lowest(w)];
      row[j] = e;
    }
  }
  if (mirror)
#pragma omp parallel for schedule(dynamic, 16) num_threads(R->threads) if (R->nsym >= IRREP_PARALLEL_MIN)
    for (cis_int A = 0; A < R->nsa; ++A) { /* (A, B) with B > A from (B, A) */
      const int gc = R->syma[A] ^ t;
      const int32_t *bl = R->blist + R->bstart[gc];
      for (cis_int j = 0; j < R->nbg[gc]; ++j)
        if (bl[j] > A) dc[R->off[A] + j] = dc[R->off[bl[j]] + R->bpos[A]];
    }
  st = CIS_OK;
cleanup:
  cis_free(ea);
  cis_free(eb);
  return st;
}

int ci_irrep_time_reversal(const ci_irrep_sigma *R, double *cc) {
  int exact = 0;
  const int t = ci_irrep_parity(R, cc, CI_PURE_TOL, &exact);
  if (t && !exact) ci_irrep_purify(R, cc, t, cc); /* in place: each mirror pair read, then written */
  return t;
}

void ci_irrep_split(const ci_irrep_sigma *R, double *g, double *a, double *nsym, double *nanti) {
  const int t0 = R->target;
  double ns = 0, na = 0;
  for (cis_int A = 0; A < R->nsa; ++A) {
    const int gc = R->syma[A] ^ t0;
    const int32_t *bl = R->blist + R->bstart[gc];
    for (cis_int j = 0; j < R->nbg[gc] && bl[j] <= A; ++j) {
      const cis_int B = bl[j], k = R->off[A] + j, km = R->off[B] + R->bpos[A];
      const double u = g[k], w = g[km], sy = 0.5 * (u + w), an = 0.5 * (u - w);
      g[k] = g[km] = sy;
      ns += B == A ? sy * sy : 2 * sy * sy;
      if (a) {
        a[k] = an;
        a[km] = -an;
        na += 2 * an * an;
      }
    }
  }
  *nsym = ns;
  *nanti = na;
}
