/* sci_internal.h: the selected-CI product space of cisparse/sci.h.
 *
 * Layout (flat arrays, CSR-like lists: what a device copy would upload):
 * each spin's set keeps its sorted strings, an open-addressing hash table
 * string -> position (ci_rules.h's ci_string_find), and two lists per
 * string I, both in CSR form over the set's positions:
 *  - links: every a^+_p a_q |I> = sign |J> with J in the set, p == q
 *    included (J = I, sign +1), as ci_link {position of J, pair(p,q), sign}
 *    (strings.h), ordered by q then p: the opposite-spin term's E_pq;
 *  - same: the nonzero <I|H_spin|J> for J in the set (diagonal, singles,
 *    doubles; columns ascending), H_spin = the one-body and same-spin
 *    two-body Hamiltonian of that spin alone (Slater-Condon, Szabo &
 *    Ostlund Tables 2.3-2.4).
 * g is the npair x npair matrix (pq|rs) over packed pairs, and coul the
 * norb x norb Coulomb integrals (pp|qq) of the diagonal. */
#ifndef CISPARSE_CI_SCI_INTERNAL_H
#define CISPARSE_CI_SCI_INTERNAL_H

#include <stdint.h>
#include "ci/strings.h"
#include "cisparse/sci.h"

typedef struct sci_set {
  int nel;              /* electrons of this spin */
  cis_int n;            /* strings (sorted, distinct) */
  cis_int duplicates;   /* repeats removed from the input */
  uint64_t *str;        /* n */
  int32_t *table;       /* mask + 1 entries, -1 empty */
  uint64_t mask;
  int64_t *link_ptr;    /* n + 1 */
  ci_link *link;        /* link_ptr[n] */
  int max_links;        /* longest list of one string */
  int64_t *same_ptr;    /* n + 1 */
  int32_t *same_col;    /* same_ptr[n] */
  double *same_val;     /* same_ptr[n] */
  double *energy;       /* n: <I|H_spin|I> */
} sci_set;

/* Products by path (sci_half.c), counted for the tests and benchmarks. */
typedef struct sci_counts {
  int64_t general; /* vectors through the general sigma */
  int64_t half;    /* vectors within SCI_PARITY_TOL of one parity: one half sigma */
  int64_t mixed;   /* other vectors under sci_half = on: S(x) + P S(Px) */
} sci_counts;

struct cis_sci_space {
  int norb, threads;
  int same;      /* alpha set == beta set (so nalpha == nbeta): the half sigma applies */
  cis_int npair, ndet;
  sci_set A, B;
  double *g;     /* npair * npair */
  double *coul;  /* norb * norb */
  sci_counts *counts; /* written through a const space: its own allocation */
  int64_t bytes, work_bytes;
};

/* A vector this close to one alpha <-> beta parity (squared distance from
 * its pure part relative to ||x||^2: 1e-15 in norm, the order of a
 * product's rounding) is multiplied by the half sigma as if pure. */
#define SCI_PARITY_TOL 1e-30
/* Spaces below this run on one thread (a region costs more than the work). */
#define SCI_PARALLEL_MIN 4096
/* Cap on all threads' workspace when several vectors are multiplied at once. */
#define SCI_WORK_CAP (256.0 * 1048576.0)

/* Vectors per pass of a sigma on T threads: as many as fit SCI_WORK_CAP (at
 * least one) and one GEMM's n. */
int sci_vectors_per_pass(const cis_sci_space *S, int T, int k);
/* +1 or -1 when the n x n matrix x is within SCI_PARITY_TOL of x = t x^T,
 * else 0 (NaN: 0). */
int sci_parity(const cis_sci_space *S, const double *x);
/* Sigma = P H P C for k vectors of a space with equal sets through the half
 * sigma (sci_half.c): mode 0 auto (vectors of one parity; the others to
 * the general sigma), 1 on (every vector; mixed ones as S(x) + P S(Px)). */
cis_status sci_sigma_half(const cis_sci_space *S, int k, const double *C, double *Sig, int mode);
/* y[K] = sum_J H_alpha[I,J] c[J,K] over the nb columns: row I of
 * (H_alpha x 1) c, y only written. */
static inline void sci_alpha_same(const sci_set *A, cis_int I, const double *c, cis_int nb, double *y) {
  for (cis_int K = 0; K < nb; ++K) y[K] = 0.0;
  for (int64_t e = A->same_ptr[I]; e < A->same_ptr[I + 1]; ++e) {
    const double h = A->same_val[e], *cj = c + (cis_int)A->same_col[e] * nb;
    for (cis_int K = 0; K < nb; ++K) y[K] += h * cj[K];
  }
}
/* y[K] += sum over K's beta links (K -> L, pair q, sign t), L < ncol, of
 * t w[q * m + L]: the opposite-spin scatter of one row. */
static inline void sci_beta_scatter(const sci_set *B, const double *w, cis_int m, cis_int ncol, double *y) {
  for (cis_int K = 0; K < B->n; ++K) {
    double t = 0.0;
    for (int64_t e = B->link_ptr[K]; e < B->link_ptr[K + 1]; ++e) {
      const ci_link k = B->link[e];
      if (k.str < ncol) t += k.sign * w[(cis_int)k.pair * m + k.str];
    }
    y[K] += t;
  }
}
/* The general sigma of k vectors (sci_sigma.c). */
cis_status sci_sigma_general(const cis_sci_space *S, int k, const double *C, double *Sig);

/* Sort s[0..n) ascending and drop repeats in place; returns the count kept. */
cis_int sci_sort_unique(uint64_t *s, cis_int n);
/* The hash table of the sorted set S->str (S->table, S->mask). */
cis_status sci_set_table(sci_set *S);
/* Count (fill = 0: link_ptr and same_ptr only, as counts then offsets) or
 * fill (fill = 1: link, same_col, same_val, energy, max_links; the arrays
 * allocated by the caller from the offsets) the lists of S. h1 row-major
 * norb x norb, g as in cis_sci_space. OpenMP over strings. */
/* The single replacements a^+_p a_q |M> = sign |J> (q occupied in M, p
 * empty or p == q; q ascending, then p) whose J lies in T, into L (NULL:
 * counted only) as {position of J, pair, sign}, pair the packed ci_pair(p,
 * q) or with rdm_rows the RDMs' row q norb + p; returns their count. */
int64_t sci_links_into(const sci_set *T, uint64_t M, int norb, int rdm_rows, ci_link *L);
/* <S^2> of c (a vector on S, not necessarily normalised: divided by <c|c>)
 * = n_beta + S_z + S_z^2 - sum_pq <c|E^a_pq E^b_qp|c> (S^2 = S- S+ + S_z +
 * S_z^2), the last sum the elementwise product of the single-replacement
 * intermediates D^a and D^b over A x B, where both operators' intermediates
 * lie (sci_rdm.c): n^2 per determinant, against the n^4 of the 2-RDM
 * rdm2ab. The spin flips' intermediates that leave the space are counted
 * through them: exact for the full operator. OpenMP, the same result for
 * the same thread count. CIS_ERR_ALLOC; *s2 NaN for a zero vector. */
cis_status sci_s2(const cis_sci_space *S, const double *c, double *s2);
void sci_set_lists(sci_set *S, int norb, const double *h1, const double *g, cis_int npair, int fill);

#endif
