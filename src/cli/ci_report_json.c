/* ci_report_json.c: `cisparse ci --json`: the result as one JSON object,
 * one printer for one process (stored, direct, --count) and for the run
 * over parts; energies in hartree ("units" names them), null for values
 * that do not apply (cli_json.c writes every value). */
#include <math.h>
#include <string.h>
#include "cli/ci_cmd.h"

/* The units of the JSON figures (energies in hartree, as in the text's Eh). */
#define CI_JSON_UNITS "\"units\": {\"energies\": \"hartree\", \"times\": \"s\", \"memory\": \"bytes\"}"

/* "isym_name": the D2h name of the target irrep (cis_fcidump_irrep_name; "isym"
 * is 1-based as FCIDUMP's ISYM) or null, then ", ". */
static void json_isym_name(FILE *f, const cis_fcidump *F) {
  const char *name = cis_fcidump_irrep_name(F, F->isym);
  fprintf(f, "\"isym_name\": ");
  if (name) cli_json_string(f, name);
  else fprintf(f, "null");
  fprintf(f, ", ");
}

/* Root k of the report (state q of the run) as a JSON object: "correlation"
 * against the reference; "excitation" E_k - E_0 (Eh, and "excitation_ev"),
 * null for root 0. */
static void print_json_root(FILE *f, const cis_ci_result *R, int k) {
  const double e = R->energies[k], de = e - R->energies[0];
  fprintf(f, "%s{\"energy\": %.12f, \"correlation\": %.12f, ", k ? ", " : "", e, e - R->e_reference);
  cli_json_num(f, "excitation", k > 0 ? de : NAN, "%.12f", NULL);
  fprintf(f, ", ");
  cli_json_num(f, "excitation_ev", k > 0 ? de * CI_EV_PER_EH : NAN, "%.8f", NULL);
  if (isnan(R->s2[k])) /* --no-s2 */
    fprintf(f, ", \"s2\": null, \"spin\": null, \"multiplicity\": null");
  else
    fprintf(f, ", \"s2\": %.8f, \"spin\": %.4f, \"multiplicity\": %d", R->s2[k], cis_ci_spin_from_s2(R->s2[k]),
            ci_multiplicity(R->s2[k]));
  fprintf(f, ", \"state\": %d}", R->state[k]);
}

/* The file's symmetry and the P-space, as both JSON reports write them. */
static void print_json_symmetry(FILE *f, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  fprintf(f, "\"orbsym_numbering\": \"%s\", \"isym\": %d, \"isym_assumed\": %s, \"pspace\": %d, ",
          F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF ? "pyscf" : F->sym_numbering == CIS_FCIDUMP_SYM_MOLPRO ? "molpro" : "none",
          F->isym, F->isym_assumed ? "true" : "false", R->pspace_used);
  json_isym_name(f, F);
}

