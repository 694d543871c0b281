/* cisparse/ci_solve.h: the CI driver. One call from integrals to the lowest
 * states: it chooses the method (stored Hamiltonian or matrix-free sigma),
 * the device, the guesses and Davidson's subspace, and reports what it did.
 * The `cisparse ci` command and Python's cisparse.fci.FCISolver are both
 * this call, so they do the same work on the same input.
 *
 *   cis_ci_solve_opts o = cis_ci_solve_opts_default();
 *   o.roots = 2;
 *   cis_ci_result *r;
 *   if (cis_ci_solve_file("h2o.FCIDUMP", &o, &r) == CIS_OK)
 *     printf("%.10f\n", r->energies[0]);   // total energies (core included)
 *   cis_ci_result_free(r);
 *
 * Methods (Davidson, Liu 1978, as in PySCF; stored H: the paper's formats;
 * direct: Olsen/Knowles-Handy string-driven sigma), defaults (one rule for
 * every entry point):
 * - method auto: full CI on the GPU -> direct; on the CPU -> direct for C1
 *   and one or two roots, or when the stored H would take more than half the
 *   host memory; stored otherwise (point-group symmetry, truncated CI, more
 *   roots: bench/results/ci_direct_cpu.md);
 * - Davidson: P-space guesses (CIS_CI_PSPACE_DEFAULT determinants of lowest
 *   diagonal), nroots + min(4, nroots + 2) of them on the CPU, nroots on the
 *   GPU; subspace o.max_sub when given (PySCF's max_space), else max(8 roots,
 *   24) lowered to what fits the free memory (the direct path: the device's
 *   less a third for the sigma's workspace; the host: the process limit
 *   less the space); residual norm o.tol.
 */
#ifndef CISPARSE_CI_SOLVE_H
#define CISPARSE_CI_SOLVE_H
#include "cisparse/ci.h"
#include "cisparse/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The method (cis_ci_solve_opts.method: AUTO, STORED or DIRECT); a result's
 * method is STORED, DIRECT, or SELECTED for a solver given string sets
 * (cis_ci_solver_set_strings), never asked for through the options. */
typedef enum {
  CIS_CI_METHOD_AUTO = 0,
  CIS_CI_METHOD_STORED = 1,
  CIS_CI_METHOD_DIRECT = 2,
  CIS_CI_METHOD_SELECTED = 3
} cis_ci_method;

struct cis_ci_result;

/* What the driver reports while it works (cis_ci_solve_opts.progress). */
typedef enum {
  CIS_CI_PROGRESS_HEADER = 0,   /* once, before the long work (the H build or the first sigma): the method, why,
                                   the space and the memory are known; the result's other fields are not yet */
  CIS_CI_PROGRESS_ITERATION = 1, /* after each Davidson iteration */
  CIS_CI_PROGRESS_BUILD = 2      /* the stored H built on the host, after the header: at each further tenth of a
                                    pass's rows or 5 s, and at the end of each pass (at least two events) */
} cis_ci_progress_event;

typedef struct cis_ci_progress {
  cis_ci_progress_event event;
  const struct cis_ci_result *result; /* HEADER: the result so far (method, why, determinants, strings, counts,
                                         need, mem_limit; stored: nnz_estimate; direct: direct) */
  int iteration, subspace;      /* ITERATION: the Davidson iteration (1-based), subspace vectors */
  int roots, converged;         /* roots Davidson computes, those converged */
  cis_int products;             /* products (H x or sigma) so far */
  double energy;                /* lowest root's total energy in Eh (core energy included) */
  double max_residual, tol;     /* largest residual norm of the roots, and the tolerance */
  double seconds;               /* this iteration */
  double elapsed;               /* since the solve began (the file's read included) */
  double eta;                   /* estimated seconds left from the residual's decrease so far, at most the
                                   iterations left to max_iter; < 0 none (residual not falling yet);
                                   BUILD: left in this pass at its rate so far */
  int pass;                     /* BUILD: 1 the rows' nonzeros counted, 2 the rows filled and sorted
                                   (seconds: since the pass began) */
  cis_int rows_done, rows, nnz; /* BUILD: rows done of the pass's rows, their nonzeros */
} cis_ci_progress;

/* A progress callback: it reads p (valid during the call only) and returns;
 * the driver calls it from one thread at a time. */
typedef void (*cis_ci_progress_fn)(void *user, const cis_ci_progress *p);

