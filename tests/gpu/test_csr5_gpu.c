/* test_csr5_gpu.c: the CSR5 CUDA kernel (through cis_gpu_format_csr5's
 * upload/spmv/release) against the CPU CSR5 walk and the CSR reference on
 * the awkward matrices of csr5_cases.h, both precisions, several sigma and
 * block sizes, device output poisoned with NaN; device bytes = host bytes;
 * bad kernel name and block size refused. Skipped (77) without a device. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

#ifdef CISPARSE_HAVE_CUDA
#include <cuda_runtime.h>
#include "formats/csr5.h"
#include "gpu/gpu_format.h"
#include "csr5_cases.h"

static int cuda_ok(cudaError_t e, const char *what) {
  CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

/* Run y = alpha*A*x + beta*y on the device with d_y starting from y0 and
 * compare with the CPU CSR5 walk and with CSR from the same y0. */
static void compare_once(const cis_csr *A, const cis_matrix *M, void *dev, int block, double alpha,
                         double beta, const void *x, const void *y0, void *d_x, void *d_y, const char *what) {
  const cis_dtype t = cis_matrix_dtype(M);
  const size_t vs = cis_dtype_size(t), ybytes = (size_t)A->rows * vs;
  void *ygpu = malloc(ybytes + 1), *ycpu = malloc(ybytes + 1), *ycsr = malloc(ybytes + 1);
  if (!ygpu || !ycpu || !ycsr) { CHECK(0, "out of memory"); goto done; }
  memcpy(ycpu, y0, ybytes);
  memcpy(ycsr, y0, ybytes);
  test_fill_nan(ygpu, t, A->rows);
  if (!cuda_ok(cudaMemcpy(d_y, y0, ybytes, cudaMemcpyHostToDevice), "upload y")) goto done;

  cis_status st = cis_gpu_format_csr5.spmv(dev, "csr5", block, alpha, d_x, beta, d_y, NULL);
  CHECK(st == CIS_OK, "%s: spmv: %s", what, cis_last_error());
  if (!cuda_ok(cudaDeviceSynchronize(), "kernel")) goto done;
  if (!cuda_ok(cudaMemcpy(ygpu, d_y, ybytes, cudaMemcpyDeviceToHost), "download y")) goto done;
  CHECK_OK(cis_matrix_spmv(M, alpha, x, beta, ycpu));
  CHECK_OK(cis_csr_spmv(A, alpha, x, beta, ycsr));

  double e_cpu = test_rel_err(ygpu, ycpu, t, A->rows), e_csr = test_rel_err(ygpu, ycsr, t, A->rows);
  CHECK(e_cpu <= test_tol(t), "%s, alpha %g beta %g block %d: GPU vs CPU CSR5 rel err %g", what, alpha, beta,
        block, e_cpu);
  CHECK(e_csr <= test_tol(t), "%s, alpha %g beta %g block %d: GPU vs CSR rel err %g", what, alpha, beta, block,
        e_csr);
done:
  free(ygpu); free(ycpu); free(ycsr);
}

static void run_case(const cis_csr *A, cis_dtype t, cis_int sigma, int wide, const char *name) {
  cis_format_params p = cis_format_params_default();
  cis_matrix *M = NULL;
  void *dev = NULL, *d_x = NULL, *d_y = NULL, *x = NULL, *y0 = NULL;
  const size_t vs = cis_dtype_size(t);
  cis_int bytes = -1, ws = -1;
  p.dtype = t;
  p.csr5_sigma = sigma;
  CHECK_OK(cis_matrix_create(A, "csr5", &p, &M));
  if (!M) return;
  const cis_fmt_csr5 *F = cis_matrix_impl(M);
  CHECK(sigma != 0 || F->sigma == cis_csr5_choose_sigma(A->rows, A->nnz), "%s: sigma %lld not the chosen one", name,
        (long long)F->sigma);
  CHECK(!wide || csr5_widen_offsets((cis_fmt_csr5 *)F), "widen: out of memory");
  char what[160];
  snprintf(what, sizeof what, "%s, %s, sigma %lld, %lld tiles, %d-bit offsets", name, cis_dtype_name(t),
           (long long)F->sigma, (long long)F->ntiles, F->rowptr.wide ? 64 : 32);

  cis_status st = cis_gpu_format_csr5.upload(F, &dev, &bytes, &ws);
  CHECK(st == CIS_OK, "%s: upload: %s", what, cis_last_error());
  if (st != CIS_OK) goto done;
  CHECK(bytes == cis_matrix_bytes(M), "%s: device bytes %lld != host bytes %lld", what, (long long)bytes,
        (long long)cis_matrix_bytes(M));
  CHECK(ws == F->ntiles * (cis_int)vs, "%s: workspace %lld bytes", what, (long long)ws);

  x = malloc((size_t)A->cols * vs + 1);
  y0 = malloc((size_t)A->rows * vs + 1);
  if (!x || !y0) { CHECK(0, "out of memory"); goto done; }
  test_fill_random(x, t, A->cols, 21);
  test_fill_nan(y0, t, A->rows);
  if (!cuda_ok(cudaMalloc(&d_x, (size_t)A->cols * vs + 1), "cudaMalloc x") ||
      !cuda_ok(cudaMalloc(&d_y, (size_t)A->rows * vs + 1), "cudaMalloc y") ||
      !cuda_ok(cudaMemcpy(d_x, x, (size_t)A->cols * vs, cudaMemcpyHostToDevice), "upload x"))
    goto done;

  compare_once(A, M, dev, 0, 1.0, 0.0, x, y0, d_x, d_y, what);   /* NaN-poisoned y, beta 0 */
  compare_once(A, M, dev, 32, 1.0, 0.0, x, y0, d_x, d_y, what);
  test_fill_random(y0, t, A->rows, 22);
  compare_once(A, M, dev, 1024, -0.5, 2.0, x, y0, d_x, d_y, what);

  CHECK(cis_gpu_format_csr5.spmv(dev, "csr-vector", 0, 1.0, d_x, 0.0, d_y, NULL) == CIS_ERR_NOT_FOUND,
        "unknown kernel name accepted");
  CHECK(cis_gpu_format_csr5.spmv(dev, "csr5", 48, 1.0, d_x, 0.0, d_y, NULL) == CIS_ERR_INVALID &&
            strstr(cis_last_error(), "48"),
        "block size 48 accepted or not named: %s", cis_last_error());
done:
  cudaFree(d_x);
  cudaFree(d_y);
  if (dev) cis_gpu_format_csr5.release(dev);
  free(x); free(y0);
  cis_matrix_free(M);
}

int main(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    char why[256];
    snprintf(why, sizeof why, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
    return test_skip(why);
  }
  static const cis_int sigmas[] = {0, 1, 5, 16, 32};
  for (int t = 0; t < 2; ++t)
    for (int c = 0; c < CSR5_NCASES; ++c) {
      const cis_dtype dt = t ? CIS_F32 : CIS_F64;
      cis_csr *A = csr5_case_matrix(&CSR5_CASES[c], dt, 300 + (uint64_t)c);
      CHECK(A != NULL, "case %s not generated", CSR5_CASES[c].name);
      for (size_t s = 0; A && s < sizeof sigmas / sizeof *sigmas; ++s)
        run_case(A, dt, sigmas[s], 0, CSR5_CASES[c].name);
      if (A) run_case(A, dt, 4, 1, CSR5_CASES[c].name); /* the int64 offset kernels */
      cis_csr_free(A);
    }
  return test_summary("test_csr5_gpu");
}
#else
int main(void) { return test_skip("built without CUDA"); }
#endif