static void print_json_direct(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  const cis_ci_direct_info *d = &R->direct;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", " CI_JSON_UNITS ", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": null, \"method\": \"direct\", \"determinants\": %lld, \"vector_length\": %lld, "
         "\"alpha_strings\": %lld, \"beta_strings\": %lld, \"npair\": %lld, \"block\": %lld, \"symmetry\": \"%s\", \"gemm\": ",
         F->norb, F->nelec, F->ms2, (long long)d->symmetry_determinants, (long long)d->determinants,
         (long long)d->alpha_strings,
         (long long)d->beta_strings, (long long)d->npair, (long long)d->block,
         !d->projected ? "c1" : d->blocked && !R->gpu ? "blocked" : "projected");
  cli_json_string(f, d->gemm);
  fprintf(f, ", \"blas\": ");
  cli_json_string(f, cis_blas_info());
  fprintf(f, ", \"device\": \"%s\", \"setup_seconds\": %.6f, \"iterations\": %d, \"products\": %lld, "
         "\"sigma_seconds\": %.9f, \"half_sigmas\": %lld, \"solve_seconds\": %.6f, \"total_seconds\": %.6f, "
         "\"parse_seconds\": %.6f, \"to_solution_seconds\": %.6f, \"s2_seconds\": %.6f, \"guess_seconds\": %.6f, "
         "\"e_rhf\": %.12f, \"ecore\": %.12f, \"memory\": {\"links\": %lld, \"workspace\": %lld, \"vectors\": %lld}, "
         "\"subspace\": %d, ",
         R->gpu ? "gpu" : "cpu", R->t_build, R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, (long long)R->half_sigmas,
         R->davidson.total_seconds, R->t_total, R->t_parse, R->to_solution[a->o.repeat - 1], R->t_s2, R->t_guess, R->e_reference,
         F->ecore, (long long)d->link_bytes, (long long)d->work_bytes, (long long)d->vector_bytes, R->subspace);
  print_json_symmetry(f, R);
  if (R->subspace_reduced_from > 0) fprintf(f, "\"subspace_lowered_from\": %d, ", R->subspace_reduced_from);
  else fprintf(f, "\"subspace_lowered_from\": null, ");
  fprintf(f, "\"one_parity\": %s, ", R->one_parity ? "true" : "false");
  cli_json_num(f, "sigma_ms", a->o.time_sigma ? R->sigma_ms : NAN, "%.6f", NULL); /* null: not timed (no --time-sigma) */
  fprintf(f, ", ");
  fprintf(f, "\"to_solution_runs\": [");
  for (int k = 0; k < a->o.repeat; ++k) fprintf(f, "%s%.6f", k ? ", " : "", R->to_solution[k]);
  fprintf(f, "], ");
  if (R->gpu) {
    const cis_ci_direct_gpu_info *g = &R->direct_gpu;
    fprintf(f, "\"gpu\": {\"name\": ");
    cli_json_string(f, g->device);
    fprintf(f, ", ");
    cli_json_num(f, "sigma_ms", a->o.time_sigma ? R->sigma_ms : NAN, "%.6f", NULL); /* null: not timed */
    fprintf(f, ", ");
    cli_json_num(f, "sigma_half_ms", R->sigma_half_ms > 0 ? R->sigma_half_ms : NAN, "%.6f", NULL); /* null: not timed, or no half sigma here */
    fprintf(f, ", \"link_bytes\": %lld, \"work_bytes\": %lld, \"free_bytes\": %lld, \"block\": %lld, \"passes\": %lld, "
           "\"sigma_kernel\": ",
           (long long)g->link_bytes, (long long)g->work_bytes, (long long)g->free_bytes, (long long)g->block,
           (long long)g->passes);
    cli_json_string(f, g->sigma_kernel);
    fprintf(f, ", \"split_ms\": {\"sigma\": [%.6f, %.6f, %.6f], \"half\": [%.6f, %.6f, %.6f]}}, ", g->split_ms[0][0],
           g->split_ms[0][1], g->split_ms[0][2], g->split_ms[1][0], g->split_ms[1][1], g->split_ms[1][2]);
  }
  fprintf(f, "\"roots\": [");
  for (int k = 0; k < a->o.roots; ++k)
    print_json_root(f, R, k);
  fprintf(f, "]}\n");
}

/* Selected CI (--strings): the sets' sizes, Davidson, the roots. */
static void print_json_selected(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", \"strings\": ");
  cli_json_string(f, a->strings);
  fprintf(f, ", " CI_JSON_UNITS ", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"method\": \"selected\", "
          "\"device\": \"cpu\", \"determinants\": %lld, \"alpha_strings\": %lld, \"beta_strings\": %lld, "
          "\"setup_seconds\": %.6f, \"iterations\": %d, \"products\": %lld, \"sigma_seconds\": %.9f, "
          "\"solve_seconds\": %.6f, \"to_solution_seconds\": %.6f, \"s2_seconds\": %.6f, \"total_seconds\": %.6f, "
          "\"e_rhf\": %.12f, \"ecore\": %.12f, \"subspace\": %d, \"max_residual\": %.3e, \"roots\": [",
          F->norb, F->nelec, F->ms2, (long long)R->determinants, (long long)R->alpha_strings,
          (long long)R->beta_strings, R->t_build, R->davidson.iterations, (long long)R->davidson.products,
          R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, R->davidson.total_seconds,
          R->to_solution[0], R->t_s2, R->t_total, R->e_reference, F->ecore, R->subspace, R->davidson.max_residual);
  for (int k = 0; k < a->o.roots; ++k) print_json_root(f, R, k);
  fprintf(f, "]}\n");
}

