/* ci_rdm.h: what the CPU (rdm.c) and GPU (gpu/ci_rdm_dev.c) reduced density
 * matrices share: the link lists with full orbital-pair rows, the plan of
 * which intermediates a request needs, and the final assembly in PySCF's
 * conventions (contract and equations in cisparse/ci.h).
 *
 * Raw quantities (real vectors, n = norb, n2 = n^2):
 *   raw1s[p*n+q]        = <bra|E^s_pq|ket>                    = sum_I bra_I D^s_ket[pq, I]
 *   raw2st[j*n2 + i]    = sum_I D^s_bra[i, I] D^t_ket[j, I]   (i = q*n+p, j = r*n+s')
 *                       = <bra|E^s_pq E^t_rs'|ket>           (<bra|E_pq|I> = <I|E_qp|bra>)
 * with D^s[pq, I] = <I|E^s_pq|ket> = sum over the links (p', q', sign, J) of
 * I's s-string, a^+_p' a_q' |I> = sign |J>, of sign ket_J at row (q', p')
 * (q'*n + p'): the row table below. Then (PySCF fci/rdm.py reorder_rdm)
 *   rdm2st[p,q,r,s'] = raw2st - d_st d_qr raw1s[p*n+s'],  averaged with
 *   its transpose [r,s',p,q] for st = aa, bb and the spin-traced sum. */
#ifndef CISPARSE_CI_RDM_H
#define CISPARSE_CI_RDM_H

#include "ci/ci_internal.h"
#include "ci/strings.h"
#include "cisparse/ci.h"

/* The direct space's links with .pair replaced by the D row q'*n + p' of the
 * replacement a^+_p' a_q' (n^2 <= 4096 fits the int16 field). alink:
 * nsa*nla; blink: nsb*nlb (a copy even when D has one string set). Freed
 * with cis_free. */
cis_status ci_rdm_links(const cis_ci_direct *D, ci_direct_view *v, ci_link **alink, ci_link **blink);

/* Which intermediates a request needs. */
typedef struct ci_rdm_plan {
  int traced;      /* only spin-traced outputs: one summed D per vector */
  int same;        /* bra is ket: one set of D */
  int raw2[4];     /* separated: raw2 aa, ab, ba, bb needed */
  int raw2_traced; /* traced: raw2 needed */
} ci_rdm_plan;
/* CIS_ERR_INVALID when nothing is asked. */
cis_status ci_rdm_plan_of(const cis_ci_rdm12 *out, const double *bra, const double *ket, ci_rdm_plan *p);

/* The outputs from the raw sums (traced: raw1a is raw1 of the summed D,
 * raw1b unused, raw2[0] the traced raw2; separated: raw2[k] for k = aa, ab,
 * ba, bb where the plan needs them). Overwrites raw2's arrays (scratch). */
void ci_rdm_finish(int norb, const ci_rdm_plan *p, const double *raw1a, const double *raw1b, double *const raw2[4],
                   const cis_ci_rdm12 *out);

/* R[j n2 + i] += sum_c Db[i m + c] Dk[j m + c] (row-major D: n2 x m; one
 * thread). Db == Dk: only i <= j (dsyrk's half; mirrored by the caller). */
void ci_rdm_accumulate2(cis_int n2, cis_int m, const double *Db, const double *Dk, double *R);

/* D blocked by irreps (rdm_irrep.c): bra and ket (bra NULL: ket) in one
 * irrep w of a space whose ORBSYM has several. Rows q*n+p grouped by their
 * irrep h (rowpos: the place in its group, ascending; rowlist: the rows of
 * group h from roff[h]); a block of alpha strings' determinants grouped by
 * their irrep g, beta strings in bsorted order within a string; the only
 * nonzero block of column group g is row group g ^ w. */
#define CI_RDM_IRREP_MAX_ROWS 4096
typedef struct ci_rdm_irreps {
  int on, w, maxrow;
  uint8_t *ia, *ib;                 /* string irreps */
  cis_int *bsorted;                 /* beta strings by irrep, ascending within one */
  cis_int nb[8], boff[9];           /* beta strings of each irrep, their start in bsorted */
  int nrow[8], roff[9];             /* rows of each irrep, their start in rowlist */
  cis_int rsq[9];                   /* start of irrep h's nrow[h]^2 block in a packed raw2 */
  int16_t rowpos[CI_RDM_IRREP_MAX_ROWS], rowlist[CI_RDM_IRREP_MAX_ROWS];
} ci_rdm_irreps;
/* A block's column groups: cnt[g] columns of irrep g; off[g] the start of
 * its nrow[g ^ w] x cnt[g] row-major block of D (off[8] doubles in all). */
typedef struct ci_rdm_block { cis_int cnt[8], off[9]; } ci_rdm_block;
/* s->on = 1 when the blocked path applies (else 0, nothing kept). */
cis_status ci_rdm_irreps_of(const ci_direct_view *v, const double *bra, const double *ket, ci_rdm_irreps *s);
void ci_rdm_irreps_free(ci_rdm_irreps *s);
void ci_rdm_irreps_layout(const ci_rdm_irreps *s, cis_int a0, cis_int nr, ci_rdm_block *b);
/* D of the alpha strings a0 .. a0+nr-1 of c in b's layout (mode as rdm.c's gather). */
void ci_rdm_irreps_gather(const ci_direct_view *v, const ci_rdm_irreps *s, const ci_link *La, const ci_link *Lb,
                          const double *c, cis_int a0, cis_int nr, int mode, const ci_rdm_block *b, double *Dm);
/* Rh (packed: irrep h's nrow[h]^2 at rsq[h]) += each block's product. */
void ci_rdm_irreps_accumulate(const ci_rdm_irreps *s, const ci_rdm_block *b, const double *Db, const double *Dk,
                              double *Rh);
/* R (n2 x n2, accumulate2's layout) += Rh. */
void ci_rdm_irreps_scatter(const ci_rdm_irreps *s, cis_int n2, const double *Rh, double *R);

/* The CPU RDMs with blocks of about 1024 determinants (whole alpha strings)
 * per thread, fewer where block_bytes > 0 caps a block's D intermediates:
 * the public cis_ci_direct_rdm12 (block_bytes 0) with the block size open to
 * tests (*blocks: the blocks taken, may be NULL). */
cis_status ci_rdm12_blocked(const cis_ci_direct *D, const double *bra, const double *ket, const cis_ci_rdm12 *out,
                            int64_t block_bytes, cis_int *blocks);

#endif
