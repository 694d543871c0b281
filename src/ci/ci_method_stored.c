/* ci_method_stored.c: the driver's stored method (ci_method.h): the
 * determinant list, the Slater-Condon Hamiltonian built on the host or the
 * GPU and stored in the format chosen for it (the papers' formats: hybrid
 * ELLPACK+CSR, SELL; cisparse/format.h), its diagonal, and Davidson's
 * operator over it: the format's host SpMV, the upper triangle's symmetric
 * product, or a GPU plan (uploaded here, or the one built on the GPU). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"
#include "cisparse/operator.h"
#include "core/internal.h"
#include "gpu/gpu_plan_internal.h"

static double gib(double bytes) { return bytes / 1073741824.0; }

/* Rows to sample for the nonzero estimate: 4096, fewer when rows are long
 * (about 3e7 connections looked at in all: a fraction of a second). */
cis_int ci_sample_rows(const cis_ci_counts *c) {
  double s = 3e7 / (c->row_bound > 1 ? c->row_bound : 1);
  return s > 4096 ? 4096 : s < 256 ? 256 : (cis_int)s;
}

/* The formats' bytes for the report: the format that runs (built); csr,
 * ell and ellr, where not built, by the exact layout formulas of
 * format_types.h (format_estimate); with o->verbose every other format
 * small enough to build here (at most 1/32 of the memory or 1 GiB:
 * building the others would cost more than the CI run) built once for its
 * bytes. -1 = neither. */
static void format_memory(ci_run *r) {
  cis_ci_result *R = r->R;
  int64_t limit = cis_phys_memory() / 32;
  cis_int maxrow = csr_max_row(r->H, NULL), rows = r->H->rows, nnz = r->H->nnz;
  if (limit < ((int64_t)1 << 30)) limit = (int64_t)1 << 30;
  for (int f = 0; f < CIS_CI_MAX_FORMATS; ++f) R->format_bytes[f] = R->format_estimate[f] = -1;
  for (int f = 0; f < cis_format_count() && f < CIS_CI_MAX_FORMATS; ++f) {
    const char *name = cis_format_name(f);
    int ell = !strcmp(name, "ell") || !strcmp(name, "ellr");
    double est = ell ? (double)rows * (double)maxrow * 12 + (name[3] ? 4.0 * rows : 0) : (double)nnz * 12 + (double)rows * 24;
    if (r->M && !strcmp(name, cis_matrix_format_name(r->M))) { R->format_bytes[f] = cis_matrix_bytes(r->M); continue; }
    if (r->o->symmetric) continue;
    if (!r->o->verbose || est > (double)limit) {
      if (ell) R->format_estimate[f] = (cis_int)est;
      if (!strcmp(name, "csr")) R->format_estimate[f] = nnz * 12 + (rows + 1) * (nnz >= ((int64_t)1 << 32) ? 8 : 4);
      continue;
    }
    cis_matrix *M = NULL;
    if (cis_matrix_create(r->H, name, NULL, &M) == CIS_OK) R->format_bytes[f] = cis_matrix_bytes(M);
    cis_matrix_free(M);
  }
}

/* The GPU kernel of symmetric storage: o->kernel, else sym-seg (on the H2O
 * 6-31G FCI Hamiltonian 2x faster than csr-sym, bench/results/sym-seg.md). */
static const char *sym_kernel(const cis_ci_solve_opts *o) { return o->kernel ? o->kernel : "sym-seg"; }

/* The build's time check (after the memory check, which passes a matrix of
 * few nonzeros): the build visits every connection of every row, n x the
 * closed-form row bound, whatever the integrals hold, and keeps those of
 * nonzero value. A full-CI Hamiltonian of real integrals keeps a fair share
 * (H2O 6-31G 29%, N2 STO-3G in D2h 15% counting both triangles); a file of
 * (almost) all-zero integrals keeps almost none and builds for minutes to
 * hours for nothing (16 orbitals, 8 electrons: 1.1e10 visits; 18 and 10:
 * 4.4e11). Refused at once when the visits pass CI_BUILD_VISITS_FLOOR (the
 * CPU visits 1e8 to 1e9 a second; the GPU build 100x the floor) and exceed
 * CI_BUILD_VISITS_RATIO x the sampled nonzeros. Truncated CI is not checked:
 * there most connections leave the space (CISD of H2O 6-31G keeps 4%). */
