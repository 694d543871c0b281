/* test_gen.c: generators: determinism (per spec, per seed, per thread
 * count), the CI structure of Tables 3-4, exact Laplacian counts, spec
 * errors, memory refusals and allocation failures. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"

static cis_csr *gen(const char *spec, cis_dtype t) {
  cis_csr *A = NULL;
  cis_status st = cis_generate(spec, t, &A);
  CHECK(st == CIS_OK, "%s -> %s: %s", spec, cis_status_name(st), cis_last_error());
  if (A) CHECK(cis_csr_check(A) == CIS_OK, "%s: %s", spec, cis_last_error());
  return A;
}

static int same(const cis_csr *A, const cis_csr *B) {
  return A && B && A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
         A->dtype == B->dtype &&
         !memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof(cis_int)) &&
         !memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(cis_idx)) &&
         !memcmp(A->val, B->val, (size_t)A->nnz * cis_dtype_size(A->dtype));
}

static void test_deterministic(void) {
  const char *specs[] = {"ci:rows=4096,cols=32768,seed=7", "powerlaw:rows=20000,seed=3",
                         "random:rows=3000,cols=2500,density=0.02,seed=2",
                         "random:rows=500,cols=400,density=0.3,seed=2", "laplace3d:size=12,points=27"};
  const int threads = omp_get_max_threads();
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    /* arrange: once with every thread, once with one, once with three */
    cis_csr *A = gen(specs[s], CIS_F64), *B, *C;
    omp_set_num_threads(1);
    B = gen(specs[s], CIS_F64);
    omp_set_num_threads(3);
    C = gen(specs[s], CIS_F64);
    omp_set_num_threads(threads);
    /* assert */
    CHECK(same(A, B) && same(A, C), "%s: differs between runs / thread counts", specs[s]);
    cis_csr_free(A); cis_csr_free(B); cis_csr_free(C);
  }
  cis_csr *A = gen("ci:rows=4096,cols=32768,seed=1", CIS_F64), *B = gen("ci:rows=4096,cols=32768,seed=2", CIS_F64);
  CHECK(A && B && (A->nnz != B->nnz || memcmp(A->colind, B->colind, (size_t)A->nnz * 4)),
        "seeds 1 and 2 give the same ci matrix");
  cis_csr_free(A); cis_csr_free(B);
  A = gen("random:rows=300,cols=300,density=0.1,seed=1", CIS_F64);
  B = gen("random:rows=300,cols=300,density=0.1,seed=2", CIS_F64);
  CHECK(A && B && !same(A, B), "random seeds 1 and 2 give the same matrix");
  cis_csr_free(A); cis_csr_free(B);
}

/* Values of a generated random matrix: in (-1, 1) and never zero. */
static void check_values(const cis_csr *A, const char *what) {
  cis_int bad = 0;
  for (cis_int k = 0; k < A->nnz; ++k) {
    double v = csr_value(A, k);
    if (!(v > -1.0 && v < 1.0 && v != 0.0)) bad++;
  }
  CHECK(bad == 0, "%s: %lld values outside (-1,1) or zero", what, (long long)bad);
}

/* The paper's 32,768-row matrices: Table 3's 21,463,040 Reference nonzeros
 * (655 in each row's first 3,277 columns), ~9.67 M Expansion Space nonzeros,
 * longest row 1,060-1,079 (we accept 1,050-1,090). */
