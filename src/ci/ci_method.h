/* ci_method.h: the CI driver's methods as strategies, one table each (as
 * PETSc's ops tables): the driver (ci_solve.c) chooses one
 * (ci_method_choose) and runs its setup, then Davidson through
 * ci_run_roots (one cis_davidson_operator call for every method, on the
 * operator, diagonal and vector length the setup left in r->dv), then its
 * report and release. The driver and the shared Davidson code ask the
 * table, never which method runs.
 *
 * The methods (their files):
 *   stored             H built on the host or the GPU in a storage format,
 *                      Davidson on the host or the device (ci_method_stored.c);
 *   direct             the matrix-free string-driven sigma (Olsen et al.
 *                      1988; Knowles & Handy 1984) on C1 vectors, on the host
 *                      or one GPU, with the spin penalty (ci_solve_direct.c);
 *   direct by irreps   the same sigma blocked by irreps, Davidson on the
 *                      target irrep's determinants alone (ci_solve_direct.c);
 *   stored over parts  H's rows over GPUs or host parts, energies only
 *                      (ci_solve_dist.c);
 *   direct over parts  the sigma's alpha strings over GPUs or host parts
 *                      (ci_solve_dist_direct.c);
 *   selected           the product of the solver's alpha and beta string
 *                      sets (cis_ci_solver_set_strings; cisparse/sci.h's
 *                      sigma), on the host (ci_method_selected.c).
 * Adding a method: a table here, its file, a line in ci_method_choose. */
#ifndef CIS_CI_METHOD_H
#define CIS_CI_METHOD_H
#include "ci/ci_solve_internal.h"

typedef struct ci_method {
  const char *name;  /* for messages and --verbose: "stored", "direct", "direct by irreps", ... */
  int method;        /* CIS_CI_METHOD_STORED or CIS_CI_METHOD_DIRECT: what the result says ran */
  int parts;         /* Davidson's vectors are split over parts (not host arrays of r->dv.len): no watches
                      * kept between solves, the roots gathered from the other processes */
  int energies_only; /* no root vectors (and so no <S^2>, no spin filter, no warm starts) */
  int not_spin_complete; /* the space is not closed under S+ and S- (selected CI): the states of a spin
                          * are not counted before the solve */
  /* The space's closed-form counts into R->counts where they are not full
   * CI's or the level's (NULL: those, from reference_and_sizes). */
  cis_status (*sizes)(ci_run *r);
  /* Where the products run (R->gpu), Davidson's subspace fitted to the
   * memory and the memory checked, before anything large is made (r->nr
   * roots; CIS_ERR_TOO_LARGE / CIS_ERR_NO_GPU with the numbers). */
  cis_status (*fit)(ci_run *r);
  /* The space (kept in r->keep where the method keeps one), R's sizes, the
   * header event, and Davidson's operator, diagonal and vector lengths in
   * r->dv. Called again for each of o->repeat solves after release. */
  cis_status (*setup)(ci_run *r);
  /* Davidson's correction hook into d (d->correct, d->correct_ctx; left
   * NULL for none), given the alpha <-> beta parity Davidson keeps (keep:
   * +1 symmetric, -1 antisymmetric, 0 both or none). */
  void (*correct)(ci_run *r, cis_davidson_opts *d, int keep);
  /* Davidson's guesses for nvec roots into *g (NULL: the driver's P-space
   * guesses, ci_run_guesses, from a determinant list or a direct space). */
  cis_status (*guesses)(ci_run *r, int nvec, ci_guesses *g);
  /* 1 when Davidson's vectors stay in one alpha <-> beta parity to
   * round-off (the correction hook keeps them so): a spin target may then
   * restrict the search to its parity. */
  int (*keeps_parity)(const ci_run *r);
  /* <S^2> of a root x in Davidson's form (ctx: the run); NULL with energies_only. */
  cis_status (*s2)(void *ctx, const double *x, double *s2);
  /* Davidson's nr roots v (vectors of r->dv.len) completed from the parts
   * in other processes (NULL: each process holds them whole). */
  cis_status (*gather)(ci_run *r, double *v, int nr);
  /* The method's counters into the result after the roots (sigma counts,
   * GPU statistics, the parts' times) and, with keep_vectors, the
   * determinants of the vectors' entries. */
  cis_status (*report)(ci_run *r);
  /* What setup made (operators, matrices, diagonals; the kept space stays). */
  void (*release)(ci_run *r);
} ci_method;

extern const ci_method ci_method_stored, ci_method_direct, ci_method_direct_irreps, ci_method_stored_parts,
    ci_method_direct_parts, ci_method_selected;

/* The method that runs r->F with r->o: selected CI when the solver holds
 * string sets; stored over parts or direct over parts when o asks for
 * parts (direct: r->direct, the driver's choice), else direct by irreps
 * (point-group symmetry, no projection, no spin penalty), direct, or
 * stored. */
const ci_method *ci_method_choose(const ci_run *r);

/* One process's fit (ci_solve.c): the products on the GPU when asked, the
 * subspace fitted to the free memory (ci_direct_fit), the space, vectors
 * and Davidson's subspace checked against the host's limit and the GPU. */
cis_status ci_fit_memory(ci_run *r);
/* Shared by the methods' tables: no correction hook; Davidson keeps no parity. */
void ci_method_no_correct(ci_run *r, cis_davidson_opts *d, int keep);
int ci_method_no_parity(const ci_run *r);
/* Shared by the direct methods: every correction made pure, so Davidson keeps its parity. */
int ci_method_pure(const ci_run *r);
/* The direct sigma's <S^2> of a root (C1 or compact vectors: r->dv.compact). */
cis_status ci_method_direct_s2(void *ctx, const double *x, double *s2);
/* The direct space's result fields: sigma counters and, with keep_vectors,
 * the grid of strings of the vectors' entries. */
cis_status ci_method_direct_report(ci_run *r);
/* Operators, diagonals and the mirror map of a run freed (every method's
 * release calls it). */
void ci_method_release_common(ci_run *r);

#endif