#define CI_BUILD_VISITS_FLOOR 1e9
#define CI_BUILD_VISITS_RATIO 64.0
static cis_status check_build_work(const ci_run *r, cis_int n, int build_gpu) {
  const cis_ci_result *R = r->R;
  double visits = (double)n * R->counts.row_bound, kept = (r->o->symmetric ? 2 : 1) * R->nnz_estimate + (double)n;
  double least = CI_BUILD_VISITS_FLOOR * (build_gpu ? 100 : 1);
  if (r->o->level >= 0 || visits <= least || visits <= CI_BUILD_VISITS_RATIO * kept) return CIS_OK;
  return cis_error(CIS_ERR_TOO_LARGE,
                   "the stored Hamiltonian's build would visit %.3g connections (%lld determinants x %.0f) to keep "
                   "about %.3g nonzeros (from %lld sampled rows): the integrals are (almost) all zero; use the direct "
                   "method, which builds nothing",
                   visits, (long long)n, R->counts.row_bound, R->nnz_estimate, (long long)R->nnz_sampled);
}

/* --save: H + ecore I written to path (H's copy; a row whose diagonal was
 * exactly 0, so not stored, gets one), so that the saved matrix's
 * eigenvalues are the total energies the report prints. */
static cis_status save_total(const char *path, const cis_csr *H, double ecore) {
  cis_status st;
  cis_csr *T = NULL;
  cis_int add = 0, k = 0;
  for (cis_int i = 0; i < H->rows; ++i) {
    int has = 0;
    for (cis_int p = H->rowptr[i]; p < H->rowptr[i + 1]; ++p) has |= H->colind[p] == i;
    add += !has;
  }
  CIS_TRY(cis_csr_alloc(H->rows, H->cols, H->nnz + add, CIS_F64, &T));
  T->flags = H->flags;
  const double *hv = H->val;
  double *tv = T->val;
  for (cis_int i = 0; i < H->rows; ++i) { /* columns sorted: the diagonal where it belongs */
    int done = 0;
    for (cis_int p = H->rowptr[i]; p <= H->rowptr[i + 1]; ++p) {
      const int past = p == H->rowptr[i + 1] || H->colind[p] > i;
      if (!done && past) { /* no stored diagonal */
        T->colind[k] = (cis_idx)i, tv[k++] = ecore;
        done = 1;
      }
      if (p == H->rowptr[i + 1]) break;
      T->colind[k] = H->colind[p], tv[k++] = hv[p] + (H->colind[p] == i ? ecore : 0.0);
      done |= H->colind[p] == i;
    }
    T->rowptr[i + 1] = k;
  }
  st = cis_save(path, T);
cleanup:
  cis_csr_free(T);
  return st;
}

/* The determinant list (kept by r->keep), H built on the CPU or the GPU
 * (build_gpu) in the chosen format, its diagonal. */
