/* ci_solve_roots.c: what every path of the CI driver shares (below
 * ci_solve.c, ci_solve_direct.c and ci_solve_dist.c, which call it): the
 * space key and symmetry test of the kept spaces, Davidson's guesses (the
 * caller's, then P-space vectors as PySCF's pspace), and Davidson's roots
 * (Davidson 1975) with the spin filter and <S^2>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"

int ci_has_symmetry(const cis_fcidump *F) {
  int sym = F->isym != 1;
  for (int p = 0; p < F->norb; ++p) sym |= F->orbsym[p] != 1;
  return sym;
}

int ci_guess_count(int nr) { return nr + 4 < 2 * nr + 2 ? nr + 4 : 2 * nr + 2; }

int ci_guess_vectors(const ci_run *r) {
  int nvec = r->direct && r->R->gpu ? r->nr : ci_guess_count(r->nr); /* on the GPU every extra guess costs a sigma */
  if (r->o->spin_penalty > 0) nvec += r->nr + 4; /* the penalty lifts P-space vectors of other spins */
  return nvec;
}

/* With MS = 0 (no singlet restriction) Davidson may follow a watch in each
 * alpha <-> beta parity, and the split P-space adds the next vector of each
 * (ci_pspace_guess_split): room for 2 more of each. */
static int parity_extra(const ci_run *r) { return r->F->ms2 == 0 && !r->o->singlet && !r->one_parity ? 2 : 0; }

/* The subspace m (the default's or the caller's) raised to what Davidson
 * takes with its watches (kw = roots + watches): at least 2 kw and the
 * guesses + kw (cis_davidson_subspace's rule for kw; the caller's only
 * to 2 kw), so that the memory check counts what Davidson allocates. */
static int watch_room(const ci_run *r, int m) {
  const int kw = r->nr + parity_extra(r), ng = ci_guess_bound(r) + parity_extra(r);
  if (m < 2 * kw) m = 2 * kw;
  if (r->o->max_sub > 0) return m; /* the caller's: the guesses' room as Davidson has always raised it */
  return m < ng + kw ? ng + kw : m;
}

int ci_guess_bound(const ci_run *r) { return (r->o->guess ? r->o->nguess : 0) + ci_guess_vectors(r); }

void ci_fit_subspace(ci_run *r, double vec_bytes, double budget) {
  const int nr = r->nr, ng = ci_guess_bound(r);
  cis_ci_result *R = r->R;
  r->one_parity = 0;
  int m = watch_room(r, cis_davidson_subspace(nr, r->o->max_sub, ng));
  R->subspace_reduced_from = 0;
  if (r->o->max_sub <= 0 && budget > 0 && vec_bytes > 0) {
    int lo = watch_room(r, cis_davidson_subspace(nr, 1, ng));
    const double fit = floor((budget / vec_bytes - (cis_davidson_vectors(nr, 0))) / 2); /* vectors = 2 m + that */
    if (fit < lo && parity_extra(r)) { /* no room for both parities' search: one, as plain Davidson, said so */
      r->one_parity = 1;
      lo = cis_davidson_subspace(nr, 1, ng);
    }
    if (fit < m) {
      R->subspace_reduced_from = m;
      m = fit < lo ? lo : (int)fit;
    }
  }
  R->one_parity = r->one_parity;
  r->max_sub = R->subspace = m;
  cis_ci_memory(&R->counts, nr, m, R->counts.nnz_bound, &R->need);
}

int ci_davidson_vectors_least(const ci_run *r) {
  const int nr = r->nr;
  return cis_davidson_vectors(nr, cis_davidson_subspace(nr, r->o->max_sub > 0 ? r->o->max_sub : 1, ci_guess_bound(r)));
}

