/* pspace.c: Davidson guess vectors from a P-space, as PySCF's fci pspace
 * and Psi4 detci's H0 block do (and Knowles & Handy, Comput. Phys. Commun.
 * 54, 75 (1989), §3): the determinants with the lowest diagonal elements,
 * H among them by the Slater-Condon rules, diagonalised exactly; its lowest
 * eigenvectors, zero outside the P-space, start Davidson. A single
 * determinant is a bad guess when the lowest diagonal element belongs to an
 * open-shell determinant of another spatial symmetry (C2/STO-3G without
 * ORBSYM): the P-space eigenvectors are already the right states' leading
 * parts.
 *
 * Dense eigensolver: Householder tridiagonalisation and the implicit QL
 * method (EISPACK tred2/tql2; Wilkinson & Reinsch, Handbook for Automatic
 * Computation II (1971), contributions II/2 and II/3, in the form of the
 * public-domain JAMA package). */
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

/* Symmetric n x n a (row-major, overwritten by the eigenvectors: column j
 * of a = vector of w[j]); w ascending. e: n doubles of workspace.
 * A(i, j) addresses V column-major (the input is symmetric, so it is the
 * same matrix): every inner loop of tred2 and tql2 runs down a column of A,
 * contiguous in memory (3-6x faster at n = 400 than rows of stride n); the
 * eigenvectors, rows of V at the end, are transposed into columns. */
/* sum a[k] b[k] over len (four partial sums, so that it vectorises without
 * reassociation flags), and, when e is not NULL, e[k] += f a[k]. */
static double dot_axpy(const double *restrict a, const double *restrict b, double *restrict e, int len, double f) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int k = 0;
  for (; k + 4 <= len; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < len; ++k) s0 += a[k] * b[k];
  if (e)
    for (k = 0; k < len; ++k) e[k] += f * a[k];
  return (s0 + s1) + (s2 + s3);
}

/* y[k] += f x[k]. */
static void axpy(double *restrict y, const double *restrict x, int len, double f) {
  for (int k = 0; k < len; ++k) y[k] += f * x[k];
}

/* The Givens rotation of tql2 on two contiguous columns (vectorised). */
static void rotate(double *restrict u, double *restrict v, int n, double c, double s) {
  for (int k = 0; k < n; ++k) {
    const double h = v[k];
    v[k] = s * u[k] + c * h;
    u[k] = c * u[k] - s * h;
  }
}