static cis_status stored_build(ci_run *r, int build_gpu) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  double t = cis_wtime();
  CIS_TRY(ci_stored_space(r->keep, r->F, o, &R->ref_alpha, &R->ref_beta, &R->space_reused));
  t = ci_phase(R, "space", t);
  r->S = r->keep->S;
  cis_int n = ci_space_size(r->S);
  R->size = R->determinants = n;
  R->alpha_strings = ci_space_nalpha_strings(r->S);
  R->beta_strings = ci_space_nbeta_strings(r->S);
  if (o->roots > n) return cis_error(CIS_ERR_INVALID, "%d roots asked; the space has %lld determinants", o->roots, (long long)n);
  /* the stored matrix from sampled rows: refuse now rather than after a
   * counting pass over every row (90% of the estimate, as it is one) */
  CIS_TRY(ci_hamiltonian_nnz_estimate(r->F, r->S, o->symmetric, ci_sample_rows(&R->counts), &R->nnz_estimate,
                                          &R->nnz_sampled));
  if (!build_gpu && R->nnz_sampled > 0) /* two passes over every row as over the sampled ones, on the threads */
    R->build_estimate = 2 * (cis_wtime() - t) * (double)n / (double)R->nnz_sampled / omp_get_max_threads();
  double mat = 0.9 * R->nnz_estimate * 12 + 8.0 * (double)(n + 1);
  cis_gpu_info gi;
  if (!build_gpu && R->mem_limit > 0 && R->need.direct + mat > (double)R->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "the stored Hamiltonian of %lld determinants, about %.4g nonzeros (from %lld sampled rows), needs "
                     "%.1f GiB with the space and vectors; this process may use %.1f GiB (%s)",
                     (long long)n, R->nnz_estimate, (long long)R->nnz_sampled, gib(R->need.direct + mat),
                     gib((double)R->mem_limit), R->mem_why);
  CIS_TRY(check_build_work(r, n, build_gpu));
  if (build_gpu && cis_gpu_get_info(&gi) == CIS_OK && gi.free_mem > 0 && mat + R->need.vectors > (double)gi.free_mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "the Hamiltonian of %lld determinants, about %.4g nonzeros (from %lld sampled rows), and the "
                     "Davidson vectors need %.1f GiB on the GPU; %s has %.1f GiB free",
                     (long long)n, R->nnz_estimate, (long long)R->nnz_sampled, gib(mat + R->need.vectors), gi.name,
                     gib((double)gi.free_mem));
  t = ci_phase(R, "estimate", t);
  ci_report_header(r); /* the build and Davidson next */
  double tb = cis_wtime();
  if (build_gpu) {
    if (o->symmetric) CIS_TRY(ci_hamiltonian_gpu_upper(r->F, r->S, sym_kernel(o), &r->plan, &R->nnz));
    else CIS_TRY(ci_hamiltonian_gpu(r->F, r->S, &r->plan, &R->nnz));
    R->t_build = cis_wtime() - tb;
    t = ci_phase(R, "build (GPU)", tb);
  } else {
    ci_build_watch w = ci_build_progress(r);
    CIS_TRY(ci_hamiltonian_build(r->F, r->S, o->symmetric, &w, &r->H));
    R->t_build = cis_wtime() - tb;
    ci_phase(R, "build: rows", tb + w.sort_seconds);
    t = ci_phase(R, "build: sort", cis_wtime() - w.sort_seconds);
    R->nnz = r->H->nnz;
    if (o->save) {
      CIS_TRY(save_total(o->save, r->H, r->F->ecore));
      t = ci_phase(R, "build: save", t);
    }
    /* symmetric storage on the GPU from the host-built upper triangle */
    if (o->gpu && o->symmetric) CIS_TRY(cis_gpu_plan_create_symmetric(r->H, sym_kernel(o), 0, &r->plan));
  }
  if (r->H && !o->symmetric) {
    cis_format_params p = cis_format_params_default(); /* hyb: BOUNDARY < 0 = chosen from the matrix */
    const char *format = o->format ? o->format : "auto", *kernel = o->kernel;
    p.float_values = o->float_values;
    if (!strcmp(format, "auto") && p.float_values) { /* the one format with float values under double vectors */
      snprintf(R->format_reason, sizeof R->format_reason, "float values: sell16 (the one format storing them)");
      format = "sell16";
    } else if (!strcmp(format, "auto")) {
      cis_format_choice ch;
      CIS_TRY(o->gpu ? cis_format_auto(r->H, p.dtype, &ch) : cis_format_auto_cpu(r->H, p.dtype, &ch));
      snprintf(R->format_reason, sizeof R->format_reason, "%s", ch.reason);
      const cis_dtype t = p.dtype;
      format = ch.format;
      p = ch.params;
      p.dtype = t;
      if (!kernel) kernel = ch.kernel;
    }
    if (kernel) snprintf(R->kernel, sizeof R->kernel, "%s", kernel);
    CIS_TRY(cis_matrix_create(r->H, format, &p, &r->M));
    snprintf(R->format, sizeof R->format, "%s", cis_matrix_format_name(r->M));
    cis_hyb_split h;
    if (!strcmp(R->format, "hyb")) {
      CIS_TRY(cis_matrix_hyb_split(r->M, &h));
      R->boundary = h.boundary;
    }
  } else {
    snprintf(R->format, sizeof R->format, "%s", o->symmetric ? "csr-upper" : "csr");
  }
  t = ci_phase(R, "build: format", t);
  if (r->H) format_memory(r);
  t = ci_phase(R, o->verbose ? "formats compared" : "build: format", t);
  R->matrix_bytes = r->plan ? cis_gpu_plan_bytes(r->plan) : cis_csr_bytes(r->H);
  R->symmetric_plan = r->plan && gpu_plan_is_symmetric(r->plan);
  if (r->plan && R->symmetric_plan) snprintf(R->kernel, sizeof R->kernel, "%s", cis_gpu_plan_kernel(r->plan));
  r->diag = malloc((size_t)n * sizeof(double));
  if (!r->diag) return cis_error(CIS_ERR_ALLOC, "cannot allocate the Hamiltonian diagonal (%lld doubles)", (long long)n);
  CIS_TRY(ci_diagonal_all(r->F, r->S, r->diag));
  if (R->no_reference) { /* E_corr relative to the lowest determinant */
    double lo = r->diag[0];
    for (cis_int i = 1; i < n; ++i) if (r->diag[i] < lo) lo = r->diag[i];
    R->e_reference = lo + r->F->ecore;
  }
  ci_phase(R, "diagonal", t);
  return CIS_OK;
cleanup:
  return st;
}