cis_status ci_stored_space(cis_ci_solver *s, const cis_fcidump *F, const cis_ci_solve_opts *o, const cis_ci_bits *ra,
                           const cis_ci_bits *rb, int *reused) {
  char key[600];
  ci_space_key(F, o, 0, key, sizeof key);
  *reused = s->S && !strcmp(key, s->key_S);
  if (*reused) return CIS_OK;
  cis_ci_space_free(s->S);
  s->S = NULL;
  s->key_S[0] = 0;
  cis_status st = cis_ci_space_create_bits(F, o->level, ra, rb, &s->S);
  if (st == CIS_OK) snprintf(s->key_S, sizeof s->key_S, "%s", key);
  return st;
}

void ci_space_key(const cis_fcidump *F, const cis_ci_solve_opts *o, int direct, char *key, size_t len) {
  size_t k = (size_t)snprintf(key, len, "%d %d %d %d %d %d %d %d %d %s|", direct, F->norb, F->nelec, F->ms2, F->isym,
                              o->level, o->gpu, o->no_time_reversal, o->symmetry_projection, o->occ ? o->occ : "");
  for (int p = 0; p < F->norb && k + 4 < len; ++p) k += (size_t)snprintf(key + k, len - k, "%d,", F->orbsym[p]);
}

double ci_phase(cis_ci_result *R, const char *name, double since) {
  const double now = cis_wtime();
  int k = 0;
  while (k < R->nphases && strcmp(R->phases[k].name, name)) ++k;
  if (k == CIS_CI_MAX_PHASES) return now;
  if (k == R->nphases) R->phases[R->nphases++] = (cis_ci_phase){name, 0};
  R->phases[k].seconds += now - since;
  return now;
}

void ci_report_header(ci_run *r) {
  if (!r->o->progress || r->header_sent) return;
  cis_ci_progress p;
  memset(&p, 0, sizeof p);
  p.event = CIS_CI_PROGRESS_HEADER;
  p.result = r->R;
  p.elapsed = cis_wtime() - r->t0;
  p.eta = -1;
  r->header_sent = 1;
  r->o->progress(r->o->progress_user, &p);
  ci_phase(r->R, "header", p.elapsed + r->t0);
}

/* The host build's report (ci_build_watch) as the driver's progress. */
static void build_progress(void *ctx, int pass, cis_int done, cis_int rows, cis_int nnz, double seconds) {
  ci_run *r = ctx;
  cis_ci_progress p;
  memset(&p, 0, sizeof p);
  p.event = CIS_CI_PROGRESS_BUILD;
  p.result = r->R;
  p.pass = pass, p.rows_done = done, p.rows = rows, p.nnz = nnz;
  p.seconds = seconds;
  p.elapsed = cis_wtime() - r->t0;
  p.eta = done > 0 ? seconds * (double)(rows - done) / (double)done : -1;
  r->o->progress(r->o->progress_user, &p);
}

ci_build_watch ci_build_progress(ci_run *r) {
  ci_build_watch w = {NULL, NULL, 0, 0};
  if (r->o->progress) w.hook = build_progress, w.ctx = r;
  return w;
}

/* Seconds left: the residual falls by the factor of its last decrease per
 * iteration until below tol, at the averaged seconds per iteration, and no
 * further than max_iter; -1 while it does not fall. */
static double eta(const ci_run *r, const cis_davidson_progress *d) {
  const double rate = r->last_residual > 0 && d->max_residual > 0 ? log(r->last_residual / d->max_residual) : 0;
  if (d->max_residual <= d->tol) return 0;
  if (!(rate > 1e-3)) return -1;
  double left = ceil(log(d->max_residual / d->tol) / rate);
  if (left > d->max_iter - d->iteration) left = d->max_iter - d->iteration;
  return left * r->sec_avg;
}

/* Davidson's progress as the driver's: total energy, the solve's clock, the ETA. */
static void davidson_progress(void *ctx, const cis_davidson_progress *d) {
  ci_run *r = ctx;
  cis_ci_progress p;
  memset(&p, 0, sizeof p);
  r->sec_avg = d->iteration == 1 ? d->seconds : 0.5 * (r->sec_avg + d->seconds);
  p.event = CIS_CI_PROGRESS_ITERATION;
  p.result = r->R;
  p.iteration = d->iteration, p.subspace = d->subspace;
  p.roots = d->roots, p.converged = d->converged;
  p.products = d->products;
  p.energy = d->energy;
  p.max_residual = d->max_residual, p.tol = d->tol;
  p.seconds = d->seconds;
  p.elapsed = cis_wtime() - r->t0;
  p.eta = d->iteration > 1 ? eta(r, d) : -1;
  r->last_residual = d->max_residual;
  r->o->progress(r->o->progress_user, &p);
}