typedef struct cis_ci_solve_opts {
  cis_ci_method method;
  int gpu;               /* 1: Davidson's products (and the direct sigma) on the GPU */
  int build;             /* stored H built on: -1 the device of the products, 0 CPU, 1 GPU */
  int gpus;              /* > 0 or CIS_CI_ALL_GPUS: over several GPUs of the host (NCCL); 0: one device.
                          * Direct (auto for full CI): the sigma split by alpha strings, every part
                          * holding the whole vector and its partial sigma, Davidson's vectors split;
                          * stored (or a level): each GPU its rows of H, energies only */
  int cpu_parts;         /* > 0: the same over that many host parts (the distributed code without GPUs) */
  int host_vectors;      /* direct over GPUs: Davidson's vectors in host memory (cis_dist_summed_set_vectors_host),
                          * the GPUs holding only each product's whole vectors and the sigma's workspace:
                          * 0 (default) when the smallest subspace does not fit the GPUs beside them, the
                          * subspace then fitted to the host's memory; 1 always; -1 never (such a space refused) */
  const char *exchange;  /* several parts: the halo exchange ("auto", ...: cis_dist_exchange_parse) */
  int level;             /* excitation level from the reference; -1 full CI */
  int roots;             /* states reported (1..64) */
  double spin;           /* >= 0: only states of total spin S (more roots computed); < 0 every state */
  int isym;              /* 1..8: target irrep, 1-based as FCIDUMP's ISYM and cis_fcidump.isym (a PySCF file's irrep id + 1; files only); < 0 the file's */
  const char *occ;       /* the reference's occupied orbitals ("1,2,3/1,2": cis_ci_parse_occ_bits); NULL aufbau */
  double tol;            /* Davidson's residual norm */
  double etol;           /* and energy change (0: residual only) */
  int max_iter;
  int max_sub;           /* subspace vectors (0: the default above) */
  int pspace;            /* P-space determinants (0: CIS_CI_PSPACE_DEFAULT) */
  const char *format;    /* stored: storage format ("auto" or a cis_format_name); kernel NULL: the format's */
  const char *kernel;
  int symmetric;         /* stored: the upper triangle only */
  int float_values;      /* stored sell16: float values, double vectors */
  const char *save;      /* stored, built on the CPU: H + ecore I (its eigenvalues the total energies) written to this file (.cisb, else Matrix Market) */
  int no_time_reversal;  /* direct: never the alpha<->beta half sigma */
  int symmetry_projection; /* direct: point group by projection at the C1 cost (not blocked by irreps) */
  int no_s2;             /* <S^2> of the roots not computed */
  int block_products;    /* Davidson's new vectors by one block product */
  int verbose;           /* Davidson prints each iteration on stderr; stored, built on the host: every other format
                          * small enough is also built once for its bytes (format_bytes, phase "formats compared") */
  int count_only;        /* sizes and memory only (nothing built but, when quick, the space and a nonzero count) */
  int repeat;            /* direct: the whole solve this many times (1..CIS_CI_MAX_REPEAT), warm process timings */
  int accept_unconverged;/* Davidson's last vectors returned (converged = 0) instead of CIS_ERR_NOT_CONVERGED */
  int keep_vectors;      /* the result holds the roots' vectors and their determinants */
  int time_sigma;        /* direct: one sigma (on the GPU also a half sigma) timed apart after the setup (sigma_ms, t_timing; not in to_solution); 0: none */
  int64_t gpu_leave_free;/* direct on the GPU: device bytes the sigma's workspace leaves free (0: none) */
  double spin_penalty;   /* > 0: H + spin_penalty (S^2 - ss) (PySCF's fix_spin_); direct on the CPU */
  double spin_penalty_ss;/* ss of the penalty (< 0: Sz(Sz+1)); squared above the lowest spin, PySCF's rule */
  const double *guess;   /* nguess warm-start vectors in the result's determinant order (cis_ci_solver_dets) */
  int nguess;
  cis_ci_progress_fn progress; /* NULL (default): none; else called with progress_user (see cis_ci_progress) */
  void *progress_user;
  int singlet;           /* 1: only states symmetric under alpha <-> beta, c(A,B) = c(B,A) (PySCF's direct_spin0:
                          * S = 0, 2, 4, ...): Davidson in that subspace; MS2 = 0, direct full CI, time reversal on */
  struct cis_dist_comm *comm; /* NULL (default): the driver makes the parts' communicator (gpus, cpu_parts).
                          * Else the caller's (cisparse/dist.h; e.g. one part per MPI process:
                          * cis_dist_comm_mpi_host, cis_dist_comm_mpi), used and not freed: its ranks are
                          * the parts, cpu_parts (host comm) or gpus (device comm) must equal their count,
                          * every process calls the driver together with the same input, and each gets
                          * the whole result (energies, <S^2>, vectors) */
} cis_ci_solve_opts;

