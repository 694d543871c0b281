/* ci_solve_dist_direct.c: the driver's direct (matrix-free) sigma over
 * several parts: o->gpus GPUs through NCCL, or o->cpu_parts host parts (the
 * same code, tested on every commit).
 *
 * The string-driven sigma (Olsen et al. 1988; Knowles & Handy 1984) is a sum
 * over the alpha strings A of gather (D = E c at the columns (A, B)),
 * product (X = g D) and scatter (sigma += E X): each part takes a contiguous
 * range of alpha strings, balanced by their work (ci_direct_alpha_work: the
 * half sigma's lower triangle, the irrep blocks' widths), and contributes to
 * every row of sigma. A distributed summed operator
 * (dist_matrix_create_summed) gathers the whole vector on every part
 * before the product and sums the parts' partial sigmas onto the owners'
 * rows after it; Davidson's vectors are spread by rows (an even split),
 * each part holding its share, the dots summed over the parts.
 *
 * Davidson's vectors are kept exactly alpha <-> beta pure as on one device.
 * C1 vectors: each product makes the whole vector it gathered pure (the
 * one-device hook) before the half sigma, and the summed operator writes
 * the part's rows of it back into Davidson's vector
 * (dist_summed_set_write_back): no exchange of its own. A correction
 * is pure then only to its round-off, but its impure part is orthogonal to
 * the (pure) subspace, so projecting it after the Gram-Schmidt changes no
 * dot with the other vectors and its norm by the square of that round-off.
 * The hook on the corrections instead (gathered whole, projected on every
 * part, written back: dist_summed_transform) cost an all-gather and a
 * whole-vector pass per correction on every part, which did not shrink
 * with the parts (212 ms a correction on 2 H200s, 256 ms on 4, the 16e/18o
 * C1 space); it stays for compact vectors on host parts (none on GPUs, as
 * on one).
 *
 * Rule (memory): every part holds two whole vectors (the gathered c, made
 * pure in place for the half sigma, and its partial sigma) beside its share
 * of Davidson's. Where the GPUs cannot also hold a share of the smallest
 * subspace, Davidson's vectors stay in host memory (R->host_vectors, chosen
 * by the driver: dist_summed_set_vectors_host; each product then copies
 * a part's rows in and out over its link). A space whose two whole vectors
 * do not fit one GPU is refused by the driver with the numbers (a sigma
 * whose parts exchange blocks of c and sigma as they go is the next step:
 * docs/multi-gpu.md). Not done here either: the exchange overlapped
 * with the sigma, the spin penalty. Singlet-only states need nothing of
 * their own here: their guesses are symmetric and the corrections' hook
 * keeps them so, as on one device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"
#include "core/options.h"
#include "distributed/dist_internal.h"
#include "solvers/solver_internal.h"

/* Most parts one process drives (the distributed layer's own bound). */
#define PARTS_MAX 64

struct ci_dist_direct {
  cis_dist_world *w;
  cis_dist_comm *c;
  cis_dist_matrix *M;
  cis_ci_direct *D;
  int compact, nlocal, first;
  int comm_given;                       /* c is the caller's (o->comm): not freed here */
  cis_int alo[PARTS_MAX + 1];           /* part p sums the alpha strings alo[p] .. alo[p+1]-1 */
  cis_ci_direct_gpu *G[PARTS_MAX];      /* GPU parts: each local part's sigma (its range) */
  cis_ci_direct_gpu_opts go[PARTS_MAX]; /* the options each was made with (its workspace) */
  int parts, balanced, verbose;         /* balanced: the split re-made from measured times (or kept) */
  int on_gpus;                          /* the parts are GPUs (G[l] must be there) */
  int resplit;                          /* option dist_resplit: 1 always, 0 never, -1 by the rule */
  double first_secs[PARTS_MAX];         /* the parts' work after the first product */
  cis_int rows[PARTS_MAX];              /* Davidson's rows of each part (its share of the vectors) */
  double balance_gain;                  /* the re-split's predicted slowest part over the measured one */
  double t_make;                        /* seconds this process took to make its GPU parts' sigmas */
  cis_int carried_vectors, carried_half; /* local part 0's counts before it was made again */
};

