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
 * occupation string, each a bit string (bit p = spatial orbital p, 0-based)
 * of ceil(NORB/64) 64-bit words: cis_ci_bits (word p/64, bit p%64), NORB <=
 * CIS_CI_MAX_ORB. The space keeps ceil(NORB/64) words per string, and its
 * build, lookup and Hamiltonian are instantiated for one and for two words
 * from one source (src/ci/ci_bits.h), so files of at most 64 orbitals run
 * the one-word code. The uint64_t entry points (ci_diagonal,
 * ci_space_det, ...) are the one-word view, kept for NORB <= 64; the
 * _bits variants take any NORB. Full CI by the direct sigma, the GPU build
 * and the Python FCI solver stay at NORB <= CIS_CI_DIRECT_MAX_ORB = 64 (full
 * CI past 64 orbitals is refused by the closed-form counts in all but the
 * tiniest electron counts anyway).
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

#define CIS_CI_MAX_ORB 128        /* orbitals a file may have: truncated (and small full) CI, stored */
#define CIS_CI_DIRECT_MAX_ORB 64  /* direct sigma, GPU build, the uint64_t entry points */
#define CIS_CI_WORDS ((CIS_CI_MAX_ORB + 63) / 64)

/* An occupation string of up to CIS_CI_MAX_ORB orbitals: orbital p is bit
 * p % 64 of w[p / 64]; words past ceil(NORB/64) are zero. */
typedef struct cis_ci_bits {
  uint64_t w[CIS_CI_WORDS];
} cis_ci_bits;
/* The string whose first 64 orbitals are x (the rest empty). */
static inline cis_ci_bits cis_ci_bits_from_u64(uint64_t x) {
  cis_ci_bits b;
  for (int k = 0; k < CIS_CI_WORDS; ++k) b.w[k] = 0;
  b.w[0] = x;
  return b;
}

/* Integrals of one FCIDUMP file (0-based orbitals in the accessors). */
typedef struct cis_fcidump {
  int norb, nelec, ms2, isym, uhf;
  int orbsym[CIS_CI_MAX_ORB]; /* irreps 1-based (Molpro's numbering); all 1 when absent */
  double ecore;               /* `0 0 0 0`, added to every total energy */
  double *h1;                 /* norb*norb, h1[i*norb+j] = h_ij = h_ji */
  double *eri;                /* packed (ij|kl): index pair(pair(i,j), pair(k,l)) */
  cis_int npair, neri;        /* norb(norb+1)/2 and npair(npair+1)/2 */
  /* How the file numbered its irreps (CIS_FCIDUMP_SYM_*): Molpro's 1..8, or
   * PySCF's default 0-based ids 0..7 (recognised by a 0 in ORBSYM), which
   * are stored here shifted by one so that orbsym and isym are always
   * 1-based. PySCF writes the literal ISYM=1 whatever the state: in a
   * 0-based file ISYM=1 is read as the totally symmetric irrep
   * (isym_assumed = 1; fcidump_set_isym overrides). */
  int sym_numbering;
  int isym_assumed;
  int isym_file;              /* ISYM as written (1 when absent) */
} cis_fcidump;

#define CIS_FCIDUMP_SYM_NONE 0     /* no ORBSYM: every orbital in irrep 1 */
#define CIS_FCIDUMP_SYM_MOLPRO 1   /* 1-based irreps 1..8 */
#define CIS_FCIDUMP_SYM_PYSCF 2    /* 0-based irrep ids 0..7 (PySCF's default) */
/* "none", "1-based (Molpro)", "0-based (PySCF)". */
CIS_API const char *cis_fcidump_numbering_name(int numbering);
/* The longest line the reader accepts (characters, newline included). */
#define CIS_FCIDUMP_MAX_LINE 65536

/* Read and validate an FCIDUMP file. Malformed input -> one line
 * "FILE:LINE: problem" (CIS_ERR_PARSE, CIS_ERR_RANGE, CIS_ERR_UNSUPPORTED). */
