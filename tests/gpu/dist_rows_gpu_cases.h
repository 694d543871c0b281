/* dist_rows_gpu_cases.h: the distributed CI Hamiltonian whose parts build
 * their rows on their own GPUs and split them there
 * (dist_matrix_create_rows_gpu with ci_hamiltonian_gpu_rows),
 * against the same matrix built from host rows and split on the host
 * (dist_matrix_create_rows with ci_hamiltonian_rows, the
 * reference): the same row split, exchange plan (needed lists: p2p values
 * and messages), diagonal bit for bit, and products equal to 1e-12 relative
 * (both against the host CSR product too), local blocks in csr, sym-seg,
 * csr-sym and sell16 (built on the host from the downloaded block), both
 * exchanges; outputs poisoned with NaN. Each entry stored once
 * (dist_matrix_create_upper_rows, case_upper). Errors: a host
 * communicator, float values, full rows given as the upper triangle. Shared by the gpu test (one GPU) and the multigpu test (every
 * GPU). Skipped (77) without a GPU or without NCCL. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "core/internal.h"
#include "distributed/dist_parts.h"
#include "ci/ci_internal.h"
#include "distributed/dist_internal.h"

typedef struct rows_ctx {
  const cis_fcidump *F;
  const cis_ci_space *S;
  const cis_int *counts;
  int upper; /* the upper triangle's rows (case_upper) */
} rows_ctx;

static cis_status host_rows(void *ctx, cis_int r0, cis_int r1, cis_csr **rows) {
  const rows_ctx *x = ctx;
  return ci_hamiltonian_rows(x->F, x->S, r0, r1, x->upper, x->counts, rows);
}
static cis_status gpu_rows(void *ctx, int local, cis_int r0, cis_int r1, cis_gpu_csr *rows) {
  const rows_ctx *x = ctx;
  (void)local;
  return ci_hamiltonian_gpu_rows(x->F, x->S, r0, r1, x->upper, x->counts, rows);
}

/* One FCIDUMP's space, its row counts (upper: of the upper triangle), the
 * host CSR H, and the reference ref = 2 H x - 0.5 y0 (x, y0 random). */
typedef struct ci_case {
  cis_fcidump *F;
  cis_ci_space *S;
  cis_csr *H;
  cis_int n, *counts;
  double *x, *y0, *ref;
} ci_case;

/* 0 when the file is not there (the case skipped), else 1 (checked). */
static int ci_case_open(ci_case *k, const char *name, int upper) {
  memset(k, 0, sizeof *k);
  CHECK_OK(test_ci_load(name, -1, &k->F, &k->S));
  if (!k->S) {
    cis_fcidump_free(k->F);
    k->F = NULL;
    return 0;
  }
  const cis_int n = k->n = ci_space_size(k->S);
  k->counts = malloc((size_t)n * sizeof *k->counts);
  k->x = malloc(n * sizeof *k->x), k->y0 = malloc(n * sizeof *k->y0), k->ref = malloc(n * sizeof *k->ref);
  CHECK_OK(ci_hamiltonian_row_nnz(k->F, k->S, upper, k->counts));
  CHECK_OK(cis_ci_hamiltonian(k->F, k->S, 0, &k->H));
  test_fill_random(k->x, CIS_F64, n, 31);
  test_fill_random(k->y0, CIS_F64, n, 32);
  memcpy(k->ref, k->y0, n * sizeof *k->ref);
  if (k->H) CHECK_OK(cis_csr_spmv(k->H, 2.0, k->x, -0.5, k->ref));
  return 1;
}

static void ci_case_close(ci_case *k) {
  cis_csr_free(k->H);
  free(k->counts);
  free(k->x);
  free(k->y0);
  free(k->ref);
  cis_ci_space_free(k->S);
  cis_fcidump_free(k->F);
}

/* y = 2 D x - 0.5 y0 through the distributed operator (y poisoned first). */
static void dist_product(cis_dist_matrix *D, cis_int n, const double *x, const double *y0, double *y) {
  cis_operator *op = NULL;
  void *v = NULL;
  test_fill_nan(y, CIS_F64, n);
  CHECK_OK(cis_operator_from_dist(D, &op));
  CHECK_OK(cis_dist_vec_alloc(D, 2, &v));
  if (op && v) {
    void *vy = (char *)v + n * sizeof(double);
    CHECK_OK(cis_dist_vec_upload(D, v, x, 1));
    CHECK_OK(cis_dist_vec_upload(D, vy, y0, 1));
    CHECK_OK(cis_operator_apply(op, 2.0, v, -0.5, vy, NULL));
    CHECK_OK(cis_dist_vec_download(D, y, vy, 1));
  }
  cis_dist_vec_free(D, v);
  cis_operator_free(op);
}

