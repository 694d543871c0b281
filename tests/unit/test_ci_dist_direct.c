/* test_ci_dist_direct.c: the direct CI sigma over several parts (CPU
 * parts, the fake communicator: the code path of the GPUs' NCCL one).
 *  - sigma: the parts' partial sigmas (ci_direct_sigma_part over a split
 *    of the alpha strings, each output NaN-poisoned first) sum to the whole
 *    sigma (cis_ci_direct_sigma) to 1e-13 relative, for 1..4 parts and
 *    uneven splits, in C1 (MS2 = 0 with the half sigma for an exactly
 *    symmetric vector, the full sigma for a general one, no time reversal)
 *    and blocked by irreps (N2 D2h MS2 = 0, O2 triplet MS2 = 2), and with
 *    the symmetry projection; a range outside the strings refused;
 *  - the summed operator alone: y = sum of parts' contributions equals the
 *    serial sum, with alpha/beta scaling;
 *  - solves: the energies of cis_ci_solve over 1, 2, 3 CPU parts equal the
 *    one-process direct solve to 1e-10 (2 roots; C1, blocked MS2 = 0 and 2);
 *    one root of H2O: every product a half sigma over parts as in one
 *    process (the corrections made exactly pure across the parts);
 *  - singlet-only roots over 1..3 parts, C1 and blocked by irreps;
 *  - the split re-made from measured times (ci_split_rescaled): a part
 *    twice as slow per string gets fewer strings, the predicted slowest
 *    part is faster; no times keep the model's split;
 *  - where Davidson's vectors go over GPUs (ci_host_vectors_needed) for
 *    the 16e/18o C1 space on 80-GB and 141-GB cards, and the memory the
 *    driver checks it against (cis_ci_memory at the given subspace), and
 *    the driver's fit and check themselves (ci_direct_fit, ci_gpu_need) on
 *    2 and 4 H100s, 2 H200s and 2 40-GB GPUs; host vectors asked
 *    of a summed operator: a host comm's already are, refused once a
 *    vector exists;
 *  - refusals: more parts than alpha strings, the spin penalty over parts,
 *    host_vectors out of range, asked without GPUs or with the stored
 *    method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ci/ci_internal.h"
#include "ci/ci_solve_internal.h"
#include "ci_sigma_ref.h"
#include "distributed/dist_internal.h"
#include "solvers/solver_internal.h"

static const char *path(const char *dir, const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s", dir, name);
  return buf;
}

/* Sum of the parts over the split lo[0..parts] against the whole sigma. */
static void check_split(cis_ci_direct *D, int compact, const double *x, const cis_int *lo, int parts, const char *what) {
  const cis_int n = compact ? ci_direct_compact_size(D) : cis_ci_direct_size(D);
  double *whole = malloc((size_t)n * sizeof *whole), *sum = calloc((size_t)n, sizeof *sum),
         *y = malloc((size_t)n * sizeof *y), *xc = malloc((size_t)n * sizeof *xc);
  memcpy(xc, x, (size_t)n * sizeof *xc);
  ci_whole_sigma(D, compact, xc, whole);
  for (int p = 0; p < parts; ++p) {
    test_fill_nan(y, CIS_F64, n);
    CHECK_OK(ci_direct_sigma_part(D, compact, xc, y, lo[p], lo[p + 1]));
    for (cis_int i = 0; i < n; ++i) sum[i] += y[i];
  }
  const double e = test_rel_err(sum, whole, CIS_F64, n);
  CHECK(e <= 1e-13, "%s, %d parts: the parts' sum differs from the whole sigma by %.3g (relative)", what, parts, e);
  free(whole);
  free(sum);
  free(y);
  free(xc);
}

/* x random (room for two vectors); with sym, exactly symmetric under alpha <-> beta. */
static void random_vector(cis_ci_direct *D, int compact, int sym, double *x) {
  const cis_int n = compact ? ci_direct_compact_size(D) : cis_ci_direct_size(D);
  cis_ci_direct_info in;
  test_fill_random(x, CIS_F64, n, 7);
  ci_direct_get_info(D, &in);
  if (sym) ci_symmetric_vector(D, compact, in.alpha_strings, x);
}

