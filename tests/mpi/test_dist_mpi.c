/* test_dist_mpi.c: the MPI host communicator (cis_dist_comm_mpi_host) and
 * the launch helpers of cisparse/dist.h, run by mpiexec over 3 processes
 * (label mpi; tests/CMakeLists.txt):
 *  - the comm's ranks, first rank, name and memory;
 *  - the all-reduce: every rank gets the rank-order sum, bit for bit;
 *  - the ops (dist_internal.h): all-gather, a ring exchange with a message
 *    of nothing and float values, the all-gather of unequal parts;
 *  - a distributed matrix over the processes: y = A x equals the serial
 *    product, and cis_dist_vec_gather_host completes the vector on every rank;
 *  - cis_dist_mpi_agree: -1 when every rank is ok, else the lowest failed rank.
 * With argument "stuck": rank 1 fails while the others wait in a collective
 * it never joins; agree returns -2 there within its wait and the job is
 * ended by cis_dist_mpi_abort (the test passes on the line rank 1 prints). */
#include <stdlib.h>
#include <omp.h>
#include <string.h>
#include <unistd.h>
#include "distributed/dist_internal.h"
#include "test_util.h"

static void check_ops(cis_dist_comm *c, int rank, int size) {
  double v[3] = {rank + 0.1, 1.0 / (rank + 3), -rank * 1e-17};
  CHECK_OK(dist_allreduce_host(c, v, 3));
  double want[3] = {0, 0, 0};
  for (int r = 0; r < size; ++r) want[0] += r + 0.1, want[1] += 1.0 / (r + 3), want[2] += -r * 1e-17;
  CHECK(!memcmp(v, want, sizeof v), "all-reduce on rank %d: %.17g %.17g %.17g", rank, v[0], v[1], v[2]);

  double send[2] = {10.0 * rank, 10.0 * rank + 1}, recv[64];
  void *sp[1] = {send}, *rp[1] = {recv};
  CHECK_OK(c->ops->allgather(c, sp, rp, 2, CIS_F64));
  for (int r = 0; r < size; ++r) CHECK(recv[2 * r] == 10.0 * r && recv[2 * r + 1] == 10.0 * r + 1, "all-gather part %d", r);

  /* ring: rank r sends r+1 floats to r+1, and nothing to r+2 (a message of 0 values) */
  float out[8], in[8] = {0};
  for (int i = 0; i < 8; ++i) out[i] = (float)(100 * rank + i);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int next2 = (rank + 2) % size, prev2 = (rank + size - 2) % size;
  dist_msg s[2] = {{0, next, out, rank + 1}, {0, next2, out, 0}};
  dist_msg r[2] = {{0, prev, in, prev + 1}, {0, prev2, in + 7, 0}};
  CHECK_OK(c->ops->exchange(c, s, 2, r, 2, CIS_F32));
  for (int i = 0; i <= prev; ++i) CHECK(in[i] == (float)(100 * prev + i), "exchange value %d on rank %d: %g", i, rank, in[i]);

  /* unequal parts: rank r owns r+1 rows */
  cis_int row_start[65] = {0};
  for (int q = 0; q < size; ++q) row_start[q + 1] = row_start[q] + q + 1;
  double whole[64];
  for (int i = 0; i < 64; ++i) whole[i] = NAN;
  for (cis_int i = row_start[rank]; i < row_start[rank + 1]; ++i) whole[i] = 1000.0 * rank + (double)i;
  void *wp[1] = {whole};
  CHECK_OK(c->ops->bcast_parts(c, wp, row_start, CIS_F64));
  for (int q = 0; q < size; ++q)
    for (cis_int i = row_start[q]; i < row_start[q + 1]; ++i)
      CHECK(whole[i] == 1000.0 * q + (double)i, "all-gather of parts: row %lld on rank %d", (long long)i, rank);
}

/* A distributed Laplacian over the processes: the product against the
 * serial one, the vector completed on every rank by cis_dist_vec_gather_host. */
