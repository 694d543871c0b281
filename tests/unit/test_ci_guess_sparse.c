/* test_ci_guess_sparse.c: Davidson's sparse P-space guesses on the direct
 * space (src/ci/guess_sparse.c, pspace.c's ci_pspace_guess_sparse) against
 * the dense path they replace in the CI driver: the P-space vectors, their
 * alpha <-> beta pure parts and the singlet filter, expanded, equal the dense
 * functions' vectors exactly, for C1 (MS2 = 0), projected, compact (blocked
 * by irreps) and no-time-reversal spaces, from the P-space and from random
 * sparse vectors near neither parity; their arrays are bounded by the
 * P-space, not the space. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "ci/guess_sparse.h"
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

enum { NVEC = 6, NP = 40 };

/* Vectors of s expanded against the dense ones (len each): the count and
 * every value equal (a zero's sign aside: Davidson drops zeros of either). */
static void check_same(const char *name, const char *step, const ci_sparse_guesses *s, const double *dense, int ndense,
                       cis_int len) {
  double *x = malloc((size_t)len * sizeof(double));
  cis_int bad = 0, order = 0;
  for (int j = 0; j < s->n && j < ndense; ++j) {
    ci_sparse_guesses_expand(s, j, len, x);
    for (cis_int i = 0; i < len; ++i) bad += x[i] != dense[(size_t)j * len + i];
    for (cis_int e = s->ptr[j]; e < s->ptr[j + 1]; ++e) order += s->val[e] == 0 || (e > s->ptr[j] && s->idx[e] <= s->idx[e - 1]);
  }
  CHECK(s->n == ndense && bad == 0 && order == 0, "%s %s: %d sparse vs %d dense guesses, %lld values differ, %lld "
        "entries zero or out of order", name, step, s->n, ndense, (long long)bad, (long long)order);
  free(x);
}

/* The dense path (P-space or given vectors, pure parts, singlet filter)
 * and the sparse one from the same start. */
static void compare(const char *name, const cis_fcidump *F, const cis_ci_direct *D, int compact, int singlet,
                    ci_sparse_guesses *s, double *g, int nin, cis_int len) {
  int nout = -1;
  CHECK_OK(compact ? cis_ci_direct_compact_pure_guesses(D, g, nin, 2 * nin, &nout)
                   : cis_ci_direct_pure_guesses(D, g, nin, 2 * nin, &nout));
  CHECK_OK(ci_sparse_pure_guesses(D, compact, s));
  check_same(name, "pure parts", s, g, nout, len);
  if (!singlet) return;
  CHECK_OK(cis_ci_direct_keep_symmetric(D, compact, g, nout, &nout));
  CHECK_OK(ci_sparse_keep_symmetric(D, compact, s));
  check_same(name, "singlet filter", s, g, nout, len);
  (void)F;
}

static void test_space(const char *file, const char *name, cis_ci_direct_opts dopt, int compact) {
  char path[512];
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, file), &F));
  if (!F) return;
  CHECK_OK(cis_ci_direct_create(F, &dopt, &D));
  if (!D) { cis_fcidump_free(F); return; }
  const cis_int len = compact ? ci_direct_compact_size(D) : cis_ci_direct_size(D);
  const int singlet = !dopt.no_time_reversal;
  double *diag = malloc((size_t)len * sizeof(double)), *g = calloc(2 * NVEC * (size_t)len, sizeof(double));
  CHECK_OK(compact ? ci_direct_compact_diagonal(D, diag) : ci_direct_diagonal(D, diag));

  /* the P-space: the same determinants (ascending) and values as the dense vectors */
  int used = 0, m = 0, got = 0;
  cis_int *idx = NULL;
  double *val = NULL;
  ci_sparse_guesses s = {0};
  CHECK_OK(compact ? ci_pspace_guess_compact(F, D, diag, NP, NVEC, g, &used, NULL)
                   : ci_pspace_guess_direct(F, D, diag, NP, NVEC, g, &used, NULL));
  CHECK_OK(ci_pspace_guess_sparse(F, D, compact, diag, NP, NVEC, &idx, &val, &m, &got));
  CHECK(m == used && got == NVEC, "%s: P-space of %d (dense %d), %d vectors", name, m, used, got);
  for (int v = 0; v < got && m == used; ++v) CHECK_OK(ci_sparse_guesses_push(&s, m, idx, val + (size_t)v * m));
  check_same(name, "P-space", &s, g, NVEC, len);
  compare(name, F, D, compact, singlet, &s, g, NVEC, len);
  /* the guess arrays hold the P-space, whatever the space: at most each
   * P-space determinant and its mirror per vector */
  CHECK(s.ptr && s.ptr[s.n] <= 2 * (cis_int)m * 2 * NVEC, "%s: %lld sparse entries for a P-space of %d", name,
        s.ptr ? (long long)s.ptr[s.n] : -1LL, m);
  ci_sparse_guesses_free(&s);

  /* random sparse vectors near neither parity (the split) and an empty one */
  memset(g, 0, 2 * NVEC * (size_t)len * sizeof(double));
  cis_int ri[24];
  double rv[24];
  for (int v = 0; v < 2; ++v) {
    test_fill_random(rv, CIS_F64, 24, 40 + (unsigned long long)v);
    cis_int k = 0;
    for (int e = 0; e < 24; ++e) {
      const cis_int i = ((cis_int)(fabs(rv[e]) * 7919.0) + 13 * e + v) % len;
      if (k == 0 || i > ri[k - 1]) ri[k++] = i;
    }
    test_fill_random(rv, CIS_F64, k, 90 + (unsigned long long)v);
    for (cis_int e = 0; e < k; ++e) g[(size_t)v * len + ri[e]] = rv[e];
    CHECK_OK(ci_sparse_guesses_push(&s, k, ri, rv));
  }
  CHECK_OK(ci_sparse_guesses_push(&s, 0, ri, rv)); /* an empty guess: symmetric, as a zero vector is */
  memcpy(g + 8 * (size_t)len, g, (size_t)len * sizeof(double)); /* vector 0 kept (past compare's 6) */
  compare(name, F, D, compact, singlet, &s, g, 3, len);
  ci_sparse_guesses_free(&s);
  if (singlet) { /* vector 0's antisymmetric part, one entry 1 ulp off: made exactly pure */
    double *a = g + 8 * (size_t)len;
    int two = 0;
    CHECK_OK(compact ? cis_ci_direct_compact_pure_guesses(D, a, 1, 2, &two) : cis_ci_direct_pure_guesses(D, a, 1, 2, &two));
    memmove(g, a + len, (size_t)len * sizeof(double));
    cis_int k = 0, *ai = malloc((size_t)len * sizeof(cis_int));
    double *av = malloc((size_t)len * sizeof(double));
    for (cis_int i = 0; i < len; ++i)
      if (g[i] != 0.0) ai[k] = i, av[k++] = g[i];
    if (k > 0) g[ai[0]] = av[0] = nextafter(av[0], 2 * av[0]);
    CHECK_OK(ci_sparse_guesses_push(&s, k, ai, av));
    compare(name, F, D, compact, singlet, &s, g, 1, len);
    CHECK(two == 2 && k > 0 && s.n == 0, "%s: an antisymmetric guess: %d parts, %lld entries, %d kept as singlet",
          name, two, (long long)k, s.n);
    ci_sparse_guesses_free(&s);
    free(ai);
    free(av);
  }

  cis_free(idx);
  cis_free(val);
  free(diag);
  free(g);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

