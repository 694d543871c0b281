/* ci_solve_internal.h: the state of one CI solve (cis_ci_solve), shared by
 * the driver's files: ci_solve.c (options, sizes, the method chosen, the
 * result), ci_solve_roots.c (guesses, Davidson, roots: shared by every
 * method), and the methods' strategies (ci_method.h): ci_method_stored.c,
 * ci_solve_direct.c (one device, C1 and by irreps; the kept space),
 * ci_solve_dist.c (the stored H over several parts), ci_solve_dist_direct.c
 * (the direct sigma over several parts). */
#ifndef CIS_CI_SOLVE_INTERNAL_H
#define CIS_CI_SOLVE_INTERNAL_H
#include <pthread.h>
#include "cisparse/cisparse.h"
#include "cisparse/ci_solve.h"
#include "core/internal.h"
#include "ci/ci_internal.h"
#include "ci/ci_davidson_support.h"
#include "ci/guess_sparse.h"

/* What a cis_ci_solver keeps between solves of one space; `lock` makes
 * concurrent calls on one solver (several threads) run one after another. */
struct cis_ci_solver {
  pthread_mutex_t lock;    /* held by cis_ci_solver_solve and cis_ci_solver_dets */
  cis_ci_direct *D;        /* the direct space (strings, links, workspace) */
  cis_ci_direct_gpu *G;    /* its device side, room for G_vectors vectors */
  int G_vectors;
  cis_ci_space *S;         /* the stored path's determinant list */
  char key_D[600], key_S[600]; /* what D and S were made for */
  /* the last solve's watches (cis_davidson_opts.watch_vectors): nwatch
   * vectors of watch_len in the space of key_watch, seeded into the next
   * warm start's guesses (ci_solve_roots.c) */
  double *watch;
  int nwatch, watch_sector[2];
  cis_int watch_len;
  char key_watch[640];
  /* selected CI (cis_ci_solver_set_strings): the string sets, sorted and
   * without repeats (NULL: full CI) */
  uint64_t *sci_alpha, *sci_beta;
  cis_int sci_na, sci_nb;
};

typedef struct ci_dist_direct ci_dist_direct;
typedef struct ci_dist_stored ci_dist_stored;
struct ci_method;

/* What Davidson runs on, set by the method's setup: the operator (not
 * owned here), its diagonal (the preconditioner, and the P-space's), the
 * length of its vectors (len: the target irrep's determinants when
 * compact) and of the result's C1 vectors (n). */
typedef struct ci_davidson_view {
  const cis_operator *op;
  const double *diag;
  cis_int n, len;
  int compact;   /* vectors of the target irrep alone (cis_ci_direct_compress / _expand) */
} ci_davidson_view;

typedef struct ci_run {
  const cis_ci_solve_opts *o;
  const struct ci_method *m; /* the method that runs (ci_method_choose) */
  ci_davidson_view dv;     /* what Davidson runs on (the method's setup) */
  cis_ci_solver *keep;     /* where D, G and S live (a private one for one-shot solves) */
  const cis_fcidump *F;
  cis_ci_result *R;
  int direct;              /* the method that runs: 1 direct, 0 stored */
  int nr;                  /* roots Davidson computes (more than asked with o->spin >= 0) */
  int cap;                 /* at most this many with o->spin */
  int max_sub;             /* Davidson's subspace (ci_fit_subspace) */
  int one_parity;          /* 1: the memory left no room for both alpha <-> beta parities' guesses and watches
                            * (ci_fit_subspace): Davidson searches as with one sector */
  /* stored */
  cis_ci_space *S;
  cis_csr *H;
  cis_gpu_plan *plan;
  cis_matrix *M;
  cis_operator *sop;       /* Davidson's operator over M, H's upper triangle or the plan */
  double *diag;
  ci_dist_stored *ds;      /* stored over parts: the communicator, the distributed H */
  struct cis_sci_space *sci; /* selected CI: the product of the solver's string sets */
  /* direct */
  cis_ci_direct *D;
  cis_ci_direct_gpu *G;
  cis_operator *op, *opc, *pen; /* the sigma, its compact form (blocked by irreps), H under the spin penalty */
  double *gdiag;           /* the direct diagonal handed to the GPU operator */
  int parts;               /* the direct sigma over this many parts (o->gpus / o->cpu_parts), else 0 */
  ci_dist_direct *dd;      /* its parts, communicator and distributed operator */
  double t_space;          /* seconds making (or reusing) the direct space */
  /* Davidson's correct hook when a path brings its own (over parts: the
   * correction gathered whole, made exactly alpha <-> beta pure as on one
   * device, its rows written back), else NULL */
  cis_status (*correct)(void *ctx, void *t, cis_stream s);
  void *correct_ctx;
  ci_space_mirror_ctx mirror_ctx; /* the correction hooks' contexts (the method's correct) */
  ci_direct_parity_ctx parity_ctx;
  /* Davidson's results */
  double *evals, *evecs, *s2;
  int *pick;
  int nroots;
  int top_mixed;           /* the last root's degenerate level reaches past the roots (its <S^2> mixed) */
  cis_int *mirror;         /* stored, MS = 0: each determinant's alpha <-> beta mirror (ci_space_mirror), else NULL */
  /* progress (o->progress) */
  double t0;               /* the solve's clock */
  int header_sent;
  double last_residual, sec_avg; /* for the ETA */
} ci_run;

