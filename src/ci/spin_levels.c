/* spin_levels.c: <S^2> of Davidson's roots made exact within degenerate
 * levels. H commutes with S^2, so each eigenspace of H is spanned by spin
 * eigenvectors; but Davidson returns an arbitrary orthonormal basis of a
 * degenerate level (a stretched H4: six states of S = 0, 1 and 2 at one
 * energy), whose <S^2> are those of mixtures, neither a spin nor a usable
 * filter. Within each level S^2 is diagonalised in the roots' basis (its
 * matrix elements by polarisation, <x|S^2|y> = (<u|S^2|u> - <v|S^2|v>) / 4
 * with u = x + y, v = x - y, from the <S^2> evaluator of the space) and the
 * roots are rotated onto its eigenvectors: each then has <S^2> = S(S+1).
 * A level cut by the last root (states of it beyond the roots computed) is
 * not invariant under S^2; its rotated roots stay mixed, which the caller
 * sees (top_mixed) and answers with more roots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

int ci_s2_is_spin(double s2) {
  const double S = 0.5 * (-1.0 + sqrt(1.0 + 4.0 * fmax(s2, 0.0)));
  const double twos = floor(2.0 * S + 0.5), Sr = 0.5 * twos;
  return fabs(Sr * (Sr + 1.0) - s2) < 1e-3;
}

/* <u|S^2|u> for u = x + sign y, any norm (tmp: len doubles). */
static cis_status s2_of_sum(const ci_s2_eval *ev, cis_int len, const double *x, const double *y, double sign,
                            double *tmp, double *out) {
  double nrm = 0;
  for (cis_int i = 0; i < len; ++i) {
    tmp[i] = x[i] + sign * y[i];
    nrm += tmp[i] * tmp[i];
  }
  double s2 = 0;
  if (nrm > 0) {
    const cis_status st = ev->fn(ev->ctx, tmp, &s2);
    if (st != CIS_OK) return st;
  }
  *out = s2 * nrm;
  return CIS_OK;
}

/* The level of roots [a, b) (b - a >= 2) rotated onto S^2's eigenvectors. */
static cis_status adapt_level(const ci_s2_eval *ev, cis_int len, double *X, double *E, double *s2, int a, int b) {
  cis_status st;
  const int c = b - a;
  double *M = NULL, *w = NULL, *tmp = NULL, *Y = NULL;
  CIS_TRY(cis_alloc_array((void **)&M, (int64_t)c * c, sizeof(double), "the S^2 matrix of a level"));
  CIS_TRY(cis_alloc_array((void **)&w, c, sizeof(double), "the S^2 matrix of a level"));
  CIS_TRY(cis_alloc_array((void **)&tmp, len, sizeof(double), "a vector of the level"));
  CIS_TRY(cis_alloc_array((void **)&Y, (int64_t)c * len, sizeof(double), "the level's vectors"));
  for (int i = 0; i < c; ++i) {
    M[i * c + i] = s2[a + i];
    for (int j = i + 1; j < c; ++j) {
      const double *x = X + (size_t)(a + i) * len, *y = X + (size_t)(a + j) * len;
      double p, q;
      CIS_TRY(s2_of_sum(ev, len, x, y, 1.0, tmp, &p));
      CIS_TRY(s2_of_sum(ev, len, x, y, -1.0, tmp, &q));
      M[i * c + j] = M[j * c + i] = 0.25 * (p - q);
    }
  }
  CIS_TRY(ci_dense_eigh(M, c, w)); /* column j of M: the eigenvector of w[j], ascending */
  double e[64];
  for (int j = 0; j < c; ++j) {
    double *y = Y + (size_t)j * len;
    memset(y, 0, (size_t)len * sizeof(double));
    e[j] = 0;
    for (int i = 0; i < c; ++i) {
      const double u = M[i * c + j], *x = X + (size_t)(a + i) * len;
      e[j] += u * u * E[a + i];
      for (cis_int k = 0; k < len; ++k) y[k] += u * x[k];
    }
  }
  memcpy(X + (size_t)a * len, Y, (size_t)c * len * sizeof(double));
  for (int j = 0; j < c; ++j) E[a + j] = e[j], s2[a + j] = fmax(w[j], 0.0); /* S^2 >= 0: no -0 from round-off */
  st = CIS_OK;
cleanup:
  cis_free(M);
  cis_free(w);
  cis_free(tmp);
  cis_free(Y);
  return st;
}

cis_status ci_spin_adapt_levels(const ci_s2_eval *ev, int nr, cis_int len, double *X, double *E, double *s2,
                                double degen, int *top_mixed) {
  *top_mixed = 0;
  if (nr > 64) return cis_error(CIS_ERR_INVALID, "ci_spin_adapt_levels: %d roots, at most 64", nr);
  cis_status st;
  for (int k = 0; k < nr; ++k)
    if ((st = ev->fn(ev->ctx, X + (size_t)k * len, &s2[k])) != CIS_OK) return st;
  for (int a = 0; a < nr;) {
    int b = a + 1;
    while (b < nr && fabs(E[b] - E[b - 1]) <= degen) ++b;
    if (b - a > 1 && (st = adapt_level(ev, len, X, E, s2, a, b)) != CIS_OK) return st;
    if (b == nr)
      for (int k = a; k < b; ++k) *top_mixed |= !ci_s2_is_spin(s2[k]);
    a = b;
  }
  return CIS_OK;
}