static void dense_eigh(double *V, int n, double *d, double *e) {
#define A(i, j) V[(size_t)(j) * (size_t)n + (size_t)(i)]
  if (n == 1) { d[0] = A(0, 0); A(0, 0) = 1; return; }
  /* tred2: V <- Q with Q^T A Q tridiagonal (d diagonal, e subdiagonal) */
  for (int j = 0; j < n; ++j) d[j] = A(n - 1, j);
  for (int i = n - 1; i > 0; --i) {
    double scale = 0, h = 0;
    for (int k = 0; k < i; ++k) scale += fabs(d[k]);
    if (scale == 0) {
      e[i] = d[i - 1];
      for (int j = 0; j < i; ++j) { d[j] = A(i - 1, j); A(i, j) = 0; A(j, i) = 0; }
    } else {
      for (int k = 0; k < i; ++k) { d[k] /= scale; h += d[k] * d[k]; }
      double f = d[i - 1], g = sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (int j = 0; j < i; ++j) e[j] = 0;
      for (int j = 0; j < i; ++j) {
        f = d[j];
        A(j, i) = f;
        e[j] += A(j, j) * f + dot_axpy(&A(j + 1, j), d + j + 1, e + j + 1, i - 1 - j, f);
      }
      f = 0;
      for (int j = 0; j < i; ++j) { e[j] /= h; f += e[j] * d[j]; }
      double hh = f / (h + h);
      for (int j = 0; j < i; ++j) e[j] -= hh * d[j];
      for (int j = 0; j < i; ++j) {
        f = d[j];
        g = e[j];
        for (int k = j; k <= i - 1; ++k) A(k, j) -= (f * e[k] + g * d[k]);
        d[j] = A(i - 1, j);
        A(i, j) = 0;
      }
    }
    d[i] = h;
  }
  for (int i = 0; i < n - 1; ++i) { /* accumulate the transformations */
    A(n - 1, i) = A(i, i);
    A(i, i) = 1;
    double h = d[i + 1];
    if (h != 0) {
      for (int k = 0; k <= i; ++k) d[k] = A(k, i + 1) / h;
      for (int j = 0; j <= i; ++j) {
        const double g = dot_axpy(&A(0, i + 1), &A(0, j), NULL, i + 1, 0.0);
        axpy(&A(0, j), d, i + 1, -g);
      }
    }
    for (int k = 0; k <= i; ++k) A(k, i + 1) = 0;
  }
  for (int j = 0; j < n; ++j) { d[j] = A(n - 1, j); A(n - 1, j) = 0; }
  A(n - 1, n - 1) = 1;
  e[0] = 0;
  /* tql2: implicit QL on the tridiagonal matrix, rotations applied to V */
  for (int i = 1; i < n; ++i) e[i - 1] = e[i];
  e[n - 1] = 0;
  double f = 0, tst1 = 0, eps = ldexp(1.0, -52);
  for (int l = 0; l < n; ++l) {
    tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
    int m = l;
    while (m < n - 1 && fabs(e[m]) > eps * tst1) m++;
    if (m > l) {
      int iter = 0;
      do {
        double g = d[l], p = (d[l + 1] - g) / (2 * e[l]), r = hypot(p, 1.0);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        double dl1 = d[l + 1], h = g - d[l];
        for (int i = l + 2; i < n; ++i) d[i] -= h;
        f += h;
        p = d[m];
        double c = 1, c2 = 1, c3 = 1, el1 = e[l + 1], s = 0, s2 = 0;
        for (int i = m - 1; i >= l; --i) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          rotate(&A(0, i), &A(0, i + 1), n, c, s);
        }
        p = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (fabs(e[l]) > eps * tst1 && ++iter < 100);
    }
    d[l] += f;
    e[l] = 0;
  }
  for (int i = 0; i < n - 1; ++i) { /* sort ascending */
    int k = i;
    for (int j = i + 1; j < n; ++j) if (d[j] < d[k]) k = j;
    if (k == i) continue;
    double t = d[i]; d[i] = d[k]; d[k] = t;
    for (int j = 0; j < n; ++j) { t = A(j, i); A(j, i) = A(j, k); A(j, k) = t; }
  }
  for (int i = 0; i < n; ++i) /* column-major -> row-major: vector j in column j */
    for (int j = i + 1; j < n; ++j) { double t = A(i, j); A(i, j) = A(j, i); A(j, i) = t; }
#undef A
}

cis_status ci_dense_eigh(double *a, int n, double *w) {
  double *e = NULL;
  if (!a || !w || n < 1) return cis_error(CIS_ERR_INVALID, "ci_dense_eigh: NULL argument or n < 1");
  cis_status st = cis_alloc_array((void **)&e, n, sizeof(double), "eigensolver workspace");
  if (st != CIS_OK) return st;
  dense_eigh(a, n, w, e);
  cis_free(e);
  for (int i = 0; i < n; ++i)
    if (!isfinite(w[i])) return cis_error(CIS_ERR_NUMERIC, "ci_dense_eigh: eigenvalue %d is not finite", i);
  return CIS_OK;
}

#ifdef CISPARSE_HAVE_LAPACK
/* LAPACK (from the BLAS library found at configure time, LP64). */
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a, const int *lda,
             const double *vl, const double *vu, const int *il, const int *iu, const double *abstol, int *m, double *w,
             double *z, const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork, const int *liwork,
             int *info);
#endif

/* The nvec lowest eigenpairs of the symmetric m x m matrix H (destroyed):
 * w[0..nvec) ascending, vector v in Z[v*m .. v*m + m). With LAPACK, dsyevr
 * for those nvec only (Dhillon, Parlett, Voemel: MRRR, ACM TOMS 32, 533
 * (2006); after the tridiagonal reduction, O(m nvec) instead of the O(m^3)
 * of accumulating every vector: the P-space of 400 in a few ms); else the
 * built-in tred2/tql2 for all of them. w: m doubles of room. */
