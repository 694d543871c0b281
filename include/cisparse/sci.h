/* cisparse/sci.h: selected CI in a product of string sets (CPU).
 *
 * The space is the Cartesian product of a SET of alpha strings and a SET of
 * beta strings (not all strings): the determinants of selected CI in the
 * form of PySCF's fci.selected_ci (kernel_fixed_space, contract_2e) and of
 * sample-based quantum diagonalisation (SQD), where a sampler proposes the
 * strings. Strings are uint64_t bit strings, bit p = spatial orbital p
 * (0-based), NORB <= 64.
 *
 * Order and signs (PySCF's): each set is kept sorted by integer value
 * (PySCF's cistring order), duplicates removed; vectors are n_alpha x
 * n_beta matrices, row-major (alpha string major): entry ia * n_beta + ib
 * is the determinant (alpha[ia], beta[ib]) = a^+(alpha) a^+(beta)|0>, alpha
 * creators first, each string's creators in increasing orbital order. So a
 * vector is PySCF's SCIvector (ci_strs = the two sorted sets) as a flat
 * array, and with the full string sets it is the direct sigma's
 * (cis_ci_direct_sigma) order as well.
 *
 * The Hamiltonian is the electronic one (no core energy, as
 * cis_ci_direct_sigma) projected onto the space, P H P; ORBSYM and ISYM are
 * not used (the space is whatever the sets give). Status: CPU sigma
 * (with the alpha <-> beta half sigma for equal sets) and RDMs (OpenMP);
 * a GPU sigma and the user-facing entry points (Python's cisparse.sqd, the
 * command line's --strings) are to come. */
#ifndef CISPARSE_SCI_H
#define CISPARSE_SCI_H

#include <stdint.h>
#include "cisparse/ci.h"
#include "cisparse/operator.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cis_sci_space cis_sci_space;

/* What a space holds and takes. */
typedef struct cis_sci_info {
  cis_int alpha_strings, beta_strings; /* after sorting and removing duplicates */
  cis_int determinants;                /* alpha_strings * beta_strings */
  cis_int alpha_duplicates, beta_duplicates; /* input strings removed as repeats */
  cis_int alpha_links, beta_links;     /* single replacements a^+_p a_q (p == q included) inside each set */
  cis_int alpha_pairs, beta_pairs;     /* nonzero same-spin elements <I|H_spin|J> (diagonal included) */
  int norb, nalpha, nbeta;             /* orbitals and electrons of each spin */
  int threads;                         /* OpenMP threads of the sigma */
  int64_t bytes;                       /* memory of the space (sets, links, same-spin matrices, integrals) */
  int64_t work_bytes;                  /* sigma workspace for one vector (all threads) */
} cis_sci_info;

/* The space alpha x beta for the integrals F (header, sizes and arrays
 * checked, not the values: fcidump_check does that; F is copied from,
 * not kept). The sets are copied, sorted and deduplicated (the repeats
 * counted in cis_sci_info). Refused with one line (cis_last_error) and
 *   CIS_ERR_INVALID     NULL argument, an empty set, a string with the
 *                       wrong number of electrons (NELEC, MS2);
 *   CIS_ERR_RANGE       a string with a bit at or beyond NORB;
 *   CIS_ERR_UNSUPPORTED NORB > 64;
 *   CIS_ERR_TOO_LARGE   a set above 2^31 - 1 strings, or memory (sets,
 *                       links, same-spin matrices, two vectors and the
 *                       sigma's workspace) above mem_limit bytes (0: the
 *                       host's available memory), sizes checked before each
 *                       allocation, the numbers in the message.
 * Builds the link lists of both sets and the same-spin matrices. */
CIS_API cis_status cis_sci_space_create(const cis_fcidump *F, const uint64_t *alpha, cis_int n_alpha,
                                        const uint64_t *beta, cis_int n_beta, int64_t mem_limit,
                                        cis_sci_space **out);
/* Free; NULL accepted. */
CIS_API void cis_sci_space_free(cis_sci_space *S);
/* Number of determinants (the vector length); 0 for NULL. */
CIS_API cis_int cis_sci_space_size(const cis_sci_space *S);
/* The sorted strings of one spin (0 alpha, 1 beta), owned by S; *count
 * their number (may be NULL). NULL for a NULL S or another spin. */
CIS_API const uint64_t *cis_sci_space_strings(const cis_sci_space *S, int spin, cis_int *count);
/* What S holds (above). */
CIS_API void cis_sci_space_get_info(const cis_sci_space *S, cis_sci_info *info);
/* diag[i] = <D_i|H|D_i> for every determinant (electronic, no core
 * energy): Davidson's preconditioner (Davidson 1975). With equal alpha and
 * beta sets, diag(A,B) = diag(B,A) exactly (a vector of one alpha <-> beta
 * parity stays so under the preconditioner). */
CIS_API cis_status cis_sci_diagonal(const cis_sci_space *S, double *diag);
/* Sigma = P H P C for k vectors (vector v at C + v*size and Sigma + v*size;
 * Sigma only written, C and Sigma must not overlap): the string-driven
 * sigma (Knowles & Handy 1984, Olsen et al. 1988) restricted to the sets,
 * OpenMP over alpha strings, bitwise independent of the thread count.
 * When the alpha set equals the beta set (MS = 0), a vector within 1e-15
 * (in norm, relative) of C = t C^T (t = +-1, an alpha <-> beta parity)
 * takes the half sigma (about half the work; its result exactly of parity
 * t) and any other vector the general sigma; the option sci_half
 * (cis_option_set: auto, on = the half sigma for every vector, off) chooses
 * (docs/sci.md). The same sigma to rounding on every path.
 * CIS_ERR_INVALID for NULL arguments or k < 1; CIS_ERR_ALLOC. */
CIS_API cis_status cis_sci_sigma(const cis_sci_space *S, int k, const double *C, double *Sigma);
/* A host operator (double) applying cis_sci_sigma, its diagonal recorded
 * (cis_operator_diagonal) for cis_davidson_operator. S must outlive it. */
CIS_API cis_status cis_sci_operator(const cis_sci_space *S, cis_operator **out);

/* 1- and 2-particle (transition) RDMs of bra and ket on S (bra NULL:
 * ket's state RDMs), the outputs and conventions of cis_ci_direct_rdm12
 * (cisparse/ci.h, PySCF's), any subset non-NULL: exact matrix elements
 * <bra|q^+ p|ket> and <bra|p^+ r^+ s q|ket> of the full operators for
 * vectors supported on the space (intermediates E_rs|ket> outside it
 * included), as PySCF's selected_ci.make_rdm1s / make_rdm2s /
 * trans_rdm1s. String-driven (Knowles & Handy 1984, Olsen et al. 1988),
 * OpenMP; the same result for the same thread count. CIS_ERR_INVALID for
 * NULL S, ket or out, or nothing asked; CIS_ERR_ALLOC. */
CIS_API cis_status cis_sci_rdm12(const cis_sci_space *S, const double *bra, const double *ket,
                                 const cis_ci_rdm12 *out);

#ifdef __cplusplus
}
#endif
#endif
