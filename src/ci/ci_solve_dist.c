/* ci_solve_dist.c: the driver's stored Hamiltonian over several parts
 * (o->gpus GPUs through NCCL, or o->cpu_parts host parts), built directly in
 * its distributed layout: the rows' nonzeros are counted (one pass, no
 * storage), the rows split by nonzeros, then each part builds only its own
 * rows, splits them into its blocks and frees them: the whole Hamiltonian is
 * never held anywhere. On GPU parts everything runs on the devices: the
 * count on the first part's GPU (ci_hamiltonian_gpu_row_nnz), each
 * part's rows on its own GPU (ci_hamiltonian_gpu_rows) split there
 * (dist_matrix_create_rows_gpu), the local block in sym-seg by default
 * (the one-GPU path's fastest kernel for this symmetric matrix; --format csr
 * keeps a csr plan, other formats are built on the host from the block).
 * On host parts: counted and built on the host (ci_hamiltonian_row_nnz,
 * ci_hamiltonian_rows, OpenMP) and split there
 * (dist_matrix_create_rows). With a symmetric format (sym-seg, the GPU
 * default, or csr-sym) and no exchange named, each part builds only its
 * rows of the upper triangle and every entry is stored once over the parts
 * (dist_matrix_create_upper_rows: the rows split by the triangle's
 * counts, the mirror terms summed onto their owners). Davidson (the
 * driver's, ci_run_roots: P-space guesses) on the distributed operator:
 * the method "stored over parts" (ci_method.h), energies only. Not done (docs): the parts' builds
 * run one GPU after the other, not concurrently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_method.h"
#include "ci/ci_internal.h"
#include "distributed/dist_internal.h"

typedef struct rows_ctx {
  const cis_fcidump *F;
  const cis_ci_space *S;
  const cis_int *counts;
  int upper; /* the upper triangle's rows (each entry stored once over the parts) */
  double seconds; /* in the row builds */
} rows_ctx;

static cis_status build_rows(void *ctx, cis_int r0, cis_int r1, cis_csr **rows) {
  rows_ctx *x = ctx;
  double t0 = cis_wtime();
  cis_status st = ci_hamiltonian_rows(x->F, x->S, r0, r1, x->upper, x->counts, rows);
  x->seconds += cis_wtime() - t0;
  return st;
}

/* The same rows on the part's GPU (current when called). */
static cis_status build_rows_gpu(void *ctx, int local, cis_int r0, cis_int r1, cis_gpu_csr *rows) {
  rows_ctx *x = ctx;
  double t0 = cis_wtime();
  (void)local;
  cis_status st = ci_hamiltonian_gpu_rows(x->F, x->S, r0, r1, x->upper, x->counts, rows);
  const double t = cis_wtime() - t0;
  CIS_PRAGMA(omp critical(ci_rows_seconds)) /* the slowest part's: the parts build at once */
  x->seconds = t > x->seconds ? t : x->seconds;
  return st;
}

/* Every row's nonzeros (upper: of the upper triangle): on the first local
 * part's GPU, or on the host. */
static cis_status count_rows(const ci_run *r, cis_dist_comm *c, int on_gpu, int upper, cis_int n, cis_int *counts) {
  cis_status st;
  if (!on_gpu) return ci_hamiltonian_row_nnz(r->F, r->S, upper, counts);
  if ((st = dist_comm_use_part(c, 0)) != CIS_OK) return st;
  return ci_hamiltonian_gpu_row_nnz(r->F, r->S, 0, n, upper, counts);
}

/* The parts' block format: o->format, else sym-seg on GPUs (the local
 * block of this symmetric matrix in the one-GPU path's fastest kernel) and
 * csr on host parts. */
static const char *parts_format(const cis_ci_solve_opts *o, int on_gpu) {
  if (o->format && strcmp(o->format, "auto")) return o->format;
  return on_gpu ? "sym-seg" : "csr";
}