/* Davidson for r->nr roots and more (up to r->cap) until o->roots of spin
 * o->spin are among them (ci_solve_roots.c). */
cis_status ci_run_roots(ci_run *r);
/* The direct space (kept in r->keep), the result's sizes, the header
 * event: every direct method's first step (ci_solve_direct.c). */
cis_status ci_run_direct_setup_space(ci_run *r);
/* Rows to sample for the stored H's nonzero estimate (ci_method_stored.c). */
cis_int ci_sample_rows(const cis_ci_counts *c);
/* y = op x five times after one untimed product, *ms their median in
 * milliseconds (the sigma timed apart: cis_ci_solve_opts.time_sigma). */
cis_status ci_time_product(const cis_operator *op, const void *x, void *y, double *ms);
/* The direct space of F for o, made or reused from r->keep. */
cis_status ci_run_direct_space(ci_run *r);
/* The communicator of o's parts: the caller's o->comm (not to be freed), a
 * fake world of o->cpu_parts host parts (*w, freed after *c), or NCCL over
 * o->gpus GPUs (ci_solve_dist_direct.c). */
cis_status ci_parts_comm(const cis_ci_solve_opts *o, cis_dist_world **w, cis_dist_comm **c);
/* o->comm (the caller's communicator) against o->gpus / o->cpu_parts:
 * CIS_ERR_INVALID unless the one its memory names equals its ranks and the
 * other is 0; CIS_OK without one. */
cis_status ci_check_comm(const cis_ci_solve_opts *o);
/* A caller's communicator whose ranks span more than this call (o->comm
 * with fewer local ranks than ranks: MPI processes, threads): every rank's
 * integrals (F's header, ORBSYM, h1, eri, ECORE) and solve options hashed
 * (cis_hash64) and compared (cis_dist_comm_agree, the first collective of
 * the solve, of a fixed size); CIS_ERR_INVALID "ranks disagree on the
 * integrals" / "... on the options (roots, tol)" on every rank when they
 * differ, so that no rank waits in a collective the others never enter.
 * CIS_OK at once without such a communicator (ci_agree.c). */
cis_status ci_ranks_agree(const cis_fcidump *F, const cis_ci_solve_opts *o);
/* The direct sigma over ci_dist_parts(o) parts (ci_solve_dist_direct.c):
 * the communicator, each part's sigma over its alpha strings, the summed
 * distributed operator as r->op (C1) or r->opc (compact), the diagonal,
 * Davidson's correct hook (r->correct); r->D made (ci_run_direct_space),
 * r->nr and r->max_sub set. */
cis_status ci_run_setup_dist_direct(ci_run *r);
void ci_dist_direct_free(ci_dist_direct *dd);
/* Parts asked for by o (every GPU for CIS_CI_ALL_GPUS), 0 for none. */
int ci_dist_parts(const cis_ci_solve_opts *o);
/* P-space guess vectors for nr roots on the host paths: min(nr + 4, 2 nr + 2), as PySCF. */
int ci_guess_count(int nr);
/* P-space guesses Davidson is handed for r->nr roots (nr on the direct GPU
 * path, ci_guess_count on the host, more under the spin penalty), and the
 * guess vectors it gets with the caller's (Davidson raises its subspace to
 * the guesses + roots when a guess splits into pure parts). */
int ci_guess_vectors(const ci_run *r);
int ci_guess_bound(const ci_run *r);
/* Device bytes a GPU part leaves free for NCCL's buffers and connections
 * (made lazily at the first collective or message; without this room the
 * workspace takes them and NCCL fails with a CUDA error): CI_NCCL_RESERVE
 * per part, at least CI_NCCL_RESERVE_MIN (2 H100s, CAS(16,16), 2026-11-27:
 * 1.25 GiB in all was too little for the broadcasts and point-to-point
 * sends of 2 parts; 4 parts ran in 2.25 GiB), and once per GPU for the
 * communicator's own state (made on a thread while the parts' workspaces
 * are sized). ci_nccl_reserve(parts) is the sum (ci_solve_dist_direct.c). */
