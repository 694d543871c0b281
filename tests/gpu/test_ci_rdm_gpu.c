/* test_ci_rdm_gpu.c: the GPU RDMs (src/ci/gpu/ci_rdm*, cis_ci_direct_gpu_rdm12)
 * against the host RDMs (src/ci/rdm.c, itself tested against brute force in
 * tests/unit/test_ci_rdm.c), every output poisoned with NaN before the run,
 * max |GPU - CPU| <= 1e-12 max |CPU| over the outputs asked (NaN never passes):
 *  - C2H4 CAS(8,8) (4900 determinants, MS2 = 0; 3136, MS2 = 2): state and
 *    transition RDMs, every output and the traced-only request, host and
 *    device vectors, one block and many blocks (work_bytes forced small);
 *  - spaces of 20 and 32 orbitals (1 or 2 alpha, 1 beta electron; zero
 *    integrals): gather tiles narrower than a warp (n^2 rows in shared memory);
 *  - bad input: NULL arguments, nothing asked. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"

typedef struct outs {
  double *buf;
  cis_ci_rdm12 o;
  cis_int len;
} outs;

static void outs_alloc(outs *x, int n, int traced_only) {
  const size_t n2 = (size_t)n * n, n4 = n2 * n2;
  x->len = (cis_int)(3 * n2 + 5 * n4);
  x->buf = malloc((size_t)x->len * sizeof(double));
  test_fill_nan(x->buf, CIS_F64, x->len);
  double *b = x->buf;
  x->o = (cis_ci_rdm12){b, b + 3 * n2, b + n2, b + 2 * n2, b + 3 * n2 + n4, b + 3 * n2 + 2 * n4, b + 3 * n2 + 3 * n4,
                        b + 3 * n2 + 4 * n4};
  if (traced_only) x->o.rdm1a = x->o.rdm1b = x->o.rdm2aa = x->o.rdm2ab = x->o.rdm2ba = x->o.rdm2bb = NULL;
}

/* Every requested output of the GPU vs the CPU: max |GPU - CPU| over all of
 * them relative to the largest |CPU| of all of them (an output that is zero
 * analytically, e.g. rdm2aa of one alpha electron, is rounding noise on both
 * sides: its own maximum is no scale). NaN anywhere: NaN. */
static double compare_outs(const cis_ci_rdm12 *g, const cis_ci_rdm12 *c, int n) {
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2;
  double *const *gp = &g->rdm1, *const *cp = &c->rdm1;
  const cis_int len[8] = {n2, n4, n2, n2, n4, n4, n4, n4};
  double worst = 0, big = 0;
  for (int k = 0; k < 8; ++k)
    if (cp[k])
      for (cis_int i = 0; i < len[k]; ++i) {
        const double d = fabs(gp[k][i] - cp[k][i]);
        if (!(d <= worst)) worst = d; /* NaN sticks */
        big = fabs(cp[k][i]) > big ? fabs(cp[k][i]) : big;
      }
  return big > 0 ? worst / big : worst;
}

static void compare(const char *name, cis_ci_direct *D, int n, int64_t work, int device, int transition,
                    int traced_only) {
  const cis_int nd = cis_ci_direct_size(D);
  double *bra = malloc((size_t)nd * sizeof(double)), *ket = malloc((size_t)nd * sizeof(double));
  double *dbra = NULL, *dket = NULL;
  cis_ci_direct_gpu_rdm *R = NULL;
  outs c, g;
  test_fill_random(bra, CIS_F64, nd, 5);
  test_fill_random(ket, CIS_F64, nd, 7);
  outs_alloc(&c, n, traced_only);
  outs_alloc(&g, n, traced_only);
  const double *b = transition ? bra : NULL;
  CHECK_OK(cis_ci_direct_rdm12(D, b, ket, &c.o));
  CHECK_OK(cis_ci_direct_gpu_rdm_create(D, work, &R));
  if (!R) goto done;
  if (device) {
    CHECK_OK(cis_gpu_malloc((void **)&dbra, (size_t)nd * sizeof(double)));
    CHECK_OK(cis_gpu_malloc((void **)&dket, (size_t)nd * sizeof(double)));
    if (!dbra || !dket) goto done;
    CHECK_OK(cis_gpu_upload(dbra, bra, (size_t)nd * sizeof(double)));
    CHECK_OK(cis_gpu_upload(dket, ket, (size_t)nd * sizeof(double)));
    CHECK_OK(cis_ci_direct_gpu_rdm12(R, transition ? dbra : NULL, dket, 1, &g.o, NULL));
  } else {
    CHECK_OK(cis_ci_direct_gpu_rdm12(R, b, ket, 0, &g.o, NULL));
  }
  cis_int rows = 0, blocks = 0;
  ci_direct_gpu_rdm_blocks(R, &rows, &blocks);
  const double err = compare_outs(&g.o, &c.o, n);
  CHECK(err <= 1e-12, "%s: GPU vs CPU RDMs rel diff %.3e", name, err);
  if (work > 0) CHECK(blocks > 1, "%s: work_bytes %lld gave %lld block(s)", name, (long long)work, (long long)blocks);
  printf("%-34s %7lld dets  %s %s %s  %5lld rows x %4lld blocks  GPU vs CPU %.2e\n", name, (long long)nd,
         transition ? "trans" : "state", device ? "dev " : "host", traced_only ? "traced" : "all   ", (long long)rows,
         (long long)blocks, err);
done:
  cis_gpu_free(dbra);
  cis_gpu_free(dket);
  cis_ci_direct_gpu_rdm_free(R);
  free(bra), free(ket), free(c.buf), free(g.buf);
}

