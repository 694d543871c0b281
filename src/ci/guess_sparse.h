/* guess_sparse.h: Davidson's P-space guesses on the direct space kept as
 * their nonzeros (guess_sparse.c, pspace.c), internal to the library: a few
 * hundred numbers each where a dense guess is a vector of the whole space
 * (1.9e9 determinants of CAS(16,18): 14 GiB a vector). The same numbers as
 * the dense path (ci_pspace_guess_direct / _compact, then
 * cis_ci_direct_pure_guesses / _compact_pure_guesses and
 * cis_ci_direct_keep_symmetric) reach Davidson through
 * cis_davidson_opts.guess_ptr. */
#ifndef CISPARSE_CI_GUESS_SPARSE_H
#define CISPARSE_CI_GUESS_SPARSE_H
#include "cisparse/ci.h"

/* n sparse vectors: vector j's entries are idx[ptr[j] .. ptr[j+1]) (ascending,
 * no exact zeros) with the values val[ptr[j] .. ptr[j+1]). Zeroed: empty. */
typedef struct ci_sparse_guesses {
  int n, cap_n;     /* vectors; room for cap_n (ptr: cap_n + 1) */
  cis_int cap_nz;   /* room in idx and val */
  cis_int *ptr, *idx;
  double *val;
} ci_sparse_guesses;

/* Frees s's arrays and leaves it empty (zeroed); NULL allowed. */
void ci_sparse_guesses_free(ci_sparse_guesses *s);
/* Appends the vector of nnz entries (idx ascending; val's exact zeros, of
 * either sign, are left out). CIS_ERR_ALLOC when s cannot grow (s unchanged). */
cis_status ci_sparse_guesses_push(ci_sparse_guesses *s, cis_int nnz, const cis_int *idx, const double *val);
/* x[0 .. len) = vector j of s (every entry written; its indices below len). */
void ci_sparse_guesses_expand(const ci_sparse_guesses *s, int j, cis_int len, double *x);

/* ci_pspace_guess_direct (compact = 0) or ci_pspace_guess_compact
 * (compact = 1) without the dense vectors: *idx (m entries, malloc'd with
 * cis_alloc) the P-space determinants ascending, *val (m * nvec_out, vector
 * v at *val + v*m) the eigenvectors' values on them, exactly those the dense
 * functions write (zeros included); *m the P-space size (their *np_used),
 * *nvec_out = min(nvec, m). Errors as theirs. */
cis_status ci_pspace_guess_sparse(const cis_fcidump *F, const cis_ci_direct *D, int compact, const double *diag, int np,
                                  int nvec, cis_int **idx, double **val, int *m, int *nvec_out);

/* ci_pspace_guess_sparse's P-space on the stored space S (D NULL) or the
 * direct space D, made exactly alpha <-> beta pure: the P-space closed
 * under the mirror (b, a) of each determinant (a pick whose mirror fell
 * outside it dropped) and diagonalised in its two parity blocks; the nvec
 * lowest vectors of both blocks together, then the next of each block with
 * fewer than `roots` among them (where Davidson's watch on that parity
 * starts), so that each parity the space has is present (only =
 * 0 or 1: the nvec lowest of that parity alone; -1: both). *sector
 * (cis_alloc'd, *nvec_out labels): 0 symmetric c(A,B) = c(B,A), 1
 * antisymmetric. For MS = 0 spaces closed under the mirror only (one string
 * set). Errors as ci_pspace_guess_sparse. */
cis_status ci_pspace_guess_split(const cis_fcidump *F, const cis_ci_space *S, const cis_ci_direct *D, int compact,
                                 const double *diag, int np, int nvec, int roots, int only, cis_int **idx,
                                 double **val, int *m, int *nvec_out, int **sector);

/* cis_ci_direct_pure_guesses (compact = 0, C1 vectors) or
 * cis_ci_direct_compact_pure_guesses (compact = 1) on sparse vectors, with
 * room for every antisymmetric part: each vector within 1e-6 of
 * alpha <-> beta pure is made exactly so, each other one is replaced by its
 * symmetric part (g + g^T)/2 and its antisymmetric part (g - g^T)/2 is
 * appended after all of s's vectors unless (numerically) zero; the same
 * arithmetic, pair by pair, as the dense functions (entry (A, B) with A > B
 * first), so the same values; nothing changes where they change nothing
 * (two string sets, opts.no_time_reversal). CIS_ERR_INVALID for NULL;
 * CIS_ERR_ALLOC (s unchanged). */
cis_status ci_sparse_pure_guesses(const cis_ci_direct *D, int compact, ci_sparse_guesses *s);
/* cis_ci_direct_keep_symmetric on sparse vectors: s keeps, in order, its
 * vectors symmetric under alpha <-> beta. Errors as it. */
cis_status ci_sparse_keep_symmetric(const cis_ci_direct *D, int compact, ci_sparse_guesses *s);

#endif
