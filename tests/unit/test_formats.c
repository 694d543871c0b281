/* test_formats.c: every compiled-in format, both dtypes and a range of
 * parameters: cis_matrix_spmv equals the CSR reference (cis_csr_spmv) with y
 * poisoned by NaN and beta = 0, and with a random y and beta != 0; x holds
 * NaN in the matrix's empty columns, so a kernel that reads x through a
 * padding slot fails. Byte counts are checked against formulas computed here
 * from the row lengths, and against the paper's equations for ell and hyb. */
#include <string.h>
#include "formats/format_types.h"
#include "format_cases.h"
#include "core/internal.h"

#define MAX_VARIANTS 16

typedef struct {
  cis_format_params p;
  char label[64];
} variant;

static cis_int row_len(const cis_csr *A, cis_int i) { return A->rowptr[i + 1] - A->rowptr[i]; }

static cis_int min_row(const cis_csr *A) {
  cis_int m = A->rows ? row_len(A, 0) : 0;
  for (cis_int i = 1; i < A->rows; ++i) m = row_len(A, i) < m ? row_len(A, i) : m;
  return m;
}

static int add(variant *v, int n, cis_format_params p, const char *fmt, long long a, long long b) {
  v[n].p = p;
  snprintf(v[n].label, sizeof v[n].label, fmt, a, b);
  return n + 1;
}

/* The parameter sets each format is run with on matrix A. */
static int variants(const char *name, const cis_csr *A, cis_dtype t, variant *v) {
  cis_format_params p = cis_format_params_default();
  int n = 0;
  p.dtype = t;
  if (!strcmp(name, "sell") || !strcmp(name, "sellr")) {
    const cis_int S[] = {1, 2, 32, 33, 1024};
    for (int k = 0; k < 5; ++k) p.slice = S[k], n = add(v, n, p, "S=%lld%.0lld", S[k], 0);
  } else if (!strcmp(name, "sellcs")) {
    const cis_int C[] = {1, 2, 4, 32, 32, 33, 1024}, sig[] = {1, 8, 1 << 20, 1, 1024, 66, 1024};
    for (int k = 0; k < 7; ++k) p.slice = C[k], p.sigma = sig[k], n = add(v, n, p, "C=%lld sigma=%lld", C[k], sig[k]);
  } else if (!strcmp(name, "sell16")) {
    const cis_int C[] = {1, 2, 32, 33, 1024, 32}, sig[] = {1, 8, 1, 66, 1024, 1 << 20};
    for (int k = 0; k < 6; ++k) p.slice = C[k], p.sigma = sig[k], n = add(v, n, p, "C=%lld sigma=%lld", C[k], sig[k]);
    if (t == CIS_F64) /* float values under double vectors (checked to float rounding) */
      p.slice = 32, p.sigma = 1024, p.float_values = 1, n = add(v, n, p, "float values C=%lld sigma=%lld", 32, 1024);
  } else if (!strcmp(name, "csb")) {
    const cis_int z[] = {0, 1, 2, 8, 64, 65536};
    for (int k = 0; k < 6; ++k) {
      const cis_int zz = z[k] ? z[k] : 32;
      if (((A->rows + zz - 1) / zz) * ((A->cols + zz - 1) / zz) > 4000000) continue;
      p.block = z[k], n = add(v, n, p, "z=%lld%.0lld", z[k], 0);
    }
  } else if (!strcmp(name, "hyb")) {
    const cis_int mr = min_row(A), maxr = csr_max_row(A, NULL);
    const cis_int count_b[] = {-1, 0, 1, mr, maxr + 5};
    const cis_int col_b[] = {-1, 0, A->cols ? 1 : 0, mr < A->cols ? mr : A->cols, A->cols / 2, A->cols};
    p.boundary_mode = CIS_BOUNDARY_COUNT;
    for (int k = 0; k < 5; ++k) p.boundary = count_b[k], n = add(v, n, p, "count B=%lld%.0lld", count_b[k], 0);
    p.boundary_mode = CIS_BOUNDARY_COLUMN;
    for (int k = 0; k < 6; ++k) p.boundary = col_b[k], n = add(v, n, p, "column B=%lld%.0lld", col_b[k], 0);
  } else {
    n = add(v, n, p, "default%.0lld%.0lld", 0, 0);
  }
  return n;
}