CIS_API cis_status cis_fcidump_read(const char *path, cis_fcidump **out);
/* Free; NULL accepted. */
CIS_API void cis_fcidump_free(cis_fcidump *F);
/* The D2h name ("Ag", "B1u", ...) of 1-based irrep 1..8 of F's numbering
 * (PySCF's ids + 1, or Molpro's), or NULL where the point group is not known
 * to be D2h: no orbital in an irrep past the fourth (the subgroups have at
 * most four; their names cannot be told from the file), no ORBSYM. */
CIS_API const char *cis_fcidump_irrep_name(const cis_fcidump *F, int irrep);

/* Number of alpha and beta electrons: (NELEC +- MS2) / 2. */
CIS_API int cis_fcidump_nalpha(const cis_fcidump *F);
CIS_API int cis_fcidump_nbeta(const cis_fcidump *F);

/* The reference determinant: aufbau on the diagonal of the Fock matrix built
 * from its own occupation (f_pp = h_pp + sum_q in occ [2(pp|qq) - (pq|qp)]
 * for closed shells, the spin-resolved form for open shells), iterated until
 * the occupied set is stable, then improved by single swaps (paired for
 * closed shells) while that lowers the diagonal energy. Symmetry ISYM is
 * respected when ORBSYM is non-trivial: where no single swap reaches it, the
 * determinant of ISYM with the lowest sum of those Fock diagonals (found
 * wherever it lies), improved by swaps the same way; CIS_ERR_INVALID only
 * when no determinant of the space has symmetry ISYM. */
CIS_API cis_status cis_ci_find_reference(const cis_fcidump *F, uint64_t *alpha, uint64_t *beta);

typedef struct cis_ci_space cis_ci_space;

/* The determinant space: every (alpha, beta) with the file's electron counts,
 * total excitation level <= level relative to (ref_alpha, ref_beta) (level < 0
 * = full CI) and spatial symmetry ISYM (XOR of 0-based irreps). */
CIS_API cis_status cis_ci_space_create(const cis_fcidump *F, int level, uint64_t ref_alpha, uint64_t ref_beta,
                               cis_ci_space **out);
/* Free a determinant space; NULL is accepted. */
CIS_API void cis_ci_space_free(cis_ci_space *S);

/* The CI Hamiltonian (electronic part, no core energy) as a double CSR with
 * columns sorted, exact zeros dropped; OpenMP over rows, two passes (count,
 * fill). upper != 0: only j >= i (flag CIS_FLAG_UPPER). Progress on stderr
 * when stderr is a terminal. */
CIS_API cis_status cis_ci_hamiltonian(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_csr **out);

/* ---- sizes before allocation (src/ci/count.c) ------------------------------ */

/* Determinant counts in closed form (binomials; per irrep by a dynamic
 * program over the orbitals' irreps; truncated CI by excitation class).
 * Doubles: exact below 2^53. */
typedef struct cis_ci_counts {
  double determinants;                        /* of irrep ISYM at level <= level */
  double alpha_strings, beta_strings;         /* the strings the space keeps (all irreps) */
  double per_level[2 * CIS_CI_MAX_ORB + 1];   /* determinants of irrep ISYM by total level */
  double per_irrep[8];                        /* determinants of each irrep (0-based), level <= level */
  double row_bound;                           /* nonzeros of a row of H at most (1 + singles + doubles) */
  double nnz_bound;                           /* determinants x row_bound */
  int level;                                  /* the level counted (full CI: nalpha + nbeta) */
  int words;                                  /* 64-bit words per string: ceil(NORB/64) */
} cis_ci_counts;

/* Host bytes a CI run needs (estimates from the counts). */
typedef struct cis_ci_memory_need {
  double space;   /* strings, hash tables, determinant lists */
  double vectors; /* Davidson: its own vectors below + the host's diagonal, guesses and roots */
  double davidson;/* Davidson's own vectors (davidson_vectors; on the device for a GPU run) */
  int subspace;   /* the Davidson subspace they are for */
  double matrix;  /* stored CSR for nnz nonzeros: 12 B each + 8 B per row pointer */
  double stored;  /* space + vectors + matrix (a stored-Hamiltonian run) */
  double direct;  /* a matrix-free run: space + vectors less the guesses (sparse there: P-space nonzeros) */
} cis_ci_memory_need;
/* Bytes for `roots` roots with a Davidson subspace of max_sub vectors (0:
 * the default; davidson_subspace) and nnz nonzeros in a stored
 * Hamiltonian (give the bound or the counted value). */
