/* ci_solve.c: the CI driver (cisparse/ci_solve.h): options, the method,
 * sizes and memory checks before anything large is allocated, the stored
 * Hamiltonian path, Davidson's roots (Davidson 1975; P-space guesses as
 * PySCF's) with the spin filter, and the result. The direct path is in
 * ci_solve_direct.c, the distributed stored path in ci_solve_dist.c. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"
#include "ci/sci_internal.h"
#include "ci/ci_solve_internal.h"

cis_ci_solve_opts cis_ci_solve_opts_default(void) {
  cis_ci_solve_opts o;
  memset(&o, 0, sizeof o);
  o.method = CIS_CI_METHOD_AUTO;
  o.build = -1;
  o.level = -1;
  o.roots = 1;
  o.spin = -1;
  o.tol = 1e-8;
  o.etol = 1e-10;
  o.max_iter = 200;
  o.format = "auto";
  o.repeat = 1;
  o.spin_penalty_ss = -1;
  o.isym = -1;
  return o;
}

static double gib(double bytes) { return bytes / 1073741824.0; }

/* F (its integrals too unless values_checked: read from a file, whose
 * reader checked them) and every field of o (fcidump_check,
 * ci_solve_opts_check), then the options against F and each other. */
static cis_status check_options(const cis_fcidump *F, const cis_ci_solve_opts *o, int values_checked) {
  cis_status st;
  if (!F || !o) return cis_error(CIS_ERR_INVALID, "cis_ci_solve: NULL argument");
  if ((st = values_checked ? ci_fcidump_check_header(F) : fcidump_check(F)) != CIS_OK) return st;
  if ((st = ci_solve_opts_check(o)) != CIS_OK) return st;
  if (o->spin >= 0) { /* S >= |MS2|/2, 2S - MS2 even, and at most one unpaired electron per open orbital */
    int twos = (int)floor(2 * o->spin + 0.5), ms2 = abs(F->ms2);
    int unpaired = F->nelec < 2 * F->norb - F->nelec ? F->nelec : 2 * F->norb - F->nelec;
    if (twos > unpaired)
      return cis_error(CIS_ERR_INVALID, "spin %g is above the largest spin S = %g that %d electrons in %d orbitals allow",
                       o->spin, 0.5 * unpaired, F->nelec, F->norb);
    if (twos < ms2 || (twos - ms2) % 2)
      return cis_error(CIS_ERR_INVALID, "spin %g is impossible with MS2=%d: S >= |MS2|/2 and 2S - MS2 even", o->spin,
                       F->ms2);
  }
  if (o->host_vectors == 1 && (o->gpus == 0 || o->method == CIS_CI_METHOD_STORED || o->level >= 0))
    return cis_error(CIS_ERR_INVALID, "host_vectors = 1 keeps Davidson's vectors on the host for the direct sigma over "
                     "GPUs: it needs gpus and the direct method (full CI)");
  cis_status comm_st = ci_check_comm(o);
  if (comm_st != CIS_OK) return comm_st;
  if (o->spin_penalty > 0 && (o->gpus != 0 || o->cpu_parts > 0))
    return cis_error(CIS_ERR_UNSUPPORTED, "the spin penalty (fix_spin_) runs on one device, not over several parts");
  if (o->spin_penalty > 0 && o->method == CIS_CI_METHOD_STORED)
    return cis_error(CIS_ERR_UNSUPPORTED, "the spin penalty (fix_spin_) needs the direct method, not stored");
  if (o->singlet) { /* the alpha <-> beta symmetric subspace of the direct sigma's one string set */
    if (F->ms2 != 0) return cis_error(CIS_ERR_INVALID, "singlet-only states need MS2 = 0, got MS2 = %d", F->ms2);
    if (o->method == CIS_CI_METHOD_STORED || o->level >= 0)
      return cis_error(CIS_ERR_UNSUPPORTED, "singlet-only states need the direct method (full CI)");
    if (o->no_time_reversal || o->symmetry_projection)
      return cis_error(CIS_ERR_INVALID, "singlet-only states need the alpha <-> beta time reversal (not turned off) and "
                       "the irreps blocked (not by projection)");
  }
  return CIS_OK;
}

