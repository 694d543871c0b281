/* bench_spmm.c: the parts of `cisparse bench` for symmetric storage and
 * several vectors per pass:
 *  - a matrix given as an FCIDUMP file: its full-CI Hamiltonian built on the
 *    host (cis_ci_hamiltonian), so the bench runs on the matrix users run;
 *  - --symmetric: whether each symmetric kernel gives the same bits on
 *    repeated products (run-to-run determinism), printed after the table;
 *  - --spmm K: cis_gpu_spmm on csr (and the symmetric csr) for k = 1, 2, 4,
 *    8, 16 <= K (and K), row- and column-major, beside cuSPARSE SpMM
 *    (CSR_ALG2 and ALG3 row-major, ALG1 column-major) in the same run:
 *    median ms, ms per vector, per-vector time / one SpMV of the same
 *    storage, relative error against the CPU reference (cis_csr_spmm). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/bench_spmm.h"

cis_status cli_bench_fcidump(const char *path, cis_csr **A) {
  cis_status st;
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  uint64_t ra, rb;
  *A = NULL;
  CIS_TRY(cis_fcidump_read(path, &F));
  if (cis_ci_find_reference(F, &ra, &rb) != CIS_OK) { /* full CI: any determinant spans it */
    int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
    ra = na >= 64 ? ~0ull : (1ull << na) - 1;
    rb = nb >= 64 ? ~0ull : (1ull << nb) - 1;
  }
  CIS_TRY(cis_ci_space_create(F, -1, ra, rb, &S));
  double t0 = cis_wtime();
  CIS_TRY(cis_ci_hamiltonian(F, S, 0, A));
  printf("FCIDUMP %s: full-CI Hamiltonian, %lld determinants, %lld nonzeros, built on the host in %.1f s\n", path,
         (long long)(*A)->rows, (long long)(*A)->nnz, cis_wtime() - t0);
cleanup:
  cis_ci_space_free(S);
  cis_fcidump_free(F);
  return st;
}

/* How many of n values differ bitwise between a and b. */
static cis_int differ(const void *a, const void *b, cis_int n, size_t vs) {
  cis_int d = 0;
  for (cis_int i = 0; i < n; ++i) d += memcmp((const char *)a + i * vs, (const char *)b + i * vs, vs) != 0;
  return d;
}

const char *const cli_sym_kernels[CLI_SYM_KERNELS] = {"csr-sym", "csr-sym-det", "csr-sym-win", "sym-seg"};

void cli_bench_determinism(const cis_csr *U, cis_dtype t, const void *d_x, void *d_y) {
  const char *const *kernels = cli_sym_kernels;
  size_t vs = cis_dtype_size(t), ny = vs * (size_t)U->rows;
  void *y0 = malloc(ny + 1), *y1 = malloc(ny + 1);
  for (int k = 0; k < CLI_SYM_KERNELS && y0 && y1; ++k) {
    cis_gpu_plan *p = NULL;
    cis_int worst = 0;
    cis_status st = cis_gpu_plan_create_symmetric(U, kernels[k], 0, &p);
    for (int r = 0; st == CIS_OK && r < 6; ++r) {
      st = cis_gpu_spmv(p, 1.0, d_x, 0.0, d_y, NULL);
      if (st == CIS_OK) st = cis_gpu_sync();
      if (st == CIS_OK) st = cis_gpu_download(r ? y1 : y0, d_y, ny);
      if (st == CIS_OK && r) {
        cis_int d = differ(y0, y1, U->rows, vs);
        if (d > worst) worst = d;
      }
    }
    if (st == CIS_OK)
      printf("determinism   %-12s 6 products: at most %lld of %lld entries of y differ bitwise from the first\n",
             kernels[k], (long long)worst, (long long)U->rows);
    else
      printf("determinism   %-12s not run: %s\n", kernels[k], cis_last_error());
    cis_gpu_plan_free(p);
  }
  free(y0);
  free(y1);
}