CIS_API void cis_ci_memory(const cis_ci_counts *c, int roots, int max_sub, double nnz, cis_ci_memory_need *m);

/* ---- the right states (src/ci/pspace.c, spin.c) --------------------------- */

#define CIS_CI_PSPACE_DEFAULT 400  /* determinants in the P-space (PySCF's pspace_size) */
#define CIS_CI_PSPACE_DEGEN 1e-6   /* Eh: determinants this close to the last one enter too */

/* S from <S^2> = S(S+1). */
CIS_API double cis_ci_spin_from_s2(double s2);

/* ---- Direct (matrix-free) sigma ------------------------------------------
 *
 * sigma = H c without storing H: the string-driven algorithm of Knowles &
 * Handy (Chem. Phys. Lett. 111, 315 (1984)) and Olsen et al. (J. Chem. Phys.
 * 89, 2185 (1988)) in the form of PySCF's fci.direct_spin1 (absorb_h1e +
 * contract_2e). With E_pq = E^a_pq + E^b_pq and f_pq = h_pq - 1/2 sum_r (pr|rq),
 *   H = sum_pq f_pq E_pq + 1/2 sum_pqrs (pq|rs) E_pq E_rs
 *     = 1/2 sum_pq,rs g_pq,rs E_pq E_rs,   g_pq,rs = (pq|rs) + (f_pq d_rs + d_pq f_rs)/N
 * (N = electrons: sum_r E_rr = N on the space), so one pass
 *   D[rs, J] = (E_rs c)_J              (gather through the link lists)
 *   X[pq, J] = sum_rs 1/2 g_pq,rs D[rs, J]   (one dense GEMM over orbital pairs)
 *   sigma_I  = sum_pq,J <I|E_pq|J> X[pq, J]  (scatter through the link lists)
 * gives sigma. The pair symmetry (real orbitals: g_pq,rs = g_qp,rs) keeps
 * npair = norb(norb+1)/2 rows of D and X: D sums the (r,s) and (s,r)
 * replacements. Strings and links: src/ci/strings.h (colexicographic
 * addressing). Each OpenMP thread takes one alpha string A at a time: D_A
 * (npair x all beta strings) in its own buffer, one single-threaded GEMM,
 * the beta scatter into row A of sigma; the X_A of a block of alpha strings
 * (at most opts.block_bytes) are then scattered through the alpha links by
 * threads owning ranges of beta strings. No element of sigma is written by
 * two threads and every sum runs in a fixed order: the result is bitwise the
 * same for any thread count (tested).
 *
 * Determinant order: index = A * nbeta_strings + B, alpha string address A
 * major, beta string address B minor (addresses: strings.h). The stored
 * path's cis_ci_space orders determinants by excitation level instead; map
 * between them with cis_ci_direct_det + ci_space_find.
 *
 * Scope: full CI in the file's orbitals (an active-space FCIDUMP gives CAS-CI;
 * ECORE is the caller's to add), any MS2. Point-group symmetry (ORBSYM/ISYM
 * not all 1, D2h and subgroups): the vectors keep the C1 order and length
 * above (so det/find/size, the diagonal, the P-space and <S^2> are those of
 * C1), entries outside irrep ISYM are ignored on input and zero on output,
 * and the diagonal there is 1e10 so that Davidson stays in ISYM. The CPU
 * sigma is blocked by irreps (src/ci/sigma_irrep.h, Olsen et al. 1988 §II.C,
 * PySCF direct_spin1_symm): only the ISYM determinants are gathered and the
 * GEMM runs per pair-irrep block of g, ~(irreps)^2 fewer FLOPs than C1; the
 * time-reversal half sigma only on (anti)symmetric vectors, as in C1;
 * ci_direct_compact_operator (below) is the same sigma on vectors of the
 * ISYM determinants only; opts.symmetry_projection instead masks the C1
 * sigma (C1 cost; on the GPU too). Both are exact (H
 * commutes with the irrep projector). opts.ignore_symmetry: the plain C1
 * space.
 *
 * Time reversal (MS2 = 0): when a single vector is exactly symmetric or
 * antisymmetric under alpha <-> beta, c(A,B) = t c(B,A) bitwise (as Davidson
 * keeps it from a closed-shell guess: diagonal, preconditioner and
 * orthogonalisation all preserve it), D and X inherit the symmetry and the
 * beta half of sigma is t times the transpose of the alpha half: only the
 * columns B <= A are gathered and multiplied (half the GEMM FLOPs) and
 * sigma = S + t S^T comes out exactly (anti)symmetric too. Any other vector
 * takes the full path; the result is the same sigma to rounding. */