/* A part's whole vector made exactly (anti)symmetric under alpha <-> beta
 * when it nearly is (the hooks of the one-device paths, on the gathered
 * vector; the same result on every part). */
static cis_status part_pure(void *ctx, int local, int rank, const void *x, void *y, cis_stream s) {
  ci_dist_direct *dd = ctx;
  (void)x;
  if (dd->G[local]) return cis_ci_direct_gpu_correct(dd->G[local], y, s);
  if (dd->on_gpus) return cis_error(CIS_ERR_INVALID, "direct sigma over GPUs: part %d lost its GPU sigma", rank);
  return dd->compact ? cis_ci_direct_correct_compact(dd->D, y, s) : cis_ci_direct_correct_c1(dd->D, y, s);
}

/* A part's partial sigma of the whole x into the whole y (the summed
 * operator's f); C1 vectors made pure first (in place: the summed operator
 * writes the part's rows of x back to Davidson's vector). Every part
 * projects, a part without alpha strings too, so that the rows written back
 * agree whichever part owns them. */
static cis_status part_sigma(void *ctx, int local, int rank, const void *x, void *y, cis_stream s) {
  ci_dist_direct *dd = ctx;
  cis_ci_direct_gpu *G = dd->G[local];
  if (!dd->compact) {
    cis_status st = part_pure(ctx, local, rank, x, (void *)x, s); /* the summed operator's write-back contract */
    if (st != CIS_OK) return st;
  }
  if (G) return dd->compact ? ci_direct_gpu_compact_sigma(G, 1, x, y, s) : cis_ci_direct_gpu_sigma(G, 1, x, y, s);
  if (dd->on_gpus) return cis_error(CIS_ERR_INVALID, "direct sigma over GPUs: part %d lost its GPU sigma", rank);
  return ci_direct_sigma_part(dd->D, dd->compact, x, y, dd->alo[rank], dd->alo[rank + 1]);
}

/* alo: the alpha strings split into `parts` ranges of about equal work
 * (ci_direct_alpha_work, read once per string), each with at least one
 * string; a string goes to the range its work's midpoint falls in. */
static cis_status model_work(const cis_ci_direct *D, int compact, cis_int nsa, double **w) {
  cis_status st = cis_alloc_array((void **)w, nsa, sizeof(double), "the alpha strings' work");
  if (st == CIS_OK)
    for (cis_int A = 0; A < nsa; ++A) (*w)[A] = ci_direct_alpha_work(D, compact, A);
  return st;
}
static cis_status split_work(const cis_ci_direct *D, int compact, int parts, cis_int nsa, cis_int *alo) {
  double *w = NULL;
  cis_status st = model_work(D, compact, nsa, &w);
  if (st == CIS_OK) ci_split_weights(w, nsa, parts, alo);
  free(w);
  return st;
}

static cis_status ci_dist_direct_correct(void *ctx, void *t, cis_stream s) {
  ci_dist_direct *dd = ctx;
  (void)s;
  return dist_summed_transform(dd->M, t, part_pure, dd);
}

void ci_dist_direct_free(ci_dist_direct *dd) {
  if (!dd) return;
  for (int l = 0; l < dd->nlocal; ++l)
    if (dd->G[l]) {
      dist_comm_use_part(dd->c, l);
      cis_ci_direct_gpu_free(dd->G[l]);
    }
  cis_dist_matrix_free(dd->M);
  if (!dd->comm_given) cis_dist_comm_free(dd->c);
  cis_dist_world_free(dd->w);
  free(dd);
}

cis_status ci_parts_comm(const cis_ci_solve_opts *o, cis_dist_world **w, cis_dist_comm **c) {
  *w = NULL, *c = NULL;
  if (o->comm) { /* the caller's (checked by ci_check_comm) */
    *c = o->comm;
    return CIS_OK;
  }
  if (o->cpu_parts <= 0) return cis_dist_comm_nccl(o->gpus == CIS_CI_ALL_GPUS ? 0 : o->gpus, c);
  if (o->cpu_parts > 64) return cis_error(CIS_ERR_INVALID, "cpu_parts must be 1..64, got %d", o->cpu_parts);
  cis_status st = cis_dist_world_create(o->cpu_parts, w);
  if (st == CIS_OK) st = cis_dist_comm_fake(*w, 0, o->cpu_parts, c);
  return st;
}