static void sigma_case(const char *file, int compact_layout, int no_tr, int project, int sym) {
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return;
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.no_time_reversal = no_tr;
  o.symmetry_projection = project;
  CHECK_OK(cis_ci_direct_create(F, &o, &D));
  if (D) {
    cis_ci_direct_info in;
    ci_direct_get_info(D, &in);
    const int compact = compact_layout && in.blocked;
    const cis_int nsa = in.alpha_strings, n = compact ? ci_direct_compact_size(D) : cis_ci_direct_size(D);
    double *x = malloc(2 * (size_t)n * sizeof *x);
    random_vector(D, compact, sym, x);
    char what[300];
    snprintf(what, sizeof what, "%s (%s%s%s%s)", file, compact ? "blocked" : "C1 layout", no_tr ? ", no time reversal" : "",
             project ? ", projection" : "", sym ? ", symmetric vector" : "");
    for (int parts = 1; parts <= 4 && parts <= nsa; ++parts) {
      cis_int lo[5];
      for (int p = 0; p <= parts; ++p) lo[p] = nsa * p / parts;
      check_split(D, compact, x, lo, parts, what);
    }
    if (nsa >= 3) { /* uneven: one string, then the rest in two */
      cis_int lo[4] = {0, 1, 1 + (nsa - 1) / 3, nsa};
      check_split(D, compact, x, lo, 3, what);
    }
    double *y = malloc((size_t)n * sizeof *y);
    CHECK(ci_direct_sigma_part(D, compact, x, y, 0, nsa + 1) == CIS_ERR_INVALID, "range past the strings refused");
    CHECK(ci_direct_sigma_part(D, compact, x, y, 2, 1) == CIS_ERR_INVALID, "reversed range refused");
    cis_clear_error();
    free(y);
    free(x);
  }
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

/* The summed operator: part p contributes (p + 1) x_i to every row i. */
static cis_status add_scaled(void *ctx, int local, int rank, const void *x, void *y, cis_stream s) {
  const cis_int n = *(const cis_int *)ctx;
  (void)local, (void)s;
  for (cis_int i = 0; i < n; ++i) ((double *)y)[i] = (rank + 1) * ((const double *)x)[i];
  return CIS_OK;
}

/* The prepare callback's view: calls, and the parts' work it read. */
typedef struct prep_seen {
  int calls;
  int64_t products;
  double secs[3];
} prep_seen;
static cis_status prep_count(void *ctx, cis_dist_matrix *D) {
  prep_seen *p = ctx;
  p->calls++;
  return dist_summed_work(D, p->secs, &p->products);
}
static double test_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
/* add_scaled, with rank 2 taking 20 ms more (its measured work must show it) */
static cis_status add_scaled_slow2(void *ctx, int local, int rank, const void *x, void *y, cis_stream s) {
  if (rank == 2) {
    const double t0 = test_wtime();
    while (test_wtime() - t0 < 20e-3) {
    }
  }
  return add_scaled(ctx, local, rank, x, y, s);
}

/* A summed operator's case over G fake CPU ranks: its world, communicator,
 * operator and vectors, freed together. */
typedef struct summed_case {
  cis_dist_world *w;
  cis_dist_comm *c;
  cis_dist_matrix *M;
  cis_operator *op;
  void *v;
} summed_case;
static void summed_case_open(summed_case *k, int G) {
  memset(k, 0, sizeof *k);
  CHECK_OK(cis_dist_world_create(G, &k->w));
  CHECK_OK(cis_dist_comm_fake(k->w, 0, G, &k->c));
}
static void summed_case_close(summed_case *k) {
  cis_operator_free(k->op);
  cis_dist_matrix_free(k->M);
  cis_dist_comm_free(k->c);
  cis_dist_world_free(k->w);
}

/* rs: the split (uniform or not); how: the sum asked for */
static void summed_operator_split(const cis_int *rs, cis_dist_sum how) {
  enum { N = 1000, G = 3 };
  cis_int n = N;
  summed_case k;
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *got = malloc(2 * N * sizeof *got);
  test_fill_random(x, CIS_F64, N, 11);
  test_fill_random(y, CIS_F64, N, 12);
  summed_case_open(&k, G);
  cis_dist_comm *c = k.c;
  cis_dist_matrix *M = NULL;
  cis_operator *op = NULL;
  void *v = NULL;
  cis_int bad[G + 1] = {0, 10, 10, N};
  CHECK(dist_matrix_create_summed(n, bad, NULL, CIS_F64, add_scaled, &n, c, &M) == CIS_ERR_INVALID,
        "a part without rows refused");
  cis_clear_error();
  CHECK_OK(dist_matrix_create_summed(n, rs, NULL, CIS_F64, add_scaled_slow2, &n, c, &M));
  prep_seen seen = {0, -1, {-1, -1, -1}};
  if (M) {
    CHECK(dist_summed_set_sum(M, (cis_dist_sum)7) == CIS_ERR_INVALID, "an unknown sum refused");
    cis_clear_error();
    CHECK_OK(dist_summed_set_sum(M, how));
    CHECK_OK(dist_summed_set_prepare(M, prep_count, &seen));
    CHECK_OK(dist_summed_set_vectors_host(M, 1)); /* a host comm's: nothing to do */
    CHECK(dist_vectors_on_host(M) == 1, "a host comm's vectors are on the host");
    CHECK_OK(cis_operator_from_dist(M, &op));
    CHECK_OK(cis_dist_vec_alloc(M, 2, &v));
    CHECK(dist_summed_set_vectors_host(M, 0) == CIS_ERR_INVALID && strstr(cis_last_error(), "already allocated"),
          "host vectors after a vector was allocated refused: %s", cis_last_error());
    cis_clear_error();
    void *vy = (char *)v + N * sizeof(double);
    CHECK_OK(cis_dist_vec_upload(M, v, x, 1));
    CHECK_OK(cis_dist_vec_upload(M, vy, y, 1));
    CHECK_OK(cis_operator_apply(op, 0.5, v, -2.0, vy, NULL)); /* y = 0.5 (1+2+3) x - 2 y */
    CHECK_OK(cis_dist_vec_download(M, got, vy, 1));
    double e = 0;
    for (int i = 0; i < N; ++i) e = fmax(e, fabs(got[i] - (3.0 * x[i] - 2.0 * y[i])));
    CHECK(e <= 1e-14, "summed operator (split %lld/%lld, sum %d) with alpha, beta: off by %.3g", (long long)rs[1],
          (long long)rs[2], (int)how, e);
    CHECK_OK(cis_operator_apply(op, 1.0, v, 0.0, vy, NULL));
    CHECK_OK(cis_dist_vec_download(M, got, vy, 1));
    e = 0;
    for (int i = 0; i < N; ++i) e = fmax(e, fabs(got[i] - 6.0 * x[i]));
    CHECK(e <= 1e-14, "summed operator (split %lld/%lld, sum %d): off by %.3g", (long long)rs[1], (long long)rs[2],
          (int)how, e);
    /* before the second product: one product's work, rank 2's 20 ms in it */
    CHECK(seen.calls == 2 && seen.products == 1, "prepare: %d calls, %lld products seen, expected 2 and 1", seen.calls,
          (long long)seen.products);
    CHECK(seen.secs[2] >= 20e-3 && seen.secs[0] >= 0 && seen.secs[0] < seen.secs[2] && seen.secs[1] < seen.secs[2],
          "the parts' work %.4f %.4f %.4f s: rank 2 spent 20 ms more", seen.secs[0], seen.secs[1], seen.secs[2]);
    CHECK(cis_dist_matrix_exchange_bytes(M) == 2 * (G - 1) * N * 8, "exchange volume 2 (G-1) n values");
  }
  k.M = M, k.op = op;
  summed_case_close(&k);
  free(x);
  free(y);
  free(got);
}

/* 100 strings of equal model work over 4 parts of 25; part 2 measured
 * twice as slow: its strings weigh 2, the re-split gives it about 15 (total
 * 125, 31.25 a part) and predicts the slowest part at 31.25/50 of before. */
static void rescaled_split(void) {
  enum { NSA = 100, P = 4 };
  double w[NSA];
  const cis_int alo[P + 1] = {0, 25, 50, 75, 100};
  const double secs[P] = {1.0, 1.0, 2.0, 1.0}, none[P] = {0, 0, 0, 0};
  cis_int out[P + 1];
  for (int A = 0; A < NSA; ++A) w[A] = 1.0;
  double gain = ci_split_rescaled(w, NSA, P, alo, secs, out);
  CHECK(out[0] == 0 && out[P] == NSA, "re-split covers the strings (%lld .. %lld)", (long long)out[0], (long long)out[P]);
  for (int p = 0; p < P; ++p) CHECK(out[p + 1] > out[p], "re-split part %d has strings", p);
  CHECK(out[3] - out[2] >= 14 && out[3] - out[2] <= 17, "the slow part keeps %lld strings, expected about 15",
        (long long)(out[3] - out[2]));
  CHECK(fabs(gain - 32.0 / 50.0) < 0.05, "predicted slowest part %.3f of before, expected about 0.64", gain);
  for (int A = 0; A < NSA; ++A) w[A] = 1.0;
  gain = ci_split_rescaled(w, NSA, P, alo, none, out);
  CHECK(gain == 1.0, "nothing measured: gain %.3f, expected 1", gain);
  for (int p = 0; p <= P; ++p) CHECK(out[p] == alo[p], "nothing measured: the model's split kept (%d: %lld)", p, (long long)out[p]);
}

/* Where Davidson's vectors go over GPUs (ci_host_vectors_needed), with the
 * 16e/18o C1 space (one vector 14.266 GiB) and one root at the smallest
 * subspace (2: 5 vectors, the collapse in place; 7 before it): 4 x 80-GB
 * H100s hold it (the run of 2026-11-27, 63 s), 2 of them now do (7 vectors
 * did not), 2 H200s do; a small space never goes to the host. */
static void host_vectors_rule(void) {
  const double gib = 1073741824.0, vec = 14.266 * gib, h100 = 78.5 * gib, h200 = 139.3 * gib;
  const int least = davidson_vectors(1, davidson_subspace(1, 1, 0));
  CHECK(least == 5, "one root, the smallest subspace: %d Davidson vectors, expected 5", least);
  CHECK(!ci_host_vectors_needed(h100, vec, 4, least), "16e/18o C1 over 4 H100s: Davidson's vectors fit the GPUs");
  CHECK(!ci_host_vectors_needed(h100, vec, 2, least), "16e/18o C1 over 2 H100s: Davidson's 5 vectors fit the GPUs");
  CHECK(ci_host_vectors_needed(h100, vec, 2, 7), "16e/18o C1 over 2 H100s with 7 vectors: to the host");
  CHECK(!ci_host_vectors_needed(h200, vec, 2, 7), "16e/18o C1 over 2 H200s: Davidson's vectors fit the GPUs");
  CHECK(!ci_host_vectors_needed(h100, 1.234 * gib, 2, 51), "CAS(16,16) over 2 H100s at subspace 24: on the GPUs");
  CHECK(ci_host_vectors_needed(2 * gib, 0.5 * gib, 2, 7), "a 2-GiB GPU cannot hold two 0.5-GiB vectors and NCCL's reserve");
  /* the memory the driver checks a GPU run against (cis_ci_memory) at that
   * subspace: 5 vectors, a part's share of them and two whole vectors fit
   * an 80-GB card (the driver counted 11 and refused, 2026-11-27) */
  cis_ci_counts c;
  memset(&c, 0, sizeof c);
  c.determinants = vec / 8.0;
  cis_ci_memory_need need;
  cis_ci_memory(&c, 1, 2, 0, &need);
  CHECK(need.subspace == 2 && fabs(need.davidson - 5 * vec) < 1, "cis_ci_memory at subspace 2, one root: subspace %d, "
        "%.3f vectors (expected 2 and 5)", need.subspace, need.davidson / vec);
  CHECK(need.davidson / 2 + 2 * vec < h100, "16e/18o C1 over 2 H100s: %.1f GiB a GPU", (need.davidson / 2 + 2 * vec) / gib);
  cis_ci_memory(&c, 1, 0, 0, &need); /* the default subspace: room for the stored path's 4 guesses */
  CHECK(need.subspace == 24, "cis_ci_memory's default subspace for one root: %d, expected 24", need.subspace);
  cis_ci_memory(&c, 3, 2, 0, &need); /* a given subspace below 2 roots' worth is raised to it */
  CHECK(need.subspace == 6, "cis_ci_memory at subspace 2 for 3 roots: %d, expected 6", need.subspace);
}

/* The driver's fit and check as a run meets them (ci_direct_fit, then
 * ci_gpu_need against the free memory), for the 16e/18o C1 space and one
 * root: on 2 and 4 80-GB H100s and on 2 H200s Davidson's vectors stay on
 * the GPUs and the run is not refused (2 x H100 was, 2026-11-27: 107.0 GiB
 * counted against 78.7 free); on 2 GPUs of 40 GiB they go to the host and
 * the GPUs' need is their two whole vectors and a share of sigma. */
static void driver_fit(void) {
  const double gib = 1073741824.0;
  const struct {
    int parts;
    double free_gib;
    int host;
    const char *what;
  } c[] = {{2, 78.7, 0, "2 x H100"}, {4, 78.7, 0, "4 x H100"}, {2, 139.3, 0, "2 x H200"}, {2, 40.0, 1, "2 x 40 GB"}};
  for (size_t k = 0; k < sizeof c / sizeof *c; ++k) {
    cis_ci_solve_opts o = cis_ci_solve_opts_default();
    cis_ci_result R;
    cis_fcidump F; /* only its spin read here: MS = 0, both parities watched */
    ci_run r;
    memset(&R, 0, sizeof R);
    memset(&F, 0, sizeof F);
    memset(&r, 0, sizeof r);
    F.norb = 18, F.nelec = 16, F.ms2 = 0;
    o.gpus = c[k].parts;
    R.gpu = 1;
    R.counts.determinants = 1914762564.0;
    R.mem_limit = (int64_t)(1000 * gib); /* host room for the host-vector case */
    r.o = &o, r.R = &R, r.F = &F, r.direct = 1, r.nr = 1, r.parts = c[k].parts;
    ci_direct_fit(&r, c[k].free_gib * gib);
    const double need = ci_gpu_need(&r);
    /* MS = 0: the room of both parities' search (subspace 6) is more than
     * any of these GPUs holds; the host's 1000 GiB holds it */
    CHECK(R.one_parity == !c[k].host, "16e/18o C1 over %s: one parity searched %d, expected %d", c[k].what,
          R.one_parity, !c[k].host);
    CHECK(R.host_vectors == c[k].host, "16e/18o C1 over %s: Davidson's vectors on the %s, expected the %s", c[k].what,
          R.host_vectors ? "host" : "GPUs", c[k].host ? "host" : "GPUs");
    CHECK(R.subspace >= 2 && need <= c[k].free_gib * gib, "16e/18o C1 over %s: subspace %d needs %.1f GiB a GPU of %.1f "
          "free: refused", c[k].what, R.subspace, need / gib, c[k].free_gib);
    if (!c[k].host)
      CHECK(fabs(R.need.davidson - 8.0 * R.counts.determinants * (2 * R.subspace + 1)) < 1,
            "16e/18o C1 over %s: the check counts %.2f vectors at subspace %d, Davidson allocates %d", c[k].what,
            R.need.davidson / (8.0 * R.counts.determinants), R.subspace, 2 * R.subspace + 1);
  }
}

/* The summed operator's f changing its whole x (write-back): x made
 * mirror-symmetric in place, x_i = x_{n-1-i} = their mean (pairs that cross
 * the parts), then part p contributes (p + 1) x_i to every row i. */
static cis_status mirror_then_add(void *ctx, int local, int rank, const void *x, void *y, cis_stream s) {
  const cis_int n = *(const cis_int *)ctx;
  double *w = (double *)x; /* the write-back contract: f may change its x */
  for (cis_int i = 0; i < n / 2; ++i) w[i] = w[n - 1 - i] = 0.5 * (w[i] + w[n - 1 - i]);
  return add_scaled(ctx, local, rank, x, y, s);
}

/* With write-back the input vector becomes the mirrored x (each part's
 * rows, no exchange of their own) and y = 6 mirrored x; without it the
 * input is what it was (f changed only the operator's gathered copy). */
static void summed_write_back(const cis_int *rs) {
  enum { N = 1000, G = 3 };
  cis_int n = N;
  summed_case k;
  double *x = malloc(N * sizeof *x), *m = malloc(N * sizeof *m), *got = malloc(N * sizeof *got);
  test_fill_random(x, CIS_F64, N, 13);
  for (int i = 0; i < N; ++i) m[i] = 0.5 * (x[i] + x[N - 1 - i]);
  CHECK(dist_summed_set_write_back(NULL, 1) == CIS_ERR_INVALID, "write-back: no operator refused");
  cis_clear_error();
  summed_case_open(&k, G);
  CHECK_OK(dist_matrix_create_summed(n, rs, NULL, CIS_F64, mirror_then_add, &n, k.c, &k.M));
  for (int on = 0; on <= 1 && k.M; ++on) {
    CHECK_OK(dist_summed_set_write_back(k.M, on));
    if (!k.op) CHECK_OK(cis_operator_from_dist(k.M, &k.op));
    if (!k.v) CHECK_OK(cis_dist_vec_alloc(k.M, 2, &k.v));
    if (!k.op || !k.v) break;
    void *vy = (char *)k.v + N * sizeof(double);
    CHECK_OK(cis_dist_vec_upload(k.M, k.v, x, 1));
    CHECK_OK(cis_operator_apply(k.op, 1.0, k.v, 0.0, vy, NULL));
    CHECK_OK(cis_dist_vec_download(k.M, got, vy, 1));
    double e = 0;
    for (int i = 0; i < N; ++i) e = fmax(e, fabs(got[i] - 6.0 * m[i]));
    CHECK(e <= 1e-14, "write-back %d (split %lld/%lld): y off by %.3g", on, (long long)rs[1], (long long)rs[2], e);
    CHECK_OK(cis_dist_vec_download(k.M, got, k.v, 1));
    e = 0;
    for (int i = 0; i < N; ++i) e = fmax(e, fabs(got[i] - (on ? m[i] : x[i])));
    CHECK(e == 0, "write-back %d (split %lld/%lld): the input is %s, off by %.3g", on, (long long)rs[1],
          (long long)rs[2], on ? "not the mirrored x" : "changed", e);
  }
  summed_case_close(&k);
  free(x);
  free(m);
  free(got);
}

/* Unequal parts (broadcasts, then the rank-order sum whatever is asked) and
 * a uniform split (the all-gather, then either sum) give the same product. */
static void summed_operator(void) {
  /* wide_tail: uniform, the last part 100 rows of 450: a tail of 350 values */
  const cis_int unequal[4] = {0, 10, 600, 1000}, uniform[4] = {0, 334, 668, 1000}, wide_tail[4] = {0, 450, 900, 1000};
  summed_operator_split(unequal, CIS_DIST_SUM_RANK_ORDER);
  summed_operator_split(unequal, CIS_DIST_SUM_COLLECTIVE);
  summed_operator_split(uniform, CIS_DIST_SUM_RANK_ORDER);
  summed_operator_split(uniform, CIS_DIST_SUM_COLLECTIVE);
  summed_operator_split(wide_tail, CIS_DIST_SUM_COLLECTIVE);
  summed_write_back(unequal);
  summed_write_back(uniform);
  double secs[1];
  CHECK(dist_summed_set_sum(NULL, CIS_DIST_SUM_RANK_ORDER) == CIS_ERR_INVALID, "no operator refused");
  CHECK(dist_summed_set_prepare(NULL, prep_count, NULL) == CIS_ERR_INVALID, "prepare: no operator refused");
  CHECK(dist_summed_work(NULL, secs, NULL) == CIS_ERR_INVALID, "work: no operator refused");
  CHECK(dist_summed_set_vectors_host(NULL, 1) == CIS_ERR_INVALID, "host vectors: no operator refused");
  CHECK(dist_vectors_on_host(NULL) == 0, "no operator: no host vectors");
  cis_clear_error();
}

/* o's roots over 1..3 CPU parts against the one-process R1 (mode names the
 * case): direct, the energies to 1e-10; with half, every product a half
 * sigma where R1's were (the corrections kept pure over parts as on one). */
static void match_over_parts(const char *file, const char *mode, cis_ci_solve_opts o, const cis_ci_result *R1,
                             int half) {
  for (int parts = 1; parts <= 3 && R1; ++parts) {
    cis_ci_result *R = NULL;
    o.cpu_parts = parts;
    CHECK_OK(cis_ci_solve_file(file, &o, &R));
    if (!R) continue;
    CHECK(R->method == CIS_CI_METHOD_DIRECT && R->parts == parts, "%s: %s over %d parts ran", file, mode, parts);
    for (int k = 0; k < o.roots; ++k)
      CHECK(fabs(R->energies[k] - R1->energies[k]) <= 1e-10, "%s, %s, %d parts, root %d: %.12f against %.12f", file,
            mode, parts, k, R->energies[k], R1->energies[k]);
    if (half && R1->half_sigmas == R1->davidson.products)
      CHECK(R->half_sigmas == R->davidson.products, "%s, %d parts: %lld of %lld products by the half sigma", file, parts,
            (long long)R->half_sigmas, (long long)R->davidson.products);
    cis_ci_result_free(R);
  }
}

static void solve_case(const char *file) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R1 = NULL;
  o.method = CIS_CI_METHOD_DIRECT;
  o.roots = 2;
  o.tol = 1e-9;
  o.no_s2 = 1;
  CHECK_OK(cis_ci_solve_file(file, &o, &R1));
  match_over_parts(file, "direct", o, R1, 1);
  cis_option_set("dist_resplit", "always"); /* the strings re-split from the measured times before product 3 */
  match_over_parts(file, "re-split", o, R1, 1);
  cis_option_set("dist_resplit", NULL);
  cis_ci_result_free(R1);
}