#define CIS_CI_ALL_GPUS (-1)
#define CIS_CI_MAX_REPEAT 20
#define CIS_CI_MAX_FORMATS 16
#define CIS_CI_MAX_PARTS 4096     /* gpus, and cpu_parts with a caller's communicator */
#define CIS_CI_MAX_CPU_PARTS 64   /* cpu_parts without one (threads of this process) */
#define CIS_CI_MAX_SUBSPACE 4096  /* max_sub */
#define CIS_CI_MAX_PSPACE 2000    /* pspace */
#define CIS_CI_MAX_ITER 1000000   /* max_iter */
#define CIS_CI_MAX_PHASES 24

/* One phase of a solve (cis_ci_result.phases): its name (static text) and its wall seconds. The names:
 * "parse" (the file read), "setup" (reference, sizes, checks), "space" (determinants; direct: strings and
 * links), "estimate" (stored: sampled rows), "header" (the caller's progress callback), stored: "build: rows"
 * (generated, both passes), "build: sort" (each row by column), "build: save", "build: format" (chosen and
 * converted), "build (GPU)", "formats compared" (verbose), "diagonal"; direct: "operators", "sigma timing";
 * then "guess", "davidson", "<S^2>", "result". */
typedef struct cis_ci_phase {
  const char *name;
  double seconds;
} cis_ci_phase;

/* What a solve did and found. Energies are total (core energy included). */
typedef struct cis_ci_result {
  const cis_fcidump *fcidump;    /* the integrals' header (owned by the result when read from a file) */
  int method;                    /* CIS_CI_METHOD_STORED or _DIRECT: what ran */
  const char *why;               /* method auto: why (static text), else "" */
  int gpu, build_gpu, parts;     /* products on the GPU; H built on the GPU; distributed over parts (0: not) */
  int roots;                     /* reported */
  double *energies, *s2;         /* [roots]: total energies, <S^2> (NaN with no_s2) */
  int *state;                    /* [roots]: the index of each reported root among the computed ones */
  int computed;                  /* roots computed (more than asked with spin >= 0) */
  cis_int size;                  /* entries of a CI vector (and of `vectors`' rows) */
  double *vectors;               /* keep_vectors: [roots][size], reported roots */
  int converged;                 /* every root converged */
  /* the reference and the space */
  cis_ci_bits ref_alpha, ref_beta;
  int no_reference;              /* full CI without an ISYM reference: e_reference is the lowest determinant's */
  double e_reference;            /* E_RHF of the reference (total) */
  cis_int determinants, alpha_strings, beta_strings;
  cis_ci_counts counts;          /* closed-form sizes */
  cis_ci_memory_need need;
  int64_t mem_limit;             /* bytes this process may use (0: unknown) */
  char mem_why[64];
  /* stored */
  cis_int nnz;
  char format[24], kernel[32];   /* format and GPU kernel that ran ("" none) */
  char format_reason[192];       /* format auto: what it read and chose ("" not auto) */
  int symmetric_plan;            /* symmetric storage on the GPU */
  int64_t matrix_bytes;          /* host CSR or device bytes of H */
  int64_t format_bytes[CIS_CI_MAX_FORMATS], format_estimate[CIS_CI_MAX_FORMATS]; /* per cis_format_name(f); -1 none.
                                  * format_bytes: the format that ran (built), others only with opts.verbose;
                                  * format_estimate: csr, ell, ellr by their layout formulas where not built */
  double build_estimate;         /* stored, built on the host: seconds the build should take, from the sampled
                                  * rows' time (known at the header event; 0 none) */
  cis_int boundary;              /* hyb */
  cis_ci_gpu_stats gpu_stats;
  double exchange_bytes;         /* distributed: bytes exchanged per product */
  double exchange_seconds, product_seconds; /* distributed: in the products */
  double count_seconds;          /* distributed: the rows' nonzero count */
  double build_rows_seconds;     /* distributed: the parts' row builds (host, or each part's GPU) */
  double split_seconds;          /* distributed: the parts' rows split into local and remote blocks */
  double store_seconds;          /* distributed: the blocks stored (plans, uploads; sym-seg: its layout) */
  char parts_comm[32], parts_op[48];
  /* --count */
  int nnz_counted;
  cis_int count_nnz, count_max_row, nnz_sampled;
  double nnz_estimate;
  /* direct */
  cis_ci_direct_info direct;     /* at the end of the solve */
  cis_ci_direct_gpu_info direct_gpu;
  double sigma_ms, sigma_half_ms;/* time_sigma: one sigma, one half sigma (GPU) (medians of 5; 0 not timed) */
  cis_int half_sigmas;
  /* Davidson and timings (seconds) */
  cis_davidson_info davidson;
  int subspace;                  /* Davidson's subspace (vectors before a collapse) */
  int subspace_reduced_from;     /* > 0: the default it was lowered from to fit the free memory */
  int one_parity;                /* 1: MS = 0, but the memory fitted only the subspace of one alpha <-> beta
                                  * parity's search (no split guesses, no watches): a state of the other parity
                                  * below the roots is found only if Davidson reaches it */
  int host_vectors;              /* direct over GPUs: Davidson's vectors were in host memory (opts.host_vectors):
                                  * 1 pageable, 2 page-locked (cis_dist_vectors_on_host); 0 on the GPUs */
  int pspace_used;
  double t_parse, t_build, t_guess, t_s2, t_total, t_timing;
  cis_ci_phase phases[CIS_CI_MAX_PHASES]; /* the wall time by phase, in the order first met (one device; a phase
                                  * met again, e.g. by --spin's second round, adds to its entry): their sum is
                                  * t_total less what no phase covers (checks, allocations) */
  int nphases;
  int repeats;
  int space_reused;              /* the solver's space from an earlier solve was used (new integrals only) */
  double to_solution[CIS_CI_MAX_REPEAT];
  /* determinants of `vectors`' entries (keep_vectors): stored path, entry i is
   * (det_alpha[i], det_beta[i]); direct path, entry A * grid_beta_n + B is
   * (grid_alpha[A], grid_beta[B]) (a grid of strings, det arrays NULL) */
  uint64_t *det_alpha, *det_beta;
  uint64_t *grid_alpha, *grid_beta;
  cis_int grid_alpha_n, grid_beta_n;
  void *internal;
} cis_ci_result;

