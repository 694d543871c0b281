/* guess_sparse.c: sparse Davidson guesses made exactly pure under
 * alpha <-> beta (contracts in guess_sparse.h). The dense functions
 * (sigma.c's cis_ci_direct_pure_guesses, sigma_irrep.c's ci_irrep_parity,
 * _purify and _split) visit every mirror pair {(A, B), (B, A)} of the
 * vector with entry (A, B), A >= B, first; here only the pairs with a
 * nonzero member are visited, in the same order (ascending index of that
 * first entry), with the same arithmetic per pair: pairs of two zeros add
 * exact zeros to the sums and give zeros, so the values and, where the
 * dense sums run on one thread, the sums are the same bits. */
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/guess_sparse.h"
#include "ci/sigma_irrep.h"
#include "core/internal.h"

void ci_sparse_guesses_free(ci_sparse_guesses *s) {
  if (!s) return;
  cis_free(s->ptr);
  cis_free(s->idx);
  cis_free(s->val);
  memset(s, 0, sizeof *s);
}

/* Room for one more vector of nnz entries (doubling). */
static cis_status reserve(ci_sparse_guesses *s, cis_int nnz) {
  const cis_int used = s->n > 0 ? s->ptr[s->n] : 0;
  if (s->n + 1 > s->cap_n) {
    const int cap = s->cap_n > 0 ? 2 * s->cap_n : 8;
    cis_int *p = cis_realloc(s->ptr, (size_t)(cap + 1) * sizeof(cis_int));
    if (!p) return cis_error(CIS_ERR_ALLOC, "cannot allocate the offsets of %d sparse guesses", cap);
    if (s->cap_n == 0) p[0] = 0;
    s->ptr = p, s->cap_n = cap;
  }
  if (used + nnz > s->cap_nz) {
    cis_int cap = s->cap_nz > 0 ? 2 * s->cap_nz : 1024;
    if (cap < used + nnz) cap = used + nnz;
    cis_int *i = cis_realloc(s->idx, (size_t)cap * sizeof(cis_int));
    if (!i) return cis_error(CIS_ERR_ALLOC, "cannot allocate %lld sparse guess entries", (long long)cap);
    s->idx = i;
    double *v = cis_realloc(s->val, (size_t)cap * sizeof(double));
    if (!v) return cis_error(CIS_ERR_ALLOC, "cannot allocate %lld sparse guess entries", (long long)cap);
    s->val = v, s->cap_nz = cap;
  }
  return CIS_OK;
}

cis_status ci_sparse_guesses_push(ci_sparse_guesses *s, cis_int nnz, const cis_int *idx, const double *val) {
  const cis_status st = reserve(s, nnz);
  if (st != CIS_OK) return st;
  cis_int k = s->ptr[s->n];
  for (cis_int e = 0; e < nnz; ++e)
    if (val[e] != 0.0) s->idx[k] = idx[e], s->val[k++] = val[e];
  s->ptr[++s->n] = k;
  return CIS_OK;
}

void ci_sparse_guesses_expand(const ci_sparse_guesses *s, int j, cis_int len, double *x) {
  memset(x, 0, (size_t)len * sizeof(double));
  for (cis_int e = s->ptr[j]; e < s->ptr[j + 1]; ++e) x[s->idx[e]] = s->val[e];
}

/* The mirror (B, A) of entry (A, B): C1 order (index A*ns + B) or the
 * compact layout of the sigma blocked by irreps (row A at off[A], its beta
 * strings blist[bstart[syma[A] ^ target] ..], (B, A) at off[B] + bpos[A]). */
typedef struct mirror {
  cis_int ns;    /* C1: strings of one set */
  int compact;
  ci_irrep_view v;
} mirror;