/* One root of an MS2 = 0 C1 space: every product a half sigma over parts
 * too (the corrections made exactly pure across the parts), as in one process. */
static void half_sigmas(const char *file) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.method = CIS_CI_METHOD_DIRECT;
  o.no_s2 = 1;
  for (int parts = 0; parts <= 3; ++parts) {
    cis_ci_result *R = NULL;
    o.cpu_parts = parts;
    CHECK_OK(cis_ci_solve_file(file, &o, &R));
    if (R)
      CHECK(R->half_sigmas == R->davidson.products && R->davidson.products > 3, "%s, %d parts: %lld of %lld products by "
            "the half sigma", file, parts, (long long)R->half_sigmas, (long long)R->davidson.products);
    cis_ci_result_free(R);
  }
}

/* Singlet-only roots (PySCF's direct_spin0: c = c^T) over 1..3 parts equal
 * the one-process singlet roots to 1e-10; with has_triplet, the plain lowest
 * roots hold a triplet, so the singlet ones must differ from them (the mode
 * is what is tested). */
static void singlet_case(const char *file, int nroots, int has_triplet) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R1 = NULL, *Rall = NULL;
  o.method = CIS_CI_METHOD_DIRECT;
  o.roots = nroots;
  o.tol = 1e-9;
  CHECK_OK(cis_ci_solve_file(file, &o, &Rall));
  o.singlet = 1;
  CHECK_OK(cis_ci_solve_file(file, &o, &R1));
  if (Rall && R1 && has_triplet) {
    double diff = 0;
    for (int k = 0; k < nroots; ++k) diff = fmax(diff, fabs(R1->energies[k] - Rall->energies[k]));
    CHECK(diff > 1e-4, "%s: the singlet roots are not the plain lowest (a triplet among %d)", file, nroots);
  }
  o.no_s2 = 1;
  match_over_parts(file, "singlet", o, R1, 0);
  cis_ci_result_free(R1);
  cis_ci_result_free(Rall);
}

