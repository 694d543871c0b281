/* sigma_irrep.h: the direct CI sigma with point-group symmetry blocked by
 * irreps (D2h and its subgroups, irreps 0..7 combined by XOR), for sigma.c.
 *
 * Scheme (Olsen et al., J. Chem. Phys. 89, 2185 (1988), §II.C; PySCF
 * fci.direct_spin1_symm): only the determinants (A, B) with irrep(A) XOR
 * irrep(B) = target are held, each alpha string's row compact (the beta
 * strings of irrep irrep(A) XOR target, in increasing address). The
 * intermediate D[rs, (A, B)] = (E_rs c)(A, B) is nonzero only where
 * irrep(rs) = irrep(A) XOR irrep(B) XOR target, and the pair matrix g is
 * block diagonal in the pair irreps (g[pq, rs] = 0 unless irrep(pq) =
 * irrep(rs)), so for every alpha string A and beta irrep gb the product
 * X = g D runs on one block: the npair_h x npair_h block of g of the pair
 * irrep h = irrep(A) XOR gb XOR target times the npair_h x nstrings(gb) block
 * of D. With G irreps of about equal size this is ~G^2 times fewer GEMM FLOPs
 * than the C1 sigma (G times fewer determinants, G times shorter pair blocks),
 * and the gathers and scatters visit only the links of the one pair irrep
 * that can contribute (links sorted by pair irrep per string).
 *
 * The caller's vectors stay in the C1 order of sigma.c (index A*nsb + B,
 * entries outside the target irrep ignored on input and zero on output): the
 * sigma is exactly the projected one, P H P c, computed without the C1 work.
 *
 * Time reversal (one string set, MS2 = 0, c(A,B) = t c(B,A)): (A,B) and (B,A)
 * are both in the space for any target (irrep(A) XOR irrep(B) is symmetric),
 * so sigma.c's half sigma carries over block by block: D and X only for the
 * columns B <= A (a prefix of each sorted beta-irrep list), the beta scatter
 * of B < A, the alpha scatter of all of them, then sigma = Q + t Q^T. */
#ifndef CISPARSE_CI_SIGMA_IRREP_H
#define CISPARSE_CI_SIGMA_IRREP_H

#include "ci/strings.h"
#include "cisparse/ci.h"

typedef struct ci_irrep_sigma ci_irrep_sigma;

/* Bytes ci_irrep_sigma_create will allocate for these strings (sorted links,
 * compact vectors, g blocks, workspace under block_bytes), before building. */
double ci_irrep_sigma_bytes(const cis_fcidump *F, const ci_strings *A, const ci_strings *B, int target, int threads,
                            double block_bytes, cis_int *nsym);
/* Blocked sigma for the strings A, B (which must outlive it), the pair
 * matrix g (npair x npair, 1/2 g of sigma.c, copied per irrep block), the
 * 0-based target irrep, threads OpenMP threads, intermediates of one alpha
 * block under block_bytes. CIS_ERR_INVALID when the target irrep is empty. */
cis_status ci_irrep_sigma_create(const cis_fcidump *F, const ci_strings *A, const ci_strings *B, const double *g,
                                 int target, int threads, double block_bytes, ci_irrep_sigma **out);
void ci_irrep_sigma_free(ci_irrep_sigma *R);
/* R's blocks of g refilled from a new pair matrix g of the same orbital
 * irreps (F: the same ORBSYM as at create; cis_ci_direct_set_integrals). */
void ci_irrep_sigma_set_pairs(ci_irrep_sigma *R, const cis_fcidump *F, const double *g);
/* S += H P c for one vector in C1 order (nsa*nsb); only target-irrep entries
 * of S are written. tr = +1 or -1: c is exactly (anti)symmetric under
 * alpha <-> beta (one string set; the caller checked), the half sigma; 0: the
 * full one. Adds the seconds of the two phases to *t1, *t2. */
cis_status ci_irrep_sigma_apply(ci_irrep_sigma *R, const double *c, int tr, double *S, double *t1, double *t2);

/* The compact layout itself (nsym entries: alpha strings in address order,
 * each row the beta strings of irrep(A) XOR target in address order). */