static void test_ci_tables_3_4(void) {
  for (int seed = 1; seed <= 3; ++seed) {
    char spec[64];
    snprintf(spec, sizeof spec, "ci:rows=32768,seed=%d", seed);
    double t0 = cis_wtime();
    cis_csr *A = gen(spec, CIS_F64);
    double dt = cis_wtime() - t0;
    if (!A) continue;
    cis_int ref = cis_gen_reference_cols(spec, A->cols), rows_off = 0, nref = 0, at;
    CHECK(ref == 3277, "reference columns %lld, expected ceil(0.1*32768) = 3277", (long long)ref);
    for (cis_int i = 0; i < A->rows; ++i) {
      cis_int n = 0;
      for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) n += A->colind[k] < ref;
      rows_off += n != 655;
      nref += n;
    }
    cis_int nexp = A->nnz - nref, longest = csr_max_row(A, &at);
    CHECK(rows_off == 0, "%s: %lld rows without exactly 655 Reference nonzeros", spec, (long long)rows_off);
    CHECK(nref == 21463040, "%s: Reference nonzeros %lld, Table 3 has 21,463,040", spec, (long long)nref);
    CHECK(nexp > 9640000 && nexp < 9700000, "%s: Expansion nonzeros %lld, Table 3: 9.66-9.68 M", spec,
          (long long)nexp);
    CHECK(longest >= 1050 && longest <= 1090, "%s: longest row %lld (Table 3: 1,060-1,079)", spec,
          (long long)longest);
    double sp_ref = 1.0 - (double)nref / (32768.0 * ref);
    CHECK(fabs(sp_ref - 0.80011) < 1e-4, "%s: Reference sparsity %.6f vs Table 4's 0.800110", spec, sp_ref);
    check_values(A, spec);
    printf("%s: nnz %lld (Reference %lld, Expansion %lld), longest row %lld at %lld, %.2f s\n", spec,
           (long long)A->nnz, (long long)nref, (long long)nexp, (long long)longest, (long long)at, dt);
    cis_csr_free(A);
  }
}

static void test_ci_options_and_float(void) {
  /* ref_density asks round(D * ref) per row; small matrices clamp to the region */
  cis_csr *A = gen("ci:rows=50,cols=1000,seed=4,ref_density=0.5,exp_per_row=20,exp_sd=0", CIS_F64);
  if (A) {
    for (cis_int i = 0; i < A->rows; ++i)
      CHECK(A->rowptr[i + 1] - A->rowptr[i] == 70, "row %lld: %lld entries, expected 50 + 20", (long long)i,
            (long long)(A->rowptr[i + 1] - A->rowptr[i]));
  }
  cis_csr_free(A);
  A = gen("ci:rows=40,seed=1", CIS_F64); /* ref = 4 columns, 655 clamped to 4; exp clamped to 36 */
  if (A) CHECK(A->nnz == 40 * 40, "tiny ci: nnz %lld, expected a full 40x40", (long long)A->nnz);
  cis_csr_free(A);
  CHECK(cis_gen_reference_cols("ci:rows=30,seed=1", 30) == 3, "0.1 x 30 must give 3 columns, not 4");
  CHECK(cis_gen_reference_cols("ci:rows=30,seed=1,ref_frac=0.25", 30) == 8, "ceil(7.5) = 8");
  CHECK(cis_gen_reference_cols("laplace3d:size=3", 27) == 0, "non-ci spec has no Reference region");
  CHECK(cis_gen_reference_cols("ci:rows=30,seed=1,ref_frac=2", 30) == 0, "bad ref_frac gives 0");
  /* float values are the double values rounded */
  cis_csr *D = gen("ci:rows=300,cols=4000,seed=9", CIS_F64), *F = gen("ci:rows=300,cols=4000,seed=9", CIS_F32);
  if (D && F) {
    CHECK(D->nnz == F->nnz && !memcmp(D->colind, F->colind, (size_t)D->nnz * 4), "float structure differs");
    cis_int off = 0;
    for (cis_int k = 0; k < D->nnz && D->nnz == F->nnz; ++k)
      off += ((float *)F->val)[k] != (float)((double *)D->val)[k];
    CHECK(off == 0, "%lld float values are not the rounded double values", (long long)off);
  }
  cis_csr_free(D); cis_csr_free(F);
}