typedef struct cis_ci_direct cis_ci_direct;

typedef struct cis_ci_direct_opts {
  int64_t mem_limit;   /* host bytes for links + workspace + `vectors` vectors; 0 = physical memory */
  int64_t block_bytes; /* cap on the D and X intermediates of one block; 0 = 256 MiB */
  int vectors;         /* determinant-length vectors the caller will hold (sized against mem_limit); 0 = 2 */
  int ignore_symmetry; /* treat ORBSYM/ISYM as C1 */
  int no_time_reversal; /* never the half sigma for (anti)symmetric MS2 = 0 vectors (below) */
  int symmetry_projection; /* point group by projection (the C1 sigma masked, C1 cost) instead of
                              the sigma blocked by irreps (same result, same vector order) */
} cis_ci_direct_opts;

/* What was built and what it takes. */
typedef struct cis_ci_direct_info {
  cis_int determinants, alpha_strings, beta_strings, npair;
  int alpha_links, beta_links;   /* links per string */
  cis_int block;                 /* alpha strings per block (one vector) */
  int threads;                   /* OpenMP threads (one GEMM per alpha string in each) */
  int64_t link_bytes, work_bytes, vector_bytes; /* lists, D+X+g, the opts.vectors vectors */
  const char *gemm;              /* which GEMM runs (BLAS library or built-in) */
  cis_int sigma_vectors;         /* vectors multiplied so far */
  double phase1_seconds;         /* gather + GEMM + beta scatter, all sigmas so far */
  double phase2_seconds;         /* alpha scatter, all sigmas so far */
  cis_int symmetry_determinants; /* determinants of irrep ISYM (= determinants in C1) */
  int projected;                 /* point-group symmetry: C1-order vectors, ISYM entries only (see above) */
  cis_int half_sigmas;           /* products done by the time-reversal half sigma */
  int blocked;                   /* point-group symmetry blocked by irreps (see above) */
} cis_ci_direct_info;

/* Strings, link lists, the pair matrix 1/2 g and the workspace for F (which
 * must outlive D: the diagonal reads it). Sizes from closed-form binomials
 * before any allocation: CIS_ERR_TOO_LARGE with the numbers when links +
 * workspace + vectors exceed opts.mem_limit; CIS_ERR_UNSUPPORTED for
 * norb > CIS_CI_DIRECT_MAX_ORB (64); CIS_ERR_INVALID when irrep ISYM has no determinant. */
CIS_API cis_status cis_ci_direct_create(const cis_fcidump *F, const cis_ci_direct_opts *o, cis_ci_direct **out);
/* New integrals for D's space (CASSCF's macro-iterations: the same space,
 * new orbitals): D reads F from now on (F must outlive D) and rebuilds its
 * pair matrix; strings, links and workspace are kept. F must have D's NORB,
 * alpha and beta electrons, ORBSYM and ISYM (CIS_ERR_INVALID naming the
 * first difference; D unchanged then). A GPU sigma made from D
 * (cis_ci_direct_gpu_create) needs cis_ci_direct_gpu_set_integrals before
 * its next product. */
