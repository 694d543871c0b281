/* test_ci_gpu_build.c: the CI Hamiltonian built on the GPU
 * (ci_hamiltonian_gpu) equals the CPU build (cis_ci_hamiltonian) entry by
 * entry: same row pointers and columns, values within 1e-14 relative (the
 * port does the same arithmetic, so they are expected bit for bit), for FCI
 * of h4, lih, h2o and n2 (STO-3G) and two truncated spaces (CISD: beta lists
 * that are not a prefix, the binary-search lookup); Davidson on the device
 * plan gives the energies of reference.tsv to 1e-8; so does the upper
 * triangle built on the GPU (ci_hamiltonian_gpu_upper) in symmetric
 * plans, csr-sym and sym-seg (laid out on the GPU from the device CSR), with
 * the full matrix's product to 1e-13. Errors: NULL arguments,
 * a non-csr plan, device out of memory (clean message, nothing leaked). */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"
#include "gpu/gpu_plan_internal.h"

/* Column `col` (0-based, tab-separated) of molecule `name` in reference.tsv; NaN if absent. */
static double reference_energy(const char *name, int col) {
  char path[512], line[1024];
  double e = NAN;
  FILE *f = fopen(test_shared_path(path, sizeof path, "ci/reference.tsv"), "r");
  CHECK(f != NULL, "cannot open %s", path);
  while (f && fgets(line, sizeof line, f)) {
    char *tok = strtok(line, "\t\n");
    if (!tok || strcmp(tok, name)) continue;
    for (int c = 1; c <= col && tok; ++c) tok = strtok(NULL, "\t\n");
    if (tok) e = strtod(tok, NULL);
  }
  if (f) fclose(f);
  return e;
}

/* Entry-by-entry comparison; returns the number of values not bit-equal. */
static long compare(const char *name, const cis_csr *C, const cis_csr *G) {
  long differ = 0, bad = 0;
  CHECK(G->rows == C->rows && G->cols == C->cols && G->nnz == C->nnz, "%s: GPU %lldx%lld/%lld, CPU %lldx%lld/%lld",
        name, (long long)G->rows, (long long)G->cols, (long long)G->nnz, (long long)C->rows, (long long)C->cols,
        (long long)C->nnz);
  if (G->rows != C->rows || G->nnz != C->nnz) return -1;
  CHECK(!memcmp(G->rowptr, C->rowptr, (size_t)(C->rows + 1) * sizeof(cis_int)), "%s: row pointers differ", name);
  CHECK(!memcmp(G->colind, C->colind, (size_t)C->nnz * sizeof(cis_idx)), "%s: columns differ", name);
  const double *g = G->val, *c = C->val;
  for (cis_int k = 0; k < C->nnz; ++k) {
    if (g[k] != c[k]) differ++;
    if (!(fabs(g[k] - c[k]) <= 1e-14 * fabs(c[k]))) bad++;
  }
  CHECK(bad == 0, "%s: %ld of %lld values differ by more than 1e-14 relative", name, bad, (long long)C->nnz);
  CHECK(cis_csr_check(G) == CIS_OK, "%s: GPU CSR invalid: %s", name, cis_last_error());
  return differ;
}

/* The upper triangle built on the GPU, in csr-sym and sym-seg plans: the
 * product of the full CPU matrix C, and Davidson's energy. */
static void check_upper(const char *name, int level, const cis_fcidump *F, const cis_ci_space *S, const cis_csr *C,
                        const double *diag, double ref) {
  const char *kernels[] = {"csr-sym", "sym-seg"};
  const cis_int n = C->rows;
  double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8), *yref = malloc((size_t)n * 8);
  void *dx = NULL, *dy = NULL;
  CHECK(x && y && yref, "out of memory");
  if (!x || !y || !yref) goto done;
  test_fill_random(x, CIS_F64, n, 17);
  CHECK_OK(cis_csr_spmv(C, 1.0, x, 0.0, yref));
  CHECK_OK(cis_gpu_malloc(&dx, (size_t)n * 8));
  CHECK_OK(cis_gpu_malloc(&dy, (size_t)n * 8));
  if (!dx || !dy) goto done;
  CHECK_OK(cis_gpu_upload(dx, x, (size_t)n * 8));
  for (int k = 0; k < 2; ++k) {
    cis_gpu_plan *P = NULL;
    cis_int nnz = -1;
    CHECK_OK(ci_hamiltonian_gpu_upper(F, S, kernels[k], &P, &nnz));
    if (!P) continue;
    CHECK(gpu_plan_is_symmetric(P) && !strcmp(cis_gpu_plan_kernel(P), kernels[k]), "%s: upper plan %s", name,
          cis_gpu_plan_kernel(P));
    CHECK(2 * nnz - n <= C->nnz && nnz < C->nnz, "%s: upper nnz %lld of %lld", name, (long long)nnz,
          (long long)C->nnz);
    CHECK_OK(bench_fill_nan(dy, CIS_F64, n));
    CHECK_OK(cis_gpu_spmv(P, 1.0, dx, 0.0, dy, NULL));
    CHECK_OK(cis_gpu_sync());
    test_fill_nan(y, CIS_F64, n);
    CHECK_OK(cis_gpu_download(y, dy, (size_t)n * 8));
    double e = test_rel_err(y, yref, CIS_F64, n);
    CHECK(e <= 1e-13, "%s level %d %s: product rel err %g against the full matrix (NaN never passes)", name, level,
          kernels[k], e);
    double ev[1] = {NAN};
    cis_davidson_opts o = cis_davidson_opts_default();
    cis_davidson_info info;
    cis_ci_gpu_stats gs;
    CHECK_OK(ci_davidson_gpu_plan(P, diag, &o, ev, NULL, &info, &gs));
    CHECK(fabs(ev[0] + F->ecore - ref) < 1e-8, "%s level %d %s: E %.10f, reference %.10f", name, level, kernels[k],
          ev[0] + F->ecore, ref);
    cis_gpu_plan_free(P);
  }