int ci_dist_parts(const cis_ci_solve_opts *o) {
  if (o->cpu_parts > 0) return o->cpu_parts;
  if (o->gpus == CIS_CI_ALL_GPUS) return cis_gpu_count(NULL, 0);
  return o->gpus;
}

/* The distributed product timed on a fixed pseudo-random vector
 * (ci_time_product): the per-sigma time, exchange included. */
static cis_status time_product(ci_run *r, ci_dist_direct *dd, cis_operator *op, cis_int n) {
  cis_status st;
  void *v = NULL;
  double *h = NULL;
  CIS_TRY(cis_dist_vec_alloc(dd->M, 2, &v));
  CIS_TRY(cis_alloc_array((void **)&h, n, sizeof(double), "timing vector"));
  ci_fill_random(h, n);
  CIS_TRY(cis_dist_vec_upload(dd->M, v, h, 1));
  CIS_TRY(ci_time_product(op, v, (char *)v + (size_t)n * sizeof(double), &r->R->sigma_ms));
cleanup:
  free(h);
  cis_dist_vec_free(dd->M, v);
  return st;
}

double ci_nccl_reserve(int parts) {
  const double per = (double)CI_NCCL_RESERVE * parts;
  return (per > (double)CI_NCCL_RESERVE_MIN ? per : (double)CI_NCCL_RESERVE_MIN) + (double)CI_NCCL_INIT_RESERVE;
}

int ci_host_vectors_needed(double free_mem, double vec_bytes, int parts, int least_vectors) {
  const double whole = 2 * vec_bytes, share = least_vectors * vec_bytes / parts;
  return whole + share + ci_nccl_reserve(parts) + fmax(free_mem / 8, 1073741824.0) > free_mem;
}

/* fn(dd, l, arg) for every local part, each GPU's on a thread of its own
 * (one GPU's uploads and allocations overlap the others'); a worker's
 * message (each thread has its own, status.h) raised again here, naming the
 * part and `what`. */
typedef cis_status (*part_fn)(ci_dist_direct *dd, int l, void *arg);
static cis_status each_gpu_part(ci_dist_direct *dd, part_fn fn, void *arg, const char *what) {
  cis_status pst[PARTS_MAX];
  char whys[PARTS_MAX][200];
  CIS_PRAGMA(omp parallel for num_threads(dd->nlocal) schedule(static, 1) if (dd->nlocal > 1 && dd->on_gpus))
  for (int l = 0; l < dd->nlocal; ++l) {
    pst[l] = fn(dd, l, arg);
    snprintf(whys[l], sizeof whys[l], "%s", pst[l] == CIS_OK ? "" : cis_last_error());
  }
  for (int l = 0; l < dd->nlocal; ++l)
    if (pst[l] != CIS_OK) return cis_error(pst[l], "GPU part %d %s: %s", dd->first + l, what, whys[l]);
  return CIS_OK;
}

/* Local part l's direct sigma on its GPU (made current here): its alpha
 * strings, a workspace of what its GPU has free after Davidson's share
 * (dav vectors of its `rows`, to the byte; none when they are on the
 * host), a margin and NCCL's buffers (made at the first exchange:
 * ci_nccl_reserve). */
static cis_status make_gpu_part(ci_dist_direct *dd, int l, void *arg) {
  cis_status st;
  const ci_run *r = arg;
  const int parts = dd->parts;
  const cis_int rows = dd->rows[dd->first + l];
  cis_ci_direct_gpu_opts go = ci_direct_gpu_opts_default();
  const int rank = dd->first + l, dav = r->R->host_vectors ? 0 : davidson_vectors(r->nr, r->max_sub);
  cis_gpu_info gi;
  go.vectors = 1; /* the whole vectors are allocated; the workspace below leaves the share */
  CIS_TRY(dist_comm_use_part(dd->c, l));
  CIS_TRY(cis_gpu_get_info(&gi));
  const double work = (double)gi.free_mem - 8.0 * (double)rows * dav - ci_nccl_reserve(parts);
  go.work_bytes = work > (double)(256 << 20) ? (int64_t)work : (int64_t)256 << 20;
  dd->go[l] = go;
  CIS_TRY(ci_direct_gpu_create_part(r->D, &go, dd->alo[rank], dd->alo[rank + 1], &dd->G[l]));
  ci_direct_gpu_input_scratch(dd->G[l]); /* the gathered vector is the part's own copy */
cleanup:
  return st;
}

