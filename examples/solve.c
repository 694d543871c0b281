/* solve.c: cisparse from an installed tree, in one page.
 *
 * Load a matrix (a Matrix Market / .cisb file, or a generator spec; default
 * the 3D Laplacian laplace3d:size=16), build a storage format, multiply on
 * the GPU when one is usable (else on the CPU), then solve A x = b with
 * Jacobi-preconditioned CG (cis_krylov_solve) for b = A * ones.
 *
 *   cc solve.c $(pkg-config --cflags --libs cisparse) \
 *      -Wl,-rpath,$(pkg-config --variable=libdir cisparse) -lm -o solve   # or find_package(cisparse)
 *   (the rpath lets ./solve find libcisparse in a prefix the loader does not search)
 *   ./solve [MATRIX|SPEC] [FORMAT]
 *
 * Exit status 0 when the solve converged and x is ones to 1e-6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cisparse/cisparse.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cis_status st_ = (call);                                                     \
    if (st_ != CIS_OK) {                                                         \
      fprintf(stderr, "error: %s: %s\n", cis_status_name(st_), cis_last_error()); \
      goto cleanup;                                                              \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "laplace3d:size=16";
  const char *format = argc > 2 ? argv[2] : "ell";
  cis_csr *A = NULL;
  cis_matrix *M = NULL;
  cis_gpu_plan *plan = NULL;
  cis_operator *op = NULL;
  double *ones = NULL, *b = NULL, *x = NULL, *diag = NULL, err = 0.0;
  void *d_x = NULL, *d_b = NULL;
  int rc = 1, gpu;
  char why[256] = "";

  printf("cisparse %s (headers %s, CUDA kernels %s)\n", cis_version(), CISPARSE_VERSION_STRING,
         cis_built_with_cuda() ? "built" : "not built");
  CHECK(cis_load(spec, CIS_F64, &A));
  cis_csr_stats s;
  CHECK(cis_csr_stats_get(A, -1, &s));
  printf("%s: %lld x %lld, %lld nonzeros, longest row %lld\n", spec, (long long)s.rows, (long long)s.cols,
         (long long)s.nnz, (long long)s.row_max);

  /* a storage format, and b = A * ones on the CPU */
  cis_format_params p = cis_format_params_default();
  CHECK(cis_matrix_create(A, format, &p, &M));
  size_t n = (size_t)A->rows, bytes = n * sizeof(double);
  ones = malloc(bytes); b = malloc(bytes); x = calloc(n, sizeof(double)); diag = malloc(bytes);
  if (!ones || !b || !x || !diag) { fprintf(stderr, "error: out of memory\n"); goto cleanup; }
  for (size_t i = 0; i < n; ++i) ones[i] = 1.0;
  CHECK(cis_matrix_spmv(M, 1.0, ones, 0.0, b));
  CHECK(cis_csr_diagonal(A, diag));

  /* the operator: the GPU plan when a device is usable, else the CPU format */
  gpu = cis_gpu_count(why, sizeof why) > 0;
  if (gpu) {
    CHECK(cis_gpu_plan_create(M, NULL, 0, &plan));
    CHECK(cis_operator_from_gpu_plan(plan, &op));
    CHECK(cis_gpu_malloc(&d_b, bytes));
    CHECK(cis_gpu_malloc(&d_x, bytes));
    CHECK(cis_gpu_upload(d_b, b, bytes));
    CHECK(cis_gpu_upload(d_x, x, bytes));
  } else {
    printf("no GPU (%s): CPU\n", why);
    CHECK(cis_operator_from_matrix(M, &op));
  }
  CHECK(cis_operator_set_diagonal(op, diag));
  printf("operator: %s\n", cis_operator_name(op));

  /* A x = b by Jacobi-preconditioned CG from x0 = 0 */
  cis_krylov_opts o = cis_krylov_opts_default();
  o.method = CIS_CG;
  o.precond = CIS_PRECOND_JACOBI;
  o.tol = 1e-10;
  cis_krylov_info info;
  CHECK(cis_krylov_solve(op, gpu ? d_b : b, gpu ? d_x : x, &o, &info));
  if (gpu) CHECK(cis_gpu_download(x, d_x, bytes));
  for (size_t i = 0; i < n; ++i) err = fmax(err, fabs(x[i] - 1.0));
  printf("%s+jacobi: %s in %d iterations, relative residual %.3g, %.3f ms; max |x - 1| = %.3g\n",
         cis_krylov_method_name(o.method), cis_krylov_end_name(info.end), info.iterations, info.rel_residual,
         1e3 * info.seconds, err);
  rc = err <= 1e-6 ? 0 : 1;
cleanup:
  cis_operator_free(op);
  cis_gpu_free(d_x);
  cis_gpu_free(d_b);
  cis_gpu_plan_free(plan);
  cis_matrix_free(M);
  cis_csr_free(A);
  free(ones); free(b); free(x); free(diag);
  return rc;
}
