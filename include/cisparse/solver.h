/* cisparse/solver.h: iterative solvers over an operator (operator.h).
 *
 * Krylov solvers for A x = b (Saad, Iterative Methods for Sparse Linear
 * Systems, 2003; Barrett et al., Templates, 1994): CG, BiCG and BiCGStab,
 * each with or without a Jacobi preconditioner, in float or double, on host
 * or device vectors (the operator's memory space). On the device the solve
 * runs in one of the six versions of Aliaga, Perez, Quintana-Orti,
 * "Systematic Fusion of CUDA Kernels for Iterative Sparse Linear System
 * Solvers", Euro-Par 2015, §4 (plus `graph`, with no host synchronization
 * inside the solve); docs/solvers.md lists each version's kernels.
 *
 * Davidson for the lowest eigenpairs of a symmetric operator (E. R.
 * Davidson, J. Comput. Phys. 17, 87 (1975)), on host or device vectors.
 *
 * Each solver is written once (src/solvers/) over the operator and a vector
 * backend (host: OpenMP; device: cuBLAS or our own kernels). */
#ifndef CISPARSE_SOLVER_H
#define CISPARSE_SOLVER_H

#include "cisparse/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cis_krylov_method { CIS_CG = 0, CIS_BICG = 1, CIS_BICGSTAB = 2 } cis_krylov_method;
typedef enum cis_precond { CIS_PRECOND_NONE = 0, CIS_PRECOND_JACOBI = 1 } cis_precond;

/* Device versions (Aliaga et al. 2015 §4). Host operators ignore this. */
typedef enum cis_solver_version {
  CIS_VER_CUBLAS_L = 0, /* cuBLAS, scalars on the host (host pointer mode) */
  CIS_VER_CUBLAS_N = 1, /* cuBLAS, scalars in device memory (device pointer mode) */
  CIS_VER_CUDA = 2,     /* own vector kernels, two-stage dot (dot_ini, dot_fin) */
  CIS_VER_MERGE = 3,    /* macro-kernels of §3.3-3.5 (SpMV fused with dot_ini, ...) */
  CIS_VER_MERGE_10 = 4, /* merge, convergence read back every 10 iterations */
  CIS_VER_GRAPH = 5     /* merge in a CUDA graph with a device-side convergence test */
} cis_solver_version;
#define CIS_VER_COUNT 6

/* How the host waits for the device (set before the first CUDA call of the
 * process, or cis_gpu_set_sync_mode resets the device to change it). */
typedef enum cis_sync_mode { CIS_SYNC_SPIN = 0, CIS_SYNC_BLOCKING = 1 } cis_sync_mode;

/* How a solve ended. Every value but CONVERGED comes with a non-OK status. */
typedef enum cis_krylov_end {
  CIS_END_CONVERGED = 0,    /* ||r|| <= tol * ||b|| (recurrence residual) */
  CIS_END_MAXIT = 1,        /* maxit iterations without convergence */
  CIS_END_BREAK_RHO = 2,    /* rho = (r~, r) = 0: BiCG/BiCGStab breakdown */
  CIS_END_BREAK_OMEGA = 3,  /* omega = 0 (BiCGStab) */
  CIS_END_BREAK_RV = 4,     /* (r^, v) = 0 (BiCGStab) or (p~, q) = 0 (BiCG) */
  CIS_END_BREAK_PAP = 5,    /* p^T A p <= 0 in CG: A is not positive definite */
  CIS_END_STAGNATION = 6,   /* the residual did not decrease in `stagnation` iterations */
  CIS_END_NONFINITE = 7     /* NaN or Inf in a scalar of the recurrence */
} cis_krylov_end;

/* "converged", "maxit", "breakdown rho=0", ... Never NULL. */
CIS_API const char *cis_krylov_end_name(cis_krylov_end e);
/* "cg", "bicg", "bicgstab"; "cublasL", "cublasN", "cuda", "merge", "merge_10",
 * "graph". Never NULL ("?" for an unknown value). */
CIS_API const char *cis_krylov_method_name(cis_krylov_method m);
CIS_API const char *cis_solver_version_name(cis_solver_version v);
/* Name -> value; CIS_ERR_NOT_FOUND with the known names for an unknown one. */
CIS_API cis_status cis_krylov_method_parse(const char *s, cis_krylov_method *m);
CIS_API cis_status cis_solver_version_parse(const char *s, cis_solver_version *v);

typedef struct cis_krylov_opts {
  cis_krylov_method method;
  cis_precond precond;         /* Jacobi needs the operator's diagonal (cis_operator_set_diagonal) */
  cis_solver_version version;  /* device and distributed operators (default merge_10); over
                                  parts cublasL/cublasN keep the scalars on the host, the
                                  others in each part (docs/multi-gpu.md) */
  double tol;                  /* relative residual ||r_k|| / ||b|| (default 1e-8) */
  int maxit;                   /* default 1000 */
  int check_every;             /* iterations between host reads of the residual (0 = the
                                  version's: 1, or 10 for merge_10; graph never reads on one
                                  GPU, every 10 over parts) */
  int stagnation;              /* end after this many iterations without a new smallest
                                  residual (0 = default 200, < 0 = never) */
  double *history;             /* if non-NULL: ||r_k|| / ||b|| for k = 0..history_len-1 */
  int history_len;
} cis_krylov_opts;