static void print_json(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  if (R->method == CIS_CI_METHOD_SELECTED) { print_json_selected(f, a, R); return; }
  if (R->method == CIS_CI_METHOD_DIRECT) { print_json_direct(f, a, R); return; }
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", " CI_JSON_UNITS ", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, ", F->norb, F->nelec, F->ms2);
  cli_json_num(f, "level", a->o.level >= 0 ? (double)(a->o.level) : NAN, "%.0f", NULL);
  fprintf(f, ", \"method\": \"stored\", \"determinants\": %lld, "
         "\"nnz\": %lld, \"symmetric\": %s, \"format\": \"%s\", \"values\": \"%s\", \"device\": \"%s\", \"build\": \"%s\", \"build_seconds\": %.6f, "
         "\"iterations\": %d, \"products\": %lld, \"spmv_seconds\": %.9f, \"solve_seconds\": %.6f, "
         "\"total_seconds\": %.6f, \"e_rhf\": %.12f, \"ecore\": %.12f, \"reference\": \"%s\", "
         "\"roots_computed\": %d, \"subspace\": %d, ",
         (long long)R->determinants, (long long)R->nnz,
         a->o.symmetric ? "true" : "false", R->format,
         a->o.float_values ? "float" : "double", a->o.gpu ? "gpu" : "cpu", R->build_gpu ? "gpu" : "cpu", R->t_build, R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, R->davidson.total_seconds, R->t_total, R->e_reference,
         F->ecore, R->no_reference ? "lowest determinant" : a->o.occ ? "occ" : "aufbau", R->computed, R->subspace);
  print_json_symmetry(f, R);
  cli_json_num(f, "spin_filter", a->o.spin >= 0 ? a->o.spin : NAN, "%g", NULL); /* --spin S, null: every state */
  fprintf(f, ", ");
  if (a->o.gpu)
    fprintf(f, "\"gpu\": {\"kernel\": \"%s\", \"device_bytes\": %lld, \"upload_seconds\": %.6f}, ", R->gpu_stats.kernel,
           (long long)R->gpu_stats.device_bytes, R->gpu_stats.upload_seconds);
  fprintf(f, "\"memory\": {\"%s\": %lld", R->build_gpu || R->symmetric_plan ? "device_csr" : "host_csr",
         (long long)R->matrix_bytes);
  for (int g = 0; !R->build_gpu && g < cis_format_count() && g < CIS_CI_MAX_FORMATS; ++g)
    if (R->format_bytes[g] >= 0) fprintf(f, ", \"%s\": %lld", cis_format_name(g), (long long)R->format_bytes[g]);
  fprintf(f, "}, \"roots\": [");
  for (int k = 0; k < a->o.roots; ++k) print_json_root(f, R, k);
  fprintf(f, "]}\n");
}