/* y = alpha H x + beta y with H's upper triangle (its symmetric product; beta 0, as Davidson asks). */
static cis_status upper_apply(void *c, double alpha, const void *x, double beta, void *y, cis_stream s) {
  const cis_csr *U = c;
  (void)s;
  if (beta != 0) return cis_error(CIS_ERR_UNSUPPORTED, "the upper triangle's product gives H x only (beta = %g)", beta);
  cis_status st = csr_symv_upper(U, x, y);
  double *yv = y;
  for (cis_int i = 0; st == CIS_OK && alpha != 1 && i < U->rows; ++i) yv[i] *= alpha;
  return st;
}

/* Davidson's operator over the stored H: on the GPU its plan (uploaded now
 * from the format when built on the host; the upload timed for the GPU
 * statistics), on the host the format's SpMV or the upper triangle's
 * symmetric product. */
static cis_status stored_operator(ci_run *r) {
  cis_status st;
  cis_ci_result *R = r->R;
  const cis_int n = ci_space_size(r->S);
  double t0 = cis_wtime();
  if (r->o->gpu && !r->plan) {
    if (cis_matrix_dtype(r->M) != CIS_F64) return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a double matrix");
    CIS_TRY(cis_gpu_plan_create(r->M, R->kernel[0] ? R->kernel : NULL, 0, &r->plan));
  }
  if (r->plan) {
    CIS_TRY(cis_operator_from_gpu_plan(r->plan, &r->sop));
    R->gpu_stats.upload_seconds = cis_wtime() - t0;
  } else if (r->o->symmetric) {
    CIS_TRY(cis_operator_from_callback(n, n, CIS_F64, CIS_MEM_HOST, upper_apply, r->H, NULL, &r->sop));
  } else {
    CIS_TRY(cis_operator_from_matrix(r->M, &r->sop));
  }
  r->dv.op = r->sop;
  r->dv.diag = r->diag;
  r->dv.n = r->dv.len = n;
  r->dv.compact = 0;
  st = CIS_OK;
cleanup:
  return st;
}

static cis_status stored_setup(ci_run *r) {
  cis_status st;
  r->R->build_gpu = r->o->build < 0 ? r->R->gpu : r->o->build;
  CIS_TRY(stored_build(r, r->R->build_gpu));
  CIS_TRY(stored_operator(r));
cleanup:
  return st;
}

/* The stored Hamiltonian on the host keeps Davidson's vectors in one parity
 * (ci_space_mirror_correct); on a device there is no hook, and round-off
 * grows into a lower parity. */
static int stored_keeps_parity(const ci_run *r) { return !r->o->gpu && !r->plan; }

static void stored_correct(ci_run *r, cis_davidson_opts *d, int keep) {
  if (!r->mirror || !stored_keeps_parity(r)) return;
  r->mirror_ctx = (ci_space_mirror_ctx){r->mirror, r->dv.n, keep};
  d->correct = ci_space_mirror_correct;
  d->correct_ctx = &r->mirror_ctx;
}

static cis_status stored_s2(void *ctx, const double *x, double *s2) {
  const ci_run *r = ctx;
  return ci_s2(r->F, r->S, x, s2);
}

/* The GPU statistics (each product synchronized) and the determinants of
 * the vectors' entries. */
static cis_status stored_report(ci_run *r) {
  cis_ci_result *R = r->R;
  const cis_int n = r->dv.n;
  if (r->plan) {
    R->gpu_stats.spmv_seconds = R->davidson.op_seconds;
    R->gpu_stats.device_bytes = cis_gpu_plan_bytes(r->plan) + cis_gpu_plan_workspace_bytes(r->plan);
    snprintf(R->gpu_stats.kernel, sizeof R->gpu_stats.kernel, "%s", cis_gpu_plan_kernel(r->plan));
  }
  if (!r->o->keep_vectors) return CIS_OK;
  R->det_alpha = malloc((size_t)n * sizeof(uint64_t));
  R->det_beta = malloc((size_t)n * sizeof(uint64_t));
  if (!R->det_alpha || !R->det_beta) return cis_error(CIS_ERR_ALLOC, "cannot allocate the result's determinants");
  if (r->F->norb > 64) return cis_error(CIS_ERR_UNSUPPORTED, "determinants of more than 64 orbitals in one word");
  return ci_space_dets(r->S, R->det_alpha, R->det_beta);
}

static void stored_release(ci_run *r) {
  ci_method_release_common(r); /* the operator over the matrix first */
  cis_matrix_free(r->M);
  cis_gpu_plan_free(r->plan);
  cis_csr_free(r->H);
  r->M = NULL, r->plan = NULL, r->H = NULL;
}

const ci_method ci_method_stored = {.name = "stored", .method = CIS_CI_METHOD_STORED, .fit = ci_fit_memory,
                                    .setup = stored_setup, .correct = stored_correct,
                                    .keeps_parity = stored_keeps_parity, .s2 = stored_s2, .report = stored_report,
                                    .release = stored_release};