static void check_matrix(cis_dist_comm *c, int rank) {
  cis_csr *A = NULL;
  cis_dist_matrix *D = NULL;
  void *v = NULL;
  CHECK_OK(cis_load("laplace3d:size=6,points=7", CIS_F64, &A));
  if (!A) return;
  const cis_int n = A->rows;
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y), *ys = malloc((size_t)n * sizeof *ys);
  for (cis_int i = 0; i < n; ++i) x[i] = 1.0 + 0.01 * (double)i, y[i] = NAN;
  for (cis_int i = 0; i < n; ++i) {
    ys[i] = 0;
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) ys[i] += ((const double *)A->val)[k] * x[A->colind[k]];
  }
  for (int xk = CIS_XCHG_ALLGATHER; xk <= CIS_XCHG_P2P; ++xk) {
    cis_dist_opts o = cis_dist_opts_default();
    o.exchange = (cis_dist_exchange)xk;
    CHECK_OK(cis_dist_matrix_create(A, c, &o, &D));
    cis_operator *op = NULL;
    CHECK_OK(cis_operator_from_dist(D, &op));
    CHECK_OK(cis_dist_vec_alloc(D, 2, &v));
    CHECK_OK(cis_dist_vec_upload(D, v, x, 1));
    void *vy = (char *)v + (size_t)n * sizeof(double);
    CHECK_OK(cis_operator_apply(op, 1.0, v, 0.0, vy, NULL));
    CHECK_OK(cis_dist_vec_download(D, y, vy, 1));
    CHECK_OK(cis_dist_vec_gather_host(D, y, 1));
    double err = 0;
    for (cis_int i = 0; i < n; ++i) err = fmax(err, fabs(y[i] - ys[i]));
    CHECK(err < 1e-13, "%s exchange: rank %d's gathered product differs by %.3g", cis_dist_exchange_name(o.exchange),
          rank, err);
    cis_dist_vec_free(D, v);
    cis_operator_free(op);
    cis_dist_matrix_free(D);
    D = NULL;
  }
  free(x), free(y), free(ys);
  cis_csr_free(A);
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  if (!dist_mpi_available()) {
    cis_dist_comm *c = NULL;
    CHECK(cis_dist_comm_mpi_host(&c) == CIS_ERR_UNSUPPORTED && !c, "no MPI: CIS_ERR_UNSUPPORTED");
    CHECK(cis_dist_mpi_init(&rank, &size) == CIS_ERR_UNSUPPORTED && size == 1, "no MPI: init refused");
    CHECK(cis_dist_mpi_agree(CIS_OK, 1) == -3, "no MPI: agree -3");
    if (test_failures) return test_summary("test_dist_mpi");
    return test_skip("cisparse was built without MPI (the refusals checked)");
  }
  cis_dist_comm *c = NULL;
  CHECK(cis_dist_comm_mpi_host(&c) == CIS_ERR_INVALID && !c, "before MPI starts: CIS_ERR_INVALID");
  CHECK(cis_dist_mpi_agree(CIS_OK, 1) == -3, "before MPI starts: agree -3");
  const int threads_set = getenv("OMP_NUM_THREADS") != NULL;
  CHECK_OK(cis_dist_mpi_init(&rank, &size));
  if (!threads_set) { /* the host's cores shared: no more threads than online cores / processes (>= 1) */
    const long online = sysconf(_SC_NPROCESSORS_ONLN), share = online > size ? online / size : 1;
    CHECK(omp_get_max_threads() <= share, "rank %d: %d threads above its share %ld of %ld cores", rank,
          omp_get_max_threads(), share, online);
  }
  CHECK_OK(cis_dist_comm_mpi_host(&c));
  if (argc > 1 && !strcmp(argv[1], "stuck")) {
    if (rank == 1) {
      int a = cis_dist_mpi_agree(CIS_ERR_INVALID, 1.0);
      fprintf(stderr, "rank 1: agree %d: the others did not arrive\n", a);
      fflush(stderr);
      cis_dist_mpi_abort(3);
    }
    double x = 1;
    dist_allreduce_host(c, &x, 1); /* rank 1 never comes: ended by its abort */
    return 1;
  }
  if (size < 2) { /* one process: no launcher was found at configure time */
    cis_dist_comm_free(c);
    cis_dist_mpi_finalize();
    return test_skip("needs mpiexec with 2 or more processes (none found when cisparse was configured)");
  }
  CHECK(c && cis_dist_comm_ranks(c) == size && dist_comm_first_rank(c) == rank &&
            dist_comm_local_ranks(c) == 1 && dist_comm_memspace(c) == CIS_MEM_HOST &&
            !strcmp(cis_dist_comm_name(c), "mpi"),
        "the comm's ranks, first, local ranks, memory, name");
  if (c && size >= 2 && size <= 8) {
    check_ops(c, rank, size);
    check_matrix(c, rank);
  }
  CHECK(cis_dist_mpi_agree(CIS_OK, 5) == -1, "agree: every rank ok");
  CHECK(cis_dist_mpi_agree(rank >= 1 ? CIS_ERR_INVALID : CIS_OK, 5) == (size > 1 ? 1 : -1), "agree: rank 1 failed");
  cis_dist_comm_free(c);
  /* every rank's failures reported on stderr; rank 0 prints the summary */
  const int rc = rank == 0 ? test_summary("test_dist_mpi") : test_failures != 0;
  cis_dist_mpi_finalize();
  return rc;
}
