/* dist_mpi_solve.c: one process per GPU, NCCL bootstrapped through MPI
 * (cis_dist_comm_mpi): every rank loads the same matrix, keeps its rows,
 * and runs CG (b = A*ones) or Davidson (--eigs K) on the distributed
 * operator; rank 0 prints. Built with -DCISPARSE_MPI=ON as
 * build/cisparse_dist_mpi; launch:
 *   mpirun -np 2 build/cisparse_dist_mpi MATRIX [--eigs K] [--exchange auto|allgather|p2p]
 * NCCL_NVLS_ENABLE=0 is set here, as the tool does, unless already set (the
 * library sets no environment; NCCL reads it when the communicator is made). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/cisparse.h"

static int fail(int rank, cis_status st) {
  fprintf(stderr, "cisparse_dist_mpi rank %d: %s\n", rank, cis_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return (int)st;
}

int main(int argc, char **argv) {
  int rank = 0, eigs = 0;
  const char *matrix = NULL;
  cis_dist_exchange xk = CIS_XCHG_AUTO;
  cis_status st;
  cis_dist_comm *c = NULL;
  cis_dist_matrix *D = NULL;
  cis_operator *op = NULL;
  cis_csr *A = NULL;
  void *v = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--eigs") && i + 1 < argc) eigs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--exchange") && i + 1 < argc) {
      if (cis_dist_exchange_parse(argv[++i], &xk) != CIS_OK) return fail(rank, CIS_ERR_INVALID);
    } else matrix = argv[i];
  }
  if (!matrix) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np N cisparse_dist_mpi MATRIX [--eigs K] [--exchange E]\n");
    MPI_Finalize();
    return 2;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  if ((st = cis_dist_comm_mpi(&c)) != CIS_OK) return fail(rank, st);
  if ((st = cis_load(matrix, CIS_F64, &A)) != CIS_OK) return fail(rank, st);
  cis_dist_opts o = cis_dist_opts_default();
  o.exchange = xk;
  if ((st = cis_dist_matrix_create(A, c, &o, &D)) != CIS_OK) return fail(rank, st);
  if ((st = cis_operator_from_dist(D, &op)) != CIS_OK) return fail(rank, st);
  cis_int n = A->rows;
  double *h = malloc((size_t)n * sizeof *h);
  if (rank == 0) printf("%s: %lld rows over %d ranks (%s)\n", matrix, (long long)n, cis_dist_comm_ranks(c), cis_operator_name(op));
  if (eigs > 0) {
    cis_davidson_opts dav = cis_davidson_opts_default();
    cis_davidson_info info;
    double e[64];
    dav.roots = eigs;
    if ((st = cis_davidson_operator(op, cis_operator_diagonal(op), &dav, e, NULL, &info)) != CIS_OK) return fail(rank, st);
    if (rank == 0)
      for (int r = 0; r < eigs; ++r) printf("eigenvalue %d: %.12f (%d iterations, %.3f s)\n", r, e[r], info.iterations, info.total_seconds);
  } else {
    cis_krylov_opts ko = cis_krylov_opts_default();
    cis_krylov_info info;
    ko.precond = CIS_PRECOND_JACOBI;
    if ((st = cis_dist_vec_alloc(D, 2, &v)) != CIS_OK) return fail(rank, st);
    void *b = (char *)v + (size_t)n * sizeof(double);
    for (cis_int i = 0; i < n; ++i) h[i] = 1.0;
    if ((st = cis_dist_vec_upload(D, v, h, 1)) != CIS_OK) return fail(rank, st);
    if ((st = cis_operator_apply(op, 1.0, v, 0.0, b, NULL)) != CIS_OK) return fail(rank, st); /* b = A ones */
    memset(h, 0, (size_t)n * sizeof *h);
    if ((st = cis_dist_vec_upload(D, v, h, 1)) != CIS_OK) return fail(rank, st);
    if ((st = cis_krylov_solve(op, b, v, &ko, &info)) != CIS_OK) return fail(rank, st);
    if (rank == 0)
      printf("cg jacobi: %d iterations, relative residual %.3e, %.4f s\n", info.iterations, info.rel_residual, info.seconds);
    cis_dist_vec_free(D, v);
  }
  free(h);
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  cis_dist_comm_free(c);
  cis_csr_free(A);
  MPI_Finalize();
  return 0;
}
