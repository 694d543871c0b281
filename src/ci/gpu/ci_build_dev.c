/* ci_build_dev.c: the CI Hamiltonian built in device memory (kernels in
 * ci_build.cu beside it, a port of src/ci/hamiltonian.c), whole
 * (ci_hamiltonian_gpu, _upper) or a range of rows on the current GPU
 * (ci_hamiltonian_gpu_rows, a part of a distributed matrix): one source,
 * the whole matrix being the range 0..n.
 *
 *   1. upload the integrals (packed as in cis_fcidump) and the space's lookup
 *      arrays (ci_space_view) once;
 *   2. row pointers: the counting pass (rowptr[k+1] = nonzeros of row r0+k)
 *      or the caller's counts uploaded; CUB prefix sum;
 *   3. per chunk of rows (at most CHUNK_NNZ nonzeros): fill pass into a
 *      scratch buffer (never past a row's count: a row whose count was wrong
 *      is reported), then CUB segmented sort of each row by column straight
 *      into the final CSR arrays;
 *   4. the whole matrix's CSR (64-bit row pointers) becomes a csr plan
 *      (kernel csr-vector) through the GPU layer's cis_gpu_plan_from_device_csr
 *      (gpu/gpu_internal.h), or, built as the upper triangle only (J >= I:
 *      about half the bytes), a symmetric plan (cis_gpu_plan_from_device_csr_sym);
 *      a range is handed back as the device CSR itself (cis_gpu_csr).
 * Peak device memory: the CSR + one chunk's scratch and sort buffers + the
 * uploads (a few MB). Everything runs on the legacy default stream of the
 * current device, synchronized before the host reads. */
#include <stdio.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/gpu/ci_build.h"
#include "gpu/gpu_internal.h"

/* Nonzeros per fill/sort chunk: 12 bytes each in scratch (1.5 GiB). */
#define CHUNK_NNZ ((int64_t)1 << 27)

typedef struct build_bufs {
  cis_ci_build_dev d;
  double *h1, *eri;
  uint64_t *astr, *bstr;
  int32_t *atab, *btab, *blist, *dlist, *det_a, *det_b, *rel;
  int64_t *aptr, *rowptr, *h_rowptr;
  cis_idx *col, *tmp_col;
  double *val, *tmp_val;
  int *bad;                     /* a row whose count was wrong (device flag) */
  void *temp;
  size_t temp_bytes;
} build_bufs;

static void bufs_free(build_bufs *b) {
  void *dev[] = {b->h1, b->eri, b->astr, b->bstr, b->atab, b->btab, b->blist, b->dlist, b->det_a, b->det_b,
                 b->rel, b->aptr, b->rowptr, b->col, b->tmp_col, b->val, b->tmp_val, b->bad, b->temp};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; ++k) cis_gpu_free(dev[k]);
  cis_free(b->h_rowptr);
}

/* Device copy of count elements of `elem` bytes (uploads are small; the byte
 * total is not kept). */
static cis_status up(void **d, const void *h, cis_int count, size_t elem, const char *what) {
  cis_int ignored = 0;
  return cis_gpu_upload_array(d, h, count, elem, what, &ignored);
}