/* Method auto: direct for every full CI it can run, stored only where
 * direct cannot (truncated CI, NORB > 64; the CLI sends the stored-matrix
 * options there too). Measured on the 2-core CI machine, 2026-12-07
 * (bench/results/first_hour_cpu.md, docs/ci.md's table): the direct solve
 * was at least as fast to solution as the stored one on every shape tried
 * (C1 and D2h files, 36 to 501,924 determinants, 1 to 8 roots, 1 and 2
 * threads), 2-20x faster from 10^4 determinants on, since it builds
 * nothing and its blocked sigma runs on the ISYM determinants only; on the
 * GPU a whole direct solve takes less time than the stored build alone
 * (bench/results/ci_direct_gpu.md). The spin penalty and singlet-only
 * states exist on the direct sigma only. */
static int auto_direct(const cis_fcidump *F, const cis_ci_solve_opts *o, const char **why) {
  if (F->norb > CIS_CI_DIRECT_MAX_ORB) { *why = "NORB > 64 (direct keeps one-word strings): stored"; return 0; }
  if (o->level >= 0) { *why = "truncated CI: stored"; return 0; }
  if (o->spin_penalty > 0) { *why = "spin penalty (an operator on the direct sigma): direct"; return 1; }
  if (o->singlet) { *why = "singlet-only states (the alpha <-> beta symmetric subspace of the direct sigma): direct"; return 1; }
  if (o->gpu) { *why = "full CI on the GPU: direct (no build)"; return 1; }
  *why = ci_has_symmetry(F) ? "full CI, blocked by irreps: direct (no build; faster at every size and root count measured)"
                            : "full CI: direct (no build; faster at every size and root count measured)";
  return 1;
}

/* The method that runs: the one asked for, or auto's rule; over GPUs
 * (o->gpus) full CI goes direct as on one GPU. */
static int choose_direct(const cis_fcidump *F, const cis_ci_solve_opts *o, const char **why) {
  if (o->method != CIS_CI_METHOD_AUTO) return o->method == CIS_CI_METHOD_DIRECT;
  if (o->gpus != 0 && o->level < 0 && F->norb <= CIS_CI_DIRECT_MAX_ORB) {
    *why = "full CI over GPUs: direct (no build)";
    return 1;
  }
  return auto_direct(F, o, why);
}

/* Roots of spin S asked beyond the states of spin S that the full-CI space
 * holds: refused before any work (else up to 64 roots are computed before
 * "only k roots of spin S"). States of spin S (each once, at any MS) =
 * determinants of MS = S minus those of MS = S + 1: S+ maps the second onto
 * a part of the first and commutes with H and the point group, so this holds
 * per irrep; both counted in closed form (ci_count_bits) on F's header
 * with MS2 changed. Truncated CI is not spin-complete: not checked. */
static cis_status check_spin_states(const ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  if (o->spin < 0 || o->level >= 0 || r->m->not_spin_complete) return CIS_OK;
  int twos = (int)floor(2 * o->spin + 0.5);
  double dets[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    cis_fcidump G = *r->F; /* the header only: ci_count_bits reads no integral */
    G.ms2 = twos + 2 * k;
    int na = cis_fcidump_nalpha(&G), nb = cis_fcidump_nbeta(&G);
    if (na > G.norb || nb < 0) continue; /* no determinant of that MS */
    cis_ci_bits a = cis_ci_bits_from_u64(0), b = cis_ci_bits_from_u64(0);
    for (int p = 0; p < na; ++p) a.w[p / 64] |= 1ull << (p % 64);
    for (int p = 0; p < nb; ++p) b.w[p / 64] |= 1ull << (p % 64);
    cis_ci_counts c;
    cis_status st = ci_count_bits(&G, -1, &a, &b, &c);
    if (st != CIS_OK) return st;
    dets[k] = c.determinants;
  }
  double states = dets[0] - dets[1];
  if (states >= o->roots) return CIS_OK;
  return cis_error(CIS_ERR_INVALID,
                   "roots %d with spin %g: the full-CI space (of the target irrep) holds only %.0f state(s) of "
                   "spin S = %g (%.0f determinants of MS = S minus %.0f of MS = S + 1)",
                   o->roots, o->spin, states, o->spin, dets[0], dets[1]);
}


/* The direct path's Davidson subspace fitted to the memory its vectors
 * live in (ci_solve_internal.h): the device's free memory less a third (at
 * least 1 GiB) for the sigma's workspace, or the host's limit less the space. The third, not
 * less: the sigma's passes grow as its workspace shrinks, and a subspace
 * bought with workspace did not pay (16e/18o C1 over 4 H200s: subspace 10
 * with ~23 GiB of workspace per GPU, 2.32 s a sigma; subspace 6 with ~51 GiB,
 * 1.65 s; 12 iterations each). Over GPUs whose free memory, less an eighth,
 * NCCL's buffers and the two whole vectors, cannot hold a part's share of the
 * smallest subspace (or of the caller's), Davidson's vectors go to the host
 * (o->host_vectors 0; 1 always, -1 never): the subspace is then fitted to
 * three quarters of the host's limit less the space, two vectors for the
 * diagonal (one copy in C1; three of the far shorter vector blocked by
 * irreps) and the roots' host copy. */