/* A space of norb orbitals and (na, nb) electrons on zero integrals. */
static cis_fcidump *synthetic(int norb, int na, int nb) {
  cis_fcidump *F = calloc(1, sizeof *F);
  F->norb = norb, F->nelec = na + nb, F->ms2 = na - nb, F->isym = 1;
  for (int p = 0; p < CIS_CI_MAX_ORB; ++p) F->orbsym[p] = 1;
  F->npair = (cis_int)norb * (norb + 1) / 2;
  F->neri = F->npair * (F->npair + 1) / 2;
  F->h1 = calloc((size_t)norb * norb, sizeof(double));
  F->eri = calloc((size_t)F->neri, sizeof(double));
  return F;
}

static void run_space(const char *tag, cis_fcidump *F, int64_t small) {
  cis_ci_direct *D = NULL;
  char name[96];
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  for (int tr = 0; tr <= 1; ++tr)
    for (int dev = 0; dev <= 1; ++dev) {
      snprintf(name, sizeof name, "%s", tag);
      compare(name, D, F->norb, 0, dev, tr, 0);
    }
  for (int tr = 0; tr <= 1; ++tr) {
    snprintf(name, sizeof name, "%s traced", tag);
    compare(name, D, F->norb, 0, 0, tr, 1);
    snprintf(name, sizeof name, "%s small work", tag);
    compare(name, D, F->norb, small, tr, tr, 0);
    snprintf(name, sizeof name, "%s small work traced", tag);
    compare(name, D, F->norb, small, 1, tr, 1);
  }
  cis_ci_direct_free(D);
}

static void test_bad_input(void) {
  cis_fcidump *F = synthetic(6, 2, 2);
  cis_ci_direct *D = NULL;
  cis_ci_direct_gpu_rdm *R = NULL;
  double r1[36], c[225] = {1.0};
  cis_ci_rdm12 none = {0}, one = {r1, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  CHECK(cis_ci_direct_gpu_rdm_create(NULL, 0, &R) == CIS_ERR_INVALID, "NULL D accepted");
  CHECK(cis_ci_direct_gpu_rdm_create(D, -1, &R) == CIS_ERR_INVALID, "negative work_bytes accepted");
  CHECK_OK(cis_ci_direct_gpu_rdm_create(D, 0, &R));
  CHECK(cis_ci_direct_gpu_rdm12(NULL, NULL, c, 0, &one, NULL) == CIS_ERR_INVALID, "NULL R accepted");
  CHECK(cis_ci_direct_gpu_rdm12(R, NULL, NULL, 0, &one, NULL) == CIS_ERR_INVALID, "NULL ket accepted");
  CHECK(cis_ci_direct_gpu_rdm12(R, NULL, c, 0, &none, NULL) == CIS_ERR_INVALID, "nothing asked accepted");
  cis_ci_direct_gpu_rdm_free(R);
  cis_ci_direct_free(D);
  free(F->h1), free(F->eri), free(F);
}

int main(void) {
  char why[256] = "";
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2h4_ccpvdz_cas8.FCIDUMP", &F));
  if (F) {
    const int64_t small = (int64_t)8 * 64 * 56 * 5 * 4; /* D blocks of ~5 alpha strings (4 buffers) */
    run_space("C2H4 CAS(8,8) MS2=0", F, small);
    F->ms2 = 2;
    run_space("C2H4 CAS(8,8) MS2=2", F, small);
    cis_fcidump_free(F);
  }
  static const int sizes[][3] = {{20, 2, 1}, {32, 1, 1}};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
    cis_fcidump *S = synthetic(sizes[k][0], sizes[k][1], sizes[k][2]);
    char tag[64];
    snprintf(tag, sizeof tag, "%d orbitals (%d,%d)", sizes[k][0], sizes[k][1], sizes[k][2]);
    run_space(tag, S, (int64_t)8 * sizes[k][0] * sizes[k][0] * sizes[k][0] * 4 * 3);
    free(S->h1), free(S->eri), free(S);
  }
  test_bad_input();
  return test_summary("test_ci_rdm_gpu");
}
