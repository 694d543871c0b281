/* cisparse/ci.h: configuration-interaction ground states from FCIDUMP files.
 *
 * FCIDUMP (Knowles & Handy, Comput. Phys. Commun. 54, 75 (1989)): a namelist
 * header &FCI NORB=.., NELEC=.., MS2=.., ORBSYM=.., ISYM=.., UHF=.. &END (or
 * `/`), then lines `value i j k l` (1-based): (ij|kl) when all four are
 * non-zero, h_ij for `i j 0 0`, the core energy for `0 0 0 0`; `e i 0 0 0`
 * (orbital energies, written by some programs) is read and ignored. Real
 * orbitals: (ij|kl) has 8-fold symmetry and is stored once, symmetric-packed.
 *
 * Determinants (Slater determinants, Ms = MS2/2): an alpha and a beta
 * occupation string, each a uint64_t bit string (bit p = spatial orbital p,
 * 0-based), so NORB <= 64. Beyond 64 orbitals the strings would become
 * multi-word bit sets (uint64_t[ceil(NORB/64)]) with the same algorithms; not
 * implemented, refused with CIS_ERR_UNSUPPORTED.
 *
 * Lookup string -> index: the alpha strings and beta strings of the space are
 * each kept in a sorted array with an open-addressing hash table (string ->
 * position); for every alpha string the determinants that contain it keep
 * their beta positions sorted (a CSR-like list), so (alpha, beta) -> index is
 * one hash probe per string plus a direct index when the list is a prefix
 * 0..count-1 of the beta strings (full CI, and truncated CI without spatial
 * symmetry, as beta strings are sorted by excitation level) or else a binary
 * search. The Hamiltonian builder looks strings up once per excitation and
 * determinants by position.
 *
 * Ordering: the reference determinant first, then all singles, doubles, ...
 * (by total excitation level relative to the reference; inside a level by
 * alpha string, then beta string): the paper's Reference region at the left
 * of the matrix (Mahmoud et al. 2018, §2.2). */
#ifndef CISPARSE_CI_H
#define CISPARSE_CI_H

#include <stdint.h>
#include "cisparse/format.h"
#include "cisparse/gpu.h"
#include "cisparse/solver.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CIS_CI_MAX_ORB 64

/* Integrals of one FCIDUMP file (0-based orbitals in the accessors). */
typedef struct cis_fcidump {
  int norb, nelec, ms2, isym, uhf;
  int orbsym[CIS_CI_MAX_ORB]; /* irreps as in the file (1-based); all 1 when absent */
  double ecore;               /* `0 0 0 0`, added to every total energy */
  double *h1;                 /* norb*norb, h1[i*norb+j] = h_ij = h_ji */
  double *eri;                /* packed (ij|kl): index pair(pair(i,j), pair(k,l)) */
  cis_int npair, neri;        /* norb(norb+1)/2 and npair(npair+1)/2 */
} cis_fcidump;

/* Read and validate an FCIDUMP file. Malformed input -> one line
 * "FILE:LINE: problem" (CIS_ERR_PARSE, CIS_ERR_RANGE, CIS_ERR_UNSUPPORTED). */
CIS_API cis_status cis_fcidump_read(const char *path, cis_fcidump **out);
/* Free; NULL accepted. */
CIS_API void cis_fcidump_free(cis_fcidump *F);
/* (ij|kl) in chemists' notation, 0-based orbitals. */
CIS_API double cis_fcidump_eri(const cis_fcidump *F, int i, int j, int k, int l);
/* Number of alpha and beta electrons: (NELEC +- MS2) / 2. */
CIS_API int cis_fcidump_nalpha(const cis_fcidump *F);
CIS_API int cis_fcidump_nbeta(const cis_fcidump *F);

/* Electronic energy <D|H|D> of the determinant (alpha, beta) (no core energy). */
CIS_API double cis_ci_diagonal(const cis_fcidump *F, uint64_t alpha, uint64_t beta);
/* <I|H|J> by the Slater-Condon rules with fermionic signs (no core energy;
 * 0 beyond double excitations). */
CIS_API double cis_ci_element(const cis_fcidump *F, uint64_t alpha_i, uint64_t beta_i, uint64_t alpha_j,
                      uint64_t beta_j);

/* The reference determinant: aufbau on the diagonal of the Fock matrix built
 * from its own occupation (f_pp = h_pp + sum_q in occ [2(pp|qq) - (pq|qp)]
 * for closed shells, the spin-resolved form for open shells), iterated until
 * the occupied set is stable, then improved by single swaps (paired for
 * closed shells) while that lowers the diagonal energy. Symmetry ISYM is
 * respected when ORBSYM is non-trivial. */
CIS_API cis_status cis_ci_find_reference(const cis_fcidump *F, uint64_t *alpha, uint64_t *beta);
/* Parse an --occ list: "1,2,3" = those orbitals doubly occupied (closed
 * shell), or "1,2,3/1,2" = alpha list / beta list (1-based). Checks the
 * counts against NELEC/MS2, ranges and repeats. */
CIS_API cis_status cis_ci_parse_occ(const cis_fcidump *F, const char *list, uint64_t *alpha, uint64_t *beta);

typedef struct cis_ci_space cis_ci_space;

