/* gen_build.c: the two-pass generator driver. Pass 1 draws every row's
 * length, the prefix sum gives the exact nnz (checked against memory), then
 * pass 2 redraws each row from the same per-row stream and fills it in
 * place. Never a COO or a resize, so 10^9 nonzeros cost exactly their CSR. */
#include <omp.h>
#include <string.h>
#include "gen/gen_internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Refuse `bytes` (a double so that an estimate cannot overflow) when it
 * exceeds this machine's memory. */
static cis_status check_memory(const gen_def *d, double bytes, double nnz, const char *how) {
  int64_t phys = cis_phys_memory();
  if (bytes >= 9.2e18)
    return cis_error(CIS_ERR_OVERFLOW, "%s: %s %.4g nonzeros need more than 2^63 bytes", d->kind,
                     how, nnz);
  if (phys > 0 && bytes > (double)phys)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%s: %s %.4g nonzeros need %.1f GiB, this machine has %.1f GiB of memory",
                     d->kind, how, nnz, bytes / GIB, (double)phys / GIB);
  return CIS_OK;
}

static void free_ws(gen_ws *ws, int n) {
  if (!ws) return;
  for (int i = 0; i < n; ++i) {
    cis_free(ws[i].bits);
    cis_free(ws[i].hash);
    cis_free(ws[i].val);
  }
  cis_free(ws);
}

/* One scratch per thread: a bitmap over the columns when that is no bigger
 * than 2 MiB or than a hash set for the longest row would be, else the set. */
static cis_status alloc_ws(const gen_def *d, int64_t maxlen, int n, gen_ws **out) {
  cis_status st = CIS_OK;
  gen_ws *ws = NULL;
  int64_t hcap = 16;
  while (hcap < 2 * maxlen) hcap *= 2;
  int use_bits = d->cols / 8 <= (1 << 21) || d->cols / 8 <= hcap * 8;
  CIS_TRY(cis_alloc_zeroed((void **)&ws, n, sizeof *ws, "generator workspace"));
  for (int i = 0; i < n; ++i) {
    if (use_bits) {
      CIS_TRY(cis_alloc_zeroed((void **)&ws[i].bits, (d->cols + 63) / 64, 8, "generator bitmap"));
    } else {
      CIS_TRY(cis_alloc_zeroed((void **)&ws[i].hash, hcap, 8, "generator hash set"));
      ws[i].hcap = hcap;
      ws[i].hgen = 1;
    }
    CIS_TRY(cis_alloc_array((void **)&ws[i].val, maxlen > 0 ? maxlen : 1, sizeof(double),
                            "generator row values"));
  }
  *out = ws;
  return CIS_OK;
cleanup:
  free_ws(ws, n);
  return st;
}

cis_status gen_build(const gen_def *d, cis_dtype t, cis_csr **out) {
  cis_status st = CIS_OK;
  cis_int *len = NULL, nnz = 0, maxlen = 0;
  cis_csr *A = NULL;
  gen_ws *ws = NULL;
  const int nthr = omp_get_max_threads();
  const double per_nnz = (double)(sizeof(cis_idx) + cis_dtype_size(t));
  const double row_bytes = 2.0 * (double)(d->rows + 1) * sizeof(cis_int);
  *out = NULL;
  if (d->rows > CIS_IDX_MAX || d->cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld x %lld: rows and columns must be below 2^31",
                     d->kind, (long long)d->rows, (long long)d->cols);
  CIS_TRY(check_memory(d, d->expected_nnz * per_nnz + row_bytes, d->expected_nnz, "about"));

  /* pass 1: row lengths into len[1..rows] */
  CIS_TRY(cis_alloc_array((void **)&len, d->rows + 1, sizeof(cis_int), "generator row lengths"));
  len[0] = 0;
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < d->rows; ++i) {
    gen_rng r = gen_rng_row(d->seed, (uint64_t)i);
    len[i + 1] = d->row_len(d->g, i, &r);
  }
  for (cis_int i = 0; i < d->rows; ++i) {
    if (len[i + 1] > maxlen) maxlen = len[i + 1];
    len[i + 1] += len[i];
  }
  nnz = len[d->rows];
  CIS_TRY(check_memory(d, (double)nnz * per_nnz + row_bytes, (double)nnz, "its"));

  /* pass 2: the same streams again, now filling */
  CIS_TRY(cis_csr_alloc(d->rows, d->cols, nnz, t, &A));
  memcpy(A->rowptr, len, (size_t)(d->rows + 1) * sizeof(cis_int));
  CIS_TRY(alloc_ws(d, maxlen, nthr, &ws));
#pragma omp parallel num_threads(nthr)
  {
    gen_ws *w = &ws[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 64)
    for (cis_int i = 0; i < d->rows; ++i) {
      gen_rng r = gen_rng_row(d->seed, (uint64_t)i);
      cis_int b = A->rowptr[i], n = A->rowptr[i + 1] - b;
      (void)d->row_len(d->g, i, &r);
      d->fill_row(d->g, i, n, &r, A->colind + b, w->val, w);
      CIS_FOR_DTYPE(t, {
        REAL *v = (REAL *)A->val + b;
        for (cis_int k = 0; k < n; ++k) v[k] = (REAL)w->val[k];
      });
    }
  }
  *out = A;
  A = NULL;
cleanup:
  free_ws(ws, nthr);
  cis_free(len);
  cis_csr_free(A);
  return st;
}