static void case_rows(cis_dist_comm *c, const char *name, const char *format, cis_dist_exchange xk) {
  ci_case k;
  cis_dist_matrix *Dh = NULL, *Dg = NULL;
  if (!ci_case_open(&k, name, 0)) return;
  const cis_int n = k.n;
  const int G = cis_dist_comm_ranks(c);
  double *yh = malloc(n * sizeof *yh), *yg = malloc(n * sizeof *yg);
  cis_dist_opts oh = cis_dist_opts_default(), og = cis_dist_opts_default();
  oh.exchange = og.exchange = xk;
  oh.format = "csr";
  og.format = format;
  rows_ctx ctx = {k.F, k.S, k.counts, 0};
  CHECK_OK(dist_matrix_create_rows(n, k.counts, host_rows, &ctx, c, &oh, &Dh));
  CHECK_OK(dist_matrix_create_rows_gpu(n, k.counts, gpu_rows, &ctx, c, &og, &Dg));
  if (k.H && Dh && Dg) {
    cis_dist_info ih, ig;
    CHECK_OK(cis_dist_matrix_info(Dh, &ih));
    CHECK_OK(cis_dist_matrix_info(Dg, &ig));
    CHECK(ih.exchange == ig.exchange && ih.p2p_values == ig.p2p_values && ih.p2p_messages == ig.p2p_messages &&
              ih.allgather_values == ig.allgather_values,
          "%s %s G=%d: the exchange plans differ (p2p values %lld vs %lld, messages %lld vs %lld)", name, format, G,
          (long long)ih.p2p_values, (long long)ig.p2p_values, (long long)ih.p2p_messages, (long long)ig.p2p_messages);
    for (int p = 0; p < G; ++p) {
      cis_int h0 = -1, hr = -1, g0 = -2, gr = -2;
      CHECK_OK(cis_dist_matrix_part_rows(Dh, p, &h0, &hr));
      CHECK_OK(cis_dist_matrix_part_rows(Dg, p, &g0, &gr));
      CHECK(h0 == g0 && hr == gr, "%s G=%d part %d: rows %lld+%lld vs %lld+%lld", name, G, p, (long long)h0,
            (long long)hr, (long long)g0, (long long)gr);
      for (int q = 0; q < G; ++q)
        CHECK(Dh->plan.count[(int64_t)p * G + q] == Dg->plan.count[(int64_t)p * G + q],
              "%s G=%d: part %d needs %lld entries of part %d from host rows, %lld from GPU rows", name, G, p,
              (long long)Dh->plan.count[(int64_t)p * G + q], q, (long long)Dg->plan.count[(int64_t)p * G + q]);
    }
    CHECK(!memcmp(Dh->diag, Dg->diag, (size_t)n * sizeof(double)), "%s G=%d: the diagonals differ", name, G);
    dist_product(Dh, n, k.x, k.y0, yh);
    dist_product(Dg, n, k.x, k.y0, yg);
    const double eg = test_rel_err(yg, yh, CIS_F64, n), eh = test_rel_err(yh, k.ref, CIS_F64, n);
    CHECK(eg <= 1e-12 && eh <= 1e-12, "%s %s %s G=%d: GPU rows vs host rows %.3e, host rows vs CSR %.3e", name, format,
          cis_dist_exchange_name(xk), G, eg, eh);
  }
  cis_dist_matrix_free(Dh);
  cis_dist_matrix_free(Dg);
  free(yh);
  free(yg);
  ci_case_close(&k);
}

/* Each entry stored once (dist_matrix_create_upper_rows): the upper
 * rows built on each GPU and made their trailing blocks there
 * (dist_upper_slice_dev) against the same rows built on the host over as
 * many host parts (upper_slice_host, the reference) and the host CSR
 * product: the same split and diagonal bit for bit, products to 1e-12
 * relative; the host-built rows on the GPUs too. A row with an entry below
 * its diagonal (full rows from the GPU builder) is refused naming it. */
