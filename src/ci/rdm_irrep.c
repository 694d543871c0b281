/* rdm_irrep.c: the host RDMs' D intermediate blocked by irreps (rdm.c
 * takes it when the space's ORBSYM has more than one irrep and bra and ket
 * each lie in one irrep w, the same). D[pq, I] = <I|E_pq|ket> is nonzero
 * only where irrep(I) = w ^ irrep(pq), so with D's columns grouped by their
 * irrep g and its rows by theirs, the only nonzero block of column group g
 * is row group h = g ^ w, and raw2 = D_bra D_ket^T splits into one product
 * per irrep over that block: with 8 irreps of like size, an eighth of the
 * rows and all the columns once, 1/64 of the C1 product's flops (PySCF's
 * direct_spin1_symm takes the C1 RDMs). The block structure is the
 * symmetry-blocked string-driven scheme of Olsen et al., J. Chem. Phys. 89,
 * 2185 (1988), §II.C, applied to the RDM's intermediate. */
#include <stdlib.h>
#include <string.h>
#include "ci/ci_rdm.h"
#include "core/internal.h"

/* Irrep (0..7) of the D row q*n + p: orbsym is F's 1-based ORBSYM. */
static int row_irrep(const int *orbsym, int n, int row) { return (orbsym[row / n] - 1) ^ (orbsym[row % n] - 1); }

static uint8_t string_irrep(const int *orbsym, uint64_t s) {
  int g = 0;
  for (int p = 0; s; ++p, s >>= 1)
    if (s & 1ull) g ^= orbsym[p] - 1;
  return (uint8_t)g;
}

/* The one irrep holding every nonzero of c (nsa x nsb), -1 when two hold
 * some, -2 when c is zero. */
static int vector_irrep(const double *c, const uint8_t *ia, const uint8_t *ib, cis_int nsa, cis_int nsb) {
  int w = -2;
  for (cis_int A = 0; A < nsa; ++A)
    for (cis_int B = 0; B < nsb; ++B) {
      if (c[A * nsb + B] == 0.0) continue;
      const int g = ia[A] ^ ib[B];
      if (w == -2) w = g;
      else if (g != w) return -1;
    }
  return w;
}

cis_status ci_rdm_irreps_of(const ci_direct_view *v, const double *bra, const double *ket, ci_rdm_irreps *s) {
  cis_status st;
  memset(s, 0, sizeof *s);
  const int n = v->norb;
  int more = 0;
  for (int p = 1; p < n; ++p) more |= v->orbsym[p] != v->orbsym[0];
  if (!more || n * n > CI_RDM_IRREP_MAX_ROWS) return CIS_OK;
  CIS_TRY(cis_alloc_array((void **)&s->ia, v->nsa, sizeof(uint8_t), "RDM alpha string irreps"));
  CIS_TRY(cis_alloc_array((void **)&s->ib, v->nsb, sizeof(uint8_t), "RDM beta string irreps"));
  CIS_TRY(cis_alloc_array((void **)&s->bsorted, v->nsb, sizeof(cis_int), "RDM beta strings by irrep"));
  for (cis_int A = 0; A < v->nsa; ++A) s->ia[A] = string_irrep(v->orbsym, ci_string_of_addr(A, v->na));
  for (cis_int B = 0; B < v->nsb; ++B) s->ib[B] = string_irrep(v->orbsym, ci_string_of_addr(B, v->nb));
  const int w = vector_irrep(ket, s->ia, s->ib, v->nsa, v->nsb);
  if (w < 0 || (bra && bra != ket && vector_irrep(bra, s->ia, s->ib, v->nsa, v->nsb) != w)) {
    ci_rdm_irreps_free(s);
    return CIS_OK;
  }
  s->w = w;
  for (cis_int B = 0; B < v->nsb; ++B) s->nb[s->ib[B]]++;
  for (int g = 0; g < 8; ++g) s->boff[g + 1] = s->boff[g] + s->nb[g];
  cis_int fill[8];
  memcpy(fill, s->boff, sizeof fill);
  for (cis_int B = 0; B < v->nsb; ++B) s->bsorted[fill[s->ib[B]]++] = B;
  /* rows by irrep, ascending within each (rdm.c's upper triangles stay upper) */
  for (int row = 0; row < n * n; ++row) s->nrow[row_irrep(v->orbsym, n, row)]++;
  for (int h = 0; h < 8; ++h) {
    s->roff[h + 1] = s->roff[h] + s->nrow[h];
    s->rsq[h + 1] = s->rsq[h] + (cis_int)s->nrow[h] * s->nrow[h];
    if (s->nrow[h] > s->maxrow) s->maxrow = s->nrow[h];
  }
  int next[8];
  for (int h = 0; h < 8; ++h) next[h] = 0;
  for (int row = 0; row < n * n; ++row) {
    const int h = row_irrep(v->orbsym, n, row);
    s->rowpos[row] = (int16_t)next[h];
    s->rowlist[s->roff[h] + next[h]++] = (int16_t)row;
  }
  s->on = 1;
  return CIS_OK;
cleanup:
  ci_rdm_irreps_free(s);
  return st;
}