/* Defaults above: CG, no preconditioner, merge_10, tol 1e-8, maxit 1000. */
CIS_API cis_krylov_opts cis_krylov_opts_default(void);

typedef struct cis_krylov_info {
  cis_krylov_end end;
  int iterations;              /* iterations done (x is the last iterate) */
  double rel_residual;         /* recurrence ||r|| / ||b|| at the end */
  double seconds;              /* wall time of the iteration loop (device synchronized) */
  double setup_seconds;        /* workspace, diagonal, initial residual */
  int64_t launches;            /* kernel launches + library calls inside the loop (device) */
  double launches_per_iteration;
  int history_written;         /* entries of opts.history written */
} cis_krylov_info;

/* Solve A x = b. b and x are arrays of A's dtype in A's memory space (rows
 * long); x holds x0 on entry and the last iterate on return. BiCG needs
 * A^T (cis_operator_set_transpose). Checks before the first iteration: square
 * A, b finite, Jacobi diagonal present and without zeros (CIS_ERR_INVALID
 * naming the first zero). b = 0 gives x = 0 in 0 iterations. Returns CIS_OK
 * only when converged; CIS_ERR_NOT_CONVERGED (maxit, stagnation) or
 * CIS_ERR_BREAKDOWN / CIS_ERR_NUMERIC otherwise, with info->end set and a
 * one-line message; x is then not a solution. */
CIS_API cis_status cis_krylov_solve(const cis_operator *A, const void *b, void *x, const cis_krylov_opts *o,
                            cis_krylov_info *info);

/* Mixed precision (iterative refinement, e.g. Anzt et al. 2011): r = b - A x
 * in double on A64, inner solve A32 d = r in float to a relative tolerance
 * inner_tol (default 1e-4 when <= 0), x += d in double, until
 * ||b - A x|| / ||b|| <= o->tol (which may be far below float precision)
 * or o->maxit inner iterations in total. A64 double and A32 float, the same
 * matrix, same memory space; b, x double. info->iterations counts the inner
 * iterations; *outer (may be NULL) the refinement steps. */
CIS_API cis_status cis_krylov_solve_mixed(const cis_operator *A64, const cis_operator *A32, const double *b,
                                  double *x, const cis_krylov_opts *o, double inner_tol,
                                  cis_krylov_info *info, int *outer);

/* ||b - A x|| / ||b|| recomputed from x (x, b in A's memory space and
 * dtype): the product A x in A's precision, the difference and the norms in
 * double; give a double operator (e.g. a host CSR) for a residual in double
 * throughout. *xerr (may be NULL) receives ||x - xstar|| / ||xstar|| when
 * xstar (same space, dtype) is non-NULL, else NaN. A non-finite residual is
 * NaN. */
CIS_API cis_status cis_true_residual(const cis_operator *A, const void *b, const void *x, const void *xstar,
                             double *relres, double *xerr);

/* ---- Davidson ------------------------------------------------------------ */

typedef struct cis_davidson_progress cis_davidson_progress; /* below */