/* The defaults (one root, auto method, CPU, full CI, tol 1e-8, 200
 * iterations, format auto). */
CIS_API cis_ci_solve_opts cis_ci_solve_opts_default(void);

/* Every field of o on its own: method one of CIS_CI_METHOD_*; the 0/1
 * flags (gpu, symmetric, float_values, no_time_reversal,
 * symmetry_projection, no_s2, block_products, verbose, count_only,
 * accept_unconverged, keep_vectors, time_sigma, singlet) 0 or 1; build -1..1;
 * gpus 0, 1..CIS_CI_MAX_PARTS or CIS_CI_ALL_GPUS; cpu_parts
 * 0..CIS_CI_MAX_CPU_PARTS (..CIS_CI_MAX_PARTS with comm), not both;
 * host_vectors -1..1; exchange NULL or a cis_dist_exchange_parse name; level
 * -1..2 CIS_CI_MAX_ORB; roots 1..64; spin finite, < 0 or a multiple of 1/2
 * up to 64; isym <= 8; tol finite > 0; etol finite >= 0; max_iter
 * 1..CIS_CI_MAX_ITER; max_sub 0..CIS_CI_MAX_SUBSPACE; pspace
 * 0..CIS_CI_MAX_PSPACE; repeat 1..CIS_CI_MAX_REPEAT; gpu_leave_free >= 0;
 * spin_penalty finite >= 0; spin_penalty_ss finite; nguess >= 0 with guess
 * when > 0; format NULL, "auto" or a storage format name; kernel, occ, save
 * NULL or non-empty; save not with count_only. CIS_OK, or CIS_ERR_INVALID
 * with one line naming the field ("cis_ci_solve_opts.max_sub must be ...").
 * cis_ci_solve and the solver entry points call it first. */
CIS_API cis_status cis_ci_solve_opts_check(const cis_ci_solve_opts *o);

/* Solve the CI problem of F (integrals and header, not modified; F must stay
 * valid until the result is freed) with o; *out: the result (free with
 * cis_ci_result_free), NULL on error. F and o are checked first
 * (cis_fcidump_check, cis_ci_solve_opts_check: their statuses, one line
 * naming the field). CIS_ERR_INVALID for contradicting or
 * impossible options (spin above what the electrons allow, more roots than
 * determinants), CIS_ERR_TOO_LARGE when the space cannot fit this process
 * or the GPU (refused before anything big is allocated),
 * CIS_ERR_NOT_CONVERGED when Davidson does not converge (no result),
 * CIS_ERR_NOT_FOUND when fewer states of spin o->spin exist among the 64
 * lowest. */
