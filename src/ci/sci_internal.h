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

struct cis_sci_space {
  int norb, threads;
  cis_int npair, ndet;
  sci_set A, B;
  double *g;     /* npair * npair */
  double *coul;  /* norb * norb */
  int64_t bytes, work_bytes;
};

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
void sci_set_lists(sci_set *S, int norb, const double *h1, const double *g, cis_int npair, int fill);

#endif
