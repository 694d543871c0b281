/* ci_solve_check.c: every field of cis_ci_solve_opts checked on its own
 * (ci_solve_opts_check), before the driver reads any of them; the
 * checks that need the integrals (spin against the electrons, singlet
 * against MS2) stay in ci_solve.c. Messages name the option field, never a
 * command-line flag (the CLI checks its flags before it calls the driver). */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "ci/ci_solve_internal.h"

/* An int field in lo..hi. */
static cis_status range(int v, int lo, int hi, const char *name, const char *what) {
  if (v >= lo && v <= hi) return CIS_OK;
  return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.%s must be %s, got %d", name, what, v);
}

/* "auto", a cis_format_name or a symmetric storage name (csr-sym, sym-seg). */
static int known_format(const char *s) {
  if (!strcmp(s, "auto") || cis_format_is_symmetric(s)) return 1;
  for (int f = 0; f < cis_format_count(); ++f)
    if (!strcmp(s, cis_format_name(f))) return 1;
  return 0;
}

/* The 0/1 fields, by offset. */
#define FLAG(f) {offsetof(cis_ci_solve_opts, f), #f}
static const struct { size_t at; const char *name; } FLAGS[] = {
    FLAG(gpu), FLAG(symmetric), FLAG(float_values), FLAG(no_time_reversal), FLAG(symmetry_projection),
    FLAG(no_s2), FLAG(block_products), FLAG(verbose), FLAG(count_only), FLAG(accept_unconverged),
    FLAG(keep_vectors), FLAG(time_sigma), FLAG(singlet)};
#undef FLAG

static cis_status check_flags(const cis_ci_solve_opts *o) {
  for (size_t k = 0; k < sizeof FLAGS / sizeof FLAGS[0]; ++k) {
    int v;
    memcpy(&v, (const char *)o + FLAGS[k].at, sizeof v);
    if (v != 0 && v != 1)
      return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.%s must be 0 or 1, got %d", FLAGS[k].name, v);
  }
  return CIS_OK;
}

static cis_status check_parts(const cis_ci_solve_opts *o) {
  cis_status st;
  if (o->gpus != CIS_CI_ALL_GPUS) CIS_TRY(range(o->gpus, 0, CIS_CI_MAX_PARTS, "gpus", "0 (one device), 1..4096 or CIS_CI_ALL_GPUS"));
  CIS_TRY(range(o->cpu_parts, 0, o->comm ? CIS_CI_MAX_PARTS : CIS_CI_MAX_CPU_PARTS, "cpu_parts",
                o->comm ? "0..4096 (the communicator's ranks)" : "0 (none) or 1..64"));
  if (o->gpus != 0 && o->cpu_parts > 0)
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.gpus (%d) and cpu_parts (%d) exclude each other", o->gpus,
                     o->cpu_parts);
  CIS_TRY(range(o->host_vectors, -1, 1, "host_vectors", "-1 (never), 0 (when needed) or 1 (always)"));
  if (o->exchange) {
    cis_dist_exchange k;
    if (cis_dist_exchange_parse(o->exchange, &k) != CIS_OK)
      return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.exchange '%.40s' is not allgather, p2p, gather or auto",
                       o->exchange);
  }
cleanup:
  return st;
}

static cis_status check_numbers(const cis_ci_solve_opts *o) {
  cis_status st;
  CIS_TRY(range(o->level, -1, 2 * CIS_CI_MAX_ORB, "level", "-1 (full CI) or 0..256"));
  CIS_TRY(range(o->roots, 1, 64, "roots", "1..64"));
  if (!isfinite(o->spin) || o->spin > 64 || (o->spin >= 0 && fabs(2 * o->spin - floor(2 * o->spin + 0.5)) > 1e-9))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.spin must be < 0 (every state) or 0, 0.5, 1, ..., 64, got %g",
                     o->spin);
  if (o->isym == 0 || o->isym > 8)
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.isym must be < 0 (the file's) or an irrep 1..8 (1-based as "
                     "FCIDUMP's ISYM; a PySCF irrep id k is k + 1), got %d", o->isym);
  if (!(o->tol > 0) || !isfinite(o->tol))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.tol (the residual tolerance) must be finite and > 0, got %g", o->tol);
  if (!(o->etol >= 0) || !isfinite(o->etol))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.etol must be finite and >= 0, got %g", o->etol);
  CIS_TRY(range(o->max_iter, 1, CIS_CI_MAX_ITER, "max_iter", "1..1000000"));
  CIS_TRY(range(o->max_sub, 0, CIS_CI_MAX_SUBSPACE, "max_sub", "0 (the default) or 1..4096"));
  CIS_TRY(range(o->pspace, 0, CIS_CI_MAX_PSPACE, "pspace", "0 (the default) or 1..2000"));
  CIS_TRY(range(o->build, -1, 1, "build", "-1 (the products' device), 0 (CPU) or 1 (GPU)"));
  CIS_TRY(range(o->repeat, 1, CIS_CI_MAX_REPEAT, "repeat", "1..20"));
  if (o->gpu_leave_free < 0)
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.gpu_leave_free must be >= 0, got %lld", (long long)o->gpu_leave_free);
  if (!(o->spin_penalty >= 0) || !isfinite(o->spin_penalty))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.spin_penalty must be finite and >= 0, got %g", o->spin_penalty);
  if (!isfinite(o->spin_penalty_ss))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.spin_penalty_ss must be finite, got %g", o->spin_penalty_ss);
  if (o->nguess < 0 || (o->nguess > 0 && !o->guess))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.nguess = %d needs nguess >= 0 and guess non-NULL when > 0",
                     o->nguess);
cleanup:
  return st;
}

cis_status ci_solve_opts_check(const cis_ci_solve_opts *o) {
  cis_status st;
  if (!o) return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts: NULL options");
  if (o->method != CIS_CI_METHOD_AUTO && o->method != CIS_CI_METHOD_STORED && o->method != CIS_CI_METHOD_DIRECT)
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.method must be CIS_CI_METHOD_AUTO, _STORED or _DIRECT, got %d",
                     (int)o->method);
  CIS_TRY(check_flags(o));
  CIS_TRY(check_parts(o));
  CIS_TRY(check_numbers(o));
  if (o->format && !known_format(o->format))
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.format '%.40s' is not auto or a storage format "
                     "(cis_format_name, csr-sym, sym-seg)", o->format);
  if (o->kernel && !o->kernel[0]) return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.kernel is empty (NULL: the format's)");
  if (o->occ && !o->occ[0]) return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.occ is empty (NULL: aufbau)");
  if (o->save && !o->save[0]) return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.save is an empty path");
  if (o->save && o->count_only)
    return cis_error(CIS_ERR_INVALID, "cis_ci_solve_opts.save writes the built Hamiltonian; count_only builds none");
cleanup:
  return st;
}