void ci_direct_fit(ci_run *r, double free_mem) {
  cis_ci_result *R = r->R;
  const double vec = 8.0 * R->counts.determinants;
  const int parts = r->parts > 0 ? r->parts : 1;
  R->host_vectors = 0;
  if (!r->direct) return;
  ci_fit_subspace(r, 0, 0); /* the direct path's guess count (one a root on the GPU), unbounded until fitted below */
  /* over parts each holds two whole vectors (the gathered vector, its
   * partial sigma) and its rows of Davidson's: the budget in whole vectors
   * per part, times parts; NCCL's buffers on top of the workspace's third */
  const double whole = r->parts > 0 ? 2 * vec : 0;
  const double fr = free_mem > 0 ? free_mem : 0, nccl = r->parts > 0 ? ci_nccl_reserve(parts) : 0;
  const double reserve = (fr / 3 > 1073741824.0 ? fr / 3 : 1073741824.0) + nccl;
  const double per_part = floor((fr - reserve - whole) / vec) * vec;
  const int want = r->o->host_vectors, gpu_known = R->gpu && fr > 0;
  R->host_vectors = R->gpu && r->parts > 0 && want >= 0 &&
                    (want > 0 || (gpu_known && ci_host_vectors_needed(fr, vec, parts, ci_davidson_vectors_least(r))));
  if (R->host_vectors) {
    /* three quarters of the host: page-locked gigabytes leave the rest to the system, the page cache, CUDA, NCCL */
    const double host = 0.75 * (R->mem_limit > 0 ? (double)R->mem_limit : (double)cis_phys_memory());
    /* less the space, the diagonal's two copies and the roots' host copy (r->evecs) */
    ci_fit_subspace(r, vec, fmax(host - R->need.space - (2 + r->nr) * vec, 1)); /* none left: the smallest, refused later */
  } else if (gpu_known) {
    ci_fit_subspace(r, vec / parts, fmax(per_part, 1));
  } else if (!R->gpu && R->mem_limit > 0) {
    ci_fit_subspace(r, vec, fmax((double)R->mem_limit - R->need.space - parts * whole, 1));
  }
}

double ci_gpu_need(const ci_run *r) {
  const cis_ci_result *R = r->R;
  const double vec = 8.0 * R->counts.determinants;
  if (r->parts <= 0) return R->need.davidson;
  /* over GPUs: two whole vectors each, and its share of Davidson's, or with
   * host vectors its rows of sigma (their copy to the host) */
  return 2 * vec + (R->host_vectors ? vec / r->parts : R->need.davidson / r->parts);
}

/* ci_direct_fit with this device's free memory (gi: read once here;
 * free_mem 0 when not on a GPU or unknown). */
static void direct_subspace(ci_run *r, cis_gpu_info *gi) {
  gi->free_mem = 0;
  if (r->R->gpu && cis_gpu_get_info(gi) != CIS_OK) gi->free_mem = 0;
  ci_direct_fit(r, (double)gi->free_mem);
}

/* --count: the space and an exact nonzero count where that is quick, else an
 * estimate from sampled rows where the space is quick to build. */
static cis_status count_only(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  double dets = R->counts.determinants;
  if (o->method == CIS_CI_METHOD_DIRECT || (r->parts && choose_direct(r->F, o, &R->why))) {
    /* the memory of a direct run: its subspace where it runs */
    r->direct = 1;
    R->method = CIS_CI_METHOD_DIRECT;
    R->gpu = o->gpu || o->gpus != 0;
    cis_gpu_info gi;
    direct_subspace(r, &gi);
  }
  R->nnz_counted = R->counts.nnz_bound <= 5e7 && dets <= 2e6;
  if (R->nnz_counted) {
    CIS_TRY(ci_space_create_bits(r->F, o->level, &R->ref_alpha, &R->ref_beta, &r->S));
    double tb = cis_wtime();
    CIS_TRY(ci_hamiltonian_nnz(r->F, r->S, o->symmetric, &R->count_nnz, &R->count_max_row));
    R->t_build = cis_wtime() - tb;
  } else if (dets <= 5e7) {
    CIS_TRY(ci_space_create_bits(r->F, o->level, &R->ref_alpha, &R->ref_beta, &r->S));
    CIS_TRY(ci_hamiltonian_nnz_estimate(r->F, r->S, o->symmetric, ci_sample_rows(&R->counts), &R->nnz_estimate,
                                            &R->nnz_sampled));
  }
  st = CIS_OK;
cleanup:
  cis_ci_space_free(r->S);
  r->S = NULL;
  return st;
}