static void test_laplace3d(void) {
  for (int n = 1; n <= 9; n += 4) {
    for (int pts = 7; pts <= 27; pts += 20) {
      char spec[64];
      snprintf(spec, sizeof spec, "laplace3d:size=%d,points=%d", n, pts);
      cis_csr *A = gen(spec, CIS_F64), *T = NULL;
      if (!A) continue;
      long long N = n, expect = pts == 7 ? 7 * N * N * N - 6 * N * N : (3 * N - 2) * (3 * N - 2) * (3 * N - 2);
      CHECK(A->rows == N * N * N && A->nnz == expect, "%s: %lld rows %lld nnz, expected %lld nnz", spec,
            (long long)A->rows, (long long)A->nnz, expect);
      CHECK_OK(cis_csr_transpose(A, &T));
      CHECK(T && same(A, T), "%s is not symmetric", spec);
      /* row sums: diagonal minus neighbours, 0 exactly for interior rows */
      cis_int centre = (N / 2) + N * ((N / 2) + N * (N / 2));
      double sum = 0, diag = 0;
      for (cis_int k = A->rowptr[centre]; k < A->rowptr[centre + 1]; ++k) {
        sum += csr_value(A, k);
        if (A->colind[k] == centre) diag = csr_value(A, k);
      }
      CHECK(diag == pts - 1, "%s: diagonal %g, expected %d", spec, diag, pts - 1);
      if (n >= 3) CHECK(sum == 0.0, "%s: interior row sum %g, expected 0", spec, sum);
      cis_csr_free(A); cis_csr_free(T);
    }
  }
}

/* alpha -> 1: the Pareto scale xmin falls like (avg/max)^(1/(alpha-1))
 * (1e-210 at 1.01, no double at 1 + 1e-10), and avg must still hold. With
 * max = 2000 about 0.8% of the rows are capped: the mean of 200000 rows
 * has a standard deviation near 0.4. */
static void test_powerlaw_near_one(void) {
  const char *specs[] = {"powerlaw:rows=200000,seed=5,avg=16,alpha=1.0000000001,max=2000",
                         "powerlaw:rows=200000,seed=5,avg=16,alpha=1.01,max=2000",
                         "powerlaw:rows=200000,seed=6,avg=16,alpha=1.1,max=2000",
                         "powerlaw:rows=20000,seed=3,avg=4,alpha=1.01,max=100"};
  const double want[] = {16, 16, 16, 4}, tol[] = {2, 2, 2, 0.5};
  for (int k = 0; k < 4; ++k) {
    cis_csr *A = gen(specs[k], CIS_F64);
    if (!A) continue;
    double avg = (double)A->nnz / (double)A->rows;
    CHECK(fabs(avg - want[k]) < tol[k], "%s: average row %.3f, expected %g", specs[k], avg, want[k]);
    cis_csr_free(A);
  }
}

static void test_powerlaw_and_random(void) {
  cis_csr *A = gen("powerlaw:rows=200000,seed=5,avg=16,alpha=2.5,max=2000", CIS_F64);
  if (A) {
    double avg = (double)A->nnz / (double)A->rows;
    cis_int longest = csr_max_row(A, NULL);
    CHECK(fabs(avg - 16.0) < 0.5, "powerlaw average row %.3f, expected 16", avg);
    CHECK(longest <= 2000 && longest > 10 * 16, "powerlaw longest row %lld: not irregular or above max",
          (long long)longest);
    check_values(A, "powerlaw");
  }
  cis_csr_free(A);
  A = gen("random:rows=2000,cols=1500,density=0.05,seed=8", CIS_F64);
  if (A) { /* Binomial: mean 150000, sd ~ 377; allow 6 sd */
    CHECK(llabs((long long)A->nnz - 150000) < 2300, "random nnz %lld, expected ~150000", (long long)A->nnz);
    check_values(A, "random");
  }
  cis_csr_free(A);
  A = gen("random:rows=5000,cols=1000,density=0.004,seed=8", CIS_F64); /* inversion branch: mean 4/row */
  if (A) CHECK(llabs((long long)A->nnz - 20000) < 850, "sparse random nnz %lld, expected ~20000", (long long)A->nnz);
  cis_csr_free(A);
  A = gen("random:rows=7,cols=33,density=1,seed=8", CIS_F64);
  if (A) CHECK(A->nnz == 7 * 33, "density=1 must be full: nnz %lld", (long long)A->nnz);
  cis_csr_free(A);
  /* very wide: the hash-set sampler (a bitmap would be 250 MB per thread) */
  A = gen("random:rows=40,cols=2000000000,density=1e-8,seed=3", CIS_F32);
  if (A) CHECK(A->nnz > 400 && A->nnz < 1300, "wide random nnz %lld, expected ~800", (long long)A->nnz);
  cis_csr_free(A);
}