static cis_status lowest_eigh(double *H, int m, int nvec, double *w, double *Z) {
#ifdef CISPARSE_HAVE_LAPACK
  cis_status st;
  int found = 0, info = 0, lwork = -1, liwork = -1, iwq = 0, *iwork = NULL, *isuppz = NULL;
  double wq = 0, *work = NULL;
  const int one = 1;
  const double zero = 0.0;
  /* workspace query, then the call */
  dsyevr_("V", "I", "L", &m, H, &m, &zero, &zero, &one, &nvec, &zero, &found, w, Z, &m, NULL, &wq, &lwork, &iwq,
          &liwork, &info);
  if (info != 0) return cis_error(CIS_ERR_NUMERIC, "P-space eigensolver: dsyevr workspace query failed (info %d)", info);
  lwork = (int)wq + 1;
  liwork = iwq;
  CIS_TRY(cis_alloc_array((void **)&work, lwork, sizeof(double), "P-space eigensolver workspace"));
  CIS_TRY(cis_alloc_array((void **)&iwork, liwork, sizeof(int), "P-space eigensolver workspace"));
  CIS_TRY(cis_alloc_array((void **)&isuppz, 2 * nvec, sizeof(int), "P-space eigensolver workspace"));
  dsyevr_("V", "I", "L", &m, H, &m, &zero, &zero, &one, &nvec, &zero, &found, w, Z, &m, isuppz, work, &lwork, iwork,
          &liwork, &info);
  if (info != 0 || found != nvec)
    st = cis_error(CIS_ERR_NUMERIC, "P-space eigensolver: dsyevr failed (info %d, %d of %d vectors)", info, found, nvec);
  for (int v = 0; st == CIS_OK && v < nvec; ++v)
    if (!isfinite(w[v])) st = cis_error(CIS_ERR_NUMERIC, "P-space eigensolver: eigenvalue %d is not finite", v);
cleanup:
  cis_free(work);
  cis_free(iwork);
  cis_free(isuppz);
  return st;
#else
  cis_status st = ci_dense_eigh(H, m, w); /* column v of row-major H = vector of w[v] */
  if (st != CIS_OK) return st;
  for (int v = 0; v < nvec; ++v)
    for (int i = 0; i < m; ++i) Z[(size_t)v * m + i] = H[(size_t)i * m + v];
  return CIS_OK;
#endif
}