/* Local GPU part l made again for the alpha strings next[rank] ..
 * next[rank+1]-1 when they moved: freed on its GPU first, then made with
 * the workspace it had (Davidson's share is allocated by now). A failure
 * leaves G[l] NULL: the products then fail with "lost its GPU sigma". */
static cis_status remake_gpu_part(ci_dist_direct *dd, int l, void *arg) {
  const cis_int *next = arg;
  const int rank = dd->first + l;
  if (!dd->G[l] || (next[rank] == dd->alo[rank] && next[rank + 1] == dd->alo[rank + 1])) return CIS_OK;
  cis_status st = dist_comm_use_part(dd->c, l);
  if (st != CIS_OK) return st;
  cis_ci_direct_gpu_info old;
  cis_ci_direct_gpu_opts go = dd->go[l];
  ci_direct_gpu_get_info(dd->G[l], &old);
  if (l == 0) dd->carried_vectors += old.sigma_vectors, dd->carried_half += old.half_sigmas;
  cis_ci_direct_gpu_free(dd->G[l]);
  dd->G[l] = NULL;
  go.vectors = CI_GPU_VECTORS_HELD;
  go.work_bytes = old.work_bytes > 0 ? old.work_bytes : go.work_bytes;
  st = ci_direct_gpu_create_part(dd->D, &go, next[rank], next[rank + 1], &dd->G[l]);
  if (st == CIS_OK) ci_direct_gpu_input_scratch(dd->G[l]);
  return st;
}

/* Before the third product: the alpha strings re-split from the parts'
 * times in the second (dist_summed_work less its figures after the
 * first, which carries first-call costs: cuBLAS, lazily loaded kernels).
 * The model of split_work misses by up to 16 % a part (CAS(16,16) over 4
 * H100s, 2026-11-27: the third quarter of the strings 72 ms against 61-64
 * for the others, on whichever GPU). The strings are re-split when the new
 * split's slowest part is predicted 3 % or more faster and that saves, over
 * RESPLIT_HORIZON more products, more than RESPLIT_COST times what making
 * the GPU parts' sigmas took in the set-up (the ranks' mean); every process
 * must agree (the flag summed over the ranks), or none re-splits. The local
 * GPU parts whose range moved are made again on their GPUs, each with the
 * workspace it had (freed first). Measured there: the re-split took about
 * 0.23 s of host time (freeing and making 4 parts' 10+ GB workspaces), 3.6
 * times the set-up's 0.064 s, and then saved 6 ms a product (the slowest
 * part 66 ms against 72): a loss for CAS(16,16)'s 11 products, a gain for a
 * space whose products take seconds. The option dist_resplit=always|never
 * overrides the rule (a diagnostic; the same on every process). Once per
 * run; every process together. */
