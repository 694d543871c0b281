/* test_gpu_memory.c: device discovery, memory helpers and failure paths:
 * out-of-memory (a request larger than the card, and a plan whose upload
 * fails half-way) gives CIS_ERR_DEVICE_OOM naming what and how much, frees
 * everything (free device memory before == after) and the process carries
 * on (a following small plan works); bad kernel names and block sizes. */
#include "gpu_cases.h"
#include "gpu/gpu_format.h"

#ifndef CISPARSE_HAVE_CUDA
int main(void) {
  char why[200];
  cis_gpu_count(why, sizeof why);
  CHECK(cis_gpu_plan_create(NULL, NULL, 0, NULL) == CIS_ERR_NO_GPU, "no-CUDA build: NO_GPU");
  CHECK(strstr(cis_last_error(), "without CUDA") != NULL, "reason: %s", cis_last_error());
  if (test_failures) return test_summary("test_gpu_memory");
  return test_skip(why);
}
#else
#include <cuda_runtime.h>

static int64_t free_now(void) {
  size_t f = 0, t = 0;
  cudaDeviceSynchronize();
  cudaMemGetInfo(&f, &t);
  return (int64_t)f;
}

/* A plan of a CSR matrix whose upload fails after its first arrays fit. */
static void check_oom_mid_upload(void) {
  cis_csr *A = case_random(200000, 200000, len_short, 9);
  cis_matrix *M = NULL;
  cis_gpu_plan *p = NULL;
  void *filler = NULL;
  int64_t before, headroom;
  CHECK_OK(cis_matrix_create(A, "csr", NULL, &M));
  /* room for row pointers and columns, not for the values */
  headroom = (A->rows + 1) * 4 + A->nnz * 4 + ((int64_t)4 << 20);
  before = free_now();
  for (int64_t slack = 0; slack < (int64_t)256 << 20 && !filler; slack += 2 << 20)
    if (cudaMalloc(&filler, (size_t)(before - headroom - slack)) != cudaSuccess) {
      filler = NULL;
      cudaGetLastError();
    }
  if (!filler) {
    printf("note: could not leave a precise headroom; mid-upload OOM not exercised\n");
  } else {
    int64_t with_filler = free_now();
    cis_status st = cis_gpu_plan_create(M, NULL, 0, &p);
    CHECK(st == CIS_ERR_DEVICE_OOM && p == NULL, "mid-upload OOM: %s (%s)", cis_status_name(st),
          cis_last_error());
    CHECK(strstr(cis_last_error(), "asked") && strstr(cis_last_error(), "free"),
          "OOM message names bytes asked and free: %s", cis_last_error());
    printf("mid-upload OOM message: %s\n", cis_last_error());
    CHECK(free_now() == with_filler, "plan upload leaked: %lld free before, %lld after",
          (long long)with_filler, (long long)free_now());
    cis_gpu_plan_free(p);
    cudaFree(filler);
  }
  CHECK(free_now() == before, "device memory not restored: %lld vs %lld", (long long)free_now(),
        (long long)before);
  cis_matrix_free(M);
  cis_csr_free(A);
}

int main(void) {
  char why[200];
  cis_gpu_info info;
  void *d = (void *)1;
  int64_t before;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);

  CHECK_OK(cis_gpu_get_info(&info));
  CHECK(info.name[0] && info.sm_count > 0 && info.global_mem > 0, "device info");
  printf("device: %s, %d SMs, %.1f GiB, driver %d, runtime %d\n", info.name, info.sm_count,
         info.global_mem / 1073741824.0, info.driver_version, info.runtime_version);

  /* a request larger than the card */
  before = free_now();
  cis_status st = cis_gpu_alloc_copy(&d, NULL, (size_t)info.global_mem * 2, "a test buffer");
  CHECK(st == CIS_ERR_DEVICE_OOM && d == NULL, "huge alloc: %s", cis_status_name(st));
  CHECK(strstr(cis_last_error(), "a test buffer") && strstr(cis_last_error(), "asked"),
        "message: %s", cis_last_error());
  printf("OOM message: %s\n", cis_last_error());
  CHECK(cis_gpu_malloc(&d, (size_t)info.global_mem + ((size_t)1 << 30)) == CIS_ERR_DEVICE_OOM, "malloc OOM");
  CHECK(free_now() == before, "free memory changed: %lld -> %lld", (long long)before, (long long)free_now());

  check_oom_mid_upload();

  /* the process carries on: a small plan works */
  {
    cis_csr *A = case_random(500, 500, len_uniform, 3);
    cis_matrix *M = NULL;
    cis_gpu_plan *p = NULL;
    CHECK_OK(cis_matrix_create(A, "csr", NULL, &M));
    CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &p));
    CHECK(p && !strcmp(cis_gpu_plan_kernel(p), "csr-vector"), "default csr kernel");
    CHECK(p && check_plan(p, A, CIS_F64, 0.0, 5) <= 1e-12, "small plan after OOM");
    cis_gpu_plan_free(p);
    p = NULL;
    /* bad requests: one clear line each */
    CHECK(cis_gpu_plan_create(M, "csr-magic", 0, &p) == CIS_ERR_NOT_FOUND &&
              strstr(cis_last_error(), "csr-magic") && strstr(cis_last_error(), "csr-scalar"),
          "unknown kernel: %s", cis_last_error());
    CHECK(cis_gpu_plan_create(M, NULL, 2048, &p) == CIS_ERR_INVALID, "block 2048: %s", cis_last_error());
    CHECK_OK(cis_gpu_plan_create(M, "csr-scalar", 48, &p));
    if (p) {
      void *dx = NULL, *dy = NULL;
      cis_gpu_malloc(&dx, 500 * 8);
      cis_gpu_malloc(&dy, 500 * 8);
      CHECK(cis_gpu_spmv(p, 1, dx, 0, dy, NULL) == CIS_ERR_INVALID &&
                strstr(cis_last_error(), "multiple of 32"),
            "block 48: %s", cis_last_error());
      CHECK(cis_gpu_spmv(p, 1, NULL, 0, dy, NULL) == CIS_ERR_INVALID, "NULL x");
      cis_gpu_free(dx);
      cis_gpu_free(dy);
    }
    cis_gpu_plan_free(p);
    CHECK(cis_gpu_plan_create(NULL, NULL, 0, &p) == CIS_ERR_INVALID, "NULL matrix");
    cis_matrix_free(M);
    cis_csr_free(A);
  }

  /* poison helper writes NaN everywhere */
  {
    float h[1000];
    void *dv = NULL;
    CHECK_OK(cis_gpu_malloc(&dv, sizeof h));
    CHECK_OK(bench_fill_nan(dv, CIS_F32, 1000));
    CHECK_OK(cis_gpu_download(h, dv, sizeof h));
    int nan = 0;
    for (int i = 0; i < 1000; ++i) nan += isnan(h[i]) != 0;
    CHECK(nan == 1000, "fill_nan wrote %d of 1000", nan);
    CHECK(cis_gpu_upload(NULL, h, 4) == CIS_ERR_INVALID, "upload NULL");
    cis_gpu_free(dv);
  }
  return test_summary("test_gpu_memory");
}
#endif