typedef struct pick_t { double d; cis_int i; } pick_t;
/* By diagonal element, then index (a total order: the P-space is reproducible). */
static int cmp_pick(const void *x, const void *y) {
  const pick_t *a = x, *b = y;
  return a->d < b->d ? -1 : a->d > b->d ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* Determinant i of a space (stored or direct ordering); sym_only: only
 * determinants of symmetry ISYM may enter (a direct space holds all). */
typedef struct det_src {
  const cis_ci_space *S;
  const cis_ci_direct *D;
  int sym_only;
  int compact; /* D's compact vectors (ISYM determinants only) */
} det_src;
static void src_det(const det_src *d, cis_int i, ci_bits *a, ci_bits *b) {
  if (d->S) {
    ci_space_det_bits(d->S, i, a, b);
  } else {
    uint64_t a1, b1;
    if (d->compact) ci_direct_compact_det(d->D, i, &a1, &b1);
    else cis_ci_direct_det(d->D, i, &a1, &b1);
    *a = cis_ci_bits_from_u64(a1);
    *b = cis_ci_bits_from_u64(b1);
  }
}
static int src_allowed(const cis_fcidump *F, const det_src *d, cis_int i) {
  if (!d->sym_only) return 1;
  ci_bits a, b;
  src_det(d, i, &a, &b);
  return (ci_bits_sym(F, a, CIS_CI_WORDS) ^ ci_bits_sym(F, b, CIS_CI_WORDS)) == F->isym - 1;
}

/* (diag, index) of a above b's: the total order of the P-space. */
static int pick_above(const double *diag, cis_int a, cis_int b) {
  return diag[a] > diag[b] || (diag[a] == diag[b] && a > b);
}

/* Max-heap by (diag, index) of the cap lowest seen so far. */
static void pick_heap_down(cis_int *h, int n, const double *diag, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, b = i;
    if (l < n && pick_above(diag, h[l], h[b])) b = l;
    if (r < n && pick_above(diag, h[r], h[b])) b = r;
    if (b == i) return;
    cis_int t = h[i]; h[i] = h[b]; h[b] = t;
    i = b;
  }
}
static void pick_heap_push(cis_int *h, int *len, int cap, const double *diag, cis_int x) {
  if (*len < cap) { /* sift up */
    int i = (*len)++;
    h[i] = x;
    while (i > 0 && pick_above(diag, h[i], h[(i - 1) / 2])) {
      cis_int t = h[i]; h[i] = h[(i - 1) / 2]; h[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
  } else if (pick_above(diag, h[0], x)) {
    h[0] = x;
    pick_heap_down(h, *len, diag, 0);
  }
}

/* The P-space determinants, in (diag, index) order: every allowed one
 * within CIS_CI_PSPACE_DEGEN of the np-th lowest diagonal element, at most
 * 2 np (the lowest by (diag, index) when more). One parallel pass: each
 * OpenMP thread keeps the 2 np lowest of its contiguous range (a max-heap);
 * their union holds the global 2 np lowest, so the result does not depend on
 * the thread count. *np (asked; <= 0: the default) is lowered to the allowed
 * count; pick: room for 2 np; *m: how many were picked. */
static cis_status pspace_select(const cis_fcidump *F, const det_src *src, cis_int n, const double *diag, int *np,
                                cis_int *pick, int *m) {
  cis_status st;
  int threads = 1;
#ifdef _OPENMP
  threads = n >= 65536 ? omp_get_max_threads() : 1;
#endif
  const int cap0 = 2 * *np; /* each thread's heap: its 2 np lowest */
  cis_int *cand = NULL, nallowed = 0;
  int *len = NULL;
  pick_t *sorted = NULL;
  CIS_TRY(cis_alloc_array((void **)&cand, (int64_t)threads * cap0, sizeof(cis_int), "P-space candidates"));
  CIS_TRY(cis_alloc_zeroed((void **)&len, threads, sizeof(int), "P-space candidates"));
#pragma omp parallel num_threads(threads) reduction(+ : nallowed)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    const cis_int lo = n * t / nt, hi = n * (t + 1) / nt;
    cis_int *h = cand + (size_t)t * cap0;
    for (cis_int i = lo; i < hi; ++i)
      if (src_allowed(F, src, i)) {
        ++nallowed;
        pick_heap_push(h, &len[t], cap0, diag, i);
      }
  }
  if (nallowed == 0) {
    char isym[48];
    st = cis_error(CIS_ERR_INVALID, "P-space guess: no determinant of symmetry %s", ci_isym_text(F, isym, sizeof isym));
    goto cleanup;
  }
  int total = 0;
  for (int t = 0; t < threads; ++t) total += len[t];
  CIS_TRY(cis_alloc_array((void **)&sorted, total, sizeof(pick_t), "P-space determinants"));
  total = 0;
  for (int t = 0; t < threads; ++t)
    for (int k = 0; k < len[t]; ++k) {
      const cis_int i = cand[(size_t)t * cap0 + k];
      sorted[total++] = (pick_t){diag[i], i};
    }
  qsort(sorted, (size_t)total, sizeof(pick_t), cmp_pick);
  if (*np > nallowed) *np = (int)nallowed;
  const double top = sorted[*np - 1].d;
  int k = 0;
  while (k < total && k < 2 * *np && sorted[k].d <= top + CIS_CI_PSPACE_DEGEN) {
    pick[k] = sorted[k].i;
    ++k;
  }
  *m = k;
  st = CIS_OK;
cleanup:
  cis_free(cand);
  cis_free(len);
  cis_free(sorted);
  return st;
}

/* The P-space of the space src (n determinants) and its nvec lowest
 * eigenvectors: pick[0..m) the determinants in (diag, index) order, Z the
 * vectors (vector v at Z + v*m), *nvec lowered to m; pvals (may be NULL):
 * their eigenvalues. Split by parity: sector[v] 0 for a vector symmetric
 * under alpha <-> beta, 1 antisymmetric (else NULL). */
typedef struct pspace_vecs { cis_int *pick; double *Z; int m, nvec; int *sector; } pspace_vecs;
static void pspace_vecs_free(pspace_vecs *P) {
  cis_free(P->pick);
  cis_free(P->Z);
  cis_free(P->sector);
  P->pick = NULL, P->Z = NULL, P->sector = NULL;
}

static int bits_equal(const ci_bits *x, const ci_bits *y) { return !memcmp(x->w, y->w, sizeof x->w); }

/* The P-space closed under alpha <-> beta: mate[i] the position of pick
 * i's mirror (b, a) among the picks (i itself when a = b); picks whose
 * mirror was left out (cut at the P-space's size) are dropped, the order
 * kept. *m lowered. O(m^2) string comparisons: m is a few hundred. */
static cis_status pspace_close(const det_src *src, cis_int *pick, int *m, int *mate) {
  cis_status st;
  ci_bits *a = NULL, *b = NULL;
  const int n0 = *m;
  CIS_TRY(cis_alloc_array((void **)&a, n0, sizeof(ci_bits), "P-space strings"));
  CIS_TRY(cis_alloc_array((void **)&b, n0, sizeof(ci_bits), "P-space strings"));
  for (int i = 0; i < n0; ++i) src_det(src, pick[i], &a[i], &b[i]);
  for (int i = 0; i < n0; ++i) { /* each pick's mirror among the picks (-1: none), found once */
    mate[i] = bits_equal(&a[i], &b[i]) ? i : -1;
    for (int j = 0; j < n0 && mate[i] < 0; ++j)
      if (bits_equal(&a[i], &b[j]) && bits_equal(&b[i], &a[j])) mate[i] = j;
  }
  int k = 0, *pos = (int *)b; /* the kept picks' new positions, in b's room (no longer read) */
  for (int i = 0; i < n0; ++i) pos[i] = mate[i] >= 0 ? k++ : -1;
  for (int i = 0; i < n0; ++i) /* pairs are kept or dropped together: the mate of a kept pick is kept */
    if (pos[i] >= 0) pick[pos[i]] = pick[i], mate[pos[i]] = pos[mate[i]];
  *m = k;
  st = CIS_OK;
cleanup:
  cis_free(a);
  cis_free(b);
  return st;
}

/* H_P (m x m) in the parity-adapted basis: the symmetric vectors (e_i +
 * e_mate(i)) / sqrt 2 (e_i alone when i is its own mate) in Hs, the
 * antisymmetric (e_i - e_mate(i)) / sqrt 2 in Ha, one per pair (i < mate):
 * first[p] the pair's i. ns, na: their counts. */
static void parity_blocks(const double *H, int m, const int *mate, const int *first_s, int ns, const int *first_a,
                          int na, double *Hs, double *Ha) {
  for (int t = 0; t < 2; ++t) {
    const int cnt = t ? na : ns, *first = t ? first_a : first_s;
    const double sg = t ? -1.0 : 1.0;
    double *out = t ? Ha : Hs;
    for (int p = 0; p < cnt; ++p)
      for (int q = 0; q < cnt; ++q) {
        const int i = first[p], ii = mate[i], j = first[q], jj = mate[j];
        const double wi = i == ii ? 1.0 : M_SQRT1_2, wj = j == jj ? 1.0 : M_SQRT1_2;
        double v = H[(size_t)i * m + j];
        if (jj != j) v += sg * H[(size_t)i * m + jj];
        if (ii != i) v += sg * H[(size_t)ii * m + j];
        if (ii != i && jj != j) v += H[(size_t)ii * m + jj];
        out[(size_t)p * cnt + q] = wi * wj * v;
      }
  }
}
/* The split P-space's vectors: the nvec lowest of the two parity blocks
 * together, then for each block with fewer than `roots` among them its next
 * one (where Davidson's watch on that parity starts: a state it need not
 * build from corrections), expanded onto the picks; P->sector their
 * parities. */
static cis_status pspace_split_vectors(double *H, int m, const int *mate, int nvec, int roots, int only, pspace_vecs *P) {
  cis_status st;
  int *first = NULL, *order = NULL, ns = 0, na = 0, cnt[2], got[2] = {0, 0};
  double *B[2] = {NULL, NULL}, *Z[2] = {NULL, NULL}, *w[2] = {NULL, NULL};
  CIS_TRY(cis_alloc_array((void **)&first, 2 * (int64_t)m, sizeof(int), "P-space parity blocks"));
  for (int i = 0; i < m; ++i) {
    if (mate[i] == i) first[ns++] = i;
    else if (i < mate[i]) { first[ns++] = i; first[m + na++] = i; }
  }
  cnt[0] = ns, cnt[1] = na;
  for (int t = 0; t < 2; ++t) {
    if (cnt[t] == 0) continue;
    CIS_TRY(cis_alloc_array((void **)&B[t], (int64_t)cnt[t] * cnt[t], sizeof(double), "P-space parity block"));
    CIS_TRY(cis_alloc_array((void **)&w[t], cnt[t], sizeof(double), "P-space eigenvalues"));
  }
  parity_blocks(H, m, mate, first, ns, first + m, na, B[0], B[1]);
  for (int t = 0; t < 2; ++t) {
    if (cnt[t] == 0) continue;
    got[t] = nvec < cnt[t] ? nvec : cnt[t];
    CIS_TRY(cis_alloc_array((void **)&Z[t], (int64_t)got[t] * cnt[t], sizeof(double), "P-space eigenvectors"));
    CIS_TRY(lowest_eigh(B[t], cnt[t], got[t], w[t], Z[t]));
  }
  /* merge: the nvec lowest, then a block's lowest when it has none there */
  int take[2] = {0, 0}, out = 0;
  CIS_TRY(cis_alloc_array((void **)&P->sector, nvec + 2, sizeof(int), "P-space parities"));
  CIS_TRY(cis_alloc_array((void **)&order, nvec + 2, sizeof(int), "P-space order"));
  if (only >= 0) got[1 - only] = 0; /* one parity wanted: its block alone */
  for (int q = 0; q < nvec && (take[0] < got[0] || take[1] < got[1]); ++q) {
    const int t = take[1] >= got[1] || (take[0] < got[0] && w[0][take[0]] <= w[1][take[1]]) ? 0 : 1;
    P->sector[out] = t;
    order[out++] = take[t]++;
  }
  for (int t = 0; t < 2; ++t) /* a parity with fewer than the roots there: its next one, where its watch starts */
    if (take[t] < roots && take[t] < got[t]) { P->sector[out] = t; order[out++] = take[t]++; }
  CIS_TRY(cis_alloc_zeroed((void **)&P->Z, (int64_t)m * out, sizeof(double), "P-space eigenvectors"));
  for (int v = 0; v < out; ++v) {
    const int t = P->sector[v], j = order[v];
    const double sg = t ? -1.0 : 1.0, *y = Z[t] + (size_t)j * cnt[t];
    const int *fst = first + (t ? m : 0);
    double *z = P->Z + (size_t)v * m;
    for (int p = 0; p < cnt[t]; ++p) {
      const int i = fst[p], ii = mate[i];
      if (ii == i) { z[i] = y[p]; continue; }
      z[i] = M_SQRT1_2 * y[p];
      z[ii] = sg * z[i];
    }
  }
  P->nvec = out;
  st = CIS_OK;
cleanup:
  cis_free(first);
  cis_free(order);
  for (int t = 0; t < 2; ++t) { cis_free(B[t]); cis_free(Z[t]); cis_free(w[t]); }
  return st;
}

/* The most determinants a split P-space grows to (its dense H: 2 x this). */
#define PSPACE_SPLIT_MAX 1024

static cis_status pspace_solve(const cis_fcidump *F, const det_src *src, cis_int n, const double *diag, int np, int nvec,
                               int split, int roots, pspace_vecs *P, double *pvals) {
  cis_status st;
  double *H = NULL, *w = NULL;
  cis_int *pick = NULL;
  int *mate = NULL;
  memset(P, 0, sizeof *P);
  if (np <= 0) np = CIS_CI_PSPACE_DEFAULT;
  if (nvec < 1) return cis_error(CIS_ERR_INVALID, "P-space guess: %d vectors", nvec);
  int m = 0;
  for (;;) { /* split: twice the determinants while closing under the mirror leaves too few */
    const int asked = np;
    cis_free(P->pick);
    cis_free(mate);
    P->pick = NULL, mate = NULL;
    CIS_TRY(cis_alloc_array((void **)&P->pick, 2 * (int64_t)np, sizeof(cis_int), "P-space determinants"));
    pick = P->pick;
    CIS_TRY(pspace_select(F, src, n, diag, &np, pick, &m));
    if (nvec > np)
      { st = cis_error(CIS_ERR_INVALID, "P-space guess: %d vectors from %d determinants", nvec, np); goto cleanup; }
    if (!split) break;
    CIS_TRY(cis_alloc_array((void **)&mate, m, sizeof(int), "P-space mirrors"));
    CIS_TRY(pspace_close(src, pick, &m, mate));
    if (m > nvec || np < asked || np >= PSPACE_SPLIT_MAX) break; /* enough, or all there is */
    np = 2 * np < PSPACE_SPLIT_MAX ? 2 * np : PSPACE_SPLIT_MAX;
  }
  if (m < 1) { st = cis_error(CIS_ERR_NUMERIC, "P-space guess: no determinant left with its alpha <-> beta mirror"); goto cleanup; }
  /* H_P by Slater-Condon, then its eigenvectors */
  CIS_TRY(cis_alloc_array((void **)&H, (int64_t)m * m, sizeof(double), "P-space Hamiltonian"));
  CIS_TRY(cis_alloc_array((void **)&w, m, sizeof(double), "P-space eigenvalues"));
#pragma omp parallel for schedule(dynamic, 8)
  for (int i = 0; i < m; ++i) {
    ci_bits ai, bi;
    src_det(src, pick[i], &ai, &bi);
    for (int j = 0; j <= i; ++j) {
      ci_bits aj, bj;
      src_det(src, pick[j], &aj, &bj);
      double v = i == j ? diag[pick[i]] : ci_element_bits(F, &ai, &bi, &aj, &bj);
      H[(size_t)i * m + j] = H[(size_t)j * m + i] = v;
    }
  }
  if (nvec > m) nvec = m;
  P->m = m;
  if (split) {
    CIS_TRY(pspace_split_vectors(H, m, mate, nvec, roots, split - 2, P));
  } else {
    CIS_TRY(cis_alloc_array((void **)&P->Z, (int64_t)m * nvec, sizeof(double), "P-space eigenvectors"));
    CIS_TRY(lowest_eigh(H, m, nvec, w, P->Z));
    if (pvals) for (int v = 0; v < nvec; ++v) pvals[v] = w[v];
    P->nvec = nvec;
  }
  st = CIS_OK;
cleanup:
  if (st != CIS_OK) pspace_vecs_free(P);
  cis_free(H);
  cis_free(w);
  cis_free(mate);
  return st;
}

/* The P-space vectors written as dense vectors of n (zero outside it). */
static cis_status pspace_guess(const cis_fcidump *F, const det_src *src, cis_int n, const double *diag, int np, int nvec,
                               double *guess, int *np_used, double *pvals) {
  pspace_vecs P;
  const cis_status st = pspace_solve(F, src, n, diag, np, nvec, 0, 0, &P, pvals);
  if (st != CIS_OK) return st;
  cis_first_touch(guess, (int64_t)P.nvec * n);
  for (int v = 0; v < P.nvec; ++v)
    for (int i = 0; i < P.m; ++i) guess[(size_t)v * (size_t)n + (size_t)P.pick[i]] = P.Z[(size_t)v * P.m + i];
  if (np_used) *np_used = P.m;
  pspace_vecs_free(&P);
  return CIS_OK;
}

cis_status ci_pspace_guess(const cis_fcidump *F, const cis_ci_space *S, const double *diag, int np, int nvec,
                               double *guess, int *np_used, double *pvals) {
  if (!F || !S || !diag || !guess) return cis_error(CIS_ERR_INVALID, "ci_pspace_guess: NULL argument");
  det_src d = {S, NULL, 0, 0};
  return pspace_guess(F, &d, ci_space_size(S), diag, np, nvec, guess, np_used, pvals);
}

/* The direct space's determinants as the P-space reads them: compact (and
 * blocked by irreps) the ISYM entries of ci_direct_compress, else the
 * C1 order (with projection only ISYM determinants allowed); *n: how many. */
static det_src direct_src(const cis_ci_direct *D, int compact, cis_int *n) {
  cis_ci_direct_info inf;
  ci_direct_get_info(D, &inf);
  if (compact && inf.blocked) { /* every compact entry is of irrep ISYM */
    *n = ci_direct_compact_size(D);
    return (det_src){NULL, D, 0, 1};
  }
  *n = cis_ci_direct_size(D);
  return (det_src){NULL, D, inf.projected != 0, 0};
}

cis_status ci_pspace_guess_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *diag, int np,
                                      int nvec, double *guess, int *np_used, double *pvals) {
  if (!F || !D || !diag || !guess) return cis_error(CIS_ERR_INVALID, "ci_pspace_guess_direct: NULL argument");
  cis_int n;
  const det_src d = direct_src(D, 0, &n);
  return pspace_guess(F, &d, n, diag, np, nvec, guess, np_used, pvals);
}