static cis_status upload_inputs(const cis_fcidump *F, const cis_ci_space *S, build_bufs *b) {
  cis_status st;
  ci_space_view v;
  ci_space_get_view(S, &v);
  CIS_TRY(up((void **)&b->h1, F->h1, (cis_int)F->norb * F->norb, sizeof(double), "one-electron integrals"));
  CIS_TRY(up((void **)&b->eri, F->eri, F->neri, sizeof(double), "two-electron integrals"));
  CIS_TRY(up((void **)&b->astr, v.astr, v.na, sizeof(uint64_t), "alpha strings"));
  CIS_TRY(up((void **)&b->bstr, v.bstr, v.nb, sizeof(uint64_t), "beta strings"));
  CIS_TRY(up((void **)&b->atab, v.atab, (cis_int)v.amask + 1, sizeof(int32_t), "alpha string table"));
  CIS_TRY(up((void **)&b->btab, v.btab, (cis_int)v.bmask + 1, sizeof(int32_t), "beta string table"));
  CIS_TRY(up((void **)&b->aptr, v.aptr, v.na + 1, sizeof(int64_t), "determinant lists"));
  CIS_TRY(up((void **)&b->blist, v.blist, v.ndet, sizeof(int32_t), "determinant lists"));
  CIS_TRY(up((void **)&b->dlist, v.dlist, v.ndet, sizeof(int32_t), "determinant lists"));
  CIS_TRY(up((void **)&b->det_a, v.det_a, v.ndet, sizeof(int32_t), "determinant strings"));
  CIS_TRY(up((void **)&b->det_b, v.det_b, v.ndet, sizeof(int32_t), "determinant strings"));
  b->d = (cis_ci_build_dev){F->norb, v.ndet, b->h1, b->eri, b->astr, b->bstr, b->atab, b->btab,
                            v.amask, v.bmask, b->aptr, b->blist, b->dlist, b->det_a, b->det_b, 0};
  return CIS_OK;
cleanup:
  return st;
}

/* CUB temporary storage of at least `bytes` (grown, never shrunk). */
static cis_status ensure_temp(build_bufs *b, size_t bytes) {
  return cis_gpu_scratch_grow(&b->temp, &b->temp_bytes, bytes, "CUB temporary storage");
}

/* Step 2: row pointers of rows r0 .. r0+rows-1 on the device and on the
 * host, from the counting pass or from row_nnz[r0 ..] (the caller's counts);
 * nnz. */
static cis_status count_rows(build_bufs *b, cis_int r0, cis_int rows, const cis_int *row_nnz, cis_int *nnz) {
  cis_status st;
  size_t need = 0;
  CIS_TRY(up((void **)&b->rowptr, NULL, rows + 1, sizeof(int64_t), "Hamiltonian row pointers"));
  CIS_CUDA_CHECK(cudaMemset(b->rowptr, 0, sizeof(int64_t)));
  if (row_nnz) {
    for (cis_int k = 0; k < rows; ++k)
      if (row_nnz[r0 + k] < 0)
        return cis_error(CIS_ERR_INVALID, "row %lld: %lld nonzeros counted", (long long)(r0 + k),
                         (long long)row_nnz[r0 + k]);
    CIS_TRY(cis_gpu_upload(b->rowptr + 1, row_nnz + r0, (size_t)rows * sizeof(int64_t)));
  } else {
    CIS_TRY(cis_launch_ci_count(&b->d, r0, rows, b->rowptr + 1, NULL));
  }
  CIS_TRY(cis_launch_ci_scan(NULL, &need, b->rowptr, rows, NULL));
  CIS_TRY(ensure_temp(b, need));
  CIS_TRY(cis_launch_ci_scan(b->temp, &need, b->rowptr, rows, NULL));
  CIS_TRY(cis_alloc_array((void **)&b->h_rowptr, rows + 1, sizeof(int64_t), "Hamiltonian row pointers"));
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(b->h_rowptr, b->rowptr, (size_t)(rows + 1) * sizeof(int64_t)));
  *nnz = b->h_rowptr[rows];
  return CIS_OK;
cleanup:
  return st;
}

/* Step 3: rows r0 + [c0, c1) at a time, each chunk at most CHUNK_NNZ
 * nonzeros (or one row); CIS_ERR_INVALID when a row's count was wrong. */