static void expect_error(const char *spec, cis_status want, const char *text) {
  cis_csr *A = (cis_csr *)&A; /* must come back NULL */
  cis_status st = cis_generate(spec, CIS_F64, &A);
  CHECK(st == want && A == NULL, "%s: got %s, expected %s", spec, cis_status_name(st), cis_status_name(want));
  CHECK(strstr(cis_last_error(), text) && !strchr(cis_last_error(), '\n'),
        "%s: message '%s' lacks '%s' or is not one line", spec, cis_last_error(), text);
  if (st == CIS_OK) cis_csr_free(A);
}

static void test_spec_errors(void) {
  expect_error("nope:rows=3", CIS_ERR_NOT_FOUND, "unknown kind 'nope'");
  expect_error("ci", CIS_ERR_INVALID, "expected KIND:key=value");
  expect_error(":rows=3", CIS_ERR_INVALID, "expected KIND:key=value");
  expect_error("averyveryverylongkind:rows=3", CIS_ERR_NOT_FOUND, "unknown kind 'averyveryverylongkind'");
  expect_error("ci:rows=10", CIS_ERR_INVALID, "missing seed=");
  expect_error("ci:seed=1", CIS_ERR_INVALID, "missing rows=");
  expect_error("ci:rows=10,seed=1,colz=4", CIS_ERR_INVALID, "unknown key 'colz'");
  expect_error("ci:rows=10,sed=1", CIS_ERR_INVALID, "unknown key 'sed' for ci (keys: rows, seed,");
  expect_error("laplace3d:size=3,seed=1", CIS_ERR_INVALID, "unknown key 'seed' for laplace3d");
  expect_error("random:row=3,cols=3,density=0.5,seed=1", CIS_ERR_INVALID, "unknown key 'row'");
  expect_error("ci:rows=10,seed=1,", CIS_ERR_INVALID, "trailing comma");
  expect_error("ci:rows=10,seed", CIS_ERR_INVALID, "malformed item 'seed'");
  expect_error("ci:rows=10,rows=11,seed=1", CIS_ERR_INVALID, "given twice");
  expect_error("ci:rows=0,seed=1", CIS_ERR_INVALID, "rows=0 is out of range");
  expect_error("ci:rows=-5,seed=1", CIS_ERR_INVALID, "rows=-5 is out of range");
  expect_error("ci:rows=12x,seed=1", CIS_ERR_INVALID, "rows='12x' is not an integer");
  expect_error("ci:rows=3000000000,seed=1", CIS_ERR_OVERFLOW, "out of range");
  expect_error("ci:rows=99999999999999999999,seed=1", CIS_ERR_OVERFLOW, "out of range");
  expect_error("ci:rows=10,seed=1,ref_frac=0", CIS_ERR_INVALID, "ref_frac=0 is outside (0, 1]");
  expect_error("ci:rows=10,seed=1,exp_sd=nan", CIS_ERR_INVALID, "not a finite number");
  expect_error("ci:rows=10,seed=1,ref_density=0.2,ref_per_row=5", CIS_ERR_INVALID, "not both");
  expect_error("random:rows=10,cols=10,seed=1", CIS_ERR_INVALID, "missing density=");
  expect_error("random:rows=10,cols=10,density=0,seed=1", CIS_ERR_INVALID, "density=0 is outside (0, 1]");
  expect_error("random:rows=10,cols=10,density=1.5,seed=1", CIS_ERR_INVALID, "density=1.5 is outside");
  expect_error("laplace3d:size=1291", CIS_ERR_OVERFLOW, "below 2^31");
  expect_error("laplace3d:size=4,points=9", CIS_ERR_INVALID, "points=9");
  expect_error("powerlaw:rows=10,seed=1,alpha=1", CIS_ERR_INVALID, "alpha=1 is outside (1, 100]");
  expect_error("powerlaw:rows=10,seed=1,avg=11", CIS_ERR_INVALID, "avg=11 is outside");
  expect_error("powerlaw:rows=10,seed=1,max=11", CIS_ERR_OVERFLOW, "max=11 is out of range");
  /* sizes beyond memory: refused before anything large is allocated */
  expect_error("ci:rows=2147483647,seed=1", CIS_ERR_TOO_LARGE, "GiB");
  expect_error("random:rows=2000000000,cols=2000000000,density=0.5,seed=1", CIS_ERR_OVERFLOW, "2^63");
  CHECK(cis_generate("ci:rows=5,seed=1", (cis_dtype)7, &(cis_csr *){NULL}) == CIS_ERR_INVALID, "bad dtype accepted");
  CHECK(cis_generate("ci:rows=5,seed=1", CIS_F64, NULL) == CIS_ERR_INVALID, "NULL output accepted");
  CHECK(cis_gen_is_spec("ci:rows=5") && cis_gen_is_spec("laplace3d:") && !cis_gen_is_spec("cix:rows=5") &&
            !cis_gen_is_spec("matrix.mtx") && !cis_gen_is_spec("C:/x.mtx") && !cis_gen_is_spec(NULL),
        "cis_gen_is_spec");
}

