/* ci_half_scatter.c: the GPU half sigma (time reversal, MS2 = 0) with its
 * scatter over every pair against the scatter over the pairs a pass reaches
 * (the option half_scatter=all | auto, src/ci/gpu/ci_sigma_dev.c), on one GPU,
 * for workspaces of the given sizes: a small workspace means many passes, as
 * on each GPU of the distributed direct sigma when the vectors fill the cards
 * (16e/18o C1 on 2 x 80-GB: ~4 GiB a GPU, ~280 passes a half sigma).
 * One exactly symmetric pseudo-random vector (seeded); per mode and
 * workspace one untimed sigma, then RUNS timed with CUDA events (median);
 * the two sigmas are compared bit for bit (a difference is an error, exit 1).
 * Built with CUDA by CMake (cisparse_half_scatter); device_run.sh step
 * `halfscatter`.
 * usage: cisparse_half_scatter FILE.FCIDUMP RUNS WORK_GIB [WORK_GIB ...]
 * (HALF_SCATTER_MODE=reached: the second mode forced on every pass that may,
 * instead of auto; for compute-sanitizer on a small space.) */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/cisparse.h"
#include "ci/ci_internal.h"

#define MAX_RUNS 64

static int fail(const char *what) {
  fprintf(stderr, "cisparse_half_scatter: %s: %s\n", what, cis_last_error());
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median ms of runs half sigmas of dc into ds with the option half_scatter=mode
 * and a workspace of work bytes (after one untimed); the info of G. */
static int time_mode(const cis_ci_direct *D, const char *mode, int64_t work, int runs, const double *dc, double *ds,
                     double *ms, cis_ci_direct_gpu_info *info) {
  cis_ci_direct_gpu *G = NULL;
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  double t[MAX_RUNS];
  cudaEvent_t e0, e1;
  o.work_bytes = work;
  o.vectors = 2;
  if (cis_option_set("half_scatter", mode) != CIS_OK) return fail("cis_option_set");
  if (cis_ci_direct_gpu_create(D, &o, &G) != CIS_OK) return fail("cis_ci_direct_gpu_create");
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    fprintf(stderr, "cisparse_half_scatter: cudaEventCreate failed\n");
    cis_ci_direct_gpu_free(G);
    return 1;
  }
  int rc = 0;
  for (int r = -1; r < runs && !rc; ++r) {
    float f = 0;
    cudaEventRecord(e0, 0);
    if (cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL) != CIS_OK) rc = fail("cis_ci_direct_gpu_sigma");
    cudaEventRecord(e1, 0);
    if (!rc && (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&f, e0, e1) != cudaSuccess)) {
      fprintf(stderr, "cisparse_half_scatter: %s\n", cudaGetErrorString(cudaGetLastError()));
      rc = 1;
    }
    if (r >= 0) t[r] = f;
  }
  ci_direct_gpu_get_info(G, info);
  qsort(t, (size_t)runs, sizeof *t, cmp_double);
  *ms = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cis_ci_direct_gpu_free(G);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: cisparse_half_scatter FILE.FCIDUMP RUNS WORK_GIB [WORK_GIB ...]\n");
    return 2;
  }
  const int runs = atoi(argv[2]);
  const char *mode = getenv("HALF_SCATTER_MODE") ? getenv("HALF_SCATTER_MODE") : "auto";
  if (runs < 1 || runs > MAX_RUNS) {
    fprintf(stderr, "cisparse_half_scatter: RUNS must be 1..%d, got '%s'\n", MAX_RUNS, argv[2]);
    return 2;
  }
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  if (cis_fcidump_read(argv[1], &F) != CIS_OK) return fail(argv[1]);
  if (cis_ci_direct_create(F, NULL, &D) != CIS_OK) return fail("cis_ci_direct_create");
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  if (di.alpha_strings != di.beta_strings || F->ms2 != 0) {
    fprintf(stderr, "cisparse_half_scatter: %s: the half sigma needs MS2 = 0 (one string set)\n", argv[1]);
    return 1;
  }
  const int64_t ns = di.alpha_strings, n = di.determinants;
  double *c = malloc((size_t)n * sizeof *c), *s0 = malloc((size_t)n * sizeof *c), *s1 = malloc((size_t)n * sizeof *c);
  double *dc = NULL, *ds = NULL;
  if (!c || !s0 || !s1) {
    fprintf(stderr, "cisparse_half_scatter: %lld determinants: host memory\n", (long long)n);
    return 1;
  }
  uint64_t x = 88172645463325252ull; /* xorshift64, fixed seed; c(A,B) = c(B,A) */
  for (int64_t A = 0; A < ns; ++A)
    for (int64_t B = 0; B <= A; ++B) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      c[A * ns + B] = c[B * ns + A] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
    }
  if (cis_gpu_malloc((void **)&dc, (size_t)n * sizeof *c) != CIS_OK ||
      cis_gpu_malloc((void **)&ds, (size_t)n * sizeof *c) != CIS_OK || cis_gpu_upload(dc, c, (size_t)n * sizeof *c) != CIS_OK)
    return fail("device vectors");
  printf("# %s: %lld determinants (%lld strings), %lld pairs; %d runs each, CUDA events, median\n", argv[1],
         (long long)n, (long long)ns, (long long)di.npair, runs);
  printf("%-9s %-8s %-10s %-14s %-14s %-8s %s\n", "work GiB", "rows", "kernels", "all ms", "reached ms",
         "speedup", "reached passes");
  for (int a = 3; a < argc; ++a) {
    const int64_t work = (int64_t)(atof(argv[a]) * 1073741824.0);
    double ms_all = 0, ms_reach = 0;
    cis_ci_direct_gpu_info i0, i1;
    if (work <= 0) {
      fprintf(stderr, "cisparse_half_scatter: WORK_GIB '%s' must be > 0\n", argv[a]);
      return 2;
    }
    if (time_mode(D, "all", work, runs, dc, ds, &ms_all, &i0) ||
        cis_gpu_download(s0, ds, (size_t)n * sizeof *c) != CIS_OK)
      return 1;
    if (time_mode(D, mode, work, runs, dc, ds, &ms_reach, &i1) ||
        cis_gpu_download(s1, ds, (size_t)n * sizeof *c) != CIS_OK)
      return 1;
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) differ += memcmp(&s0[i], &s1[i], sizeof *s0) != 0;
    if (differ || i0.half_sigmas != runs + 1 || i1.half_sigmas != runs + 1) {
      fprintf(stderr, "cisparse_half_scatter: %lld elements differ; half sigmas %lld and %lld of %d\n", (long long)differ,
              (long long)i0.half_sigmas, (long long)i1.half_sigmas, runs + 1);
      return 1;
    }
    printf("%-9.2f %-8lld %-10.10s %-14.3f %-14.3f %-8.2f %lld a sigma\n", (double)i1.work_bytes / 1073741824.0,
           (long long)i1.block, i1.sigma_kernel, ms_all, ms_reach, ms_all / ms_reach,
           (long long)(i1.reached_passes / (runs + 1)));
  }
  printf("# the two scatters' sigmas equal bit for bit at every workspace\n");
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
  free(c), free(s0), free(s1);
  return 0;
}