/* ---- byte counts computed independently of the implementation ---------- */

static int by_desc(const void *a, const void *b) {
  const cis_int u = *(const cis_int *)a, w = *(const cis_int *)b;
  return (u < w) - (u > w);
}

/* Slots of sliced ELLPACK: S times the sum of the slice widths, after sorting
 * row lengths by decreasing length inside windows of sigma rows. */
static cis_int sell_slots(const cis_csr *A, cis_int S, cis_int sigma) {
  cis_int *len = malloc((size_t)(A->rows + 1) * sizeof *len), slots = 0;
  for (cis_int i = 0; i < A->rows; ++i) len[i] = row_len(A, i);
  for (cis_int w = 0; sigma > 1 && w < A->rows; w += sigma)
    qsort(len + w, (size_t)(A->rows - w < sigma ? A->rows - w : sigma), sizeof *len, by_desc);
  for (cis_int s = 0; s * S < A->rows; ++s) {
    cis_int width = 0;
    for (cis_int i = s * S; i < A->rows && i < (s + 1) * S; ++i) width = len[i] > width ? len[i] : width;
    slots += S * width;
  }
  free(len);
  return slots;
}

static cis_int hyb_ell_part(const cis_csr *A, const cis_fmt_hyb *F, cis_int i) {
  cis_int e = 0;
  for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
    if (F->mode == CIS_BOUNDARY_COUNT ? e < F->boundary : A->colind[k] < F->boundary) e++;
  return e;
}

static cis_int expected_z(cis_int cols) {
  cis_int best = 32;
  double target = cols > 0 ? log2((double)cols) / 2 : 0;
  for (cis_int z = 64; z <= 65536; z *= 2)
    if (fabs(log2((double)z) - target) <= fabs(log2((double)best) - target)) best = z;
  return best;
}

