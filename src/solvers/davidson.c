/* davidson.c: the Davidson method for the lowest eigenpairs of a large
 * symmetric operator (E. R. Davidson, J. Comput. Phys. 17, 87 (1975); block
 * form of B. Liu, "The simultaneous expansion method", 1978), written once
 * over the operator (cisparse/operator.h) and the vector backend (backend.h):
 * host vectors (OpenMP) or device vectors (the GPU backend in its cublasL
 * version: cuBLAS with host scalars), whichever the operator's memory space
 * asks for. Only subspace-sized data (m x m matrices, scalars) are on the
 * host; every n-vector stays in the backend.
 *
 *   subspace V (orthonormal), W = H V, Rayleigh matrix G = V^T W;
 *   Ritz pairs (theta_r, x_r = V c_r) from G c = theta c (Jacobi rotations);
 *   residual r = H x - theta x = W c - theta V c;
 *   correction t = r / (theta - diag(H)) (eq. 9 of Davidson 1975),
 *   orthonormalised against V (two Gram-Schmidt passes) and appended;
 *   collapse to the Ritz vectors when the subspace has no room for k more.
 *
 * Memory: 2 max_sub + 1 vectors of the dimension (V, W, the diagonal): a
 * large space pays for the subspace and nothing else (davidson_vectors),
 * and the caller bounds the subspace by what fits (davidson_subspace).
 * The Ritz vectors x and H x live in the k slots of V and W past the
 * subspace, which the collapse (done in place, when fewer than k are free)
 * guarantees; H x becomes the residual there, and the corrections then
 * overwrite the x's they no longer need. A space no larger than the
 * subspace (no collapse) has k slots more. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "solvers/backend.h"
#include "operators/operator_internal.h"
#include "solvers/solver_internal.h"

cis_davidson_opts cis_davidson_opts_default(void) {
  cis_davidson_opts o = {1, 1e-8, 1e-10, 200, 0, 0, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0.0, 0, NULL, NULL};
  return o;
}

/* Eigen-decomposition of the symmetric m x m matrix a (destroyed) by cyclic
 * Jacobi rotations (Golub & Van Loan, Matrix Computations, §8.5): w
 * ascending, column r of v (v[j*m + r]) its vector. */