#define RESPLIT_HORIZON 10.0
#define RESPLIT_COST 4.0
static cis_status rebalance(void *ctx, cis_dist_matrix *M) {
  ci_dist_direct *dd = ctx;
  cis_status st = CIS_OK;
  double secs[PARTS_MAX], *w = NULL, make[PARTS_MAX], agree[PARTS_MAX], slowest = 0;
  int64_t products = 0;
  cis_int next[PARTS_MAX + 1];
  if (dd->balanced || dd->parts < 2 || dd->resplit == 0) return CIS_OK;
  cis_dist_matrix_times(M, NULL, NULL, &products); /* this process's count, the same on every one */
  if (products < 1) return CIS_OK;
  CIS_TRY(dist_summed_work(M, secs, &products));
  if (products == 1) { /* the first product's figures, taken off the next */
    memcpy(dd->first_secs, secs, (size_t)dd->parts * sizeof(double));
    return CIS_OK;
  }
  dd->balanced = 1;
  for (int p = 0; p < dd->parts; ++p) secs[p] = (secs[p] - dd->first_secs[p]) / (double)(products - 1);
  const cis_int nsa = dd->alo[dd->parts];
  CIS_TRY(model_work(dd->D, dd->compact, nsa, &w));
  dd->balance_gain = ci_split_rescaled(w, nsa, dd->parts, dd->alo, secs, next);
  for (int l = 0; l < dd->nlocal; ++l) make[l] = dd->t_make;
  CIS_TRY(dist_allreduce_host(dd->c, make, 1)); /* every local part adds its process's time once */
  for (int p = 0; p < dd->parts; ++p) slowest = fmax(slowest, secs[p]);
  const double saving = (1 - dd->balance_gain) * slowest * RESPLIT_HORIZON, cost = RESPLIT_COST * make[0] / dd->parts;
  const int mine = dd->resplit > 0 ? dd->balance_gain < 1 : dd->balance_gain <= 0.97 && saving > cost;
  for (int l = 0; l < dd->nlocal; ++l) agree[l] = mine;
  CIS_TRY(dist_allreduce_host(dd->c, agree, 1));
  const int resplit = agree[0] == (double)dd->parts;
  if (dd->verbose && dd->first == 0) {
    fprintf(stderr, "direct over %d parts: the second product's work per part", dd->parts);
    for (int p = 0; p < dd->parts; ++p) fprintf(stderr, " %.1f", 1e3 * secs[p]);
    fprintf(stderr, " ms; re-split from them, the slowest part predicted at %.1f %% of before, saving %.3f s over %.0f "
            "products against %.3f s to make the parts again: %s\n", 100 * dd->balance_gain, saving, RESPLIT_HORIZON,
            cost, resplit ? "re-split" : "kept");
  }
  if (!resplit) goto cleanup;
  st = each_gpu_part(dd, remake_gpu_part, next, "made again for its new alpha strings");
  memcpy(dd->alo, next, (size_t)(dd->parts + 1) * sizeof(cis_int)); /* the parts made have the new ranges */
cleanup:
  free(w);
  return st;
}