CIS_API cis_status cis_ci_direct_set_integrals(cis_ci_direct *D, const cis_fcidump *F);
/* Free; NULL accepted. */
CIS_API void cis_ci_direct_free(cis_ci_direct *D);
/* Number of determinants C(norb, na) C(norb, nb) (the vector length, also
 * with point-group projection). */
CIS_API cis_int cis_ci_direct_size(const cis_ci_direct *D);
/* Strings of determinant i (direct order). */
CIS_API void cis_ci_direct_det(const cis_ci_direct *D, cis_int i, uint64_t *alpha, uint64_t *beta);
/* S = H C for k vectors (column v at C + v*n, S + v*n, n = size), the
 * electronic H (no core energy). Uses D's workspace: one call at a time per D. */
CIS_API cis_status cis_ci_direct_sigma(cis_ci_direct *D, int k, const double *C, double *S);
/* (k == 1 with an (anti)symmetric MS2 = 0 vector: the half sigma, above.) */
/* PySCF's fix_spin_ without a dense matrix: *out = H + shift P as a host
 * double operator on the direct space, P = S^2 - ss when ss < Sz(Sz+1) + 0.1
 * (ss the lowest <S^2> the space allows), else (S^2 - ss)^2 (PySCF's rule);
 * its diagonal is H's plus shift times P's leading part (when H has one).
 * H (a host double operator of the direct space's size, e.g.
 * ci_direct_operator or a stored Hamiltonian in direct order), F and D
 * must outlive *out. ss >= Sz(Sz+1) and finite shift, else CIS_ERR_INVALID. */
CIS_API cis_status cis_ci_spin_penalty_operator(const cis_operator *H, const cis_fcidump *F, const cis_ci_direct *D,
                                        double shift, double ss, cis_operator **out);

/* ---- Direct sigma on the GPU (src/ci/gpu/ci_sigma_dev.c) -----------------
 *
 * The direct sigma above with every n-vector on the device: the link lists,
 * the pair matrix 1/2 g and the string irreps are uploaded from a host
 * cis_ci_direct (same determinant order, same projection); each pass takes
 * a block of alpha strings of up to `vectors per pass` vectors:
 *   gather kernel  D[rs, (v,A,B)] = (E_rs c_v)(A,B)   (alpha + beta links, shared-memory tiles)
 *   cuBLAS DGEMM   X = 1/2 g D                          (FP64 tensor cores on sm_80+)
 *   scatter kernel sigma(I,B) from X through I's and B's own links (pull
 *                  form: one thread per element, no atomics, fixed order)
 * or, with the option sigma=fused (read when G is made), gather
 * and product fused in one kernel (D tiles in shared memory only, the FP64
 * tensor cores; X equal to the unfused one but for the order of the sums),
 * then the same scatter, and no D buffer (X gets its room);
 * D and X are sized from the free device memory (after the caller's
 * opts.vectors vectors are set aside) or opts.work_bytes; the alpha strings
 * go in blocks when D and X of all of them do not fit. Time reversal as on
 * the CPU (MS2 = 0, one vector exactly symmetric or antisymmetric under
 * alpha <-> beta, checked on the device by a kernel): D and X of the columns
 * B <= A only (half the gather and the GEMM), the scatter writes
 * sigma(I,B) and sigma(B,I) = t sigma(I,B) from one thread; D's
 * no_time_reversal option turns it off here too.
 *
 * Point-group symmetry: when D is blocked by irreps (ORBSYM/ISYM not all 1,
 * no opts.symmetry_projection), G is the blocked sigma on the device
 * (src/ci/gpu/ci_sigma_irrep.h; Olsen et al. 1988 §II.C, PySCF
 * direct_spin1_symm): the compact layout of ci_direct_compress, D and X
 * split by pair irrep, one wide cuBLAS DGEMM per pair irrep and pass
 * (g_h, npi_h x npi_h, times all the pass's columns of that pair irrep), the
 * gathers and scatters over the links of the one pair irrep that can
 * contribute, the half sigma as above; opts.vectors then counts compact
 * vectors, and the C1 link lists and workspace are not made. The
 * C1-order entry points (cis_ci_direct_gpu_sigma, _operator, _time_sigma)
 * then compress, multiply and expand (the projected sigma P H P c, as the
 * CPU); _time_sigma times the compact sigma alone. Without blocking (C1,
 * projection) the C1 sigma above runs, masked to ISYM when projecting. */