static cis_status fill_rows(build_bufs *b, cis_int r0, cis_int rows, cis_int nnz) {
  cis_status st;
  int64_t cap = nnz < CHUNK_NNZ ? nnz : CHUNK_NNZ, max_rows = 0;
  int bad = 0;
  for (cis_int k = 0; k < rows; ++k) /* a chunk holds at least one row: room for the longest */
    if (b->h_rowptr[k + 1] - b->h_rowptr[k] > cap) cap = b->h_rowptr[k + 1] - b->h_rowptr[k];
  for (cis_int c0 = 0, c1; c0 < rows; c0 = c1) { /* the longest chunk in rows, to size `rel` */
    for (c1 = c0 + 1; c1 < rows && b->h_rowptr[c1 + 1] - b->h_rowptr[c0] <= cap; ++c1) {}
    if (c1 - c0 > max_rows) max_rows = c1 - c0;
  }
  CIS_TRY(up((void **)&b->rel, NULL, max_rows + 1, sizeof(int32_t), "chunk offsets"));
  CIS_TRY(up((void **)&b->tmp_col, NULL, cap, sizeof(cis_idx), "Hamiltonian chunk columns"));
  CIS_TRY(up((void **)&b->tmp_val, NULL, cap, sizeof(double), "Hamiltonian chunk values"));
  CIS_TRY(up((void **)&b->bad, NULL, 1, sizeof(int), "row check flag"));
  CIS_CUDA_CHECK(cudaMemset(b->bad, 0, sizeof(int)));
  for (cis_int c0 = 0, c1; c0 < rows; c0 = c1) {
    for (c1 = c0 + 1; c1 < rows && b->h_rowptr[c1 + 1] - b->h_rowptr[c0] <= cap; ++c1) {}
    int64_t base = b->h_rowptr[c0], items = b->h_rowptr[c1] - base;
    size_t need = 0;
    CIS_TRY(cis_launch_ci_chunk_offsets(b->rowptr, c0, c1 - c0, b->rel, NULL));
    CIS_TRY(cis_launch_ci_fill(&b->d, r0 + c0, c1 - c0, b->rel, b->tmp_col, b->tmp_val, b->bad, NULL));
    if (items == 0) continue; /* rows of no entries: nothing to sort */
    CIS_TRY(cis_launch_ci_sort_rows(NULL, &need, items, c1 - c0, b->rel, b->tmp_col, b->col + base,
                                    b->tmp_val, b->val + base, NULL));
    CIS_TRY(ensure_temp(b, need));
    CIS_TRY(cis_launch_ci_sort_rows(b->temp, &need, items, c1 - c0, b->rel, b->tmp_col, b->col + base,
                                    b->tmp_val, b->val + base, NULL));
  }
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(&bad, b->bad, sizeof bad));
  if (bad)
    return cis_error(CIS_ERR_INVALID, "rows %lld..%lld: a row's nonzeros differ from its count (counts of another "
                     "space, integrals or triangle?)", (long long)r0, (long long)(r0 + rows - 1));
  return CIS_OK;
cleanup:
  return st;
}

/* The checks and uploads every device build starts with. */
static cis_status build_setup(const cis_fcidump *F, const cis_ci_space *S, int upper, const char *who, build_bufs *b) {
  char why[160];
  cis_status st;
  if (!F || !S) return cis_error(CIS_ERR_INVALID, "%s: NULL integrals or space", who);
  if (ci_space_words(S) != 1) /* the device kernels keep one-word strings */
    return cis_error(CIS_ERR_UNSUPPORTED, "GPU Hamiltonian build: NORB = %d > %d; build on the host (cis_ci_hamiltonian)",
                     F->norb, CIS_CI_DIRECT_MAX_ORB);
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  if ((st = upload_inputs(F, S, b)) != CIS_OK) return st;
  b->d.upper = upper;
  return CIS_OK;
}

/* Rows r0..r1-1 into b->rowptr / col / val (steps 1-3). */
static cis_status build_range(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                              const cis_int *row_nnz, const char *who, build_bufs *b, cis_int *nnz) {
  cis_status st;
  const cis_int n = S ? ci_space_size(S) : 0;
  CIS_TRY(build_setup(F, S, upper, who, b));
  if (r0 < 0 || r1 < r0 || r1 > n)
    return cis_error(CIS_ERR_INVALID, "%s: rows %lld..%lld outside the space's 0..%lld", who, (long long)r0,
                     (long long)r1 - 1, (long long)n - 1);
  CIS_TRY(count_rows(b, r0, r1 - r0, row_nnz, nnz));
  CIS_TRY(up((void **)&b->col, NULL, *nnz, sizeof(cis_idx), "Hamiltonian columns"));
  CIS_TRY(up((void **)&b->val, NULL, *nnz, sizeof(double), "Hamiltonian values"));
  CIS_TRY(fill_rows(b, r0, r1 - r0, *nnz));
  return CIS_OK;
cleanup:
  return st;
}