static void check_bytes(const cis_csr *A, const char *name, const cis_format_params *p, const cis_matrix *M,
                        const char *label) {
  const cis_int vs = p->float_values ? 4 : (cis_int)cis_dtype_size(p->dtype), rows = A->rows, got = cis_matrix_bytes(M);
  const void *impl = cis_matrix_impl(M);
  cis_int want = -1;
  if (!strcmp(name, "csr")) {
    want = A->nnz * (vs + 4) + (rows + 1) * 4;
  } else if (!strcmp(name, "ell") || !strcmp(name, "ellr")) {
    const cis_int maxr = csr_max_row(A, NULL);
    want = rows * maxr * (vs + 4) + (name[3] == 'r' ? rows * 4 : 0);
    if (p->dtype == CIS_F64 && !strcmp(name, "ell"))
      CHECK(got == cis_paper_bytes_ell(rows, maxr), "%s: ell bytes %lld != paper %lld", label, (long long)got,
            (long long)cis_paper_bytes_ell(rows, maxr));
  } else if (!strcmp(name, "sell16")) {
    /* recount from A: each lane (nonzero i of a row in lane i mod lanes)
       starts at its slice's smallest column; a delta <= 65533 is one code,
       a larger one three; the slice's width is lanes x its longest lane */
    const cis_fmt_sell16 *F = impl;
    const cis_int C = p->slice, nslices = (rows + C - 1) / C;
    const int lanes = F->lanes;
    cis_int slots = 0, esc = 0;
    CHECK(lanes >= 1 && (C > 1024 ? lanes == 1 : lanes * C <= 1024), "%s: %d lanes for C = %lld", label, lanes,
          (long long)C);
    for (cis_int s = 0; s < nslices; ++s) {
      cis_idx lo = -1;
      cis_int w = 0;
      for (cis_int q = s * C; q < rows && q < (s + 1) * C; ++q) {
        const cis_int i = F->perm ? F->perm[q] : q;
        for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) lo = lo < 0 || A->colind[k] < lo ? A->colind[k] : lo;
      }
      CHECK(F->base[s] == (lo < 0 ? 0 : lo), "%s: slice %lld base %d, expected %d", label, (long long)s, F->base[s], lo);
      for (cis_int q = s * C; q < rows && q < (s + 1) * C; ++q) {
        const cis_int i = F->perm ? F->perm[q] : q;
        for (int l = 0; l < lanes; ++l) {
          cis_int codes = 0, prev = lo < 0 ? 0 : lo;
          for (cis_int k = A->rowptr[i] + l; k < A->rowptr[i + 1]; k += lanes) {
            const int big = A->colind[k] - prev > 65533;
            codes += big ? 3 : 1, esc += big, prev = A->colind[k];
          }
          w = codes > w ? codes : w;
        }
      }
      slots += C * lanes * w;
    }
    CHECK(F->escapes == esc && (p->sigma > 1) == (F->perm != NULL), "%s: %lld escapes, expected %lld", label,
          (long long)F->escapes, (long long)esc);
    CHECK(A->cols < 1000000 || esc > 0, "%s: columns 50K+ apart and no escape", label); /* the case that needs them */
    want = (nslices + 1) * 8 + nslices * 4 + slots * (vs + 2) + (F->perm ? rows * 4 : 0);
  } else if (!strncmp(name, "sell", 4)) {
    const int cs = !strcmp(name, "sellcs");
    const cis_int S = p->slice, nslices = (rows + S - 1) / S;
    want = (nslices + 1) * 8 + sell_slots(A, S, cs ? p->sigma : 1) * (vs + 4) + (strcmp(name, "sell") ? rows * 4 : 0);
  } else if (!strcmp(name, "csb")) {
    const cis_int z = p->block ? p->block : expected_z(A->cols);
    CHECK(((const cis_fmt_csb *)impl)->z == z, "%s: z = %lld, expected %lld", label,
          (long long)((const cis_fmt_csb *)impl)->z, (long long)z);
    want = (((rows + z - 1) / z) * ((A->cols + z - 1) / z) + 1) * 8 + A->nnz * (vs + 4);
  } else if (!strcmp(name, "hyb")) {
    const cis_fmt_hyb *F = impl;
    cis_int width = 0, ell = 0;
    if (p->boundary >= 0) CHECK(F->boundary == p->boundary, "%s: boundary %lld", label, (long long)F->boundary);
    for (cis_int i = 0; i < rows; ++i) {
      const cis_int e = hyb_ell_part(A, F, i);
      ell += e;
      width = e > width ? e : width;
    }
    CHECK(F->width == width && F->csr_nnz == A->nnz - ell, "%s: width %lld csr_nnz %lld, expected %lld %lld", label,
          (long long)F->width, (long long)F->csr_nnz, (long long)width, (long long)(A->nnz - ell));
    want = 3 * rows * 4 + rows * width * (vs + 4) + (A->nnz - ell) * (vs + 4);
    if (p->dtype == CIS_F64)
      CHECK(got == cis_paper_bytes_hyb(rows, width, A->nnz - ell), "%s: hyb bytes %lld != paper %lld", label,
            (long long)got, (long long)cis_paper_bytes_hyb(rows, width, A->nnz - ell));
  }
  if (want >= 0) CHECK(got == want, "%s: bytes %lld, expected %lld", label, (long long)got, (long long)want);
}

/* sellcs: perm is a permutation, sorted by decreasing length in each window,
 * equal lengths in original order. */
static void check_sellcs_perm(const cis_csr *A, const cis_fmt_sell *F, const char *label) {
  char *seen = calloc((size_t)A->rows + 1, 1);
  int ok = 1;
  for (cis_int pos = 0; pos < A->rows; ++pos) {
    const cis_idx r = F->perm[pos];
    if (r < 0 || r >= A->rows || seen[r]) { ok = 0; break; }
    seen[r] = 1;
    if (pos % F->sigma != 0) {
      const cis_idx q = F->perm[pos - 1];
      if (row_len(A, q) < row_len(A, r) || (row_len(A, q) == row_len(A, r) && q > r)) ok = 0;
    }
  }
  CHECK(ok, "%s: sellcs perm is not a stable decreasing-length sort per window", label);
  free(seen);
}

/* ---- SpMV against the reference ------------------------------------------ */