void ci_davidson_progress(ci_run *r, cis_davidson_opts *d) {
  d->energy_offset = r->F->ecore;
  if (!r->o->progress) return;
  d->progress = davidson_progress;
  d->progress_ctx = r;
  r->last_residual = 0;
}

/* The guesses' vector length (compact: the ISYM determinants when blocked
 * by irreps) and the diagonal the P-space reads. */
static cis_int guess_length(const ci_run *r, const double **diag) {
  *diag = r->dv.diag;
  return r->dv.len;
}

/* P-space vectors *pvec (of len) for nvec roots after `given` vectors of
 * the caller, from a P-space of *np determinants. */
static void pspace_counts(const ci_run *r, int nvec, int given, cis_int len, int *pvec, int *np) {
  const cis_ci_solve_opts *o = r->o;
  *np = o->pspace > 0 ? o->pspace : CIS_CI_PSPACE_DEFAULT;
  /* singlet only: about half the P-space vectors are antisymmetric and dropped */
  *pvec = o->singlet ? 2 * nvec : given >= r->nr ? 0 : nvec;
  if (*pvec > len) *pvec = (int)len;
  if (*np < *pvec) *np = *pvec;
}

/* Singlet only, out guesses symmetric: CIS_ERR_NOT_FOUND for none; *again
 * when fewer than the roots and the P-space vectors can be doubled. */
static cis_status singlet_enough(const ci_run *r, int out, int pvec, cis_int len, int *again) {
  *again = out < r->nr && pvec < len;
  if (out == 0)
    return cis_error(CIS_ERR_NOT_FOUND, "no guess symmetric under alpha <-> beta (a singlet-only state) in this space");
  return CIS_OK;
}

/* 1 when Davidson must search both alpha <-> beta parities of the space:
 * MS = 0, one string set closed under the mirror (b, a) (the stored space
 * tested determinant by determinant: r->mirror its mirror map, kept for the
 * run, else NULL), and no singlet-only restriction (which keeps one parity
 * on purpose). */
static cis_status mirror_sectors(ci_run *r, int *two) {
  *two = 0;
  if (r->F->ms2 != 0 || r->o->singlet || r->one_parity) return CIS_OK;
  if (r->D) {
    ci_direct_view v;
    ci_direct_get_view(r->D, &v);
    *two = v.one_set;
    return CIS_OK;
  }
  if (!r->mirror) {
    const cis_status st = ci_space_mirror(r->S, &r->mirror);
    if (st != CIS_OK) return st;
  }
  *two = r->mirror != NULL;
  return CIS_OK;
}

/* Whether Davidson's vectors stay in one parity to round-off (the method's
 * correction hook keeps them so). */
static int keeps_parity(const ci_run *r) { return r->m->keeps_parity(r); }

/* The alpha <-> beta parity of the target spin S (MS = 0 with two
 * sectors, where one parity can be kept): 0 for S = 0, 2, ..., 1 for S = 1,
 * 3, ...; -1 without a target. */
static int spin_parity(const ci_run *r) {
  return r->o->spin >= 0 && keeps_parity(r) ? (int)floor(r->o->spin + 0.5) % 2 : -1;
}

/* The caller's `given` guesses (vectors of n, the result's order) into g
 * as vectors of len: compressed when Davidson runs on compact vectors. */
static void copy_given(const ci_run *r, int given, cis_int n, cis_int len, double *g) {
  for (int k = 0; k < given; ++k) {
    const double *v = r->o->guess + (size_t)k * (size_t)n;
    if (r->dv.compact) cis_ci_direct_compress(r->D, v, g + (size_t)k * (size_t)len);
    else memcpy(g + (size_t)k * (size_t)len, v, (size_t)n * sizeof(double));
  }
}