/* X(j, c) = sin(0.7 j + 0.3 + 1.1 c) in the layout (ld = k or n). */
static void fill_block(void *X, cis_dtype t, cis_int n, int k, cis_layout lay) {
  for (cis_int j = 0; j < n; ++j)
    for (int c = 0; c < k; ++c)
      cis_set(X, t, lay == CIS_COL_MAJOR ? c * n + j : j * k + c, sin(0.7 * (double)j + 0.3 + 1.1 * c));
}

/* Relative error (2-norm over the block) of Y (device, t, layout) against
 * ref (host double, column c at c*rows). */
static double block_err(const void *d_Y, cis_dtype t, cis_int rows, int k, cis_layout lay, const double *ref,
                        void *h) {
  double num = 0, den = 0;
  if (cis_gpu_download(h, d_Y, cis_dtype_size(t) * (size_t)rows * (size_t)k) != CIS_OK) return INFINITY;
  for (int c = 0; c < k; ++c)
    for (cis_int i = 0; i < rows; ++i) {
      double u = cis_get(h, t, lay == CIS_COL_MAJOR ? c * rows + i : i * k + c), r = ref[(size_t)c * rows + i];
      if (!isfinite(u)) return INFINITY;
      num += (u - r) * (u - r);
      den += r * r;
    }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

typedef struct mm_case {
  const char *label;
  int sym;          /* 0: csr plan, 1: symmetric plan, 2: cuSPARSE */
  const char *alg;  /* cuSPARSE algorithm */
  cis_layout lay;
} mm_case;

cis_status cli_bench_spmm(const cis_csr *A, const cis_csr *U, cis_dtype t, int kmax, int warmup, int runs) {
  cis_status st = CIS_OK;
  const mm_case cases[] = {{"csr row-major", 0, NULL, CIS_ROW_MAJOR},     {"csr col-major", 0, NULL, CIS_COL_MAJOR},
                           {"csr-sym row-major", 1, NULL, CIS_ROW_MAJOR}, {"csr-sym col-major", 1, NULL, CIS_COL_MAJOR},
                           {"cusparse csr-alg2 row", 2, "csr-alg2", CIS_ROW_MAJOR},
                           {"cusparse csr-alg3 row", 2, "csr-alg3", CIS_ROW_MAJOR},
                           {"cusparse csr-alg1 col", 2, "csr-alg1", CIS_COL_MAJOR}};
  int ks[8], nk = 0;
  cis_matrix *M = NULL;
  cis_gpu_plan *pc = NULL, *ps = NULL;
  bench_cusparse_mm *cm = NULL;
  cis_csr *A64 = NULL;
  void *hX = NULL, *hY = NULL, *dX = NULL, *dY = NULL;
  double *ref = NULL, *xcol = NULL, spmv_ms[2] = {0, 0};
  const size_t vs = cis_dtype_size(t);
  const cis_int n = A->rows;
  cis_format_params fp = cis_format_params_default();
  fp.dtype = t;
  for (int k = 1; k <= kmax && k <= 16; k *= 2) ks[nk++] = k;
  if (ks[nk - 1] != kmax && kmax <= 16) ks[nk++] = kmax;
  /* the CPU reference for the widest block, in double */
  CIS_TRY(cis_csr_copy(A, CIS_F64, &A64));
  if (!(ref = malloc(sizeof(double) * (size_t)n * (size_t)kmax + 8)) || !(xcol = malloc(sizeof(double) * (size_t)n + 8)) ||
      !(hX = malloc(vs * (size_t)n * (size_t)kmax + 8)) || !(hY = malloc(vs * (size_t)n * (size_t)kmax + 8))) {
    st = cis_error(CIS_ERR_ALLOC, "bench --spmm: cannot allocate %d host vectors of %lld", kmax, (long long)n);
    goto cleanup;
  }
  for (int c = 0; c < kmax; ++c) {
    for (cis_int j = 0; j < n; ++j) { /* the value the device sees, in t */
      double v = sin(0.7 * (double)j + 0.3 + 1.1 * c);
      xcol[j] = t == CIS_F64 ? v : (double)(float)v;
    }
    CIS_TRY(cis_csr_spmv(A64, 1.0, xcol, 0.0, ref + (size_t)c * n));
  }
  CIS_TRY(cis_gpu_malloc(&dX, vs * (size_t)n * (size_t)kmax + 8));
  CIS_TRY(cis_gpu_malloc(&dY, vs * (size_t)n * (size_t)kmax + 8));
  CIS_TRY(cis_matrix_create(A, "csr", &fp, &M));
  CIS_TRY(cis_gpu_plan_create(M, "csr-vector", 0, &pc));
  if (U) CIS_TRY(cis_gpu_plan_create_symmetric(U, "csr-sym", 0, &ps));
  if (bench_cusparse_mm_create(A, t, &cm) != CIS_OK)
    printf("cuSPARSE SpMM baseline not run: %s\n", cis_last_error());
  /* one SpMV of each storage: the yardstick of the per-vector times */
  fill_block(hX, t, n, 1, CIS_ROW_MAJOR);
  CIS_TRY(cis_gpu_upload(dX, hX, vs * (size_t)n));
  CIS_TRY(bench_time_spmv(pc, dX, 0.0, dY, warmup, runs, &spmv_ms[0]));
  if (ps) CIS_TRY(bench_time_spmv(ps, dX, 0.0, dY, warmup, runs, &spmv_ms[1]));
  printf("\nSpMM: Y = A*X for k vectors (median of %d runs after %d warm-up; per-vector time / one SpMV of the\n"
         "same storage: csr-vector %.4f ms", runs, warmup, spmv_ms[0]);
  if (ps) printf(", csr-sym %.4f ms", spmv_ms[1]);
  printf("; cuSPARSE rows against csr-vector)\n");
  printf("%-24s %3s %10s %12s %10s %10s\n", "kernel", "k", "ms", "ms/vector", "vs SpMV", "rel err");
  for (int ik = 0; ik < nk; ++ik) {
    int k = ks[ik];
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ++ci) {
      const mm_case *m = &cases[ci];
      double ms = 0, err;
      cis_int ld = m->lay == CIS_COL_MAJOR ? n : k;
      if ((m->sym == 1 && !ps) || (m->sym == 2 && !cm)) continue;
      fill_block(hX, t, n, k, m->lay);
      if ((st = cis_gpu_upload(dX, hX, vs * (size_t)n * (size_t)k)) != CIS_OK) goto cleanup;
      if ((st = bench_fill_nan(dY, t, n * k)) != CIS_OK) goto cleanup;
      if (m->sym == 2) {
        st = bench_cusparse_mm_time(cm, m->alg, k, m->lay, dX, dY, warmup, runs, &ms);
      } else {
        cis_gpu_plan *p = m->sym ? ps : pc;
        st = bench_time_spmm(p, k, dX, ld, dY, ld, m->lay, warmup, runs, &ms);
        if (st == CIS_OK) st = bench_fill_nan(dY, t, n * k);
        if (st == CIS_OK) st = cis_gpu_spmm(p, k, 1.0, dX, ld, 0.0, dY, ld, m->lay, NULL);
        if (st == CIS_OK) st = cis_gpu_sync();
      }
      if (st != CIS_OK) {
        printf("%-24s %3d not run: %s\n", m->label, k, cis_last_error());
        st = CIS_OK;
        continue;
      }
      err = block_err(dY, t, n, k, m->lay, ref, hY);
      printf("%-24s %3d %10.4f %12.4f %10.3f %10.2e\n", m->label, k, ms, ms / k,
             ms / k / spmv_ms[m->sym == 1 ? 1 : 0], err);
    }
  }
cleanup:
  cis_gpu_plan_free(pc);
  cis_gpu_plan_free(ps);
  bench_cusparse_mm_free(cm);
  cis_matrix_free(M);
  cis_csr_free(A64);
  cis_gpu_free(dX);
  cis_gpu_free(dY);
  free(ref);
  free(xcol);
  free(hX);
  free(hY);
  return st;
}