done:
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x); free(y); free(yref);
}

static void check_molecule(const char *name, int level) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_csr *C = NULL, *G = NULL;
  cis_gpu_plan *P = NULL;
  cis_int nnz = -1;
  double *diag = NULL;
  CHECK_OK(test_ci_load(name, level, &F, &S));
  if (!S) goto done;
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &C));
  CHECK_OK(ci_hamiltonian_gpu(F, S, &P, &nnz));
  if (!C || !P) goto done;
  CHECK(nnz == C->nnz, "%s: reported nnz %lld, CPU %lld", name, (long long)nnz, (long long)C->nnz);
  CHECK_OK(gpu_plan_download_csr(P, &G));
  if (!G) goto done;
  long differ = compare(name, C, G);
  cis_int n = C->rows;
  diag = malloc((size_t)n * sizeof(double));
  CHECK_OK(ci_diagonal_all(F, S, diag));
  double e[1] = {NAN};
  cis_davidson_opts o = cis_davidson_opts_default();
  cis_davidson_info info;
  cis_ci_gpu_stats gs;
  CHECK_OK(ci_davidson_gpu_plan(P, diag, &o, e, NULL, &info, &gs));
  double ref = reference_energy(name, level < 0 ? 10 : 9); /* efci / ecisd */
  CHECK(fabs(e[0] + F->ecore - ref) < 1e-8, "%s level %d: GPU build %.10f, reference %.10f", name, level,
        e[0] + F->ecore, ref);
  CHECK(!strcmp(gs.kernel, "csr-vector") && info.products > 0, "%s: kernel %s, %lld products", name, gs.kernel,
        (long long)info.products);
  printf("%-10s level %2d: %lld dets, %lld nnz, %ld values not bit-equal, E %.10f (%+.1e)\n", name, level,
         (long long)n, (long long)C->nnz, differ, e[0] + F->ecore, e[0] + F->ecore - ref);
  check_upper(name, level, F, S, C, diag, ref);
done:
  free(diag);
  cis_csr_free(C);
  cis_csr_free(G);
  cis_gpu_plan_free(P);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

static void check_errors(void) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_gpu_plan *P = (cis_gpu_plan *)&P;
  cis_csr *G = (cis_csr *)&G;
  double e[1];
  CHECK(ci_hamiltonian_gpu(NULL, NULL, &P, NULL) == CIS_ERR_INVALID && P == NULL, "NULL integrals accepted");
  CHECK(ci_hamiltonian_gpu(NULL, NULL, NULL, NULL) == CIS_ERR_INVALID, "NULL output accepted");
  CHECK(gpu_plan_download_csr(NULL, &G) == CIS_ERR_INVALID && G == NULL, "NULL plan downloaded");
  CHECK(ci_davidson_gpu_plan(NULL, e, NULL, e, NULL, NULL, NULL) == CIS_ERR_INVALID, "NULL plan solved");
  double dense[4] = {1, 2, 2, 1};
  cis_csr *A = test_csr_from_dense(2, 2, dense, CIS_F64);
  cis_matrix *M = NULL;
  CHECK_OK(cis_matrix_create(A, "hyb", NULL, &M));
  CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &P));
  CHECK(gpu_plan_download_csr(P, &G) == CIS_ERR_UNSUPPORTED, "hyb plan downloaded as csr");
  cis_gpu_plan_free(P);
  cis_matrix_free(M);
  cis_csr_free(A);

  /* Device out of memory: fill the device, then build N2 FCI (tens of MB). */
  CHECK_OK(test_ci_load("n2_sto3g", -1, &F, &S));
  cis_gpu_info gi;
  void *fill = NULL;
  CHECK_OK(cis_gpu_get_info(&gi));
  int64_t before = gi.free_mem, leave = (int64_t)16 << 20;
  if (S && before > leave && cis_gpu_malloc(&fill, (size_t)(before - leave)) == CIS_OK) {
    P = NULL;
    cis_status st = ci_hamiltonian_gpu(F, S, &P, NULL);
    CHECK(st == CIS_ERR_DEVICE_OOM && P == NULL, "full device: %s: %s", cis_status_name(st), cis_last_error());
    CHECK(strstr(cis_last_error(), "GPU out of memory for") != NULL, "OOM message: %s", cis_last_error());
    printf("full device: %s\n", cis_last_error());
    cis_gpu_free(fill);
    CHECK_OK(cis_gpu_get_info(&gi));
    CHECK(gi.free_mem >= before - ((int64_t)4 << 20), "device memory leaked: %lld free before, %lld after",
          (long long)before, (long long)gi.free_mem);
  } else {
    printf("out-of-memory case not run: could not fill the device\n");
  }
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

int main(void) {
  char why[256] = "";
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  const char *fci[] = {"h4_sto3g", "lih_sto3g", "h2o_sto3g", "n2_sto3g"};
  for (int m = 0; m < 4; ++m) check_molecule(fci[m], -1);
  check_molecule("n2_sto3g", 2);
  check_molecule("h2o_631g", 2);
  check_errors();
  return test_summary("test_ci_gpu_build");
}