void ci_rdm_irreps_free(ci_rdm_irreps *s) {
  cis_free(s->ia);
  cis_free(s->ib);
  cis_free(s->bsorted);
  memset(s, 0, sizeof *s);
}

void ci_rdm_irreps_layout(const ci_rdm_irreps *s, cis_int a0, cis_int nr, ci_rdm_block *b) {
  memset(b, 0, sizeof *b);
  for (cis_int A = a0; A < a0 + nr; ++A)
    for (int g = 0; g < 8; ++g) b->cnt[g] += s->nb[g ^ s->ia[A]];
  for (int g = 0; g < 8; ++g) b->off[g + 1] = b->off[g] + (cis_int)s->nrow[g ^ s->w] * b->cnt[g];
}

void ci_rdm_irreps_gather(const ci_direct_view *v, const ci_rdm_irreps *s, const ci_link *La, const ci_link *Lb,
                          const double *c, cis_int a0, cis_int nr, int mode, const ci_rdm_block *b, double *Dm) {
  const cis_int nsb = v->nsb;
  const int nla = v->nla, nlb = v->nlb, w = s->w;
  cis_int run[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  memset(Dm, 0, (size_t)b->off[8] * sizeof(double));
  for (cis_int A = a0; A < a0 + nr; ++A) {
    const int gA = s->ia[A];
    if (mode != 1)
      for (int l = 0; l < nla; ++l) { /* D[pq, (A,B)] += s c(J, B): B of irrep w ^ irrep(J) only */
        const ci_link k = La[A * nla + l];
        const int gb = w ^ s->ia[k.str], g = gA ^ gb;
        const cis_int *Bs = s->bsorted + s->boff[gb], cnt = s->nb[gb];
        const double sg = k.sign, *cj = c + (cis_int)k.str * nsb;
        double *d = Dm + b->off[g] + (cis_int)s->rowpos[k.pair] * b->cnt[g] + run[g];
        for (cis_int t = 0; t < cnt; ++t) d[t] += sg * cj[Bs[t]];
      }
    if (mode != 0) {
      const double *crow = c + A * nsb;
      const int want = w ^ gA; /* c(A, J) nonzero only for J of this irrep */
      for (int gb = 0; gb < 8; ++gb) {
        const int g = gA ^ gb;
        const cis_int *Bs = s->bsorted + s->boff[gb];
        double *d = Dm + b->off[g] + run[g];
        for (cis_int t = 0; t < s->nb[gb]; ++t) { /* D[pq, (A,B)] += s c(A, J) */
          const ci_link *L = Lb + Bs[t] * nlb;
          for (int l = 0; l < nlb; ++l)
            if (s->ib[L[l].str] == want) d[(cis_int)s->rowpos[L[l].pair] * b->cnt[g] + t] += L[l].sign * crow[L[l].str];
        }
      }
    }
    for (int g = 0; g < 8; ++g) run[g] += s->nb[g ^ gA];
  }
}

void ci_rdm_irreps_accumulate(const ci_rdm_irreps *s, const ci_rdm_block *b, const double *Db, const double *Dk,
                              double *Rh) {
  for (int g = 0; g < 8; ++g) {
    const int h = g ^ s->w;
    if (b->cnt[g] > 0 && s->nrow[h] > 0)
      ci_rdm_accumulate2(s->nrow[h], b->cnt[g], Db + b->off[g], Dk + b->off[g], Rh + s->rsq[h]);
  }
}

void ci_rdm_irreps_scatter(const ci_rdm_irreps *s, cis_int n2, const double *Rh, double *R) {
  for (int h = 0; h < 8; ++h) {
    const int nh = s->nrow[h];
    const int16_t *rows = s->rowlist + s->roff[h];
    const double *r = Rh + s->rsq[h];
    for (int j = 0; j < nh; ++j)
      for (int i = 0; i < nh; ++i) R[(cis_int)rows[j] * n2 + rows[i]] += r[(cis_int)j * nh + i];
  }
}