static void jacobi(double *a, int m, double *w, double *v) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) v[i * m + j] = i == j;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, tot = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) { tot += a[i * m + j] * a[i * m + j]; if (i != j) off += a[i * m + j] * a[i * m + j]; }
    if (off <= 1e-30 * tot || off == 0) break;
    for (int p = 0; p < m; ++p)
      for (int q = p + 1; q < m; ++q) {
        double apq = a[p * m + q];
        if (apq == 0) continue;
        double theta = (a[q * m + q] - a[p * m + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < m; ++k) { /* columns p, q */
          double akp = a[k * m + p], akq = a[k * m + q];
          a[k * m + p] = c * akp - s * akq;
          a[k * m + q] = s * akp + c * akq;
        }
        for (int k = 0; k < m; ++k) { /* rows p, q */
          double apk = a[p * m + k], aqk = a[q * m + k];
          a[p * m + k] = c * apk - s * aqk;
          a[q * m + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < m; ++k) {
          double vkp = v[k * m + p], vkq = v[k * m + q];
          v[k * m + p] = c * vkp - s * vkq;
          v[k * m + q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < m; ++i) w[i] = a[i * m + i];
  for (int i = 0; i < m; ++i) { /* selection sort of the pairs */
    int b = i;
    for (int j = i + 1; j < m; ++j) if (w[j] < w[b]) b = j;
    if (b == i) continue;
    double t = w[i]; w[i] = w[b]; w[b] = t;
    for (int k = 0; k < m; ++k) { t = v[k * m + i]; v[k * m + i] = v[k * m + b]; v[k * m + b] = t; }
  }
}

typedef struct work {
  double *V, *W, *D;                          /* backend vectors (D = diag(H)); x and H x in the slots past m */
  double *G, *Gc, *c, *theta, *prev, *h;      /* host, subspace sized */
  int *lab, *rlab;                            /* sectors: of each subspace vector, of each Ritz pair */
} work;

#define OP(call) CIS_TRY(B->ops->call)

/* --verbose phase clock: seconds since *t0 added to *acc, the backend's
 * queue drained first (B NULL: none yet) so that device work lands in its
 * own phase (only when verbose: a normal run adds no synchronization). */
static cis_status phase(kry_be *B, int verbose, double *t0, double *acc) {
  if (!verbose) return CIS_OK;
  cis_status st = B ? B->ops->sync(B) : CIS_OK;
  double now = cis_wtime();
  *acc += now - *t0;
  *t0 = now;
  return st;
}
/* A watch (cis_davidson_opts.sectors) settles when its Ritz value lies
 * above the highest root's by more than WATCH_GAP times its residual norm:
 * 4 let a watch near an excited state of its sector hide that sector's
 * ground state 0.2 Eh below the roots (random integrals, P-space of 10);
 * at 12, 2 of 600 random files still lost a state; at 32, none of 600 nor
 * of fuzz_ci_states' runs. */
#define WATCH_GAP 32

/* Vector j of a multi-vector allocation. */
#define VEC(base, j) ((base) + (size_t)(j) * (size_t)B->n)

/* Orthonormalise t = V_m against V_0..V_{m-1} by classical Gram-Schmidt
 * twice (CGS2: "twice is enough", Giraud, Langou, Rozloznik, Comput. Math.
 * Appl. 50, 1069 (2005)): each pass one multi-dot h = V^T t (which also
 * gives (t, t) as h[m]) and one t -= V h, so a pass costs two GEMVs and one
 * synchronization whatever m is. *keep = 1 when the norm after is above
 * 1e-10 of the norm before. h: m + 1 host doubles. With a correct hook
 * (cis_davidson_opts.correct), t is projected again after the two passes and
 * a third pass follows: the passes subtract components along V_j whose own
 * round-off impurity, amplified by the cancellation when t lies mostly in
 * the subspace (after a collapse), would leave t impure by far more than
 * round-off; the third pass's coefficients are tiny, so is what it adds. */
static cis_status orthonormalise(kry_be *B, double *V, int m, double *h, const cis_davidson_opts *o, int *keep) {
  cis_status st;
  double *t = VEC(V, m), n0 = 0, n1;
  *keep = 0;
  const int passes = o && o->correct && m > 0 ? 3 : 2;
  for (int pass = 0; pass < passes; ++pass) {
    if (pass == 2) CIS_TRY(o->correct(o->correct_ctx, t, B->stream));
    OP(dots_host(B, V, m + 1, t, h));
    if (pass == 0) {
      n0 = sqrt(h[m]); /* ||t|| before */
      if (n0 == 0 || !isfinite(n0)) return CIS_OK;
    }
    if (m == 0) break;
    OP(gemv(B, -1.0, V, h, m, t));
  }
  OP(dot_host(B, t, t, &n1));
  n1 = sqrt(n1);
  if (n1 > 1e-10 * n0) {
    OP(scal(B, kry_imm(1 / n1), t)); /* t /= ||t|| */
    *keep = 1;
  }
  return CIS_OK;
cleanup:
  return st;
}

static void work_free(kry_be *B, work *w) {
  if (B) {
    double *dev[] = {w->V, w->W, w->D};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i)
      if (dev[i]) B->ops->release(B, dev[i]);
  }
  cis_free(w->G); cis_free(w->Gc); cis_free(w->c); cis_free(w->theta); cis_free(w->prev); cis_free(w->h);
  cis_free(w->lab); cis_free(w->rlab);
}

/* Sectors: the Ritz pairs to follow first, the k lowest then, in every
 * sector holding fewer than k of them, its lowest pair beyond them (the
 * watches: could its next state lie below the roots?), moved to the front of
 * theta and of c's columns (the rest after, ascending); w->rlab[r] the
 * sector of pair r. Returns k + the watches (at most kmax). Scratch: Gc
 * (m x m), h (m doubles), rlab's second half (2m ints). */
static int follow_sectors(work *w, int m, int k, int kmax, int nsec) {
  int *rl = w->rlab, *perm = w->rlab + m, kk = k;
  for (int r = 0; r < m; ++r) { /* the sector holding most of the pair's weight (all but round-off) */
    double wt[64] = {0};
    int best = 0;
    for (int i = 0; i < m; ++i) wt[w->lab[i]] += w->c[i * m + r] * w->c[i * m + r];
    for (int sec = 1; sec < nsec; ++sec)
      if (wt[sec] > wt[best]) best = sec;
    rl[r] = best;
  }
  for (int r = 0; r < m; ++r) perm[r] = -1;
  for (int r = 0; r < k; ++r) perm[r] = r;
  int watch[64], nw = 0;
  for (int sec = 0; sec < nsec && kk + nw < kmax; ++sec) { /* a sector holding all k roots is plain Davidson's */
    int held = 0;
    for (int r = 0; r < k; ++r) held += rl[r] == sec;
    for (int r = k; r < m && held < k; ++r)
      if (rl[r] == sec) { watch[nw++] = r; break; }
  }
  if (nw == 0) return k;
  /* new position q takes old pair perm[q]: the roots, the watches, then the rest ascending */
  int q = k;
  for (int j = 0; j < nw; ++j) perm[q++] = watch[j];
  for (int r = k; r < m; ++r) {
    int is_watch = 0;
    for (int j = 0; j < nw; ++j) is_watch |= watch[j] == r;
    if (!is_watch) perm[q++] = r;
  }
  double *cc = w->Gc, *tt = w->h;
  int *lt = perm + m;
  memcpy(cc, w->c, (size_t)m * m * sizeof(double));
  memcpy(tt, w->theta, (size_t)m * sizeof(double));
  memcpy(lt, rl, (size_t)m * sizeof(int));
  for (q = 0; q < m; ++q) {
    for (int i = 0; i < m; ++i) w->c[i * m + q] = cc[i * m + perm[q]];
    w->theta[q] = tt[perm[q]];
    rl[q] = lt[perm[q]];
  }
  return k + nw;
}

/* Guesses: unit vectors on the k lowest diagonal elements. */
static cis_status guesses(kry_be *B, const double *diag, int k, double *V) {
  cis_status st;
  cis_int *pick = NULL;
  CIS_TRY(cis_alloc_array((void **)&pick, k, sizeof(cis_int), "Davidson guesses"));
  for (int r = 0; r < k; ++r) {
    cis_int best = -1;
    for (cis_int i = 0; i < B->n; ++i) {
      int used = 0;
      for (int q = 0; q < r; ++q) used |= pick[q] == i;
      if (!used && (best < 0 || diag[i] < diag[best])) best = i;
    }
    pick[r] = best;
    const double one = 1.0;
    CIS_TRY(kry_sparse(B, VEC(V, r), 1, &best, &one));
  }
cleanup:
  cis_free(pick);
  return st;
}

/* A guess with at most one nonzero in SPARSE_GUESS goes to the backend as
 * its nonzeros (a P-space guess of a large space: a few hundred entries
 * instead of gigabytes through the bus). */
#define SPARSE_GUESS 64

/* The sparse form's offsets (cis_davidson_opts.guess_ptr): from 0, never
 * decreasing, the arrays there when they hold entries; its indices are
 * checked by kry_sparse as each guess is uploaded. */
static cis_status check_sparse_guesses(const cis_davidson_opts *o) {
  const cis_int *p = o->guess_ptr;
  if (p[0] != 0) return cis_error(CIS_ERR_INVALID, "Davidson: sparse guess offsets start at %lld, not 0", (long long)p[0]);
  for (int j = 0; j < o->nguess; ++j)
    if (p[j + 1] < p[j])
      return cis_error(CIS_ERR_INVALID, "Davidson: sparse guess %d ends at offset %lld before it starts (%lld)", j,
                       (long long)p[j + 1], (long long)p[j]);
  if (p[o->nguess] > 0 && (!o->guess_idx || !o->guess_val))
    return cis_error(CIS_ERR_INVALID, "Davidson: sparse guesses of %lld entries without indices or values",
                     (long long)p[o->nguess]);
  return CIS_OK;
}

/* Caller's guesses (o->guess, or the sparse form o->guess_ptr): upload each
 * (sparse ones by their nonzeros), orthonormalise against the ones kept;
 * *kept = how many stayed (dependent ones dropped). With o->verbose the
 * uploads' and the orthonormalisations' seconds are added to t[0], t[1]
 * (the backend synchronized between them). */
static cis_status given_guesses(kry_be *B, const cis_davidson_opts *o, int max_sub, double *V, double *h, int *lab,
                                int *kept, double t[2]) {
  cis_status st = CIS_OK;
  int m = 0;
  double t_ph = cis_wtime();
  const int64_t cap = o->guess ? B->n / SPARSE_GUESS : 0;
  cis_int *idx = NULL;
  double *val = NULL;
  if (cap > 0) {
    CIS_TRY(cis_alloc_array((void **)&idx, cap, sizeof(cis_int), "a sparse guess"));
    CIS_TRY(cis_alloc_array((void **)&val, cap, sizeof(double), "a sparse guess"));
  }
  for (int j = 0; j < o->nguess && m < max_sub; ++j) {
    int keep;
    if (o->guess) {
      const double *g = o->guess + (size_t)j * (size_t)B->n;
      const int64_t nnz = cap > 0 ? cis_nonzeros(g, B->n, cap, idx, val) : -1;
      if (nnz >= 0) CIS_TRY(kry_sparse(B, VEC(V, m), nnz, idx, val));
      else OP(upload(B, VEC(V, m), g, B->n));
    } else {
      const cis_int a = o->guess_ptr[j];
      CIS_TRY(kry_sparse(B, VEC(V, m), o->guess_ptr[j + 1] - a, o->guess_idx + a, o->guess_val + a));
    }
    CIS_TRY(phase(B, o->verbose, &t_ph, &t[0]));
    CIS_TRY(orthonormalise(B, V, m, h, NULL, &keep));
    CIS_TRY(phase(B, o->verbose, &t_ph, &t[1]));
    if (lab) lab[m] = o->guess_sector[j];
    m += keep;
  }
cleanup:
  cis_free(idx);
  cis_free(val);
  *kept = m;
  return st;
}

/* Collapse the m-vector subspace to its k Ritz vectors in place (V <- V c,
 * W <- W c on their first k columns: Liu's restart), G <- diag(theta), and
 * c <- the k x k identity (the Ritz vectors are now V_0..V_{k-1}). */
static cis_status collapse(kry_be *B, work *w, int m, int k, int max_sub) {
  cis_status st;
  OP(combine(B, w->V, w->c, m, k, w->V));
  OP(combine(B, w->W, w->c, m, k, w->W));
  memset(w->G, 0, (size_t)max_sub * max_sub * sizeof(double));
  for (int r = 0; r < k; ++r) w->G[r * max_sub + r] = w->theta[r];
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) w->c[i * k + j] = i == j;
cleanup:
  return st;
}

int davidson_subspace(int k, int max_sub, int nguess) {
  int m = max_sub > 0 ? max_sub : (8 * k > 24 ? 8 * k : 24);
  if (m < 2 * k) m = 2 * k;
  if (nguess > 0 && m < nguess + k) m = nguess + k;
  return m;
}

int davidson_vectors(int k, int max_sub) {
  (void)k;
  return 2 * max_sub + 1;
}

cis_status cis_davidson_operator(const cis_operator *H, const double *diag, const cis_davidson_opts *o_in,
                                 double *evals, double *evecs, cis_davidson_info *info) {
  cis_status st;
  cis_davidson_opts o = o_in ? *o_in : cis_davidson_opts_default();
  kry_be *B = NULL;
  work w;
  memset(&w, 0, sizeof w);
  cis_davidson_info inf;
  memset(&inf, 0, sizeof inf);
  double t_start = cis_wtime(), t_ph = t_start;
  double ph_setup = 0, ph_rayleigh = 0, ph_ritz = 0, ph_correct = 0, ph_final = 0, ph_prod = 0;
  double ph_vectors = 0, ph_diag = 0; /* of the setup: backend and vectors; the diagonal's check and upload */
  double ph_given[2] = {0, 0};         /* of the caller's guesses: uploads, orthonormalisations */
  int k = o.roots;
  if (!H || !diag || !evals) return cis_error(CIS_ERR_INVALID, "Davidson: NULL argument");
  cis_int n = cis_operator_rows(H);
  if (cis_operator_cols(H) != n)
    return cis_error(CIS_ERR_INVALID, "Davidson needs a square operator, got %lld x %lld", (long long)n,
                     (long long)cis_operator_cols(H));
  if (cis_operator_dtype(H) != CIS_F64)
    return cis_error(CIS_ERR_INVALID, "Davidson needs a double operator, got %s", cis_dtype_name(cis_operator_dtype(H)));
  if (k > 64) return cis_error(CIS_ERR_INVALID, "Davidson: at most 64 roots, %d requested", k);
  if (k < 1 || k > n) return cis_error(CIS_ERR_INVALID, "Davidson: %d roots requested, dimension %lld", k, (long long)n);
  if (!(o.tol > 0) || !(o.etol > 0) || o.max_iter < 1)
    return cis_error(CIS_ERR_INVALID, "Davidson: tolerances must be > 0 and max_iter >= 1");
  const int given = o.guess || o.guess_ptr; /* the caller's guesses, dense or sparse */
  if (given && o.nguess < k)
    return cis_error(CIS_ERR_INVALID, "Davidson: %d guess vectors for %d roots", o.nguess, k);
  if (!o.guess && o.guess_ptr) CIS_TRY(check_sparse_guesses(&o));
  const int nsec = o.sectors > 1 ? o.sectors : 1;
  if (nsec > 64) return cis_error(CIS_ERR_INVALID, "Davidson: %d sectors, at most 64", nsec);
  if (nsec > 1 && (!given || !o.guess_sector))
    return cis_error(CIS_ERR_INVALID, "Davidson: %d sectors need the caller's guesses and the sector of each", nsec);
  for (int j = 0; nsec > 1 && j < o.nguess; ++j)
    if (o.guess_sector[j] < 0 || o.guess_sector[j] >= nsec)
      return cis_error(CIS_ERR_RANGE, "Davidson: guess %d in sector %d of %d", j, o.guess_sector[j], nsec);
  /* the roots and the watches (one a sector at most) */
  int kmax = k + (nsec > 1 ? nsec : 0) < KRY_COMBINE_MAX_K ? k + (nsec > 1 ? nsec : 0) : KRY_COMBINE_MAX_K;
  /* room for the roots and every watch: a smaller max_sub is raised (a
   * sector left unwatched could hide a state below the roots) */
  int max_sub = davidson_subspace(kmax, o.max_sub, given ? o.nguess : 0);
  if (max_sub > n) max_sub = (int)n;
  if (2 * kmax > max_sub && max_sub < n) kmax = max_sub / 2 > k ? max_sub / 2 : k; /* room for the corrections first */
  const int64_t bad = cis_first_nonfinite(diag, n);
  if (bad >= 0) return cis_error(CIS_ERR_NUMERIC, "Davidson: diagonal element %lld is not finite", (long long)bad);
  CIS_TRY(phase(NULL, o.verbose, &t_ph, &ph_diag)); /* the check is the diagonal's */
  /* the backend of H's memory space; on the device cublasL keeps the
   * scalars on the host, which is what Davidson's dot_host wants */
  CIS_TRY(kry_be_for(H, CIS_VER_CUBLAS_L, 0, &B));
  /* a space no larger than the subspace is never collapsed: k slots more for x, H x */
  const int slots = max_sub + (max_sub >= n ? kmax : 0);
  OP(alloc(B, (void **)&w.V, slots, "Davidson subspace"));
  OP(alloc(B, (void **)&w.W, slots, "Davidson H*subspace"));
  OP(alloc(B, (void **)&w.D, 1, "Davidson diagonal"));
  CIS_TRY(phase(B, o.verbose, &t_ph, &ph_vectors));
  OP(upload(B, w.D, diag, n));
  CIS_TRY(phase(B, o.verbose, &t_ph, &ph_diag));
  CIS_TRY(cis_alloc_zeroed((void **)&w.G, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.Gc, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.c, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace vectors"));
  CIS_TRY(cis_alloc_array((void **)&w.theta, max_sub, sizeof(double), "Davidson Ritz values"));
  CIS_TRY(cis_alloc_array((void **)&w.prev, k, sizeof(double), "Davidson Ritz values"));
  CIS_TRY(cis_alloc_array((void **)&w.h, max_sub + 1, sizeof(double), "Davidson projections"));
  if (nsec > 1) {
    CIS_TRY(cis_alloc_array((void **)&w.lab, slots, sizeof(int), "Davidson sectors"));
    CIS_TRY(cis_alloc_array((void **)&w.rlab, 3 * (int64_t)slots, sizeof(int), "Davidson sectors"));
  }
  for (int r = 0; r < k; ++r) w.prev[r] = INFINITY;
  int m = 0, m_new = k, converged = 0, nconv = 0, kk = k;
  double res[64] = {0};
  if (given) {
    CIS_TRY(given_guesses(B, &o, max_sub, w.V, w.h, w.lab, &m_new, ph_given));
    if (m_new < k) {
      st = cis_error(CIS_ERR_INVALID, "Davidson: only %d of the %d guess vectors are independent, %d roots requested",
                     m_new, o.nguess, k);
      goto cleanup;
    }
  } else {
    CIS_TRY(guesses(B, diag, k, w.V));
  }
  CIS_TRY(phase(B, o.verbose, &t_ph, &ph_setup)); /* backend, vectors, uploads, guesses */
  double t_it = cis_wtime();
  for (int it = 1; it <= o.max_iter; ++it) {
    /* W_j = H V_j for the new vectors, timed alone: the queue drained before,
     * the product finished after (sync; nothing on the host backend) */
    if (o.block_products && m_new > 1 && operator_has_block(H)) {
      /* the new vectors are contiguous (column-major, ld n): one SpMM pass
       * per 16 of them (Aktulga et al., IPDPS 2014: a block of vectors per
       * read of the matrix); products still counts vectors */
      OP(sync(B));
      double t0 = cis_wtime();
      CIS_TRY(cis_operator_apply_block(H, m_new, 1.0, VEC(w.V, m), n, 0.0, VEC(w.W, m), n, B->stream));
      OP(sync(B));
      inf.op_seconds += cis_wtime() - t0;
      inf.products += m_new;
    } else {
      for (int j = m; j < m + m_new; ++j) {
        OP(sync(B));
        double t0 = cis_wtime();
        OP(apply(B, H, VEC(w.V, j), VEC(w.W, j)));
        OP(sync(B));
        inf.op_seconds += cis_wtime() - t0;
        inf.products++;
      }
    }
    /* G_ij = V_i . W_j, the new columns (and rows: G is symmetric) */
    CIS_TRY(phase(B, o.verbose, &t_ph, &ph_prod));
    int mm = m + m_new;
    for (int j = m; j < mm; ++j) { /* one multi-dot per new column */
      OP(dots_host(B, w.V, j + 1, VEC(w.W, j), w.h));
      for (int i = 0; i <= j; ++i) w.G[i * max_sub + j] = w.G[j * max_sub + i] = w.h[i];
    }
    m = mm;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) w.Gc[i * m + j] = w.G[i * max_sub + j];
    jacobi(w.Gc, m, w.theta, w.c); /* G c_r = theta_r c_r */
    for (int r = 0; r < m; ++r)
      if (!isfinite(w.theta[r])) { st = cis_error(CIS_ERR_NUMERIC, "Davidson: Ritz value is not finite (operator gave NaN/Inf)"); goto cleanup; }
    kk = nsec > 1 ? follow_sectors(&w, m, k, kmax, nsec) : k; /* the roots, then the watches */
    /* no room for kk corrections: collapse to the Ritz vectors in place;
     * then x = V c, H x = W c into the kk slots past m (H x becomes the
     * residual there) */
    CIS_TRY(phase(B, o.verbose, &t_ph, &ph_rayleigh));
    if ((slots - m < kk || m >= max_sub) && m < n) { /* the whole space in reach (slots past max_sub): never sooner */
      /* keep the next k pairs too (a thick restart): a root whose neighbour
       * beyond the roots lies close would otherwise lose that direction at
       * each collapse and stall (two levels 3 mEh apart: residual 2e-3
       * after 400 iterations) */
      int kc = kk + k < m ? kk + k : m;
      if (kc > KRY_COMBINE_MAX_K) kc = KRY_COMBINE_MAX_K;
      if (kc > max_sub - 2 * kk) kc = max_sub - 2 * kk; /* room for kk corrections after it */
      if (kc < kk) kc = kk;
      CIS_TRY(collapse(B, &w, m, kc, max_sub));
      m = kc;
      if (w.lab) memcpy(w.lab, w.rlab, (size_t)kc * sizeof(int));
    }
    double *X = VEC(w.V, m), *HX = VEC(w.W, m);
    OP(combine(B, w.V, w.c, m, kk, X));
    OP(combine(B, w.W, w.c, m, kk, HX));
    inf.iterations = it;
    inf.max_residual = 0;
    int all = 1, done[64];
    nconv = 0;
    for (int r = 0; r < kk; ++r) { /* HX_r <- H x_r - theta_r x_r, ||HX_r|| */
      double rn, *R = VEC(HX, r);
      OP(axpy(B, kry_imm(-w.theta[r]), VEC(X, r), R));
      OP(dot_host(B, R, R, &rn));
      rn = sqrt(rn);
      res[r] = rn;
      if (r >= k) { /* a watch: settled above the roots, or converged */
        done[r] = rn < o.tol || WATCH_GAP * rn < w.theta[r] - w.theta[k - 1] || m == n;
        all &= done[r];
        continue;
      }
      if (!(rn <= inf.max_residual)) inf.max_residual = rn;
      done[r] = (rn < o.tol && fabs(w.theta[r] - w.prev[r]) < o.etol) || m == n;
      nconv += done[r];
      all &= done[r];
    }
    inf.watches = kk - k;
    const double now = cis_wtime();
    if (o.verbose)
      fprintf(stderr, "davidson %3d  subspace %3d  E0 %.12f  max residual %.3e  converged %d/%d  %.4f s\n", it, m,
              w.theta[0] + o.energy_offset, inf.max_residual, nconv, k, now - t_it);
    if (o.progress) {
      const cis_davidson_progress p = {it, m, k, nconv, inf.products, w.theta[0] + o.energy_offset, inf.max_residual,
                                       o.tol, o.max_iter, now - t_it, now - t_start};
      o.progress(o.progress_ctx, &p);
    }
    t_it = now;
    for (int r = 0; r < k; ++r) w.prev[r] = w.theta[r];
    if (all) { converged = 1; break; }
    CIS_TRY(phase(B, o.verbose, &t_ph, &ph_ritz));
    /* corrections t = (H x - theta x) / (theta - D) for unconverged roots */
    int added = 0;
    for (int r = 0; r < kk && m + added < max_sub; ++r) {
      if (done[r]) continue;
      double *t = VEC(w.V, m + added);
      if (w.lab) w.lab[m + added] = w.rlab[r]; /* a correction stays in its pair's sector */
      int keep;
      OP(dav_precond(B, VEC(HX, r), w.D, w.theta[r], t)); /* this iteration's residual (t may be x_r's slot) */
      if (o.correct) CIS_TRY(o.correct(o.correct_ctx, t, B->stream));
      CIS_TRY(orthonormalise(B, w.V, m + added, w.h, &o, &keep));
      added += keep;
    }
    m_new = added; /* 0: only energy changes pending; the next pass re-checks them */
    CIS_TRY(phase(B, o.verbose, &t_ph, &ph_correct));
  }
  for (int r = 0; r < kk && r < 64; ++r) {
    if (r < k) evals[r] = w.theta[r];
    inf.sector[r] = w.rlab ? w.rlab[r] : 0;
  }
  if (o.watch_vectors && converged && kk > k) /* the watches' Ritz vectors follow the roots' past m */
    OP(download(B, o.watch_vectors, VEC(VEC(w.V, m), k), (cis_int)(kk - k) * n));
  if (evecs) {
    /* m is the last Ritz step's: converged, x is still past m in V; else
     * the corrections overwrote it, and V c goes to W's free slots past m */
    double *X = VEC(w.V, m);
    if (!converged) OP(combine(B, w.V, w.c, m, k, X = VEC(w.W, m)));
    OP(download(B, evecs, X, (cis_int)k * n));
  }
  CIS_TRY(phase(B, o.verbose, &t_ph, &ph_final));
  inf.total_seconds = cis_wtime() - t_start;
  if (o.verbose)
    fprintf(stderr, "davidson phases: setup %.4f s (backend and vectors %.4f, diagonal checked and uploaded %.4f, "
            "guesses %.4f: uploads %.4f, orthonormalisation %.4f), products %.4f s, Rayleigh matrix %.4f s, Ritz "
            "vectors and residuals %.4f s, corrections %.4f s, download %.4f s\n", ph_vectors + ph_diag + ph_setup,
            ph_vectors, ph_diag, ph_setup, ph_given[0], ph_given[1], ph_prod, ph_rayleigh, ph_ritz, ph_correct,
            ph_final);
  inf.converged = converged ? k : nconv;
  if (info) *info = inf;
  if (converged) {
    st = CIS_OK;
  } else { /* name the roots that did not converge: they are not results */
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (int r = 0; r < k && len + 40 < sizeof list; ++r)
      if (!(res[r] < o.tol))
        len += (size_t)snprintf(list + len, sizeof list - len, "%sroot %d residual %.2e", len ? ", " : "", r, res[r]);
    st = cis_error(CIS_ERR_NOT_CONVERGED, "Davidson did not converge in %d iterations: %d of %d roots converged (%s; tol %.1e)",
                   inf.iterations, nconv, k,
                   len ? list : nconv == k ? "a symmetry sector's lowest state not yet above the roots"
                                           : "energy changes above etol", o.tol);
  }
cleanup:
  work_free(B, &w);
  kry_be_free(B);
  return st;
}
