/* ci_dist_direct_cases.h: the direct CI sigma over GPUs (NCCL, one process),
 * shared by the gpu test (G = 1: the whole path through NCCL on one GPU)
 * and the multigpu test (every GPU, G >= 2).
 *  - sigma: each GPU part's sigma over its alpha strings
 *    (ci_direct_gpu_create_part; output NaN-poisoned) summed on the host
 *    equals the CPU sigma to 1e-12 relative, C1 (half and full sigma) and
 *    blocked by irreps (compact, MS2 = 0 and 2), G parts and G + 1 parts
 *    (several parts on one GPU in turn); H2O 6-31G's parts also in passes of
 *    a few alpha strings with the half scatter over the reached pairs forced
 *    (option half_scatter=reached: parts whose first pass is not string 0);
 *  - solves: cis_ci_solve over G GPUs (method direct and auto) gives the
 *    one-process CPU direct energies to 1e-10 (2 roots) for C1, blocked
 *    MS2 = 0 and 2, no time reversal, and H2O 6-31G FCI (1.66e6
 *    determinants); one root of H2O 6-31G over G GPUs, every product a half
 *    sigma (corrections made exactly pure across the GPUs); the same
 *    solves with Davidson's vectors in host memory (host_vectors 1,
 *    page-locked and pageable). Skipped (77) without a GPU or NCCL, or with fewer
 *    GPUs than min_gpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci_sigma_ref.h"

/* Alpha strings a pass of cdd_sigma's parts holds; 0: as the memory allows. */
static int cdd_pass_rows;

/* The parts' GPU sigmas of a split into `parts` ranges, summed, against the CPU sigma. */
static void cdd_sigma(const char *file, int sym, int no_tr, int parts) {
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return;
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.no_time_reversal = no_tr;
  CHECK_OK(cis_ci_direct_create(F, &o, &D));
  if (!D) { cis_fcidump_free(F); return; }
  cis_ci_direct_info in;
  ci_direct_get_info(D, &in);
  const int compact = in.blocked;
  const cis_int n = compact ? ci_direct_compact_size(D) : cis_ci_direct_size(D), nsa = in.alpha_strings;
  double *x = malloc(2 * (size_t)n * sizeof *x), *ref = malloc((size_t)n * sizeof *ref),
         *sum = calloc((size_t)n, sizeof *sum), *y = malloc((size_t)n * sizeof *y);
  void *dx = NULL, *dy = NULL;
  test_fill_random(x, CIS_F64, n, 5);
  if (sym) ci_symmetric_vector(D, compact, nsa, x); /* the half sigma */
  ci_whole_sigma(D, compact, x, ref);
  CHECK_OK(cis_gpu_malloc(&dx, (size_t)n * sizeof(double)));
  CHECK_OK(cis_gpu_malloc(&dy, (size_t)n * sizeof(double)));
  if (dx && dy) CHECK_OK(cis_gpu_upload(dx, x, (size_t)n * sizeof(double)));
  for (int p = 0; p < parts && dx && dy; ++p) {
    cis_ci_direct_gpu *G = NULL;
    cis_ci_direct_gpu_opts go = ci_direct_gpu_opts_default();
    go.work_bytes = (int64_t)cdd_pass_rows * 2 * 8 * in.npair * in.beta_strings;
    CHECK_OK(ci_direct_gpu_create_part(D, &go, nsa * p / parts, nsa * (p + 1) / parts, &G));
    if (!G) continue;
    CHECK_OK(bench_fill_nan(dy, CIS_F64, n));
    CHECK_OK(compact ? ci_direct_gpu_compact_sigma(G, 1, dx, dy, NULL) : cis_ci_direct_gpu_sigma(G, 1, dx, dy, NULL));
    CHECK_OK(cis_gpu_sync());
    CHECK_OK(cis_gpu_download(y, dy, (size_t)n * sizeof(double)));
    for (cis_int i = 0; i < n; ++i) sum[i] += y[i];
    cis_ci_direct_gpu_free(G);
  }
  const double e = test_rel_err(sum, ref, CIS_F64, n);
  CHECK(e <= 1e-12, "%s (%s%s%s), %d GPU parts: their sum differs from the CPU sigma by %.3g", file,
        compact ? "blocked" : "C1", sym ? ", symmetric" : "", no_tr ? ", no time reversal" : "", parts, e);
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x);
  free(ref);
  free(sum);
  free(y);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

/* Energies over `gpus` GPUs against the one-process CPU direct solve;
 * host: Davidson's vectors in host memory (host_vectors 1, the products'
 * copies in and out), else where the driver puts them (on the GPUs). */