cis_status ci_run_setup_dist_direct(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  ci_dist_direct *dd = NULL;
  cis_int *row_start = NULL;
  double *diag = NULL;
  const int parts = ci_dist_parts(o);
  if (parts < 1 || parts > PARTS_MAX)
    return cis_error(CIS_ERR_INVALID, "the direct sigma over parts takes 1..%d parts, got %d", PARTS_MAX, parts);
  CIS_TRY(cis_alloc_zeroed((void **)&dd, 1, sizeof *dd, "direct sigma over parts"));
  dd->D = r->D;
  dd->compact = R->direct.blocked;
  const cis_int nsa = R->direct.alpha_strings;
  const cis_int n = dd->compact ? ci_direct_compact_size(r->D) : cis_ci_direct_size(r->D);
  if (parts > nsa || parts > n)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "%d parts for a space of %lld alpha strings and %lld determinants: at most one "
                      "part per alpha string", parts, (long long)nsa, (long long)n));
  const double t_in = cis_wtime();
  double t0 = t_in, t_comm, t_diag, t_op;
  CIS_TRY(ci_parts_comm(o, &dd->w, &dd->c));
  dd->comm_given = dd->c == o->comm;
  t_comm = cis_wtime() - t0;
  dd->nlocal = dist_comm_local_ranks(dd->c);
  dd->first = dist_comm_first_rank(dd->c);
  CIS_TRY(split_work(r->D, dd->compact, parts, nsa, dd->alo));
  dd->parts = parts;
  dd->verbose = o->verbose;
  dd->on_gpus = dist_comm_memspace(dd->c) == CIS_MEM_DEVICE;
  dd->resplit = cis_opt_is(CIS_OPT_DIST_RESPLIT, "always") ? 1 : cis_opt_is(CIS_OPT_DIST_RESPLIT, "never") ? 0 : -1;
  /* Davidson's rows: an even split of the vector (its share of memory),
   * uniform (blocks of ceil(n / parts), the last shorter) when the last
   * part keeps a row: the layout of NCCL's all-gather and reduce-scatter */
  CIS_TRY(cis_alloc_array((void **)&row_start, parts + 1, sizeof(cis_int), "row split"));
  const cis_int block = (n + parts - 1) / parts;
  const int uniform = n > (cis_int)(parts - 1) * block;
  for (int p = 0; p <= parts; ++p)
    row_start[p] = uniform ? (p < parts ? (cis_int)p * block : n) : (cis_int)((double)n * p / parts);
  t0 = cis_wtime();
  CIS_TRY(cis_alloc_array((void **)&diag, n, sizeof(double), "the diagonal"));
  CIS_TRY(dd->compact ? ci_direct_compact_diagonal(r->D, diag) : ci_direct_diagonal(r->D, diag));
  t_diag = cis_wtime() - t0;
  t0 = cis_wtime();
  /* the diagonal copied into the operator only where Davidson reads it there
   * (compact vectors); C1 Davidson takes the driver's (r->gdiag, below): a
   * large space's two copies saved (14.3 GiB each for the 16e/18o C1 space) */
  CIS_TRY(dist_matrix_create_summed(n, row_start, dd->compact ? diag : NULL, CIS_F64, part_sigma, dd, dd->c, &dd->M));
  /* C1 vectors: the sum in NCCL's reduce-scatter (a part's C1 sigma makes a
   * nearly symmetric gathered vector pure before its half sigma, and the
   * product writes that back into Davidson's vector); compact vectors on
   * GPUs have no such projection, so their rows are summed in rank order */
  CIS_TRY(dist_summed_set_sum(dd->M, dd->compact ? CIS_DIST_SUM_RANK_ORDER : CIS_DIST_SUM_COLLECTIVE));
  CIS_TRY(dist_summed_set_prepare(dd->M, rebalance, dd));
  CIS_TRY(dist_summed_set_write_back(dd->M, !dd->compact)); /* part_sigma's projection goes back to Davidson */
  if (R->host_vectors) { /* Davidson's vectors on the host (direct_subspace), page-locked unless told not to */
    CIS_TRY(dist_summed_set_vectors_host(dd->M, cis_opt_int(CIS_OPT_HOST_VECTORS_PIN, 1) != 0));
  }
  t_op = cis_wtime() - t0;
  t0 = cis_wtime();
  if (dist_comm_memspace(dd->c) == CIS_MEM_DEVICE) {
    for (int p = 0; p < parts; ++p) dd->rows[p] = row_start[p + 1] - row_start[p];
    CIS_TRY(each_gpu_part(dd, make_gpu_part, r, "made"));
    ci_direct_gpu_get_info(dd->G[0], &R->direct_gpu);
    dd->t_make = cis_wtime() - t0;
  }
  if (o->verbose)
    fprintf(stderr, "direct over %d parts: the space %.3f s (strings, links; host), the communicator %.3f s, the "
            "diagonal %.3f s (host), the summed operator %.3f s, the parts' sigmas %.3f s (lists and pair matrix "
            "uploaded, workspace sized); %.3f s in all\n", parts, r->t_space, t_comm, t_diag, t_op, cis_wtime() - t0,
            cis_wtime() - t_in);
  cis_operator *op = NULL;
  CIS_TRY(cis_operator_from_dist(dd->M, &op));
  if (dd->compact) r->opc = op;
  else r->op = op;
  if (!dd->compact) {
    r->gdiag = diag;
    diag = NULL;
  }
  r->dd = dd;
  if (dd->compact && !dd->G[0]) { /* compact vectors on GPUs: no device projection yet, as on one GPU */
    r->correct = ci_dist_direct_correct;
    r->correct_ctx = dd;
  }
  R->parts = parts;
  snprintf(R->parts_comm, sizeof R->parts_comm, "%s", cis_dist_comm_name(dd->c));
  snprintf(R->parts_op, sizeof R->parts_op, "%s", cis_operator_name(op));
  R->exchange_bytes = (double)cis_dist_matrix_exchange_bytes(dd->M);
  dd = NULL;
  if (o->time_sigma) {
    const double t0 = cis_wtime();
    CIS_TRY(time_product(r, r->dd, op, n));
    R->t_timing = cis_wtime() - t0;
  }
  cis_dist_matrix_reset_times(r->dd->M);
  st = CIS_OK;