/* ci_pspace_guess_split of r's space, of the target spin's parity alone
 * when it has room for the roots there, else of both. */
static cis_status split_pspace(const ci_run *r, const double *diag, int np, int nvec, cis_int **idx, double **val,
                               int *used, int *got, int **sec) {
  const cis_ci_space *S = r->D ? NULL : r->S;
  const int compact = r->dv.compact, only = spin_parity(r);
  cis_status st = ci_pspace_guess_split(r->F, S, r->D, compact, diag, np, nvec, r->nr, only, idx, val, used, got, sec);
  if (st != CIS_OK || only < 0 || *got >= r->nr) return st;
  cis_free(*idx), cis_free(*val), cis_free(*sec); /* too few of that parity: both, each watched */
  return ci_pspace_guess_split(r->F, S, r->D, compact, diag, np, nvec, r->nr, -1, idx, val, used, got, sec);
}

/* The key of the space Davidson's vectors live in (kept watches match it):
 * the kept space's, and whether the vectors are compact. */
static void watch_key(const ci_run *r, char *key, size_t len) {
  snprintf(key, len, "%s|%d|%s", r->m->name, r->dv.compact, r->D ? r->keep->key_D : r->keep->key_S);
}

/* The last solve's watches when they live in this space with vectors of
 * len (NULL otherwise): a warm start's guesses of the states just beyond
 * the roots in each parity, which Davidson's watches then start from. */
static const cis_ci_solver *kept_watches(const ci_run *r, cis_int len) {
  char key[640];
  if (!r->keep || !r->keep->nwatch || r->keep->watch_len != len || r->m->parts) return NULL;
  watch_key(r, key, sizeof key);
  return strcmp(key, r->keep->key_watch) ? NULL : r->keep;
}

/* Keep Davidson's watches (nw vectors of len at *wv, taken over; their
 * sectors in sec) for the next solve of this space; none: the old dropped. */
static void keep_watches(ci_run *r, double **wv, int nw, const int *sec, cis_int len) {
  cis_ci_solver *s = r->keep;
  if (!s) return;
  free(s->watch);
  s->watch = NULL, s->nwatch = 0;
  if (nw <= 0 || nw > 2 || r->m->parts) return;
  s->watch = *wv, *wv = NULL;
  s->nwatch = nw, s->watch_len = len;
  for (int j = 0; j < nw; ++j) s->watch_sector[j] = sec[j];
  watch_key(r, s->key_watch, sizeof s->key_watch);
}

/* Guesses in both parities (mirror_sectors): the caller's, each made pure
 * (its antisymmetric part appended when it has both), then P-space vectors
 * split by parity (ci_pspace_guess_split): pvec of them when the caller's
 * are fewer than the roots, else only the lowest of a parity the caller's
 * lack; then the last solve's watches in this space (a warm start:
 * kept_watches); dense host vectors of the guess length, each labelled. */