/* The reference determinant (o->occ, else aufbau of symmetry ISYM; full CI
 * needs none), its energy, the closed-form sizes and the memory limit. */
static cis_status reference_and_sizes(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  if (o->occ) {
    CIS_TRY(ci_parse_occ_bits(r->F, o->occ, &R->ref_alpha, &R->ref_beta));
  } else if ((st = ci_find_reference_bits(r->F, &R->ref_alpha, &R->ref_beta)) != CIS_OK) {
    if (o->level >= 0) return st; /* truncated CI needs a reference of symmetry ISYM */
    int na = cis_fcidump_nalpha(r->F), nb = cis_fcidump_nbeta(r->F);
    memset(&R->ref_alpha, 0, sizeof R->ref_alpha);
    memset(&R->ref_beta, 0, sizeof R->ref_beta);
    for (int p = 0; p < na; ++p) R->ref_alpha.w[p / 64] |= 1ull << (p % 64);
    for (int p = 0; p < nb; ++p) R->ref_beta.w[p / 64] |= 1ull << (p % 64);
    R->no_reference = 1;
  }
  R->e_reference = ci_diagonal_bits(r->F, &R->ref_alpha, &R->ref_beta) + r->F->ecore;
  CIS_TRY(ci_count_bits(r->F, o->level, &R->ref_alpha, &R->ref_beta, &R->counts));
  R->mem_limit = cis_host_memory_limit(R->mem_why, sizeof R->mem_why);
  st = CIS_OK;
cleanup:
  return st;
}

/* The reported roots into the result: energies (core included), <S^2>,
 * with keep_vectors the vectors, then the method's report (its counters,
 * the vectors' determinants). */
static cis_status fill_roots(ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  const cis_int n = r->dv.n;
  R->roots = o->roots;
  R->computed = r->nroots;
  R->size = n;
  R->energies = malloc((size_t)o->roots * sizeof(double));
  R->s2 = malloc((size_t)o->roots * sizeof(double));
  R->state = malloc((size_t)o->roots * sizeof(int));
  if (!R->energies || !R->s2 || !R->state) return cis_error(CIS_ERR_ALLOC, "cannot allocate the result of %d roots", o->roots);
  for (int k = 0; k < o->roots; ++k) {
    R->state[k] = r->pick[k];
    R->energies[k] = r->evals[r->pick[k]] + r->F->ecore;
    R->s2[k] = r->s2[r->pick[k]];
  }
  R->converged = R->davidson.converged >= r->nroots;
  if (o->keep_vectors) {
    if (!(R->vectors = malloc((size_t)o->roots * (size_t)n * sizeof(double))))
      return cis_error(CIS_ERR_ALLOC, "cannot allocate %d result vectors of %lld determinants", o->roots, (long long)n);
    for (int k = 0; k < o->roots; ++k)
      memcpy(R->vectors + (size_t)k * (size_t)n, r->evecs + (size_t)r->pick[k] * (size_t)n, (size_t)n * sizeof(double));
  }
  return r->m->report(r);
}

/* What the method made, then Davidson's roots. */
static void run_release(ci_run *r) {
  if (r->m) r->m->release(r);
  free(r->evals);
  free(r->evecs);
  free(r->s2);
  free(r->pick);
  r->evals = r->evecs = r->s2 = NULL;
  r->pick = NULL;
}

/* Roots Davidson computes first: those asked, or with a spin filter 2k + 4
 * (at most r->cap), doubled by ci_run_roots until k of that spin are found. */
static int first_roots(const ci_run *r) {
  const int k = r->o->roots;
  return r->o->spin < 0 ? k : 2 * k + 4 < r->cap ? 2 * k + 4 : r->cap;
}

/* What no method can give, refused from the closed-form counts before the
 * work and before the paths part (one process, parts, MPI ranks: the same
 * line and status from each): more roots than the space (of the target
 * irrep, at the level) has determinants, a space past 32-bit indices, roots
 * of a spin beyond the states of that spin, a spin filter where no <S^2> is
 * computed (the stored Hamiltonian over parts). */