static void cdd_solve(const char *file, int gpus, int no_tr, cis_ci_method method, int host) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R1 = NULL, *R = NULL;
  o.method = CIS_CI_METHOD_DIRECT;
  o.roots = 2;
  o.tol = 1e-9;
  o.no_s2 = 1;
  o.no_time_reversal = no_tr;
  CHECK_OK(cis_ci_solve_file(file, &o, &R1));
  o.gpus = gpus;
  o.method = method;
  o.host_vectors = host;
  CHECK_OK(cis_ci_solve_file(file, &o, &R));
  if (R1 && R) {
    CHECK(R->method == CIS_CI_METHOD_DIRECT && R->parts == gpus && R->gpu, "%s: direct over %d GPUs ran", file, gpus);
    CHECK((R->host_vectors != 0) == host, "%s over %d GPUs: Davidson's vectors %s, asked %s", file, gpus,
          R->host_vectors ? "on the host" : "on the GPUs", host ? "on the host" : "where they fit");
    for (int k = 0; k < 2; ++k)
      CHECK(fabs(R->energies[k] - R1->energies[k]) <= 1e-10, "%s over %d GPUs, root %d: %.12f against the CPU's %.12f",
            file, gpus, k, R->energies[k], R1->energies[k]);
    printf("  %s over %d GPU(s)%s: E0 %.10f, %lld products, %.3f ms per product, exchange %.1f%%\n", file, gpus,
           host ? ", host vectors" : "", R->energies[0], (long long)R->davidson.products,
           R->davidson.products ? 1e3 * R->davidson.op_seconds / (double)R->davidson.products : 0,
           R->product_seconds > 0 ? 100 * R->exchange_seconds / R->product_seconds : 0);
  }
  cis_ci_result_free(R1);
  cis_ci_result_free(R);
}

static int run_ci_dist_direct_cases(const char *name, int min_gpus) {
  char why[256], a[512], b[512], c[512], d[512];
  const int count = cis_gpu_count(why, sizeof why);
  if (count == 0) return test_skip(why);
  if (count < min_gpus) {
    snprintf(why, sizeof why, "%d GPU%s present, %d needed", count, count == 1 ? "" : "s", min_gpus);
    return test_skip(why);
  }
  cis_dist_comm *probe = NULL;
  if (cis_dist_comm_nccl(1, &probe) == CIS_ERR_UNSUPPORTED) return test_skip(cis_last_error());
  cis_dist_comm_free(probe);
  const int G = min_gpus > 1 ? count : 1;
  snprintf(a, sizeof a, "%s/ci/h2o_sto3g.FCIDUMP", CIS_SHARED_DIR);
  snprintf(b, sizeof b, "%s/ci/n2_sto3g_d2h.FCIDUMP", CIS_TEST_DATA);
  snprintf(c, sizeof c, "%s/ci/o2_sto3g_triplet_pyscf.FCIDUMP", CIS_TEST_DATA);
  snprintf(d, sizeof d, "%s/ci/h2o_631g.FCIDUMP", CIS_SHARED_DIR);
  for (int parts = G; parts <= G + 1; ++parts) {
    cdd_sigma(a, 1, 0, parts);
    cdd_sigma(a, 0, 0, parts);
    cdd_sigma(a, 1, 1, parts);
    cdd_sigma(b, 1, 0, parts);
    cdd_sigma(b, 0, 0, parts);
    cdd_sigma(c, 0, 0, parts);
    cdd_sigma(d, 1, 0, parts);
  }
  cis_option_set("half_scatter", "reached");
  cdd_pass_rows = 3;
  cdd_sigma(d, 1, 0, G + 1);
  cdd_pass_rows = 0;
  cis_option_set("half_scatter", NULL);
  cdd_solve(a, G, 0, CIS_CI_METHOD_DIRECT, 0);
  cdd_solve(a, G, 1, CIS_CI_METHOD_AUTO, 0);
  cdd_solve(b, G, 0, CIS_CI_METHOD_DIRECT, 0);
  cdd_solve(c, G, 0, CIS_CI_METHOD_DIRECT, 0);
  cdd_solve(d, G, 0, CIS_CI_METHOD_AUTO, 0);
  /* Davidson's vectors on the host: C1, blocked MS2 = 0 and 2, H2O 6-31G
   * (page-locked, and pageable) */
  cdd_solve(a, G, 0, CIS_CI_METHOD_DIRECT, 1);
  cdd_solve(b, G, 0, CIS_CI_METHOD_DIRECT, 1);
  cdd_solve(c, G, 0, CIS_CI_METHOD_DIRECT, 1);
  cdd_solve(d, G, 0, CIS_CI_METHOD_AUTO, 1);
  cis_option_set("host_vectors_pin", "0");
  cdd_solve(d, G, 0, CIS_CI_METHOD_AUTO, 1);
  cis_option_set("host_vectors_pin", NULL);
  for (int host = 0; host <= 1; ++host) {
    cis_ci_solve_opts o = cis_ci_solve_opts_default();
    cis_ci_result *R = NULL;
    o.gpus = G;
    o.no_s2 = 1;
    o.host_vectors = host;
    CHECK_OK(cis_ci_solve_file(d, &o, &R));
    if (R)
      CHECK(R->half_sigmas == R->davidson.products, "H2O 6-31G over %d GPUs%s: %lld of %lld products by the half sigma",
            G, host ? " (host vectors)" : "", (long long)R->half_sigmas, (long long)R->davidson.products);
    cis_ci_result_free(R);
  }
  return test_summary(name);
}