static void refusals(const char *file) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  o.method = CIS_CI_METHOD_DIRECT;
  o.cpu_parts = 64; /* H4 STO-3G has 6 alpha strings */
  CHECK(cis_ci_solve_file(file, &o, &R) == CIS_ERR_INVALID && strstr(cis_last_error(), "alpha strings"),
        "more parts than alpha strings refused: %s", cis_last_error());
  o.cpu_parts = 2;
  o.spin_penalty = 0.5;
  CHECK(cis_ci_solve_file(file, &o, &R) == CIS_ERR_UNSUPPORTED, "the spin penalty over parts refused");
  cis_clear_error();
  o.spin_penalty = 0;
  o.host_vectors = 2;
  CHECK(cis_ci_solve_file(file, &o, &R) == CIS_ERR_INVALID && strstr(cis_last_error(), "host_vectors"),
        "host_vectors 2 refused: %s", cis_last_error());
  o.host_vectors = 1; /* host parts: their vectors are host memory already; it asks for GPUs */
  CHECK(cis_ci_solve_file(file, &o, &R) == CIS_ERR_INVALID && strstr(cis_last_error(), "needs gpus"),
        "host_vectors 1 without gpus refused: %s", cis_last_error());
  o.cpu_parts = 0;
  o.gpus = 2;
  o.method = CIS_CI_METHOD_STORED;
  CHECK(cis_ci_solve_file(file, &o, &R) == CIS_ERR_INVALID && strstr(cis_last_error(), "direct method"),
        "host_vectors 1 with the stored method refused: %s", cis_last_error());
  cis_clear_error();
}