static cis_status check_request(const ci_run *r, int no_s2) {
  const cis_ci_solve_opts *o = r->o;
  const double dets = r->R->counts.determinants;
  if (dets > (double)INT32_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "%.4g determinants exceed the 32-bit index range (2^31 - 1); count_only gives the sizes",
                     dets);
  if (dets == 0) {
    char isym[48];
    return cis_error(CIS_ERR_INVALID, "no determinant of %d electrons in %d orbitals has symmetry %s", r->F->nelec,
                     r->F->norb, ci_isym_text(r->F, isym, sizeof isym));
  }
  if (o->roots > dets) return cis_error(CIS_ERR_INVALID, "%d roots asked; the space has %.0f determinants", o->roots, dets);
  if (no_s2 && o->spin >= 0)
    return cis_error(CIS_ERR_UNSUPPORTED, "a spin filter needs <S^2> of the roots, which the stored Hamiltonian over "
                     "several parts does not compute: use the direct method over parts, or one device");
  return check_spin_states(r);
}

/* The roots into the result (phase "result"), the total time from t0. */
static cis_status finish(ci_run *r, double t0) {
  const double t = cis_wtime();
  const cis_status st = fill_roots(r);
  ci_phase(r->R, "result", t);
  r->R->t_total = cis_wtime() - t0;
  return st;
}