static cis_status sector_guesses(ci_run *r, int nvec, const cis_int *map, ci_guesses *out) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  const int compact = r->dv.compact, given = o->guess ? o->nguess : 0;
  const cis_int n = r->dv.n;
  const double *diag;
  const cis_int len = guess_length(r, &diag);
  int pvec, np, used = 0, got = 0, *psec = NULL, *sec = NULL;
  cis_int *idx = NULL;
  double *val = NULL, *g = NULL;
  pspace_counts(r, nvec, given, len, &pvec, &np);
  CIS_TRY(split_pspace(r, diag, np, pvec > 0 ? pvec : 1, &idx, &val, &used, &got, &psec));
  const cis_ci_solver *kept = given ? kept_watches(r, len) : NULL;
  const int cap = 2 * given + got + (kept ? kept->nwatch : 0);
  if (!(g = malloc((size_t)cap * (size_t)len * sizeof(double))) || !(sec = malloc((size_t)cap * sizeof(int))))
    CIS_TRY(cis_error(CIS_ERR_ALLOC, "cannot allocate %d guess vectors of %lld determinants", cap, (long long)len));
  copy_given(r, given, n, len, g);
  int nout = 0, have[2] = {0, 0};
  if (given) CIS_TRY(r->D ? ci_direct_split_guesses(r->D, compact, g, given, 2 * given, &nout, sec)
                          : ci_space_split_guesses(map, len, g, given, 2 * given, &nout, sec));
  for (int k = 0; k < nout; ++k) have[sec[k]] = 1;
  for (int v = 0; v < got; ++v) {
    if (pvec == 0 && have[psec[v]]) continue;
    double *x = g + (size_t)nout * (size_t)len;
    memset(x, 0, (size_t)len * sizeof(double));
    for (int k = 0; k < used; ++k) x[idx[k]] = val[(size_t)v * used + k];
    sec[nout++] = psec[v];
    have[psec[v]] = 1;
  }
  for (int j = 0; kept && j < kept->nwatch; ++j) {
    memcpy(g + (size_t)nout * (size_t)len, kept->watch + (size_t)j * (size_t)len, (size_t)len * sizeof(double));
    sec[nout++] = kept->watch_sector[j];
  }
  r->R->pspace_used = used;
  out->dense = g, out->n = nout, out->sector = sec, out->sectors = 2;
  g = NULL, sec = NULL;
  st = CIS_OK;
cleanup:
  cis_free(idx);
  cis_free(val);
  cis_free(psec);
  free(g);
  free(sec);
  return st;
}

/* P-space guesses alone on the direct path, as their nonzeros: the same
 * numbers as the dense path below (guess_sparse.h); split by parity (two:
 * mirror_sectors) when Davidson searches both. */
static cis_status sparse_guesses(ci_run *r, int nvec, int two, ci_guesses *g) {
  cis_status st;
  const int compact = r->dv.compact;
  const double *diag;
  const cis_int len = guess_length(r, &diag);
  cis_int *idx = NULL;
  double *val = NULL;
  int pvec, np, used = 0, got = 0, again = 0;
  pspace_counts(r, nvec, 0, len, &pvec, &np);
  if (two) {
    CIS_TRY(split_pspace(r, diag, np, pvec, &idx, &val, &used, &got, &g->sector));
    g->sectors = 2;
  } else {
    CIS_TRY(ci_pspace_guess_sparse(r->F, r->D, compact, diag, np, pvec, &idx, &val, &used, &got));
  }
  for (int v = 0; v < got; ++v) CIS_TRY(ci_sparse_guesses_push(&g->sparse, used, idx, val + (size_t)v * used));
  r->R->pspace_used = used;
  if (!two) CIS_TRY(ci_sparse_pure_guesses(r->D, compact, &g->sparse)); /* the split ones are exactly pure */
  if (r->o->singlet) {
    CIS_TRY(ci_sparse_keep_symmetric(r->D, compact, &g->sparse));
    CIS_TRY(singlet_enough(r, g->sparse.n, pvec, len, &again));
  }
  g->n = g->sparse.n;
  st = CIS_OK;
cleanup:
  cis_free(idx);
  cis_free(val);
  if (st != CIS_OK || again) ci_guesses_free(g);
  return st == CIS_OK && again ? sparse_guesses(r, 2 * nvec, two, g) : st; /* too few symmetric: twice the P-space vectors */
}

void ci_guesses_to_davidson(const ci_guesses *g, cis_davidson_opts *d) {
  d->nguess = g->n;
  d->guess = g->dense;
  d->guess_ptr = g->dense ? NULL : g->sparse.ptr;
  d->guess_idx = g->sparse.idx;
  d->guess_val = g->sparse.val;
  d->sectors = g->sectors;
  d->guess_sector = g->sector;
}

void ci_guesses_free(ci_guesses *g) {
  free(g->dense);
  cis_free(g->sector);
  ci_sparse_guesses_free(&g->sparse);
  memset(g, 0, sizeof *g);
}