cis_status ci_pspace_guess_compact(const cis_fcidump *F, const cis_ci_direct *D, const double *diag, int np,
                                       int nvec, double *guess, int *np_used, double *pvals) {
  if (!F || !D || !diag || !guess) return cis_error(CIS_ERR_INVALID, "ci_pspace_guess_compact: NULL argument");
  cis_int n;
  const det_src d = direct_src(D, 1, &n);
  return pspace_guess(F, &d, n, diag, np, nvec, guess, np_used, pvals);
}

/* A P-space determinant's position in the list before sorting. */
typedef struct pick_pos { cis_int i; int pos; } pick_pos;
static int cmp_pick_pos(const void *x, const void *y) {
  const pick_pos *a = x, *b = y;
  return (a->i > b->i) - (a->i < b->i);
}

/* The P-space vectors of src (n determinants) as nonzeros in ascending
 * determinant order (ci_pspace_guess_sparse's form), split by parity when
 * sector is not NULL (*sector: malloc'd with cis_alloc, a label a vector). */
static cis_status pspace_sparse(const cis_fcidump *F, const det_src *d, cis_int n, const double *diag, int np, int nvec,
                                int roots, int only, cis_int **idx, double **val, int *m, int *nvec_out, int **sector) {
  cis_status st;
  pspace_vecs P;
  pick_pos *order = NULL;
  *idx = NULL, *val = NULL;
  if (sector) *sector = NULL;
  CIS_TRY(pspace_solve(F, d, n, diag, np, nvec, sector ? only + 2 : 0, roots, &P, NULL)); /* P zeroed first: freed below either way */
  CIS_TRY(cis_alloc_array((void **)&order, P.m, sizeof(pick_pos), "P-space order"));
  CIS_TRY(cis_alloc_array((void **)idx, P.m, sizeof(cis_int), "P-space guess indices"));
  CIS_TRY(cis_alloc_array((void **)val, (int64_t)P.m * P.nvec, sizeof(double), "P-space guess values"));
  for (int k = 0; k < P.m; ++k) order[k] = (pick_pos){P.pick[k], k};
  qsort(order, (size_t)P.m, sizeof *order, cmp_pick_pos); /* the determinants ascending */
  for (int k = 0; k < P.m; ++k) {
    (*idx)[k] = order[k].i;
    for (int v = 0; v < P.nvec; ++v) (*val)[(size_t)v * P.m + k] = P.Z[(size_t)v * P.m + order[k].pos];
  }
  *m = P.m;
  *nvec_out = P.nvec;
  if (sector) *sector = P.sector, P.sector = NULL;
  st = CIS_OK;
cleanup:
  if (st != CIS_OK) {
    cis_free(*idx);
    cis_free(*val);
    *idx = NULL, *val = NULL;
  }
  cis_free(order);
  pspace_vecs_free(&P);
  return st;
}