cleanup:
  free(row_start);
  free(diag);
  ci_dist_direct_free(dd);
  return st;
}

cis_status ci_check_comm(const cis_ci_solve_opts *o) {
  if (!o->comm) return CIS_OK;
  const int ranks = cis_dist_comm_ranks(o->comm), host = dist_comm_memspace(o->comm) == CIS_MEM_HOST;
  const int parts = host ? o->cpu_parts : o->gpus;
  if (parts != ranks || (host ? o->gpus : o->cpu_parts) != 0)
    return cis_error(CIS_ERR_INVALID, "the caller's %s communicator has %d ranks: set %s = %d (and %s = 0), got gpus %d, "
                     "cpu_parts %d", cis_dist_comm_name(o->comm), ranks, host ? "cpu_parts" : "gpus", ranks,
                     host ? "gpus" : "cpu_parts", o->gpus, o->cpu_parts);
  return CIS_OK;
}

/* Davidson's roots: each process holds its parts' rows, completed from the
 * other processes (cis_dist_vec_gather_host; every process calls it). */
static cis_status parts_gather(ci_run *r, double *v, int nr) { return cis_dist_vec_gather_host(r->dd->M, v, nr); }

/* The distributed product's times and the first local GPU part's counters. */
static cis_status parts_report(ci_run *r) {
  cis_ci_result *R = r->R;
  const ci_dist_direct *dd = r->dd;
  cis_status st = ci_method_direct_report(r);
  int64_t np;
  cis_dist_matrix_times(dd->M, &R->exchange_seconds, &R->product_seconds, &np);
  if (R->host_vectors) R->host_vectors = dist_vectors_on_host(dd->M); /* 2: page-locked */
  if (dd->G[0]) {
    ci_direct_gpu_get_info(dd->G[0], &R->direct_gpu);
    R->direct_gpu.sigma_vectors += dd->carried_vectors;
    R->direct_gpu.half_sigmas += dd->carried_half;
    R->half_sigmas = R->direct_gpu.half_sigmas;
  }
  return st;
}

/* The space (kept in r->keep), then the sigma over the parts: its summed
 * operator (C1 or compact vectors), diagonal and correction hook. */
static cis_status parts_setup(ci_run *r) {
  cis_status st;
  cis_ci_result *R = r->R;
  const double tb = cis_wtime();
  CIS_TRY(ci_run_direct_setup_space(r));
  R->t_timing = 0;
  CIS_TRY(ci_run_setup_dist_direct(r));
  R->t_build = cis_wtime() - tb - R->t_timing;
  const int compact = R->direct.blocked;
  r->dv = (ci_davidson_view){compact ? r->opc : r->op, compact ? cis_operator_diagonal(r->opc) : r->gdiag,
                             cis_ci_direct_size(r->D), compact ? ci_direct_compact_size(r->D) : cis_ci_direct_size(r->D),
                             compact};
cleanup:
  return st;
}

/* The path's own hook where it has one (compact vectors on host parts:
 * gathered whole, made pure, written back); the C1 parts' products make
 * their gathered vectors pure themselves. */
static void parts_correct(ci_run *r, cis_davidson_opts *d, int keep) {
  (void)keep;
  d->correct = r->correct;
  d->correct_ctx = r->correct_ctx;
}

static void parts_release(ci_run *r) {
  ci_method_release_common(r);
  ci_dist_direct_free(r->dd);
  r->dd = NULL;
}

const ci_method ci_method_direct_parts = {.name = "direct over parts", .method = CIS_CI_METHOD_DIRECT, .parts = 1,
                                          .fit = ci_fit_memory, .setup = parts_setup, .correct = parts_correct,
                                          .keeps_parity = ci_method_pure, .s2 = ci_method_direct_s2,
                                          .gather = parts_gather, .report = parts_report, .release = parts_release};