/* Davidson's guesses for nvec roots: the caller's vectors (o->guess, C1 or
 * space order; compressed when Davidson runs on compact vectors) then, when
 * they are fewer than the roots, P-space vectors; made exactly
 * (anti)symmetric under alpha <-> beta on the direct path (every product
 * can be a half sigma). P-space guesses alone on the direct path stay
 * sparse (sparse_guesses); otherwise dense host vectors. */
static cis_status dense_guesses(ci_run *r, int nvec, ci_guesses *out);

/* A spin target S (MS = 0): the states of spin S all have parity (-1)^S
 * (symmetric for S = 0, 2, ...), so only g's guesses of that parity stay
 * and Davidson keeps to it (one sector): states of the other parity can
 * neither be returned nor mix into a degenerate level. Where fewer than
 * the roots are of that parity, all stay (two sectors). */
static cis_status keep_spin_parity(ci_run *r, cis_int len, ci_guesses *g) {
  const int want = spin_parity(r);
  int m = 0, have = 0;
  cis_int k = 0;
  for (int j = 0; j < g->n; ++j) have += g->sector[j] == want;
  if (have < r->nr) return CIS_OK; /* too few of that parity for the roots: both kept, each watched */
  for (int j = 0; j < g->n; ++j) {
    if (g->sector[j] != want) continue;
    if (g->dense) {
      if (m != j) memcpy(g->dense + (size_t)m * len, g->dense + (size_t)j * len, (size_t)len * sizeof(double));
    } else {
      ci_sparse_guesses *sp = &g->sparse;
      const cis_int a0 = sp->ptr[j], nnz = sp->ptr[j + 1] - a0;
      memmove(sp->idx + k, sp->idx + a0, (size_t)nnz * sizeof(cis_int));
      memmove(sp->val + k, sp->val + a0, (size_t)nnz * sizeof(double));
      sp->ptr[m] = k;
      k += nnz;
      sp->ptr[m + 1] = k;
    }
    ++m;
  }
  if (!g->dense) g->sparse.n = m;
  g->n = m;
  g->sectors = 1;
  return CIS_OK;
}

cis_status ci_run_guesses(ci_run *r, int nvec, ci_guesses *out) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  memset(out, 0, sizeof *out);
  out->sectors = 1;
  int two;
  if ((st = mirror_sectors(r, &two)) != CIS_OK) return st;
  if (r->D && !o->guess) {
    st = sparse_guesses(r, nvec, two, out);
  } else if (two) {
    st = sector_guesses(r, nvec, r->mirror, out);
  } else {
    return dense_guesses(r, nvec, out);
  }
  if (st == CIS_OK && two && o->spin >= 0 && keeps_parity(r)) {
    const double *diag;
    st = keep_spin_parity(r, guess_length(r, &diag), out);
  }
  if (st != CIS_OK) ci_guesses_free(out);
  return st;
}

/* The guesses of one sector (ci_run_guesses). */
static cis_status dense_guesses(ci_run *r, int nvec, ci_guesses *out) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  const int compact = r->dv.compact;
  const cis_int n = r->dv.n;
  const double *diag;
  const cis_int len = guess_length(r, &diag);
  int given = o->guess ? o->nguess : 0, pvec, np, again = 0;
  pspace_counts(r, nvec, given, len, &pvec, &np);
  const int total = given + pvec, cap = r->D ? 2 * total : total; /* room for the antisymmetric parts */
  double *g = malloc((size_t)cap * (size_t)len * sizeof(double));
  if (!g) return cis_error(CIS_ERR_ALLOC, "cannot allocate %d guess vectors of %lld determinants", cap, (long long)len);
  copy_given(r, given, n, len, g);
  double *p = g + (size_t)given * (size_t)len;
  int used = 0;
  if (pvec > 0) {
    if (compact) CIS_TRY(cis_ci_pspace_guess_compact(r->F, r->D, diag, np, pvec, p, &used, NULL));
    else if (r->D) CIS_TRY(cis_ci_pspace_guess_direct(r->F, r->D, diag, np, pvec, p, &used, NULL));
    else CIS_TRY(cis_ci_pspace_guess(r->F, r->S, diag, np, pvec, p, &used, NULL));
  }
  r->R->pspace_used = used;
  int nout = total;
  if (r->D) CIS_TRY(compact ? cis_ci_direct_compact_pure_guesses(r->D, g, total, cap, &nout)
                            : cis_ci_direct_pure_guesses(r->D, g, total, cap, &nout));
  if (o->singlet) {
    CIS_TRY(cis_ci_direct_keep_symmetric(r->D, compact, g, nout, &nout));
    CIS_TRY(singlet_enough(r, nout, pvec, len, &again));
    if (again) { /* too few symmetric among them: twice the P-space vectors */
      free(g);
      return dense_guesses(r, 2 * nvec, out);
    }
  }
  out->dense = g;
  out->n = nout;
  return CIS_OK;