static void check_spmv(const cis_csr *A, const char *name, const variant *v, const char *mname) {
  const cis_dtype t = v->p.dtype;
  const size_t vs = cis_dtype_size(t);
  char label[256];
  cis_matrix *M = NULL;
  void *x = calloc((size_t)A->cols + 1, vs), *y = calloc((size_t)A->rows + 1, vs);
  void *yref = calloc((size_t)A->rows + 1, vs), *y0 = calloc((size_t)A->rows + 1, vs);
  char *used = calloc((size_t)A->cols + 1, 1);
  snprintf(label, sizeof label, "%s %s %s [%s]", name, cis_dtype_name(t), v->label, mname);
  cis_status st = cis_matrix_create(A, name, &v->p, &M);
  CHECK(st == CIS_OK, "%s: create -> %s: %s", label, cis_status_name(st), cis_last_error());
  if (st != CIS_OK) goto done;
  /* arrange: x random, NaN where no entry reads it; y0 random */
  test_fill_random(x, t, A->cols, 11);
  for (cis_int k = 0; k < A->nnz; ++k) used[A->colind[k]] = 1;
  for (cis_int j = 0; j < A->cols; ++j)
    if (!used[j]) test_fill_nan((char *)x + (size_t)j * vs, t, 1);
  test_fill_random(y0, t, A->rows, 12);
  /* beta = 0 overwrites a poisoned y */
  test_fill_nan(y, t, A->rows);
  test_fill_nan(yref, t, A->rows);
  CHECK_OK(cis_csr_spmv(A, 1.5, x, 0.0, yref));
  CHECK_OK(cis_matrix_spmv(M, 1.5, x, 0.0, y));
  const double tol = v->p.float_values ? 1e-6 : test_tol(t); /* float values: A rounded to float */
  double err = test_rel_err(y, yref, t, A->rows);
  CHECK(err <= tol, "%s: beta=0 rel err %.3g", label, err);
  /* beta != 0 accumulates */
  memcpy(y, y0, (size_t)A->rows * vs);
  memcpy(yref, y0, (size_t)A->rows * vs);
  CHECK_OK(cis_csr_spmv(A, -0.5, x, 0.75, yref));
  CHECK_OK(cis_matrix_spmv(M, -0.5, x, 0.75, y));
  err = test_rel_err(y, yref, t, A->rows);
  CHECK(err <= tol, "%s: beta!=0 rel err %.3g", label, err);
  CHECK(cis_matrix_rows(M) == A->rows && cis_matrix_cols(M) == A->cols && cis_matrix_nnz(M) == A->nnz &&
            cis_matrix_dtype(M) == t && !strcmp(cis_matrix_format_name(M), name),
        "%s: header fields", label);
  check_bytes(A, name, &v->p, M, label);
  if (!strcmp(name, "sellcs")) check_sellcs_perm(A, cis_matrix_impl(M), label);
done:
  cis_matrix_free(M);
  free(x); free(y); free(yref); free(y0); free(used);
}

int main(void) {
  const int nf = cis_format_count();
  variant v[MAX_VARIANTS];
  for (int c = 0; c < FC_NCASES; ++c)
    for (int d = 0; d < 2; ++d) {
      const cis_dtype t = d ? CIS_F32 : CIS_F64;
      cis_csr *A = fc_build(&fc_cases[c], 100 + (unsigned long long)c, t);
      CHECK(A != NULL, "cannot build case %s", fc_cases[c].name);
      if (!A) continue;
      for (int f = 0; f < nf; ++f) {
        const int n = variants(cis_format_name(f), A, t, v);
        for (int k = 0; k < n; ++k) check_spmv(A, cis_format_name(f), &v[k], fc_cases[c].name);
      }
      cis_csr_free(A);
    }
  CHECK(nf >= 8, "only %d formats compiled in", nf);
  { /* float values: sell16 in double only, refused elsewhere with a message */
    cis_csr *A = fc_build(&fc_cases[0], 7, CIS_F64);
    cis_format_params p = cis_format_params_default();
    cis_matrix *M = NULL;
    p.float_values = 1;
    CHECK(A && cis_matrix_create(A, "csr", &p, &M) == CIS_ERR_UNSUPPORTED && !M, "csr with float values accepted");
    CHECK(strstr(cis_last_error(), "sell16") != NULL, "message: %s", cis_last_error());
    p.dtype = CIS_F32;
    CHECK(A && cis_matrix_create(A, "sell16", &p, &M) == CIS_ERR_UNSUPPORTED && !M, "float sell16 with float values "
          "accepted");
    cis_csr_free(A);
  }
  return test_summary("test_formats");
}