/* The determinant space: every (alpha, beta) with the file's electron counts,
 * total excitation level <= level relative to (ref_alpha, ref_beta) (level < 0
 * = full CI) and spatial symmetry ISYM (XOR of 0-based irreps). */
CIS_API cis_status cis_ci_space_create(const cis_fcidump *F, int level, uint64_t ref_alpha, uint64_t ref_beta,
                               cis_ci_space **out);
/* Free a determinant space; NULL is accepted. */
CIS_API void cis_ci_space_free(cis_ci_space *S);
/* Number of determinants. */
CIS_API cis_int cis_ci_space_size(const cis_ci_space *S);
/* Strings of determinant i. */
CIS_API void cis_ci_space_det(const cis_ci_space *S, cis_int i, uint64_t *alpha, uint64_t *beta);
/* Excitation level of determinant i relative to the reference. */
CIS_API int cis_ci_space_level(const cis_ci_space *S, cis_int i);
/* Index of determinant (alpha, beta), -1 if it is not in the space. */
CIS_API cis_int cis_ci_space_find(const cis_ci_space *S, uint64_t alpha, uint64_t beta);
/* Number of distinct alpha / beta strings in the space. */
CIS_API cis_int cis_ci_space_nalpha_strings(const cis_ci_space *S);
CIS_API cis_int cis_ci_space_nbeta_strings(const cis_ci_space *S);

/* The CI Hamiltonian (electronic part, no core energy) as a double CSR with
 * columns sorted, exact zeros dropped; OpenMP over rows, two passes (count,
 * fill). upper != 0: only j >= i (flag CIS_FLAG_UPPER). Progress on stderr
 * when stderr is a terminal. */
CIS_API cis_status cis_ci_hamiltonian(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_csr **out);
/* Nonzeros of that Hamiltonian (and its longest row) without storing it:
 * the counting pass alone, to size memory before building. */
CIS_API cis_status cis_ci_hamiltonian_nnz(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int *nnz,
                                  cis_int *max_row);
/* The same Hamiltonian (full matrix, double, columns sorted, exact zeros
 * dropped: equal to cis_ci_hamiltonian bit for bit) built in device memory
 * and returned as a csr plan (kernel csr-vector, 64-bit row pointers), *nnz
 * its nonzeros (nnz may be NULL). One thread per row counts, a prefix sum
 * sizes the CSR, a second pass fills it in chunks whose rows are then sorted
 * by column (src/ci/gpu/ci_build.cu). Any space (full or truncated CI).
 * CIS_ERR_NO_GPU without a device or CUDA, CIS_ERR_DEVICE_OOM naming the
 * array when the CSR does not fit. */
CIS_API cis_status cis_ci_hamiltonian_gpu(const cis_fcidump *F, const cis_ci_space *S, cis_gpu_plan **out, cis_int *nnz);
/* Diagonal of H (electronic), n = space size. */
CIS_API cis_status cis_ci_diagonal_all(const cis_fcidump *F, const cis_ci_space *S, double *diag);

/* y = H x: the operator Davidson iterates with. */
typedef cis_status (*cis_linop)(void *ctx, const double *x, double *y);

/* cis_davidson_operator (cisparse/solver.h) on the host callback op
 * (dimension n, called with host vectors): lowest o->roots eigenpairs with
 * the diagonal (Davidson) preconditioner t = r / (e - diag), subspace collapse
 * to the current Ritz vectors, convergence on residual norms and energy
 * changes. evals: roots values; evecs: n*roots (column i at evecs + i*n) or
 * NULL. CIS_ERR_NOT_CONVERGED (results still written) after max_iter. */
CIS_API cis_status cis_davidson(cis_int n, const double *diag, cis_linop op, void *ctx,
                        const cis_davidson_opts *o, double *evals, double *evecs,
                        cis_davidson_info *info);

/* What the GPU Davidson measured. */
typedef struct cis_ci_gpu_stats {
  char kernel[32];        /* the plan's kernel */
  cis_int device_bytes;   /* the plan: matrix arrays + kernel workspace */
  double upload_seconds;  /* plan creation (upload) and setup */
  double spmv_seconds;    /* device SpMV time over all products (synchronised) */
} cis_ci_gpu_stats;

/* Davidson on the GPU: M (double) is uploaded once into a plan with
 * `kernel` (NULL = the format's default) and solved by cis_davidson_operator
 * on that plan's operator (cis_operator_from_gpu_plan): every vector
 * (subspace, H*subspace, Ritz vectors, residual) lives on the device, H x is
 * cis_gpu_spmv, dots, axpys and Ritz combinations are the device backend's
 * (cuBLAS), the preconditioner a kernel; only subspace-sized matrices and
 * scalars cross the bus. evecs (host) may be NULL. stats->spmv_seconds is
 * info->op_seconds (every product synchronized). CIS_ERR_NO_GPU without a
 * device or CUDA. */
CIS_API cis_status cis_ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats);
/* The same on a plan already on the device (square, double), e.g. from
 * cis_ci_hamiltonian_gpu; the plan is not freed. */
CIS_API cis_status cis_ci_davidson_gpu_plan(cis_gpu_plan *plan, const double *diag, const cis_davidson_opts *o,
                                    double *evals, double *evecs, cis_davidson_info *info,
                                    cis_ci_gpu_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