cleanup:
  free(g);
  return st;
}

/* Roots closer than this (Eh) are one level for <S^2>: 10 x the residual
 * tolerance (a converged root's energy is far more accurate), at least 1e-9. */
static double spin_degen(const cis_ci_solve_opts *o) { return fmax(1e-9, 10 * o->tol); }

/* Davidson for r->nr roots from the guesses on the method's operator
 * (r->dv), then <S^2> of each root. Compact vectors (blocked by irreps):
 * the diagonal, the guesses and the roots are compact (ISYM determinants
 * only); the roots are expanded to C1 order for the result. */
static cis_status solve_roots(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  const ci_method *m = r->m;
  const int nr = r->nr, compact = r->dv.compact;
  const cis_int n = r->dv.n, ng = r->dv.len;
  /* the C1 roots: kept, or what <S^2> reads (compact roots are read as they are) */
  const int need_c1 = !m->energies_only && (!compact || o->keep_vectors);
  double *vc = NULL, *wv = NULL;
  ci_guesses guess = {0};
  const int nvec = ci_guess_vectors(r);
  free(r->evals); free(r->evecs); free(r->s2);
  r->evecs = NULL;
  r->evals = malloc((size_t)nr * sizeof(double));
  if (need_c1) r->evecs = malloc((size_t)nr * (size_t)n * sizeof(double));
  r->s2 = malloc((size_t)nr * sizeof(double));
  if (compact) vc = malloc((size_t)nr * (size_t)ng * sizeof(double));
  if (!r->evals || (need_c1 && !r->evecs) || !r->s2 || (compact && !vc))
    { st = cis_error(CIS_ERR_ALLOC, "cannot allocate %d CI vectors of %lld determinants", nr, (long long)n); goto cleanup; }
  if (r->evecs) cis_first_touch(r->evecs, (int64_t)nr * n); /* Davidson's download lands in touched pages */
  if (vc) cis_first_touch(vc, (int64_t)nr * ng);
  double *roots = compact ? vc : r->evecs; /* Davidson's roots in its own form; NULL energies only */
  double t_guess = cis_wtime();
  CIS_TRY(m->guesses ? m->guesses(r, nvec, &guess) : ci_run_guesses(r, nvec, &guess));
  r->R->t_guess = cis_wtime() - t_guess;
  const double t_dav = ci_phase(r->R, "guess", t_guess);
  cis_davidson_opts d = cis_davidson_opts_default();
  const int one_parity = guess.sectors == 1 && spin_parity(r) >= 0 && r->F->ms2 == 0 && !o->singlet && !r->one_parity;
  d.roots = nr;
  d.tol = o->tol;
  if (o->etol > 0) d.etol = o->etol;
  d.verbose = o->verbose;
  d.max_iter = o->max_iter;
  d.block_products = o->block_products;
  ci_guesses_to_davidson(&guess, &d);
  d.max_sub = r->max_sub;
  if (guess.sectors > 1 && !m->parts && !(wv = malloc((size_t)guess.sectors * (size_t)ng * sizeof(double))))
    CIS_TRY(cis_error(CIS_ERR_ALLOC, "cannot allocate %d watch vectors of %lld determinants", guess.sectors,
                      (long long)ng));
  d.watch_vectors = wv;
  ci_davidson_progress(r, &d);
  m->correct(r, &d, one_parity ? 1 - 2 * spin_parity(r) : 0);
  cis_ci_result *R = r->R;
  st = cis_davidson_operator(r->dv.op, r->dv.diag, &d, r->evals, roots, &R->davidson);
  ci_phase(R, "davidson", t_dav);
  keep_watches(r, &wv, st == CIS_OK ? R->davidson.watches : 0, R->davidson.sector + nr, ng);
  if (st == CIS_ERR_NOT_CONVERGED && o->accept_unconverged) st = CIS_OK; /* the result says converged = 0 */
  if (st != CIS_OK) goto cleanup;
  if (m->gather && roots) CIS_TRY(m->gather(r, roots, nr)); /* parts in other processes: their rows of the roots */
  double t_s2 = cis_wtime();
  r->top_mixed = 0;
  for (int k = 0; k < nr; ++k) r->s2[k] = NAN;
  if (!o->no_s2 && m->s2) { /* <S^2>, spin-adapted within degenerate levels */
    const ci_s2_eval ev = {m->s2, r};
    CIS_TRY(ci_spin_adapt_levels(&ev, nr, ng, roots, r->evals, r->s2, spin_degen(o), &r->top_mixed));
  }
  for (int k = 0; k < nr && compact && need_c1; ++k)
    cis_ci_direct_expand(r->D, vc + (size_t)k * (size_t)ng, r->evecs + (size_t)k * (size_t)n);
  R->t_s2 = cis_wtime() - t_s2;
  ci_phase(R, "<S^2>", t_s2);
  r->nroots = nr;
  st = CIS_OK;
cleanup:
  ci_guesses_free(&guess);
  free(vc);
  free(wv);
  return st;
}