typedef struct cis_davidson_opts {
  int roots;        /* k lowest eigenpairs (default 1) */
  double tol;       /* residual norm ||H x - e x|| (default 1e-8) */
  double etol;      /* energy change between iterations (default 1e-10) */
  int max_iter;     /* default 200 */
  int max_sub;      /* subspace size before collapse (default max(8k, 24); davidson_subspace) */
  int verbose;      /* print per-iteration lines on stderr (energies + energy_offset, seconds per
                       iteration) and the time per phase at the end */
  /* Initial subspace (default NULL/0: unit vectors on the `roots` lowest
   * diagonal elements). guess: host array of nguess vectors of H's rows
   * doubles, vector j at guess + j*rows, e.g. the lowest eigenvectors of H
   * restricted to a few hundred determinants (ci_pspace_guess). Needs
   * nguess >= roots; they are orthonormalised in order, vectors dependent on
   * the earlier ones are dropped (CIS_ERR_INVALID if fewer than roots stay).
   * max_sub is raised to nguess + roots when smaller. */
  const double *guess;
  int nguess;
  /* Or the nguess guesses in sparse form, used when guess is NULL and
   * guess_ptr is not: guess j's nonzeros are guess_idx[guess_ptr[j] ..
   * guess_ptr[j+1]) (ascending, each in 0 .. rows-1) with the values at the
   * same positions of guess_val (host arrays; guess_ptr: nguess + 1 offsets
   * from 0, never decreasing). Each goes to H's memory space as its
   * nonzeros only (a P-space guess of a large space: a few hundred numbers,
   * no host vector of H's rows), then as guess above; the same vectors as
   * guess give the same solve. CIS_ERR_INVALID for offsets that do not
   * start at 0 or that decrease, or NULL arrays; CIS_ERR_RANGE for an index
   * out of range or not ascending. */
  const cis_int *guess_ptr;
  const cis_int *guess_idx;
  const double *guess_val;
  /* 1: the new vectors of an iteration (the roots' corrections, and the
   * guesses) are multiplied in one pass over the matrix
   * (cis_operator_apply_block: SpMM on a GPU csr or symmetric-csr plan),
   * where the operator has a block product; 0 (default): one product each. */
  int block_products;
  /* Optional: called on every new correction vector t (n values in the
   * operator's memory space, after the preconditioner, before Gram-Schmidt)
   * to project it onto a symmetry sector the operator keeps, e.g. the
   * alpha <-> beta parity of ci_direct_time_reversal on the CPU: the
   * subspace then stays pure to round-off and every product can use the
   * symmetry (the half sigma). NULL (default): none. The results stay exact
   * whatever it does: a correction only chooses the direction added. */
  cis_status (*correct)(void *ctx, void *t, cis_stream s);
  void *correct_ctx;
  /* Optional: called after every iteration's convergence check (before the
   * corrections) with what that iteration found; NULL (default): none. It
   * only reads: what it does changes nothing in the solve. */
  void (*progress)(void *ctx, const cis_davidson_progress *p);
  void *progress_ctx;
  /* Added to the energies the verbose lines print and progress reports
   * (e.g. a CI core energy, so that they are totals); default 0. The
   * returned evals are the operator's eigenvalues, without it. */
  double energy_offset;
  /* Symmetry sectors that H, the preconditioner and `correct` keep
   * invariant (e.g. the two alpha <-> beta parities of a CI space with
   * MS = 0): sectors > 1 needs the caller's guesses, guess_sector[j] in
   * 0 .. sectors-1 (at most 64) the sector guess j lies in. Each Ritz pair
   * then belongs to the sector holding its weight, each correction to its
   * pair's sector, and besides the `roots` lowest Ritz
   * pairs Davidson follows, in every sector holding fewer than `roots` of
   * them, that sector's lowest pair beyond them (a watch: at most 64 roots
   * and watches together), correcting it until its Ritz value lies above
   * the highest root's by more than 4 times its residual norm, or its
   * residual is below tol: a sector whose next state the guesses
   * approximate badly cannot hide a state below the roots returned.
   * max_sub is raised to 2 (roots + sectors) where smaller (room for every
   * watch). 0 or 1 (default): one sector. */
  int sectors;
  const int *guess_sector;
  /* With sectors > 1, room for `sectors` vectors of n (the memory of
   * evecs) or NULL: on a converged return the Ritz vectors of the
   * info.watches watches followed at the end (their sectors in
   * info.sector[roots ..]), a warm start's guesses for the next solve of a
   * nearby operator (the CI driver keeps them). */
  double *watch_vectors;
} cis_davidson_opts;

/* One Davidson iteration, as cis_davidson_opts.progress receives it. */
struct cis_davidson_progress {
  int iteration;        /* 1-based */
  int subspace;         /* vectors in the subspace */
  int roots, converged; /* roots asked, those converged */
  cis_int products;     /* H x so far */
  double energy;        /* lowest Ritz value + energy_offset */
  double max_residual;  /* largest residual norm over the roots */
  double tol;           /* the residual tolerance */
  int max_iter;
  double seconds;       /* this iteration (products, subspace, residuals) */
  double elapsed;       /* since the call began */
};

typedef struct cis_davidson_info {
  int iterations;
  cis_int products; /* number of H x */
  double op_seconds, total_seconds;
  double max_residual;
  int converged;    /* roots whose residual and energy change met the tolerances */
  int watches;      /* sectors followed beside the roots at the end (cis_davidson_opts.sectors) */
  int sector[64];   /* the sector of each root (0 with one sector), then of each watch */
} cis_davidson_info;

/* Defaults above. */
CIS_API cis_davidson_opts cis_davidson_opts_default(void);
/* Lowest o->roots eigenpairs of the symmetric double operator H (host or
 * device vectors) with the diagonal (Davidson) preconditioner
 * t = r / (e - diag), diag a host array of H's rows doubles; subspace
 * collapse to the current Ritz vectors; convergence on residual norms and
 * energy changes. evals: roots values; evecs (host, may be NULL): rows*roots,
 * column i at evecs + i*rows. CIS_ERR_NOT_CONVERGED after max_iter: a root
 * that did not converge is an error (the message names the roots and their
 * residuals; the last Ritz values are still written, for diagnosis only). op_seconds is the time in H (device synchronized).
 * CIS_ERR_INVALID for a non-square or float H, roots outside 1..min(64, rows),
 * tolerances <= 0 or max_iter < 1; CIS_ERR_NUMERIC for a non-finite diag or
 * Ritz value. */
CIS_API cis_status cis_davidson_operator(const cis_operator *H, const double *diag, const cis_davidson_opts *o,
                                 double *evals, double *evecs, cis_davidson_info *info);

/* Set how the host waits for the device (spin or blocking). Resets the
 * device when the mode changes after a context exists, which frees every
 * device allocation: create plans after calling this. CIS_ERR_NO_GPU
 * without CUDA. */
CIS_API cis_status cis_gpu_set_sync_mode(cis_sync_mode m);

#ifdef __cplusplus
}
#endif
#endif