#define CI_NCCL_RESERVE ((int64_t)512 << 20)
#define CI_NCCL_RESERVE_MIN ((int64_t)2 << 30)
#define CI_NCCL_INIT_RESERVE ((int64_t)256 << 20)
double ci_nccl_reserve(int parts);
/* Direct over `parts` GPUs of free_mem free bytes each: 1 when Davidson's
 * vectors must go to the host (cis_dist_summed_set_vectors_host), i.e. a
 * part's two whole vectors of vec_bytes, its share of least_vectors, NCCL's
 * reserve (ci_nccl_reserve) and an eighth of the free memory (at least 1
 * GiB) for the sigma's workspace do not fit. An eighth, not the third the
 * subspace is otherwise fitted with: the host's Davidson costs more than a
 * smaller workspace (CAS(16,16) over 2 H200s: 22.4 s of Davidson against
 * 2.1 s; the 16e/18o C1 space: about 9 s of host arithmetic an iteration
 * against a 2.8-s sigma; 2026-11-27). */
int ci_host_vectors_needed(double free_mem, double vec_bytes, int parts, int least_vectors);
/* The direct path's subspace (r->max_sub, R->subspace, R->need) and
 * R->host_vectors for r->parts GPUs (or one, parts 0) of free_mem free
 * bytes each (0: unknown or no GPU), from R->counts, r->nr, R->gpu, r->o
 * (max_sub, host_vectors) and R->mem_limit (ci_solve.c, whose comment
 * gives the rule). Nothing when !r->direct. */
void ci_direct_fit(ci_run *r, double free_mem);
/* The bytes a GPU needs before the sigma's workspace (direct) or the
 * Hamiltonian (stored) at R->subspace: Davidson's vectors on one GPU; over
 * parts two whole vectors and a part's share of Davidson's, or its rows of
 * sigma where Davidson's vectors are on the host. The driver refuses a run
 * whose need passes the GPU's free memory. */
double ci_gpu_need(const ci_run *r);
/* Davidson's subspace for r->nr roots into r->max_sub and R->subspace:
 * o->max_sub when given (PySCF's max_space), else the default
 * (cis_davidson_subspace) made smaller, down to its floor, until its
 * vectors of vec_bytes fit budget bytes (budget <= 0: no bound); then
 * R->need for that subspace. */
void ci_fit_subspace(ci_run *r, double vec_bytes, double budget);
/* The fewest whole vectors Davidson can run r->nr roots with: those of the
 * caller's subspace (o->max_sub) when given, else of the smallest one. */
int ci_davidson_vectors_least(const ci_run *r);

/* The stored path's determinant list of F for o from the reference (ra, rb),
 * kept in s and reused while the space is the same (*reused set). */
cis_status ci_stored_space(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, const cis_ci_bits *ra,
                           const cis_ci_bits *rb, int *reused);
/* Davidson's guesses as ci_run_guesses makes them: n dense host vectors
 * (dense, malloc'd: the caller's vectors first, or a stored space) or, for
 * P-space guesses alone on the direct path, their nonzeros (sparse: a few
 * hundred numbers each, not vectors of the space). */
typedef struct ci_guesses {
  int n;
  double *dense;
  ci_sparse_guesses sparse;
  int sectors;  /* 2: Davidson in the two alpha <-> beta parities (MS = 0), sector[j] guess j's; else 1 */
  int *sector;
} ci_guesses;
/* P-space guesses (caller's vectors first) for nvec roots into *g (zeroed
 * first; ci_guesses_free after). */
cis_status ci_run_guesses(ci_run *r, int nvec, ci_guesses *g);
/* d's guesses (dense, else sparse form) set to g's. */
void ci_guesses_to_davidson(const ci_guesses *g, cis_davidson_opts *d);
void ci_guesses_free(ci_guesses *g);
/* A key naming F's space and what of o shapes it, for the kept spaces. */
void ci_space_key(const cis_fcidump *F, const cis_ci_solve_opts *o, int direct, char *key, size_t len);
/* The header event (o->progress, once per solve): method, space and memory known, the long work next;
 * the callback's time is the phase "header". */
void ci_report_header(ci_run *r);
/* Adds the seconds from `since` to now to R's phase `name` (static text; a new entry the first time);
 * returns now, the start of the next phase. */
double ci_phase(cis_ci_result *R, const char *name, double since);
/* A watch of the host build reporting through o->progress (BUILD events; no hook without one). */
ci_build_watch ci_build_progress(ci_run *r);
/* d's progress hook and energy offset (F's core energy) set to report through o->progress. */
void ci_davidson_progress(ci_run *r, cis_davidson_opts *d);
/* 1 when F has point-group symmetry (ISYM or an ORBSYM not 1). */
int ci_has_symmetry(const cis_fcidump *F);

#endif