/* The reported roots: all (no spin filter) or those with <S^2> = S(S+1);
 * returns how many of the o->roots asked for were found. */
static int select_roots(ci_run *r) {
  int got = 0;
  const cis_ci_solve_opts *o = r->o;
  for (int k = 0; k < r->nroots && got < o->roots; ++k)
    if (o->spin < 0 || fabs(r->s2[k] - o->spin * (o->spin + 1)) < 1e-3) r->pick[got++] = k;
  return got;
}

cis_status ci_run_roots(ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  cis_int n = r->dv.n;
  if (r->nr > n) r->nr = (int)n;
  free(r->pick);
  r->pick = malloc((size_t)o->roots * sizeof(int));
  if (!r->pick) return cis_error(CIS_ERR_ALLOC, "cannot allocate %d root indices", o->roots);
  const int cap = o->spin >= 0 ? r->cap : n < 64 ? (int)n : 64;
  for (;;) { /* spin filter: more roots until o->roots of spin S are among them */
    cis_status st = solve_roots(r);
    if (st != CIS_OK) return st;
    int got = select_roots(r);
    /* a degenerate level past the last root leaves its <S^2> mixed: more roots, to see all of it (a space
     * not spin complete has no pure <S^2> to find) */
    const int grow_level = r->top_mixed && !r->m->not_spin_complete && r->nr < cap && r->nr < n;
    if (got == o->roots && !grow_level) break;
    if (r->nr >= cap || r->nr >= n) {
      if (o->spin < 0) break; /* the most roots: the top level's <S^2> stays mixed */
      char list[512];
      size_t len = 0;
      for (int k = 0; k < r->nroots && len + 24 < sizeof list; ++k)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%.4f", k ? " " : "", r->s2[k]);
      return cis_error(CIS_ERR_NOT_FOUND, "only %d root(s) of spin S=%g among the lowest %d (<S^2>: %s)", got, o->spin,
                       r->nroots, list);
    }
    r->nr = 2 * r->nr < cap ? 2 * r->nr : cap;
    if (r->nr > n) r->nr = (int)n;
    /* the subspace grows with the roots (not below what the first round kept) */
    const int m = cis_davidson_subspace(r->nr, r->o->max_sub, ci_guess_bound(r));
    if (m > r->max_sub) r->R->subspace = r->max_sub = m;
  }
  return CIS_OK;
}