static cis_status gen_run(void *ctx) {
  cis_csr **A = ctx;
  const cis_status st = cis_generate("ci:rows=64,cols=2000,seed=1", CIS_F64, A);
  CHECK((st == CIS_OK) == (*A != NULL), "%s: output and status disagree", cis_status_name(st));
  return st;
}

static void gen_undo(void *ctx) {
  cis_csr **A = ctx;
  cis_csr_free(*A), *A = NULL;
}

static void test_alloc_failures(void) {
  /* the n-th allocation fails, for every n: CIS_ERR_ALLOC, no leak, then success */
  cis_csr *A = NULL;
  test_alloc_every("cis_generate ci:", gen_run, gen_undo, &A);
}

/* cis_gen_random_vector: x[i] from the stream (seed, i) alone (a prefix of
 * a longer vector is the shorter one), in (-1, 1) and never 0; float is the
 * rounded double. */
static void test_random_vector(void) {
  enum { N = 1000 };
  static double a[N], b[2 * N], c[N];
  static float f[N];
  cis_gen_random_vector(5, CIS_F64, N, a);
  cis_gen_random_vector(5, CIS_F64, 2 * N, b);
  cis_gen_random_vector(6, CIS_F64, N, c);
  cis_gen_random_vector(5, CIS_F32, N, f);
  int prefix = 1, range = 1, differ = 0, rounded = 1;
  for (int i = 0; i < N; ++i) {
    prefix &= a[i] == b[i];
    range &= a[i] > -1 && a[i] < 1 && a[i] != 0;
    differ += a[i] != c[i];
    rounded &= f[i] == (float)a[i];
  }
  CHECK(prefix, "random vector depends on its length");
  CHECK(range, "random vector value outside (-1, 1) or 0");
  CHECK(differ > N - 5, "seeds 5 and 6 agree in %d of %d values", N - differ, N);
  CHECK(rounded, "float random vector is not the rounded double one");
}

int main(void) {
  test_random_vector();
  test_deterministic();
  test_ci_tables_3_4();
  test_ci_options_and_float();
  test_laplace3d();
  test_powerlaw_and_random();
  test_powerlaw_near_one();
  test_spec_errors();
  test_alloc_failures();
  return test_summary("test_gen");
}