cis_int ci_irrep_sigma_size(const ci_irrep_sigma *R);
/* cc <- the target-irrep entries of the C1-order c; c <- cc expanded (zeros
 * elsewhere; every entry of c written). */
void ci_irrep_compress(const ci_irrep_sigma *R, const double *c, double *cc);
void ci_irrep_expand(const ci_irrep_sigma *R, const double *cc, double *c);
/* +1 / -1 when the compact cc is (anti)symmetric under alpha <-> beta (one
 * string set) to tol (||cc - t cc^T||^2 <= tol ||cc||^2), else 0; *exact = 1
 * when exactly so (bitwise). */
int ci_irrep_parity(const ci_irrep_sigma *R, const double *cc, double tol, int *exact);
/* out = the exactly (anti)symmetric part (par = +1 / -1) of the compact cc. */
void ci_irrep_purify(const ci_irrep_sigma *R, const double *cc, int par, double *out);
/* sc = H cc on compact vectors (sc overwritten; cc and sc distinct); tr as
 * in ci_irrep_sigma_apply. */
void ci_irrep_sigma_compact(ci_irrep_sigma *R, const double *cc, int tr, double *sc, double *t1, double *t2);
/* sc = the contributions of the alpha strings lo .. hi-1 (their gathers,
 * products and scatters; the time-reversal mirror, linear, included) to
 * H cc: the parts of a split of 0 .. nsa-1 sum to ci_irrep_sigma_compact. */
void ci_irrep_sigma_compact_range(ci_irrep_sigma *R, const double *cc, int tr, double *sc, cis_int lo, cis_int hi,
                                  double *t1, double *t2);

/* The blocked sigma's arrays as they are (read-only, owned by R): what the
 * GPU blocked sigma (src/ci/gpu/ci_sigma_irrep_dev.c) uploads. */
typedef struct ci_irrep_view {
  int target, nla, nlb, one_set;  /* 0-based target irrep; links per alpha / beta string; A == B */
  cis_int nsa, nsb, nsym;
  const uint8_t *syma, *symb;     /* irrep of every alpha / beta string */
  const cis_int *nbg, *bstart;    /* 8 beta-string counts per irrep; 9 offsets into blist */
  const int32_t *blist, *bpos;    /* beta strings sorted by (irrep, address); position of B in its irrep */
  const int *npi;                 /* 8: orbital pairs per pair irrep */
  const cis_int *goff;            /* 8: block h of g (npi[h] x npi[h], row-major) at gblk + goff[h] */
  const double *gblk;
  const ci_link *alink, *blink;   /* nla / nlb per string, sorted by pair irrep; pair = position in its
                                     irrep; alpha str = J's address, beta str = position of J in its irrep */
  const int32_t *astart, *bstart_l; /* per string 9 offsets into its sorted links */
  const cis_int *off;             /* nsa + 1 compact row offsets */
} ci_irrep_view;
void ci_irrep_get_view(const ci_irrep_sigma *R, ci_irrep_view *v);

/* Host work on compact vectors alone (no C1-length vector), for Davidson's
 * start on the ISYM determinants (sigma.c's public compact entry points):
 * the strings of compact entry i; the compact diagonal (the C1 one's
 * entries, by the same sums: with one string set made exactly symmetric
 * under alpha <-> beta); time reversal of one compact vector (as
 * ci_direct_time_reversal: +-1 and cc made exactly pure when within
 * 1e-6 relative, else 0 and cc unchanged); the split g -> (g + g^T)/2 in
 * place and a = (g - g^T)/2 (a may be NULL), with the squared norms. */
void ci_irrep_det(const ci_irrep_sigma *R, cis_int i, uint64_t *alpha, uint64_t *beta);
cis_status ci_irrep_diagonal(const ci_irrep_sigma *R, const cis_fcidump *F, double *dc);
int ci_irrep_time_reversal(const ci_irrep_sigma *R, double *cc);
void ci_irrep_split(const ci_irrep_sigma *R, double *g, double *a, double *nsym, double *nanti);

#endif