CIS_API cis_status cis_ci_solve(const cis_fcidump *F, const cis_ci_solve_opts *o, cis_ci_result **out);

/* cis_ci_solve on the integrals of an FCIDUMP file (its read timed in
 * t_parse, the result owning the integrals). */
CIS_API cis_status cis_ci_solve_file(const char *path, const cis_ci_solve_opts *o, cis_ci_result **out);

/* A figure of r by name, for bindings that do not mirror the struct:
 * "roots", "size", "method" (CIS_CI_METHOD_*), "gpu", "converged",
 * "determinants", "nnz", "iterations", "products", "op_seconds",
 * "davidson_seconds", "max_residual", "total_seconds", "build_seconds",
 * "space_reused", "subspace", "subspace_reduced_from", "one_parity",
 * "grid_alpha_n", "grid_beta_n"; NaN for an unknown name or a
 * NULL r. */
CIS_API double cis_ci_result_value(const cis_ci_result *r, const char *name);
/* An array of r by name: "energies", "s2" (double[roots]), "vectors"
 * (double[roots][size]), "det_alpha", "det_beta" (uint64_t[size], stored),
 * "grid_alpha", "grid_beta" (uint64_t[grid_*_n], direct); NULL for an unknown
 * name or one not kept. */
CIS_API const void *cis_ci_result_array(const cis_ci_result *r, const char *name);

/* Frees a result (NULL: nothing). */
CIS_API void cis_ci_result_free(cis_ci_result *r);

/* A solver kept across solves of the same space with new integrals
 * (CASSCF's macro-iterations): the direct space (strings, links, the GPU's
 * workspace) is made once and reused while norb, electrons, MS2, ORBSYM,
 * ISYM, the method and the device stay the same. Thread safety: calls of
 * cis_ci_solver_solve and cis_ci_solver_dets on one solver from several
 * threads are serialised (a mutex in the solver: each runs alone, in turn);
 * separate solvers run concurrently; cis_ci_solver_free must not overlap a
 * call on the same solver. */
typedef struct cis_ci_solver cis_ci_solver;

/* A new solver (nothing built until the first solve). */
CIS_API cis_status cis_ci_solver_create(cis_ci_solver **out);
/* cis_ci_solve through s (see above). */
CIS_API cis_status cis_ci_solver_solve(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o,
                                       cis_ci_result **out);
/* The determinants (alpha, beta strings; arrays of *n) of the CI vectors a
 * solve of F with o would use, in that order (for warm-start guesses in
 * o->guess); builds the space (kept by s). alpha/beta NULL: *n only. */
CIS_API cis_status cis_ci_solver_dets(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o,
                                      uint64_t *alpha, uint64_t *beta, cis_int *n);
/* Selected CI: the solves of s that follow run in the product space of
 * these alpha and beta string sets (bit p = orbital p, NORB <= 64; copied,
 * sorted, repeats dropped) instead of full CI, as PySCF's
 * selected_ci.kernel_fixed_space and sample-based quantum diagonalisation
 * (SQD) pose the problem: the Hamiltonian P H P of the space
 * (cisparse/sci.h's string-driven sigma), Davidson (Davidson 1975) from
 * unit vectors on the lowest diagonal entries (PySCF's guess) or the
 * caller's guesses (o->guess, the result's order), <S^2> of each root from
 * its 1- and 2-RDMs (the space need not be spin complete: <S^2> is not
 * then S(S+1)), the roots' vectors with keep_vectors in the order of
 * cis_ci_result.grid_alpha x grid_beta (the sorted sets: PySCF's
 * SCIvector). On the host of one process: o->gpu, gpus and cpu_parts,
 * level, spin_penalty and singlet are refused, method must be auto;
 * ORBSYM and ISYM are not used. alpha and beta NULL with n 0: back to full
 * CI. CIS_ERR_INVALID (one line) for NULL with a count, a count < 0 or
 * above 2^31 - 1, or one set NULL and the other not; the strings are
 * checked against the integrals at the solve (cis_sci_space_create's
 * refusals). The space is built again at each solve (its same-spin
 * matrices hold the integrals). */
CIS_API cis_status cis_ci_solver_set_strings(cis_ci_solver *s, const uint64_t *alpha, cis_int n_alpha,
                                             const uint64_t *beta, cis_int n_beta);
/* Frees s (NULL: nothing). */
CIS_API void cis_ci_solver_free(cis_ci_solver *s);

#ifdef __cplusplus
}
#endif
#endif