/* What the stored H over parts holds through the solve. */
struct ci_dist_stored {
  cis_dist_world *w;
  cis_dist_comm *c;
  cis_dist_matrix *DM;
  cis_operator *op;
};

static void ci_dist_stored_free(ci_dist_stored *ds) {
  if (!ds) return;
  cis_operator_free(ds->op);
  cis_dist_matrix_free(ds->DM);
  cis_dist_comm_free(ds->c); /* never the caller's: parts_release drops that first */
  cis_dist_world_free(ds->w);
  free(ds);
}

static cis_status parts_setup(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  ci_dist_stored *ds = NULL;
  cis_int *counts = NULL;
  cis_dist_exchange xk = CIS_XCHG_AUTO;
  const double t_start = cis_wtime();
  if (o->keep_vectors || o->guess)
    return cis_error(CIS_ERR_UNSUPPORTED, "the stored Hamiltonian over several parts returns energies only (no vectors, "
                     "no warm-start guesses): use the direct method");
  if (o->exchange) CIS_TRY(cis_dist_exchange_parse(o->exchange, &xk));
  CIS_TRY(cis_alloc_zeroed((void **)&ds, 1, sizeof *ds, "stored Hamiltonian over parts"));
  r->ds = ds;
  CIS_TRY(ci_parts_comm(o, &ds->w, &ds->c));
  const double t_comm = cis_wtime() - t_start; /* NCCL's communicator: each GPU's context made here */
  /* the reference as every path takes it (reference_and_sizes: o->occ, else
   * aufbau of ISYM; the roots checked against its closed-form counts) */
  CIS_TRY(ci_space_create_bits(r->F, o->level, &R->ref_alpha, &R->ref_beta, &r->S));
  const cis_int n = ci_space_size(r->S);
  cis_int nnz = 0;
  if (o->roots > n) /* the closed-form count said otherwise: the same refusal as before the work */
    CIS_TRY(cis_error(CIS_ERR_INVALID, "%d roots asked; the space has %lld determinants", o->roots, (long long)n));
  R->size = R->determinants = n;
  R->alpha_strings = ci_space_nalpha_strings(r->S);
  R->beta_strings = ci_space_nbeta_strings(r->S);
  ci_report_header(r); /* the count, the parts' builds and Davidson next */
  double t0 = cis_wtime();
  const double t_space = t0 - t_start - t_comm; /* the reference and the space (strings) */
  if (!(counts = malloc((size_t)(n > 0 ? n : 1) * sizeof *counts)))
    CIS_TRY(cis_error(CIS_ERR_ALLOC, "out of host memory for %lld row counts", (long long)n));
  cis_dist_opts dopt = cis_dist_opts_default();
  dopt.exchange = xk;
  dopt.format = parts_format(o, R->gpu);
  /* each entry once (the upper triangle's rows, the mirror terms summed onto
   * their owners) with a symmetric format and no exchange named */
  const int once = dist_stores_once(&dopt);
  CIS_TRY(count_rows(r, ds->c, R->gpu, once, n, counts));
  for (cis_int i = 0; i < n; ++i) nnz += counts[i];
  R->nnz = nnz; /* once: the triangle's, made the whole matrix's below */
  R->count_seconds = cis_wtime() - t0;
  rows_ctx bx = {r->F, r->S, counts, once, 0};
  if (once)
    CIS_TRY(dist_matrix_create_upper_rows(n, counts, R->gpu ? NULL : build_rows, R->gpu ? build_rows_gpu : NULL,
                                              &bx, ds->c, &dopt, &ds->DM));
  else
    CIS_TRY(R->gpu ? dist_matrix_create_rows_gpu(n, counts, build_rows_gpu, &bx, ds->c, &dopt, &ds->DM)
                   : dist_matrix_create_rows(n, counts, build_rows, &bx, ds->c, &dopt, &ds->DM));
  CIS_TRY(cis_operator_from_dist(ds->DM, &ds->op));
  R->t_build = cis_wtime() - t0; /* the whole set-up: count, builds, splits, stores, exchange plan */
  R->build_rows_seconds = bx.seconds;
  dist_matrix_setup_times(ds->DM, &R->split_seconds, &R->store_seconds);
  free(counts);
  counts = NULL;
  R->parts = cis_dist_comm_ranks(ds->c);
  snprintf(R->parts_comm, sizeof R->parts_comm, "%s", cis_dist_comm_name(ds->c));
  snprintf(R->parts_op, sizeof R->parts_op, "%s", cis_operator_name(ds->op));
  snprintf(R->format, sizeof R->format, "%s%s", once ? "upper " : "", dopt.format); /* once: the upper triangle's blocks */
  R->exchange_bytes = (double)cis_dist_matrix_exchange_bytes(ds->DM);
  if (!(r->diag = malloc((size_t)n * sizeof(double))))
    CIS_TRY(cis_error(CIS_ERR_ALLOC, "cannot allocate the Hamiltonian diagonal (%lld doubles)", (long long)n));
  const double t_d0 = cis_wtime();
  CIS_TRY(ci_diagonal_all(r->F, r->S, r->diag));
  const double t_diag = cis_wtime() - t_d0;
  if (once) { /* the whole matrix's nonzeros: each strict-upper entry twice (exact zeros are not stored) */
    R->nnz = 2 * nnz;
    for (cis_int i = 0; i < n; ++i) R->nnz -= r->diag[i] != 0;
  }
  if (o->verbose) { /* GPU parts build at once: each step the slowest part's, and they may overlap */
    const double rest = R->t_build - R->count_seconds - R->build_rows_seconds - R->split_seconds - R->store_seconds;
    fprintf(stderr, "stored over %d %s: before the set-up the communicator %.3f s and the space %.3f s; set up in "
            "%.3f s = count %.3f + row builds %.3f + splits %.3f + stores %.3f (blocks %s%s) + the rest %.3f "
            "(exchange plan, buffers, operator); after it the diagonal %.3f s (host)\n",
            cis_dist_comm_ranks(ds->c), R->gpu ? "GPUs (rows built and split on each GPU, at once)" : "CPU parts", t_comm,
            t_space, R->t_build, R->count_seconds, R->build_rows_seconds, R->split_seconds, R->store_seconds,
            R->format, R->gpu ? "; each step the slowest part's" : "", rest > 0 ? rest : 0.0, t_diag);
  }
  r->dv = (ci_davidson_view){ds->op, r->diag, n, n, 0};
  cis_dist_matrix_reset_times(ds->DM);
  st = CIS_OK;
cleanup:
  free(counts);
  return st;
}

/* The Davidson products' exchange and product times. */
static cis_status parts_report(ci_run *r) {
  int64_t np;
  cis_dist_matrix_times(r->ds->DM, &r->R->exchange_seconds, &r->R->product_seconds, &np);
  return CIS_OK;
}

static void parts_release(ci_run *r) {
  ci_method_release_common(r);
  if (r->ds && r->ds->c == r->o->comm) r->ds->c = NULL; /* the caller's communicator, not freed */
  ci_dist_stored_free(r->ds);
  r->ds = NULL;
  cis_ci_space_free(r->S);
  r->S = NULL;
}

/* The parts hold H's rows (no one process's bound); the products on the
 * GPUs unless on host parts. */
static cis_status parts_fit(ci_run *r) {
  r->R->gpu = r->o->cpu_parts <= 0;
  return CIS_OK;
}

const ci_method ci_method_stored_parts = {.name = "stored over parts", .method = CIS_CI_METHOD_STORED, .parts = 1,
                                          .energies_only = 1, .fit = parts_fit, .setup = parts_setup,
                                          .correct = ci_method_no_correct, .keeps_parity = ci_method_no_parity,
                                          .report = parts_report, .release = parts_release};