static cis_int mirror_of(const mirror *t, cis_int i) {
  if (!t->compact) return (i % t->ns) * t->ns + i / t->ns;
  const ci_irrep_view *v = &t->v;
  cis_int lo = 0, hi = v->nsa; /* the row A with off[A] <= i < off[A+1] */
  while (hi - lo > 1) {
    const cis_int mid = (lo + hi) / 2;
    if (v->off[mid] <= i) lo = mid;
    else hi = mid;
  }
  const cis_int B = v->blist[v->bstart[v->syma[lo] ^ v->target] + (i - v->off[lo])];
  return v->off[B] + v->bpos[lo];
}

/* 1 with *t set when D's vectors have the alpha <-> beta mirror (one string
 * set, time reversal on); compact as the dense functions read it (blocked
 * by irreps, else C1). */
static int mirror_for(const cis_ci_direct *D, int compact, mirror *t) {
  ci_direct_view dv;
  ci_direct_get_view(D, &dv);
  memset(t, 0, sizeof *t);
  t->ns = dv.nsa;
  t->compact = compact && dv.irrep;
  if (t->compact) ci_irrep_get_view(dv.irrep, &t->v);
  return dv.one_set && !dv.no_time_reversal;
}

static double value_at(const cis_int *idx, const double *val, cis_int nnz, cis_int i) {
  cis_int lo = 0, hi = nnz;
  while (lo < hi) {
    const cis_int mid = (lo + hi) / 2;
    if (idx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < nnz && idx[lo] == i ? val[lo] : 0.0;
}

static int cmp_index(const void *x, const void *y) {
  const cis_int a = *(const cis_int *)x, b = *(const cis_int *)y;
  return (a > b) - (a < b);
}

/* One sparse vector's mirror pairs: first[k] the pair's entry (A, B) with
 * A >= B (the larger index), ascending, distinct; u[k], w[k] the values at
 * it and at its mirror. Work arrays of nnz (the pairs are at most that). */
typedef struct pairs {
  cis_int n, *first, *second;
  double *u, *w;
} pairs;

static void pairs_of(const mirror *t, const cis_int *idx, const double *val, cis_int nnz, pairs *p) {
  for (cis_int e = 0; e < nnz; ++e) {
    const cis_int m = mirror_of(t, idx[e]);
    p->first[e] = m > idx[e] ? m : idx[e];
  }
  qsort(p->first, (size_t)nnz, sizeof(cis_int), cmp_index);
  p->n = 0;
  for (cis_int e = 0; e < nnz; ++e) {
    if (p->n > 0 && p->first[p->n - 1] == p->first[e]) continue;
    const cis_int f = p->first[e], s = mirror_of(t, f);
    p->first[p->n] = f, p->second[p->n] = s;
    p->u[p->n] = value_at(idx, val, nnz, f);
    p->w[p->n++] = value_at(idx, val, nnz, s);
  }
}

/* sigma.c's parity_of / ci_irrep_parity on the pairs: +1 or -1 within tol
 * of exactly (anti)symmetric, else 0; *exact when exactly so. */
static int pairs_parity(const pairs *p, double tol, int *exact) {
  double norm = 0, dsym = 0, danti = 0; /* ||x||^2, ||x - x^T||^2 / 2, ||x + x^T||^2 / 2 */
  for (cis_int k = 0; k < p->n; ++k) {
    const double u = p->u[k], v = p->w[k];
    const int diag = p->first[k] == p->second[k];
    norm += diag ? u * u : u * u + v * v;
    dsym += diag ? 0.0 : (u - v) * (u - v);
    danti += diag ? 2.0 * u * u : (u + v) * (u + v);
  }
  const int t = dsym <= tol * norm ? 1 : danti <= tol * norm ? -1 : 0;
  *exact = t && (t > 0 ? dsym : danti) == 0;
  return t;
}

/* An (index, value) entry of a vector being made. */
typedef struct entry { cis_int i; double v; } entry;
static int cmp_entry(const void *x, const void *y) { return cmp_index(&((const entry *)x)->i, &((const entry *)y)->i); }

/* Appends the pairs' values (the first entries' values a, the mirrors' b)
 * to s as one vector, ascending. e: room for 2 p->n entries. */
static cis_status push_pairs(ci_sparse_guesses *s, const pairs *p, const double *a, const double *b, entry *e,
                             cis_int *ix, double *vx) {
  cis_int n = 0;
  for (cis_int k = 0; k < p->n; ++k) {
    e[n++] = (entry){p->first[k], a[k]};
    if (p->second[k] != p->first[k]) e[n++] = (entry){p->second[k], b[k]};
  }
  qsort(e, (size_t)n, sizeof *e, cmp_entry);
  for (cis_int k = 0; k < n; ++k) ix[k] = e[k].i, vx[k] = e[k].v;
  return ci_sparse_guesses_push(s, n, ix, vx);
}

/* Work of one vector of at most nnz entries. */
typedef struct work {
  pairs p;
  double *a, *b, *c, *d, *vx; /* per pair; 2 nnz */
  cis_int *ix;                /* 2 nnz */
  entry *e;                   /* 2 nnz */
} work;

static void work_free(work *w) {
  cis_free(w->p.first); cis_free(w->p.second); cis_free(w->p.u); cis_free(w->p.w);
  cis_free(w->a); cis_free(w->b); cis_free(w->c); cis_free(w->d); cis_free(w->vx);
  cis_free(w->ix); cis_free(w->e);
}

static cis_status work_alloc(work *w, cis_int nnz) {
  cis_status st;
  memset(w, 0, sizeof *w);
  const int64_t n = nnz > 0 ? nnz : 1;
  CIS_TRY(cis_alloc_array((void **)&w->p.first, n, sizeof(cis_int), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->p.second, n, sizeof(cis_int), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->p.u, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->p.w, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->a, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->b, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->c, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->d, n, sizeof(double), "sparse guess pairs"));
  CIS_TRY(cis_alloc_array((void **)&w->vx, 2 * n, sizeof(double), "sparse guess entries"));
  CIS_TRY(cis_alloc_array((void **)&w->ix, 2 * n, sizeof(cis_int), "sparse guess entries"));
  CIS_TRY(cis_alloc_array((void **)&w->e, 2 * n, sizeof(entry), "sparse guess entries"));
  return CIS_OK;
cleanup:
  work_free(w);
  memset(w, 0, sizeof *w);
  return st;
}

static cis_int max_entries(const ci_sparse_guesses *s) {
  cis_int m = 0;
  for (int j = 0; j < s->n; ++j)
    if (s->ptr[j + 1] - s->ptr[j] > m) m = s->ptr[j + 1] - s->ptr[j];
  return m;
}

/* Vector j of s made pure into out, its antisymmetric part (when kept) into
 * anti: ci_direct_time_reversal (purify), else the split of
 * cis_ci_direct_pure_guesses / ci_irrep_split. */
static cis_status pure_one(const mirror *t, const ci_sparse_guesses *s, int j, work *w, ci_sparse_guesses *out,
                           ci_sparse_guesses *anti) {
  const cis_int a0 = s->ptr[j], nnz = s->ptr[j + 1] - a0;
  pairs *p = &w->p;
  int exact;
  pairs_of(t, s->idx + a0, s->val + a0, nnz, p);
  const int par = pairs_parity(p, CI_PURE_TOL, &exact);
  if (par && exact) return ci_sparse_guesses_push(out, nnz, s->idx + a0, s->val + a0);
  if (par) { /* purify: (x + t x^T) / 2, the diagonal zero for t = -1 */
    for (cis_int k = 0; k < p->n; ++k) {
      if (p->first[k] == p->second[k]) { w->a[k] = par > 0 ? p->u[k] : 0.0; continue; }
      w->a[k] = 0.5 * (p->u[k] + par * p->w[k]);
      w->b[k] = par * w->a[k];
    }
    return push_pairs(out, p, w->a, w->b, w->e, w->ix, w->vx);
  }
  double ns = 0, na = 0; /* split: g -> (g + g^T)/2, a = (g - g^T)/2 */
  for (cis_int k = 0; k < p->n; ++k) {
    const double u = p->u[k], v = p->w[k], sy = 0.5 * (u + v), an = 0.5 * (u - v);
    const int diag = p->first[k] == p->second[k];
    w->a[k] = w->b[k] = sy;
    ns += diag ? sy * sy : 2 * sy * sy;
    w->c[k] = diag ? -an : an; /* the dense code writes a[k] = an, then a[mirror] = -an over it */
    w->d[k] = -an;
    na += 2 * an * an;
  }
  cis_status st = push_pairs(out, p, w->a, w->b, w->e, w->ix, w->vx);
  if (st == CIS_OK && na > 1e-20 * (ns + na)) st = push_pairs(anti, p, w->c, w->d, w->e, w->ix, w->vx);
  return st;
}

/* dst <- src's vectors appended. */
static cis_status append_all(ci_sparse_guesses *dst, const ci_sparse_guesses *src) {
  for (int j = 0; j < src->n; ++j) {
    const cis_status st = ci_sparse_guesses_push(dst, src->ptr[j + 1] - src->ptr[j], src->idx + src->ptr[j],
                                                 src->val + src->ptr[j]);
    if (st != CIS_OK) return st;
  }
  return CIS_OK;
}

cis_status ci_sparse_pure_guesses(const cis_ci_direct *D, int compact, ci_sparse_guesses *s) {
  cis_status st;
  mirror t;
  work w;
  ci_sparse_guesses out, anti;
  if (!D || !s) return cis_error(CIS_ERR_INVALID, "ci_sparse_pure_guesses: NULL argument");
  if (!mirror_for(D, compact, &t)) return CIS_OK; /* no half sigma to keep */
  memset(&out, 0, sizeof out);
  memset(&anti, 0, sizeof anti);
  CIS_TRY(work_alloc(&w, 2 * max_entries(s)));
  for (int j = 0; j < s->n; ++j) CIS_TRY(pure_one(&t, s, j, &w, &out, &anti));
  CIS_TRY(append_all(&out, &anti));
  ci_sparse_guesses_free(s);
  *s = out;
  memset(&out, 0, sizeof out);
  st = CIS_OK;
cleanup:
  work_free(&w);
  ci_sparse_guesses_free(&out);
  ci_sparse_guesses_free(&anti);
  return st;
}

cis_status ci_sparse_keep_symmetric(const cis_ci_direct *D, int compact, ci_sparse_guesses *s) {
  cis_status st;
  mirror t;
  work w;
  if (!D || !s) return cis_error(CIS_ERR_INVALID, "ci_sparse_keep_symmetric: NULL argument");
  if (!mirror_for(D, compact, &t))
    return cis_error(CIS_ERR_INVALID, "alpha <-> beta symmetric vectors need one string set and time reversal on");
  CIS_TRY(work_alloc(&w, max_entries(s)));
  int m = 0; /* vectors kept, moved to the front in order */
  cis_int k = 0;
  for (int j = 0; j < s->n; ++j) {
    const cis_int a0 = s->ptr[j], nnz = s->ptr[j + 1] - a0;
    int exact;
    pairs_of(&t, s->idx + a0, s->val + a0, nnz, &w.p);
    if (pairs_parity(&w.p, CI_PURE_TOL, &exact) <= 0) continue;
    memmove(s->idx + k, s->idx + a0, (size_t)nnz * sizeof(cis_int));
    memmove(s->val + k, s->val + a0, (size_t)nnz * sizeof(double));
    s->ptr[m] = k;
    k += nnz;
    s->ptr[++m] = k;
  }
  s->n = m;
  st = CIS_OK;
cleanup:
  work_free(&w);
  return st;
}