cis_status ci_fit_memory(ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  const double dets = R->counts.determinants;
  /* the spin penalty is a host operator: the direct sigma on the CPU */
  R->gpu = (o->gpu || o->gpus != 0) && !(r->direct && o->spin_penalty > 0);
  char why[200];
  if (R->gpu && cis_gpu_count(why, sizeof why) == 0) /* said before anything is printed or built */
    return cis_error(CIS_ERR_NO_GPU, "the GPU asked for (gpu, gpus): %s", why);
  cis_gpu_info gi;
  direct_subspace(r, &gi);
  /* the direct GPU path keeps Davidson's vectors on the device (checked there) */
  if (R->mem_limit > 0 && !(r->direct && R->gpu) && R->need.direct > (double)R->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%.4g determinants need %.1f GiB before the Hamiltonian (space %.1f GiB + Davidson vectors %.1f GiB "
                     "for %d roots), this process may use %.1f GiB (%s)",
                     dets, gib(R->need.direct), gib(R->need.space), gib(R->need.vectors), r->nr, gib((double)R->mem_limit),
                     R->mem_why);
  const double per_gpu = ci_gpu_need(r);
  if (gi.free_mem > 0 && per_gpu > (double)gi.free_mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%.4g determinants need %.1f GiB %s on %s GPU for %d roots with the smallest subspace (%d; before "
                     "the %s); %s has %.1f GiB free",
                     dets, gib(per_gpu), R->host_vectors ? "of whole vectors (Davidson's on the host)" : "of Davidson vectors",
                     r->parts > 0 ? "each" : "the", r->nr, R->subspace, r->direct ? "sigma's workspace" : "Hamiltonian",
                     gi.name, gib((double)gi.free_mem));
  const double host_need = R->need.davidson + R->need.space + (2 + r->nr) * 8.0 * dets; /* + diagonals, roots */
  if (R->host_vectors && R->mem_limit > 0 && host_need > (double)R->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%.4g determinants need %.1f GiB of host memory for Davidson's vectors (the GPUs hold only the "
                     "products' whole vectors) at the smallest subspace (%d), the space, the diagonal and the roots; "
                     "this process may use %.1f GiB (%s)",
                     dets, gib(host_need), R->subspace, gib((double)R->mem_limit), R->mem_why);
  return CIS_OK;
}

/* The solve proper on r (F, o, R set; R's clock running from t0; F's
 * integral values already checked when values_checked): the method chosen
 * (ci_method.h), its fit to the memory, then o->repeat times its setup and
 * Davidson's roots, then the result. */
static cis_status run(ci_run *r, double t0, int values_checked) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  const double t_setup = cis_wtime();
  r->t0 = t0;
  CIS_TRY(ci_ranks_agree(r->F, o)); /* a caller's comm over processes: the first collective, before any refusal */
  CIS_TRY(check_options(r->F, o, values_checked));
  R->why = "";
  r->direct = choose_direct(r->F, o, &R->why);
  r->m = ci_method_choose(r);
  R->parts = r->parts = ci_dist_parts(o);
  CIS_TRY(reference_and_sizes(r));
  if (r->m->sizes) CIS_TRY(r->m->sizes(r));
  if (!o->count_only) CIS_TRY(check_request(r, r->m->energies_only));
  r->cap = R->counts.determinants < 64 ? (int)R->counts.determinants : 64;
  r->nr = first_roots(r);
  ci_fit_subspace(r, 0, 0);
  if (o->count_only) return r->m->sizes ? CIS_OK : count_only(r); /* a method's own sizes: nothing more to count */
  if (o->method == CIS_CI_METHOD_DIRECT && r->F->norb > CIS_CI_DIRECT_MAX_ORB)
    return cis_error(CIS_ERR_UNSUPPORTED,
                     "the direct method (matrix-free full CI) supports NORB <= %d, the file has NORB = %d; "
                     "the stored method runs up to NORB = %d", CIS_CI_DIRECT_MAX_ORB, r->F->norb, CIS_CI_MAX_ORB);
  if (o->method == CIS_CI_METHOD_DIRECT && o->level >= 0)
    return cis_error(CIS_ERR_INVALID, "the direct method is full CI only; truncated CI needs the stored method");
  R->method = r->m->method;
  if (o->spin_penalty > 0 && !r->direct)
    return cis_error(CIS_ERR_UNSUPPORTED, "the spin penalty (fix_spin_) needs the direct method (NORB <= %d, full CI)",
                     CIS_CI_DIRECT_MAX_ORB);
  CIS_TRY(r->m->fit(r));
  if (!r->direct && o->repeat > 1)
    return cis_error(CIS_ERR_INVALID, "repeat needs the direct method (auto chose stored: %s)", R->why);
  ci_phase(R, "setup", t_setup);
  R->repeats = o->repeat;
  for (int rep = 0; rep < o->repeat; ++rep) {
    if (rep) { /* everything after the parse made again: a warm process */
      run_release(r);
      cis_ci_direct_gpu_free(r->keep->G);
      cis_ci_direct_free(r->keep->D);
      r->keep->G = NULL, r->keep->D = NULL, r->keep->key_D[0] = 0;
      r->nr = first_roots(r);
    }
    double t_rep = cis_wtime();
    CIS_TRY(r->m->setup(r));
    CIS_TRY(ci_run_roots(r));
    R->to_solution[rep] = cis_wtime() - t_rep - R->t_timing - R->t_s2;
  }
  return finish(r, t0);
cleanup:
  return st;
}

/* A new result for F (not owned). */
static cis_status result_new(const cis_fcidump *F, cis_ci_result **out) {
  cis_ci_result *R = calloc(1, sizeof *R);
  *out = R;
  if (!R) return cis_error(CIS_ERR_ALLOC, "cannot allocate a CI result");
  R->fcidump = F;
  R->why = "";
  R->repeats = 1;
  for (int f = 0; f < CIS_CI_MAX_FORMATS; ++f) R->format_bytes[f] = R->format_estimate[f] = -1;
  return CIS_OK;
}

/* The solve of F (owned by the result when own_F) through s, the clock from t0. */
static cis_status solve(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, double t0, double t_parse,
                        cis_fcidump *own_F, cis_ci_result **out) {
  cis_status st;
  cis_ci_solver *mine = NULL;
  cis_ci_result *R = NULL;
  ci_run r;
  memset(&r, 0, sizeof r);
  if (out) *out = NULL;
  if (!out) { cis_fcidump_free(own_F); return cis_error(CIS_ERR_INVALID, "cis_ci_solve: NULL result pointer"); }
  if ((st = result_new(F, &R)) != CIS_OK) { cis_fcidump_free(own_F); return st; }
  R->internal = own_F;
  R->t_parse = t_parse;
  if (own_F) R->phases[R->nphases++] = (cis_ci_phase){"parse", t_parse};
  if (!s && (st = cis_ci_solver_create(&mine)) != CIS_OK) goto cleanup;
  r.o = o;
  r.keep = s ? s : mine;
  r.F = F;
  r.R = R;
  st = run(&r, t0, own_F != NULL);
cleanup:
  run_release(&r);
  cis_ci_solver_free(mine);
  if (st != CIS_OK) { cis_ci_result_free(R); return st; }
  *out = R;
  return CIS_OK;
}

/* Calls on one solver from several threads run one at a time (s->lock):
 * its kept space, device workspace and keys are shared by every solve. */
cis_status cis_ci_solver_solve(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, cis_ci_result **out) {
  if (o && o->gpu && cis_gpu_count(NULL, 0) > 0) cis_gpu_sync(); /* the CUDA context before the clock */
  if (s) pthread_mutex_lock(&s->lock);
  cis_status st = solve(s, F, o, cis_wtime(), 0, NULL, out);
  if (s) pthread_mutex_unlock(&s->lock);
  return st;
}

cis_status cis_ci_solve(const cis_fcidump *F, const cis_ci_solve_opts *o, cis_ci_result **out) {
  return cis_ci_solver_solve(NULL, F, o, out);
}

cis_status cis_ci_solve_file(const char *path, const cis_ci_solve_opts *o, cis_ci_result **out) {
  cis_status st;
  cis_fcidump *F = NULL;
  if (out) *out = NULL;
  if (!path || !o) return cis_error(CIS_ERR_INVALID, "cis_ci_solve_file: NULL argument");
  if ((st = ci_solve_opts_check(o)) != CIS_OK) return st; /* before the file is read */
  /* the CUDA context is made before the clock starts (a library user pays it
   * once per process, not per solve) */
  if (o->gpu && cis_gpu_count(NULL, 0) > 0) cis_gpu_sync();
  double t0 = cis_wtime();
  if ((st = cis_fcidump_read(path, &F)) != CIS_OK) return st;
  double t_parse = cis_wtime() - t0;
  /* o->isym 1-based whatever the file's numbering; fcidump_set_isym takes the file's */
  if (o->isym > 0 && (st = fcidump_set_isym(F, o->isym - (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF))) != CIS_OK) {
    cis_fcidump_free(F);
    return st;
  }
  return solve(NULL, F, o, t0, t_parse, F, out);
}

double cis_ci_result_value(const cis_ci_result *r, const char *name) {
  if (!r || !name) return NAN;
  const struct { const char *name; double v; } v[] = {
      {"roots", r->roots}, {"size", (double)r->size}, {"method", r->method}, {"gpu", r->gpu},
      {"converged", r->converged}, {"determinants", (double)r->determinants}, {"nnz", (double)r->nnz},
      {"iterations", r->davidson.iterations}, {"products", (double)r->davidson.products},
      {"op_seconds", r->davidson.op_seconds}, {"davidson_seconds", r->davidson.total_seconds},
      {"max_residual", r->davidson.max_residual}, {"total_seconds", r->t_total}, {"build_seconds", r->t_build},
      {"space_reused", r->space_reused}, {"subspace", r->subspace},
      {"subspace_reduced_from", r->subspace_reduced_from}, {"one_parity", r->one_parity}, {"grid_alpha_n", (double)r->grid_alpha_n},
      {"grid_beta_n", (double)r->grid_beta_n}};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
    if (!strcmp(name, v[k].name)) return v[k].v;
  return NAN;
}

const void *cis_ci_result_array(const cis_ci_result *r, const char *name) {
  if (!r || !name) return NULL;
  if (!strcmp(name, "energies")) return r->energies;
  if (!strcmp(name, "s2")) return r->s2;
  if (!strcmp(name, "vectors")) return r->vectors;
  if (!strcmp(name, "det_alpha")) return r->det_alpha;
  if (!strcmp(name, "det_beta")) return r->det_beta;
  if (!strcmp(name, "grid_alpha")) return r->grid_alpha;
  if (!strcmp(name, "grid_beta")) return r->grid_beta;
  return NULL;
}

void cis_ci_result_free(cis_ci_result *r) {
  if (!r) return;
  free(r->energies);
  free(r->s2);
  free(r->state);
  free(r->vectors);
  free(r->det_alpha);
  free(r->det_beta);
  free(r->grid_alpha);
  free(r->grid_beta);
  cis_fcidump_free(r->internal);
  free(r);
}

cis_status cis_ci_solver_create(cis_ci_solver **out) {
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_ci_solver_create: NULL argument");
  *out = calloc(1, sizeof **out);
  if (!*out) return cis_error(CIS_ERR_ALLOC, "cannot allocate a CI solver");
  if (pthread_mutex_init(&(*out)->lock, NULL)) {
    free(*out);
    *out = NULL;
    return cis_error(CIS_ERR_ALLOC, "cannot initialise a CI solver's lock");
  }
  return CIS_OK;
}

void cis_ci_solver_free(cis_ci_solver *s) {
  if (!s) return;
  cis_ci_direct_gpu_free(s->G);
  cis_ci_direct_free(s->D);
  cis_ci_space_free(s->S);
  free(s->watch);
  free(s->sci_alpha);
  free(s->sci_beta);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* A sorted copy of the n strings of s without repeats (*m of them). */
static cis_status sorted_set(const uint64_t *s, cis_int n, uint64_t **out, cis_int *m) {
  uint64_t *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  if (!c) return cis_error(CIS_ERR_ALLOC, "cannot copy %lld strings", (long long)n);
  memcpy(c, s, (size_t)n * sizeof *c);
  *out = c, *m = sci_sort_unique(c, n);
  return CIS_OK;
}

cis_status cis_ci_solver_set_strings(cis_ci_solver *s, const uint64_t *alpha, cis_int n_alpha, const uint64_t *beta,
                                     cis_int n_beta) {
  cis_status st;
  uint64_t *a = NULL, *b = NULL;
  cis_int na = 0, nb = 0;
  if (!s) return cis_error(CIS_ERR_INVALID, "cis_ci_solver_set_strings: NULL solver");
  if (!alpha != !beta || (!alpha && (n_alpha || n_beta)) || (alpha && (n_alpha < 1 || n_beta < 1)))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solver_set_strings: both sets with at least one string each, or both "
                     "NULL with counts 0 (got %lld and %lld strings)", (long long)n_alpha, (long long)n_beta);
  if (n_alpha > INT32_MAX || n_beta > INT32_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "cis_ci_solver_set_strings: a set above 2^31 - 1 strings");
  if (alpha) {
    CIS_TRY(sorted_set(alpha, n_alpha, &a, &na));
    CIS_TRY(sorted_set(beta, n_beta, &b, &nb));
  }
  pthread_mutex_lock(&s->lock);
  free(s->sci_alpha);
  free(s->sci_beta);
  s->sci_alpha = a, s->sci_beta = b, s->sci_na = na, s->sci_nb = nb;
  pthread_mutex_unlock(&s->lock);
  return CIS_OK;
cleanup:
  free(a);
  free(b);
  return st;
}

static cis_status solver_dets(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, uint64_t *alpha,
                              uint64_t *beta, cis_int *n);

cis_status cis_ci_solver_dets(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, uint64_t *alpha,
                              uint64_t *beta, cis_int *n) {
  if (!s || !F || !o || !n) return cis_error(CIS_ERR_INVALID, "cis_ci_solver_dets: NULL argument");
  pthread_mutex_lock(&s->lock);
  cis_status st = solver_dets(s, F, o, alpha, beta, n);
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* cis_ci_solver_dets under s->lock. */
static cis_status solver_dets(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, uint64_t *alpha,
                              uint64_t *beta, cis_int *n) {
  cis_status st;
  CIS_TRY(check_options(F, o, 0));
  if (s->sci_alpha) { /* selected CI: the product of the sorted sets */
    *n = s->sci_na * s->sci_nb;
    for (cis_int i = 0; alpha && beta && i < *n; ++i) alpha[i] = s->sci_alpha[i / s->sci_nb], beta[i] = s->sci_beta[i % s->sci_nb];
    return CIS_OK;
  }
  cis_ci_result R;
  ci_run r;
  memset(&r, 0, sizeof r);
  memset(&R, 0, sizeof R);
  r.o = o, r.keep = s, r.F = F, r.R = &R;
  CIS_TRY(reference_and_sizes(&r));
  if (R.counts.determinants > (double)INT32_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "%.4g determinants exceed the 32-bit index range", R.counts.determinants);
  const char *why;
  r.direct = choose_direct(F, o, &why);
  if ((o->gpus != 0 || o->cpu_parts > 0) && !r.direct)
    return cis_error(CIS_ERR_UNSUPPORTED, "warm-start guesses are not taken by the distributed stored path");
  r.parts = ci_dist_parts(o);
  R.gpu = (o->gpu || o->gpus != 0) && !(r.direct && o->spin_penalty > 0); /* as run() decides */
  if (r.direct) {
    r.nr = o->roots;
    CIS_TRY(ci_run_direct_space(&r));
    *n = cis_ci_direct_size(r.D);
    if (alpha && beta)
      for (cis_int i = 0; i < *n; ++i) cis_ci_direct_det(r.D, i, &alpha[i], &beta[i]);
    return CIS_OK;
  }
  int reused;
  CIS_TRY(ci_stored_space(s, F, o, &R.ref_alpha, &R.ref_beta, &reused));
  *n = ci_space_size(s->S);
  if (alpha && beta) {
    if (F->norb > 64) return cis_error(CIS_ERR_UNSUPPORTED, "determinants of more than 64 orbitals in one word");
    CIS_TRY(ci_space_dets(s->S, alpha, beta));
  }
  return CIS_OK;
cleanup:
  return st;
}