/* Both whole builds: upper = 0 full (a csr plan), 1 the upper triangle (a
 * symmetric plan running `kernel`). */
static cis_status build(const cis_fcidump *F, const cis_ci_space *S, int upper, const char *kernel,
                        cis_gpu_plan **out, cis_int *nnz_out) {
  cis_status st;
  build_bufs b;
  cis_int rows, nnz = 0;
  memset(&b, 0, sizeof b);
  if (!out) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_gpu: NULL output");
  *out = NULL;
  CIS_TRY(build_range(F, S, 0, S ? ci_space_size(S) : 0, upper, NULL, "ci_hamiltonian_gpu", &b, &nnz));
  rows = ci_space_size(S);
  st = upper ? cis_gpu_plan_from_device_csr_sym(rows, nnz, CIS_F64, b.rowptr, b.col, b.val, kernel, out)
             : cis_gpu_plan_from_device_csr(rows, rows, nnz, CIS_F64, b.rowptr, b.col, b.val, out);
  b.rowptr = NULL; /* now owned by the plan (or freed by the call) */
  b.col = NULL;
  b.val = NULL;
  bufs_free(&b);
  if (st == CIS_OK && nnz_out) *nnz_out = nnz;
  return st;
cleanup:
  bufs_free(&b);
  return st;
}

cis_status ci_hamiltonian_gpu(const cis_fcidump *F, const cis_ci_space *S, cis_gpu_plan **out, cis_int *nnz_out) {
  return build(F, S, 0, NULL, out, nnz_out);
}

cis_status ci_hamiltonian_gpu_upper(const cis_fcidump *F, const cis_ci_space *S, const char *kernel,
                                        cis_gpu_plan **out, cis_int *nnz_out) {
  return build(F, S, 1, kernel, out, nnz_out);
}

cis_status ci_hamiltonian_gpu_rows(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                                       const cis_int *row_nnz, cis_gpu_csr *out) {
  cis_status st;
  build_bufs b;
  cis_int nnz = 0;
  memset(&b, 0, sizeof b);
  if (!out) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_gpu_rows: NULL output");
  memset(out, 0, sizeof *out);
  CIS_TRY(build_range(F, S, r0, r1, upper, row_nnz, "ci_hamiltonian_gpu_rows", &b, &nnz));
  *out = (cis_gpu_csr){r1 - r0, ci_space_size(S), nnz, CIS_F64, b.rowptr, b.col, b.val};
  b.rowptr = NULL; /* now the caller's */
  b.col = NULL;
  b.val = NULL;
  st = CIS_OK;
cleanup:
  bufs_free(&b);
  return st;
}

cis_status ci_hamiltonian_gpu_row_nnz(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1,
                                          int upper, cis_int *row_nnz) {
  cis_status st;
  build_bufs b;
  const char *who = "ci_hamiltonian_gpu_row_nnz";
  memset(&b, 0, sizeof b);
  if (!row_nnz) return cis_error(CIS_ERR_INVALID, "%s: NULL output", who);
  CIS_TRY(build_setup(F, S, upper, who, &b));
  if (r0 < 0 || r1 < r0 || r1 > ci_space_size(S))
    CIS_TRY(cis_error(CIS_ERR_INVALID, "%s: rows %lld..%lld outside the space's 0..%lld", who, (long long)r0,
                      (long long)r1 - 1, (long long)ci_space_size(S) - 1));
  CIS_TRY(up((void **)&b.rowptr, NULL, r1 - r0 + 1, sizeof(int64_t), "row counts"));
  CIS_TRY(cis_launch_ci_count(&b.d, r0, r1 - r0, b.rowptr, NULL));
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(row_nnz + r0, b.rowptr, (size_t)(r1 - r0) * sizeof(int64_t)));
  st = CIS_OK;
cleanup:
  bufs_free(&b);
  return st;
}
