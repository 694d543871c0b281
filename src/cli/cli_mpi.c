/* cli_mpi.c: `--mpi`, the tool launched by mpirun with one part per
 * process (`mpirun -np N cisparse ci FILE --mpi`, `... solve MATRIX --mpi`):
 * MPI started through the library (cisparse/dist.h), the part's
 * communicator (host memory over MPI, or NCCL on one GPU per process), one
 * printing rank, and one error line with a nonzero exit on every rank.
 *
 * Printing: only rank 0 writes stdout (the others' goes to /dev/null);
 * while the options are parsed (the same on every rank, before MPI starts)
 * only the rank the launcher numbers 0 writes stderr. Errors: after each
 * step every rank reports its status (cis_dist_mpi_agree); the lowest rank
 * that failed prints its line and every rank exits 1; a rank that failed
 * while the others wait in a collective it left ends the job (MPI_Abort)
 * after CLI_MPI_WAIT_S seconds instead of hanging. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

/* Seconds a failed rank waits for the others to report before it ends the job. */
#define CLI_MPI_WAIT_S 20.0

int cli_mpi_wanted(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--mpi")) return 1;
  return 0;
}

/* The rank the launcher gave this process (MPICH/Hydra, Open MPI, PMIx,
 * Slurm), read before MPI starts; 0 when none is set. */
static int launcher_rank(void) {
  static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"};
  for (size_t k = 0; k < sizeof vars / sizeof *vars; ++k) {
    const char *v = cis_host_env(vars[k]);
    if (v && *v) return atoi(v);
  }
  return 0;
}

/* fd now goes to /dev/null; the old one is returned (-1 on failure). */
static int silence(int fd) {
  int saved = dup(fd), null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, fd);
    close(null);
  }
  return saved;
}

static void restore(int fd, int saved) {
  if (saved < 0) return;
  dup2(saved, fd);
  close(saved);
}

void cli_mpi_parse_begin(cli_mpi *m) {
  m->saved_stderr = -1;
  if (m->on && launcher_rank() != 0) {
    fflush(stderr);
    m->saved_stderr = silence(2);
  }
}

void cli_mpi_parse_end(cli_mpi *m) {
  fflush(stderr);
  restore(2, m->saved_stderr);
  m->saved_stderr = -1;
}

int cli_mpi_start(cli_mpi *m) {
  m->rank = 0, m->size = 1, m->started = 0, m->follow = 0, m->saved_stdout = -1;
  if (!m->on) return 0;
  cis_status st = cis_dist_mpi_init(&m->rank, &m->size);
  if (st != CIS_OK) { /* built without MPI: every process says it, so only the launcher's rank 0 prints */
    int r = launcher_rank();
    if (r == 0) cli_fail(st);
    return 1;
  }
  m->started = 1;
  if (m->rank != 0) {
    fflush(stdout);
    m->saved_stdout = silence(1);
  }
  return 0;
}

cis_status cli_mpi_comm(cli_mpi *m, int gpu, cis_dist_comm **c) {
  cis_status st = gpu ? cis_dist_comm_mpi(c) : cis_dist_comm_mpi_host(c);
  int first = cis_dist_mpi_agree(st, CLI_MPI_WAIT_S);
  if (st == CIS_OK && first >= 0) { /* another rank failed: this one stops too, and that rank says why */
    cis_dist_comm_free(*c);
    *c = NULL;
    m->follow = 1;
    return cis_error(CIS_ERR_INVALID, "MPI rank %d could not make its part's communicator", first);
  }
  return st;
}

/* The error line of this rank: "cisparse: MPI rank k: ..." from ranks other than 0. */
static int say(const cli_mpi *m, cis_status st) {
  if (m->rank == 0) return cli_fail(st);
  const char *msg = cis_last_error();
  fprintf(stderr, "cisparse: MPI rank %d: %s\n", m->rank, msg && *msg ? msg : cis_status_name(st));
  return 1;
}

int cli_mpi_finish(cli_mpi *m, cis_status st) {
  if (!m->started) return st == CIS_OK ? 0 : cli_fail(st);
  int rc = m->follow, first = cis_dist_mpi_agree(m->follow ? CIS_OK : st, CLI_MPI_WAIT_S);
  if (first == -2) { /* the others are stuck in a collective this rank left */
    say(m, st);
    fflush(stderr);
    cis_dist_mpi_abort(1);
  }
  if (first >= 0) {
    if (first == m->rank) say(m, st);
    rc = 1;
  }
  fflush(stdout);
  restore(1, m->rank != 0 ? m->saved_stdout : -1);
  cis_dist_mpi_finalize();
  m->started = 0;
  return rc;
}