static void case_upper(cis_dist_comm *c, const char *name, const char *format) {
  ci_case k;
  cis_dist_world *w = NULL;
  cis_dist_comm *fake = NULL;
  cis_dist_matrix *Dh = NULL, *Dg = NULL, *Dhg = NULL, *Dbad = NULL;
  if (!ci_case_open(&k, name, 1)) return;
  const cis_int n = k.n;
  const int G = cis_dist_comm_ranks(c);
  double *yh = malloc(n * sizeof *yh), *yg = malloc(n * sizeof *yg), *yhg = malloc(n * sizeof *yhg);
  cis_dist_opts o = cis_dist_opts_default(), oh = cis_dist_opts_default();
  o.format = format;
  oh.format = "csr-sym";
  rows_ctx ctx = {k.F, k.S, k.counts, 1};
  CHECK_OK(cis_dist_world_create(G, &w));
  if (w) CHECK_OK(cis_dist_comm_fake(w, 0, G, &fake));
  if (fake) CHECK_OK(dist_matrix_create_upper_rows(n, k.counts, host_rows, NULL, &ctx, fake, &oh, &Dh));
  CHECK_OK(dist_matrix_create_upper_rows(n, k.counts, NULL, gpu_rows, &ctx, c, &o, &Dg));
  CHECK_OK(dist_matrix_create_upper_rows(n, k.counts, host_rows, NULL, &ctx, c, &o, &Dhg));
  if (k.H && Dh && Dg && Dhg) {
    for (int p = 0; p <= G; ++p)
      CHECK(Dh->plan.row_start[p] == Dg->plan.row_start[p], "%s %s G=%d: split %d at %lld (host) vs %lld (GPU)", name,
            format, G, p, (long long)Dh->plan.row_start[p], (long long)Dg->plan.row_start[p]);
    CHECK(!memcmp(Dh->diag, Dg->diag, (size_t)n * sizeof(double)) && !memcmp(Dh->diag, Dhg->diag, (size_t)n * sizeof(double)),
          "%s %s G=%d: the diagonals differ", name, format, G);
    dist_product(Dh, n, k.x, k.y0, yh);
    dist_product(Dg, n, k.x, k.y0, yg);
    dist_product(Dhg, n, k.x, k.y0, yhg);
    const double eg = test_rel_err(yg, yh, CIS_F64, n), ehg = test_rel_err(yhg, yh, CIS_F64, n),
                 eh = test_rel_err(yh, k.ref, CIS_F64, n);
    CHECK(eg <= 1e-12 && ehg <= 1e-12 && eh <= 1e-12,
          "%s upper %s G=%d: GPU rows vs host parts %.3e, host rows on the GPUs %.3e, host parts vs CSR %.3e", name,
          format, G, eg, ehg, eh);
  }
  /* full rows from the GPU builder (counted there): every part's rows reach lower columns */
  rows_ctx full = {k.F, k.S, NULL, 0};
  CHECK(dist_matrix_create_upper_rows(n, NULL, NULL, gpu_rows, &full, c, &o, &Dbad) == CIS_ERR_INVALID && !Dbad &&
            strstr(cis_last_error(), "below its diagonal"),
        "%s: full rows accepted as the upper triangle on the GPUs: %s", name, cis_last_error());
  cis_dist_matrix_free(Dh);
  cis_dist_matrix_free(Dg);
  cis_dist_matrix_free(Dhg);
  cis_dist_comm_free(fake);
  cis_dist_world_free(w);
  free(yh);
  free(yg);
  free(yhg);
  ci_case_close(&k);
}

/* Device rows are refused on a host communicator and as float values. */
static void case_refusals(cis_dist_comm *c) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_dist_world *w = NULL;
  cis_dist_comm *fake = NULL;
  cis_dist_matrix *D = NULL;
  CHECK_OK(test_ci_load("h2o_sto3g", -1, &F, &S));
  if (!S) {
    cis_fcidump_free(F);
    return;
  }
  rows_ctx ctx = {F, S, NULL, 0};
  const cis_int n = ci_space_size(S);
  CHECK_OK(cis_dist_world_create(1, &w));
  if (w) CHECK_OK(cis_dist_comm_fake(w, 0, 1, &fake));
  if (fake)
    CHECK(dist_matrix_create_rows_gpu(n, NULL, gpu_rows, &ctx, fake, NULL, &D) == CIS_ERR_INVALID && !D &&
              strstr(cis_last_error(), "GPU parts"),
          "device rows on a host communicator: %s", cis_last_error());
  cis_dist_opts o = cis_dist_opts_default();
  o.dtype = CIS_F32;
  CHECK(dist_matrix_create_rows_gpu(n, NULL, gpu_rows, &ctx, c, &o, &D) == CIS_ERR_UNSUPPORTED && !D,
        "device rows as float values: %s", cis_last_error());
  cis_dist_comm_free(fake);
  cis_dist_world_free(w);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

static int run_dist_rows_gpu_cases(const char *name, int ngpus, int min_gpus) {
  cis_dist_comm *c = NULL;
  const int skip = test_nccl_or_skip(ngpus, min_gpus, &c);
  if (skip) return skip;
  if (!c) return test_summary(name);
  printf("%s: %d rank(s) over NCCL\n", name, cis_dist_comm_ranks(c));
  const char *formats[] = {"csr", "sym-seg", "csr-sym", "sell16"};
  for (int f = 0; f < 4; ++f) {
    case_rows(c, "h2o_sto3g", formats[f], CIS_XCHG_ALLGATHER);
    case_rows(c, "h2o_sto3g", formats[f], CIS_XCHG_P2P);
  }
  case_rows(c, "n2_sto3g", "csr", CIS_XCHG_P2P);
  case_rows(c, "n2_sto3g", "sym-seg", CIS_XCHG_ALLGATHER);
  case_upper(c, "h2o_sto3g", "sym-seg");
  case_upper(c, "n2_sto3g", "sym-seg");
  case_upper(c, "n2_sto3g", "csr-sym");
  case_refusals(c);
  cis_dist_comm_free(c);
  return test_summary(name);
}