int main(void) {
  char a[512], b[512], c[512], d[512];
  const char *h2o = path(CIS_SHARED_DIR, "ci/h2o_sto3g.FCIDUMP", a, sizeof a);
  const char *n2 = path(CIS_TEST_DATA, "ci/n2_sto3g_d2h.FCIDUMP", b, sizeof b);
  const char *o2 = path(CIS_TEST_DATA, "ci/o2_sto3g_triplet_pyscf.FCIDUMP", c, sizeof c);
  const char *h4 = path(CIS_SHARED_DIR, "ci/h4_sto3g.FCIDUMP", d, sizeof d);
  sigma_case(h2o, 0, 0, 0, 1); /* half sigma */
  sigma_case(h2o, 0, 0, 0, 0); /* full sigma of a general vector */
  sigma_case(h2o, 0, 1, 0, 1); /* no time reversal */
  sigma_case(n2, 1, 0, 0, 0);  /* blocked by irreps, MS2 = 0, a general vector */
  sigma_case(n2, 1, 0, 0, 1);  /* blocked, the half sigma of a symmetric one */
  sigma_case(n2, 0, 0, 1, 1);  /* projection, C1 layout */
  sigma_case(o2, 1, 0, 0, 0);  /* blocked, MS2 = 2 */
  summed_operator();
  rescaled_split();
  host_vectors_rule();
  driver_fit();
  solve_case(h2o);
  solve_case(n2);
  solve_case(o2);
  half_sigmas(h2o);
  singlet_case(h2o, 4, 1);
  singlet_case(n2, 4, 0); /* blocked by irreps (its lowest Ag roots have even S) */
  refusals(h4);
  return test_summary("test_ci_dist_direct");
}