typedef struct cis_ci_direct_gpu cis_ci_direct_gpu;

typedef struct cis_ci_direct_gpu_opts {
  int64_t work_bytes;  /* cap on D + X (device bytes); 0 = what the free memory allows */
  int vectors;         /* determinant-length device vectors the caller will hold (set aside); 0 = 2 */
  int max_k;           /* vectors one pass may take (k larger: several passes); 0 = 1 */
} cis_ci_direct_gpu_opts;

typedef struct cis_ci_direct_gpu_info {
  int64_t link_bytes, work_bytes; /* device bytes: lists + g + irreps; D + X */
  int64_t free_bytes;             /* free device memory when the workspace was sized */
  cis_int block;                  /* (vector, alpha string) rows one pass holds */
  cis_int passes;                 /* passes per single-vector sigma */
  cis_int sigma_vectors;          /* vectors multiplied so far */
  cis_int half_sigmas;            /* of them by the time-reversal half sigma */
  cis_int reached_passes;         /* passes of those whose scatter ran over the pairs with a string the pass
                                     reaches (option half_scatter, ci_sigma_dev.c); the others over every pair */
  char device[128];
  char sigma_kernel[128];         /* the product's kernels: "fused: ..." (gather + FP64 MMA, D in shared memory),
                                     "unfused: ..." (gather + DGEMM), or "unfused (fused not possible: why)";
                                     chosen by option sigma=fused|unfused|auto when G is made */
  double split_ms[2][3];          /* one timed sigma's phases (cis_ci_direct_gpu_time_sigma, C1 path; 0 = not
                                     timed): [0] full, [1] half sigma; each gather (fused: gather + product),
                                     DGEMM (fused: 0), scatter, ms summed over the passes */
} cis_ci_direct_gpu_info;

/* Upload D's strings, links and pair matrix and size the workspace; D must
 * outlive G. CIS_ERR_NO_GPU without a device or CUDA; CIS_ERR_TOO_LARGE
 * (with the numbers) when not even one alpha string of one vector fits
 * beside the lists and opts.vectors vectors. */
CIS_API cis_status cis_ci_direct_gpu_create(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o,
                                    cis_ci_direct_gpu **out);
/* Free; NULL accepted. */
/* After cis_ci_direct_set_integrals on G's host D: the new pair matrix (or
 * its irrep blocks) uploaded; waits for the device's work under way first.
 * Links, workspace and G's vectors are kept. CIS_ERR_CUDA on a failed copy. */
CIS_API cis_status cis_ci_direct_gpu_set_integrals(cis_ci_direct_gpu *G);
CIS_API void cis_ci_direct_gpu_free(cis_ci_direct_gpu *G);
/* S = H C for k device vectors (column v at d_C + v*n, d_S + v*n), the
 * electronic H, enqueued on stream s (NULL = default); d_S must not overlap
 * d_C. Uses G's workspace: one call at a time per G. */
CIS_API cis_status cis_ci_direct_gpu_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S, cis_stream s);

/* What the GPU Davidson measured. */
typedef struct cis_ci_gpu_stats {
  char kernel[32];        /* the plan's kernel */
  cis_int device_bytes;   /* the plan: matrix arrays + kernel workspace */
  double upload_seconds;  /* plan creation (upload) and setup */
  double spmv_seconds;    /* device SpMV time over all products (synchronised) */
} cis_ci_gpu_stats;

