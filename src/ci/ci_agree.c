/* ci_agree.c: the CI driver's ranks checked to solve one problem
 * (ci_ranks_agree, ci_solve_internal.h). Each process of a caller's
 * communicator reads its own integrals and options; if they differ, the
 * solve's collectives diverge: a stopping test met on one rank and not on
 * another hangs, different subspace or root counts truncate messages,
 * different integrals sum to an energy of neither problem (issue 40). Every
 * rank hashes its integrals and each option that steers the solve
 * (cis_hash64, one value per group) and the ranks compare them in one
 * all-reduce of fixed size (cis_dist_comm_agree) before anything else. */
#include <stdio.h>
#include <string.h>
#include "ci/ci_solve_internal.h"
#include "distributed/dist_internal.h"

static uint64_t hash_int(uint64_t h, int64_t v) { return cis_hash64(h, &v, sizeof v); }
static uint64_t hash_double(uint64_t h, double v) { return cis_hash64(h, &v, sizeof v); }
static uint64_t hash_string(uint64_t h, const char *s) { /* NULL and "" differ */
  return s ? cis_hash64(hash_int(h, 1), s, strlen(s)) : hash_int(h, 0);
}

/* The integrals as the solve reads them. The arrays only where their sizes
 * follow from a header within range (the validation after this check
 * refuses the rest on every rank that holds it). */
static uint64_t hash_integrals(const cis_fcidump *F) {
  uint64_t h = CIS_HASH64_START;
  const int64_t hdr[] = {F->norb, F->nelec, F->ms2, F->isym, F->uhf, F->npair, F->neri};
  h = cis_hash64(h, hdr, sizeof hdr);
  h = hash_double(h, F->ecore);
  if (F->norb < 1 || F->norb > CIS_CI_MAX_ORB) return h;
  const int64_t n = F->norb, np = n * (n + 1) / 2;
  h = cis_hash64(h, F->orbsym, (size_t)n * sizeof *F->orbsym);
  if (F->h1) h = cis_hash64(h, F->h1, (size_t)(n * n) * sizeof(double));
  if (F->eri && F->npair == np && F->neri == np * (np + 1) / 2) h = cis_hash64(h, F->eri, (size_t)F->neri * sizeof(double));
  return h;
}

/* The options that steer the solve, one group each (named as the fields).
 * Not compared: verbose, progress, progress_user (printing only; a
 * launcher may silence all but one rank), save (a path each rank may name
 * for itself), comm (each rank's own handle); guess by its presence and
 * count (its length is known only once the space is). */
#define OPT_GROUPS 48 /* room for the 34 below and more */
static int option_hashes(const cis_ci_solve_opts *o, uint64_t *h, const char **name) {
  int k = 0;
#define OPT_INT(f) (name[k] = #f, h[k++] = hash_int(CIS_HASH64_START, (int64_t)o->f))
#define OPT_DOUBLE(f) (name[k] = #f, h[k++] = hash_double(CIS_HASH64_START, o->f))
#define OPT_STRING(f) (name[k] = #f, h[k++] = hash_string(CIS_HASH64_START, o->f))
  OPT_INT(method);
  OPT_INT(gpu);
  OPT_INT(build);
  OPT_INT(gpus);
  OPT_INT(cpu_parts);
  OPT_INT(host_vectors);
  OPT_STRING(exchange);
  OPT_INT(level);
  OPT_INT(roots);
  OPT_DOUBLE(spin);
  OPT_INT(isym);
  OPT_STRING(occ);
  OPT_DOUBLE(tol);
  OPT_DOUBLE(etol);
  OPT_INT(max_iter);
  OPT_INT(max_sub);
  OPT_INT(pspace);
  OPT_STRING(format);
  OPT_STRING(kernel);
  OPT_INT(symmetric);
  OPT_INT(float_values);
  OPT_INT(no_time_reversal);
  OPT_INT(symmetry_projection);
  OPT_INT(no_s2);
  OPT_INT(block_products);
  OPT_INT(count_only);
  OPT_INT(repeat);
  OPT_INT(accept_unconverged);
  OPT_INT(keep_vectors);
  OPT_INT(time_sigma);
  OPT_INT(gpu_leave_free);
  OPT_DOUBLE(spin_penalty);
  OPT_DOUBLE(spin_penalty_ss);
  OPT_INT(singlet);
#undef OPT_INT
#undef OPT_DOUBLE
#undef OPT_STRING
  return k;
}

cis_status ci_ranks_agree(const cis_fcidump *F, const cis_ci_solve_opts *o) {
  cis_status st;
  uint64_t h[2 + OPT_GROUPS];
  const char *name[2 + OPT_GROUPS];
  int differ[2 + OPT_GROUPS];
  if (!F || !o || !o->comm || dist_comm_local_ranks(o->comm) >= cis_dist_comm_ranks(o->comm)) return CIS_OK;
  h[0] = hash_integrals(F);
  h[1] = hash_int(hash_int(CIS_HASH64_START, o->guess != NULL), o->nguess);
  name[1] = "guess";
  const int k = 2 + option_hashes(o, h + 2, name + 2);
  if ((st = cis_dist_comm_agree(o->comm, h, k, differ)) != CIS_OK) return st;
  char opts[512] = "";
  size_t len = 0;
  for (int g = 1; g < k; ++g)
    if (differ[g] && len + 40 < sizeof opts) len += (size_t)snprintf(opts + len, sizeof opts - len, "%s%s", len ? ", " : "", name[g]);
  if (differ[0] && len) return cis_error(CIS_ERR_INVALID, "ranks disagree on the integrals and the options (%s)", opts);
  if (differ[0]) return cis_error(CIS_ERR_INVALID, "ranks disagree on the integrals");
  if (len) return cis_error(CIS_ERR_INVALID, "ranks disagree on the options (%s)", opts);
  return CIS_OK;
}
