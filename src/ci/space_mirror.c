/* space_mirror.c: the alpha <-> beta mirror of a stored CI space, for
 * Davidson's parity sectors (cis_davidson_opts.sectors). With MS = 0 the
 * Hamiltonian commutes with the exchange of the alpha and beta strings,
 * |a, b> -> |b, a> (the sign (-1)^(na nb) of reordering the creation
 * operators is global), so every eigenvector is symmetric (S = 0, 2, ...)
 * or antisymmetric (S = 1, 3, ...) under it, and the diagonal
 * preconditioner keeps both parities: a Davidson started in one never
 * reaches the other. The guesses are split into the two parities here and
 * each labelled, as ci_direct_split_guesses does on the direct space. */
#include <math.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

cis_status ci_space_mirror(const cis_ci_space *S, cis_int **map) {
  cis_status st;
  *map = NULL;
  if (!S) return cis_error(CIS_ERR_INVALID, "ci_space_mirror: NULL space");
  const cis_int n = ci_space_size(S);
  cis_int *m = NULL;
  int closed = 1;
  CIS_TRY(cis_alloc_array((void **)&m, n, sizeof(cis_int), "the space's alpha <-> beta mirror"));
#pragma omp parallel for schedule(static) reduction(&& : closed)
  for (cis_int i = 0; i < n; ++i) {
    cis_ci_bits a, b;
    ci_space_det_bits(S, i, &a, &b);
    m[i] = ci_space_find_bits(S, &b, &a);
    closed = closed && m[i] >= 0;
  }
  if (closed) *map = m, m = NULL;
  st = CIS_OK;
cleanup:
  cis_free(m);
  return st;
}

/* The parity of x (1 symmetric, -1 antisymmetric, 0 neither) within tol of
 * its squared norm; *exact when exactly so. */
static int mirror_parity(const cis_int *map, cis_int n, const double *x, double tol, int *exact) {
  double norm = 0, dsym = 0, danti = 0;
#pragma omp parallel for schedule(static) reduction(+ : norm, dsym, danti)
  for (cis_int i = 0; i < n; ++i) {
    const double u = x[i], v = x[map[i]];
    norm += u * u;
    dsym += 0.5 * (u - v) * (u - v);
    danti += 0.5 * (u + v) * (u + v);
  }
  const int t = dsym <= tol * norm ? 1 : danti <= tol * norm ? -1 : 0;
  *exact = t && (t > 0 ? dsym : danti) == 0;
  return t;
}

/* x = (x + par x^T) / 2 in place (the mirror's diagonal zero for par = -1):
 * each pair read, then written. */
static void mirror_purify(const cis_int *map, cis_int n, int par, double *x) {
  for (cis_int i = 0; i < n; ++i) { /* each mirror pair once, from its lower index */
    const cis_int j = map[i];
    if (j < i) continue;
    const double p = 0.5 * (x[i] + par * x[j]);
    x[i] = j == i && par < 0 ? 0.0 : p;
    if (j != i) x[j] = par * p;
  }
}

cis_status ci_space_split_guesses(const cis_int *map, cis_int n, double *guess, int nin, int cap, int *nout,
                                  int *sector) {
  if (!map || !guess || !nout || !sector || nin < 0 || cap < nin)
    return cis_error(CIS_ERR_INVALID, "ci_space_split_guesses: NULL argument or %d guesses in room for %d", nin, cap);
  int m = nin;
  for (int v = 0; v < nin; ++v) {
    double *g = guess + (size_t)v * (size_t)n, *a = m < cap ? guess + (size_t)m * (size_t)n : NULL;
    int exact;
    const int t = mirror_parity(map, n, g, CI_PURE_TOL, &exact);
    sector[v] = t < 0;
    double ns = 0, na = 0;
    if (t) { /* near one parity: made exactly so */
      if (!exact) mirror_purify(map, n, t, g);
      continue;
    }
    for (cis_int i = 0; i < n; ++i) { /* each mirror pair once, from its lower index */
      const cis_int j = map[i];
      if (j < i) continue;
      const double u = g[i], w = g[j];
      const double sy = 0.5 * (u + w), an = 0.5 * (u - w);
      g[i] = sy;
      if (j != i) g[j] = sy;
      ns += j == i ? sy * sy : 2 * sy * sy;
      na += j == i ? 0.0 : 2 * an * an;
      if (a) {
        a[i] = j == i ? 0.0 : an;
        if (j != i) a[j] = -an;
      }
    }
    if (!a || !(na > 1e-20 * (ns + na))) continue;
    sector[m++] = 1;
  }
  *nout = m;
  return CIS_OK;
}

cis_status ci_space_mirror_correct(void *ctx, void *t, cis_stream s) {
  const ci_space_mirror_ctx *c = ctx;
  double *x = t;
  int exact;
  (void)s;
  if (!c || !c->map || !x) return CIS_OK;
  const int par = c->want ? c->want : mirror_parity(c->map, c->n, x, CI_PURE_TOL, &exact);
  if (par && (c->want || !exact)) mirror_purify(c->map, c->n, par, x);
  return CIS_OK;
}