/* h2o/6-31G in C1 (1.66e6 determinants): the guess arrays hold a few
 * thousand numbers where the dense path held 2 x 6 vectors of the space. */
static void test_bounded_by_pspace(void) {
  char path[512];
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  cis_ci_direct_opts dopt = ci_direct_opts_default();
  dopt.ignore_symmetry = 1;
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_631g.FCIDUMP"), &F));
  if (!F) return;
  CHECK_OK(cis_ci_direct_create(F, &dopt, &D));
  if (!D) { cis_fcidump_free(F); return; }
  const cis_int n = cis_ci_direct_size(D);
  double *diag = malloc((size_t)n * sizeof(double));
  cis_int *idx = NULL;
  double *val = NULL;
  int m = 0, got = 0;
  ci_sparse_guesses s = {0};
  CHECK_OK(ci_direct_diagonal(D, diag));
  CHECK_OK(ci_pspace_guess_sparse(F, D, 0, diag, CIS_CI_PSPACE_DEFAULT, NVEC, &idx, &val, &m, &got));
  for (int v = 0; v < got; ++v) CHECK_OK(ci_sparse_guesses_push(&s, m, idx, val + (size_t)v * m));
  CHECK_OK(ci_sparse_pure_guesses(D, 0, &s));
  const double bytes = (double)s.cap_nz * (sizeof(cis_int) + sizeof(double)) + (s.cap_n + 1.0) * sizeof(cis_int);
  CHECK(m <= 2 * CIS_CI_PSPACE_DEFAULT && s.n >= NVEC && s.ptr[s.n] <= 4 * (cis_int)m * NVEC &&
            bytes <= 16.0 * 4 * m * 2 * NVEC + 4096,
        "h2o_631g C1: %d guesses of %lld entries in %.0f bytes for a P-space of %d (%lld determinants)", s.n,
        (long long)(s.n ? s.ptr[s.n] : 0), bytes, m, (long long)n);
  printf("h2o_631g C1 %lld determinants: %d sparse guesses, %lld entries, %.0f bytes (dense: %.0f)\n", (long long)n,
         s.n, (long long)s.ptr[s.n], bytes, 2.0 * NVEC * 8.0 * (double)n);
  ci_sparse_guesses_free(&s);
  cis_free(idx);
  cis_free(val);
  free(diag);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

static void test_errors(void) {
  ci_sparse_guesses s = {0};
  CHECK(ci_sparse_pure_guesses(NULL, 0, &s) == CIS_ERR_INVALID, "NULL space accepted");
  CHECK(ci_sparse_keep_symmetric(NULL, 0, &s) == CIS_ERR_INVALID, "NULL space accepted");
  CHECK(ci_pspace_guess_sparse(NULL, NULL, 0, NULL, 0, 1, NULL, NULL, NULL, NULL) == CIS_ERR_INVALID,
        "NULL arguments accepted");
}

int main(void) {
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.ignore_symmetry = 1;
  test_space("ci/h2o_sto3g.FCIDUMP", "h2o_sto3g C1", o, 0);
  test_space("ci/n2_sto3g.FCIDUMP", "n2_sto3g C1", o, 0);
  o = ci_direct_opts_default();
  test_space("ci/h2o_sto3g.FCIDUMP", "h2o_sto3g compact", o, 1);
  test_space("ci/n2_sto3g.FCIDUMP", "n2_sto3g compact", o, 1);
  o.symmetry_projection = 1;
  test_space("ci/h2o_sto3g.FCIDUMP", "h2o_sto3g projected", o, 0);
  o = ci_direct_opts_default();
  o.no_time_reversal = 1;
  test_space("ci/h2o_sto3g.FCIDUMP", "h2o_sto3g no time reversal", o, 1);
  test_bounded_by_pspace();
  test_errors();
  return test_summary("test_ci_guess_sparse");
}