/* --count as one JSON object on f (the figures of print_count's text). */
static void print_count_json(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_ci_counts *c = &R->counts;
  ci_count s;
  ci_count_sizes(a, R, &s);
  const double n = s.n, nnz = s.nnz, csr = s.csr, ell = s.ell;
  const cis_ci_memory_need m = s.m;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", " CI_JSON_UNITS ", \"determinants\": %.0f, \"alpha_strings\": %.0f, \"beta_strings\": %.0f, ", n,
         c->alpha_strings, c->beta_strings);
  cli_json_num(f, "level", a->o.level >= 0 ? (double)(a->o.level) : NAN, "%.0f", NULL);
  fprintf(f, ", \"isym\": %d, \"orbsym_numbering\": \"%s\", ", R->fcidump->isym,
          cis_fcidump_numbering_name(R->fcidump->sym_numbering));
  json_isym_name(f, R->fcidump);
  fprintf(f, "\"by_irrep\": [");
  for (int g = 0; g < 8; ++g) fprintf(f, "%s%.0f", g ? ", " : "", c->per_irrep[g]);
  fprintf(f, "], \"by_level\": [");
  for (int l = 0; l <= c->level; ++l) fprintf(f, "%s%.0f", l ? ", " : "", c->per_level[l]);
  fprintf(f, "], \"nnz\": %.0f, \"nnz_exact\": %s, \"nnz_estimated\": %s, \"max_row\": %.0f, \"symmetric\": %s, ",
         nnz, R->nnz_counted ? "true" : "false", !R->nnz_counted && R->nnz_estimate > 0 ? "true" : "false",
         R->nnz_counted ? (double)R->count_max_row : c->row_bound, a->o.symmetric ? "true" : "false");
  cli_json_num(f, "count_seconds", R->nnz_counted ? R->t_build : NAN, "%.6f", NULL); /* null: not counted */
  fprintf(f, ", \"memory\": {\"csr\": %.0f, \"ell\": %.0f, \"space\": %.0f, \"vectors\": %.0f, \"stored\": %.0f, "
         "\"direct\": %.0f, ", csr, ell, m.space, m.vectors, m.stored, m.direct);
  cli_json_num(f, "limit", R->mem_limit > 0 ? (double)R->mem_limit : NAN, "%.0f", NULL); /* null: unknown */
  fprintf(f, ", \"limit_from\": \"%s\", \"davidson\": %.0f, \"subspace\": %d}}\n", R->mem_why, m.davidson, m.subspace);
}

/* The distributed run's result as one JSON object. */
static void print_parts_json(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const char *file = a->file;
  const cis_ci_solve_opts *o = &a->o;
  const cis_davidson_info *d = &R->davidson;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, file);
  fprintf(f, ", \"units\": {\"energies\": \"hartree\", \"times\": \"s\", \"memory\": \"bytes\"}, \"method\": \"%s\", "
         "\"determinants\": %lld, \"parts\": %d, \"comm\": \"%s\", \"operator\": \"%s\", "
         "\"exchange_bytes_per_product\": %.0f, \"energies\": [",
         R->method == CIS_CI_METHOD_DIRECT ? "direct" : "stored", (long long)R->determinants, R->parts,
         R->parts_comm, R->parts_op, R->exchange_bytes);
  for (int r = 0; r < R->roots; ++r) fprintf(f, "%s%.12f", r ? ", " : "", R->energies[r]);
  fprintf(f, "], \"davidson\": {\"iterations\": %d, \"products\": %lld, \"seconds\": %.6f, \"product_seconds\": %.6f, "
         "\"ms_per_product\": %.6f}, \"exchange_share\": %.6f, \"setup_seconds\": %.6f",
         d->iterations, (long long)d->products, d->total_seconds, d->op_seconds,
         d->products ? d->op_seconds / (double)d->products * 1e3 : 0,
         R->product_seconds > 0 ? R->exchange_seconds / R->product_seconds : 0, R->t_build);
  fprintf(f, ", \"guess_seconds\": %.6f, \"parse_seconds\": %.6f, \"to_solution_seconds\": %.6f", R->t_guess, R->t_parse,
         R->to_solution[0]);
  fprintf(f, ", ");
  cli_json_num(f, "sigma_ms", o->time_sigma ? R->sigma_ms : NAN, "%.6f", NULL); /* null: not timed (no --time-sigma) */
  if (R->method == CIS_CI_METHOD_DIRECT)
    fprintf(f, ", \"subspace\": %d, \"host_vectors\": %s, \"half_sigmas\": %lld}\n", R->subspace,
           R->host_vectors ? "true" : "false", (long long)R->half_sigmas);
  else
    fprintf(f, ", \"nnz\": %lld, \"split_seconds\": %.6f, \"store_seconds\": %.6f}\n", (long long)R->nnz, R->split_seconds,
           R->store_seconds);
}


void ci_report_json(FILE *f, const ci_args *a, const cis_ci_result *R) {
  if (a->parts) print_parts_json(f, a, R);
  else if (a->o.count_only) print_count_json(f, a, R);
  else print_json(f, a, R);
}