/* ---- Reduced density matrices (src/ci/rdm.c; GPU src/ci/gpu/ci_rdm_dev.c) --
 *
 * The 1- and 2-particle (transition) density matrices of CI vectors on the
 * direct space of cis_ci_direct_create (its C1 determinant order A * nsb + B,
 * which is PySCF's ci[A, B]; any D: point-group symmetry does not enter, the
 * vectors are read in full), in PySCF's conventions
 * (fci.direct_spin1.make_rdm1s, make_rdm12s, trans_rdm12s with reorder=True):
 *   rdm1s[p,q]        = <bra| q_s^+ p_s |ket>                (s = a or b)
 *   rdm2st[p,q,r,s']  = <bra| p_s^+ r_t^+ s'_t q_s |ket>     (s, t = a or b)
 *   rdm1 = rdm1a + rdm1b,  rdm2 = rdm2aa + rdm2ab + rdm2ba + rdm2bb,
 * each n^2 or n^4 doubles, row-major (n = norb). E = sum_pq h_pq rdm1[q,p] +
 * 1/2 sum_pqrs (pq|rs) rdm2[p,q,r,s] when bra = ket is normalized. As PySCF's
 * reorder_rdm, rdm2, rdm2aa and rdm2bb are averaged with their particle
 * transpose [r,s,p,q] (exact for any bra, ket); rdm2ab, rdm2ba are not.
 * String-driven (Knowles & Handy, Chem. Phys. Lett. 111, 315 (1984); Olsen
 * et al., J. Chem. Phys. 89, 2185 (1988)) as the sigma: for blocks of
 * determinants I, D[pq, I] = <I|E_pq|ket> through the single-replacement
 * links, then <bra|E_pq E_rs|ket> += sum_I D_bra[qp, I] D_ket[rs, I] (one
 * GEMM per block), minus d_qr <bra|E_ps|ket>. */
typedef struct cis_ci_rdm12 {
  double *rdm1, *rdm2;                       /* spin-traced; NULL: not wanted */
  double *rdm1a, *rdm1b;                     /* spin-separated 1-RDMs; NULL: not wanted */
  double *rdm2aa, *rdm2ab, *rdm2ba, *rdm2bb; /* spin-separated 2-RDMs; NULL: not wanted */
} cis_ci_rdm12;
/* The RDMs out asks for (its non-NULL pointers; host arrays) of bra and ket
 * (host vectors of cis_ci_direct_size(D); bra == ket or bra = NULL: the
 * state density matrices), on the host (OpenMP; BLAS dgemm when built with
 * one). Only spin-traced outputs: one D of E^a + E^b per vector (one GEMM);
 * any spin-separated output: D^a and D^b (up to four GEMMs). CIS_ERR_INVALID
 * for NULL D, ket or out or nothing asked. Uses none of D's workspace. */
CIS_API cis_status cis_ci_direct_rdm12(const cis_ci_direct *D, const double *bra, const double *ket,
                                       const cis_ci_rdm12 *out);

/* The same on the GPU: the links (with full orbital-pair rows) of D
 * uploaded once by _create (D must outlive R; reuse R for every RDM of the
 * same space, e.g. across CASSCF macro-iterations); _rdm12 gathers D blocks
 * with a shared-memory kernel (src/ci/gpu/ci_rdm.cu) and accumulates with
 * cuBLAS DGEMM / DGEMV (FP64 tensor cores on sm_80+), in a workspace of at
 * most work_bytes (0: 4 GiB) allocated for the call and freed before it
 * returns, clipped to the free device memory. bra and ket: device vectors
 * (device_vectors != 0) or host vectors (uploaded for the call); out: host
 * arrays as above. Synchronizes stream s (NULL = default) before returning.
 * CIS_ERR_NO_GPU without a device or CUDA; CIS_ERR_UNSUPPORTED for norb > 64. */
typedef struct cis_ci_direct_gpu_rdm cis_ci_direct_gpu_rdm;
CIS_API cis_status cis_ci_direct_gpu_rdm_create(const cis_ci_direct *D, int64_t work_bytes,
                                                cis_ci_direct_gpu_rdm **out);
/* Free; NULL accepted. */
CIS_API void cis_ci_direct_gpu_rdm_free(cis_ci_direct_gpu_rdm *R);
CIS_API cis_status cis_ci_direct_gpu_rdm12(cis_ci_direct_gpu_rdm *R, const double *bra, const double *ket,
                                           int device_vectors, const cis_ci_rdm12 *out, cis_stream s);

#ifdef __cplusplus
}
#endif
#endif