cis_status ci_pspace_guess_sparse(const cis_fcidump *F, const cis_ci_direct *D, int compact, const double *diag, int np,
                                  int nvec, cis_int **idx, double **val, int *m, int *nvec_out) {
  if (!F || !D || !diag || !idx || !val || !m || !nvec_out)
    return cis_error(CIS_ERR_INVALID, "ci_pspace_guess_sparse: NULL argument");
  cis_int n;
  const det_src d = direct_src(D, compact, &n);
  return pspace_sparse(F, &d, n, diag, np, nvec, 0, -1, idx, val, m, nvec_out, NULL);
}

cis_status ci_pspace_guess_split(const cis_fcidump *F, const cis_ci_space *S, const cis_ci_direct *D, int compact,
                                 const double *diag, int np, int nvec, int roots, int only, cis_int **idx,
                                 double **val, int *m, int *nvec_out, int **sector) {
  if (!F || (!S && !D) || !diag || !idx || !val || !m || !nvec_out || !sector)
    return cis_error(CIS_ERR_INVALID, "ci_pspace_guess_split: NULL argument");
  cis_int n;
  const det_src d = S ? (det_src){S, NULL, 0, 0} : direct_src(D, compact, &n);
  if (S) n = ci_space_size(S);
  return pspace_sparse(F, &d, n, diag, np, nvec, roots, only, idx, val, m, nvec_out, sector);
}
