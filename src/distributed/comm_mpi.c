/* comm_mpi.c: the MPI host communicator of dist.h (one host part per
 * process of MPI_COMM_WORLD) and the launch helpers a program started by
 * mpirun needs (init, agreement on failure, abort, finalize).
 *
 * The host communicator is the fake one's contract over MPI (MPI 4.0
 * standard, chapters 3 and 6): its own duplicate of MPI_COMM_WORLD, so its
 * collectives never match a caller's; the all-reduce is an MPI_Allgather of
 * every rank's values summed in rank order on each rank (the fake comm's
 * order: every rank gets the same bits, and the same bits as the one-process
 * run over CPU parts, which MPI_Allreduce does not promise); the all-gather
 * MPI_Allgather; the point-to-point exchange one group of MPI_Irecv /
 * MPI_Isend completed by MPI_Waitall (messages between a pair match in the
 * order posted, as NCCL's grouped send/recv); the all-gather of unequal parts
 * MPI_Allgatherv in place. Messages above INT_MAX values go in chunks.
 *
 * Without MPI (CISPARSE_MPI off or no MPI found at configure time) every
 * entry point reports CIS_ERR_UNSUPPORTED. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "core/internal.h"
#include "distributed/dist_internal.h"

#ifdef CISPARSE_HAVE_MPI
#include <mpi.h>

/* Values per MPI call (counts are int). */
#define MPI_CHUNK ((int64_t)1 << 30)

static int mpi_started_here;               /* cis_dist_mpi_init called MPI_Init_thread */
static MPI_Comm agree_comm = MPI_COMM_NULL; /* cis_dist_mpi_agree's own communicator */

typedef struct mpi_host {
  MPI_Comm comm;
  double *gather;   /* the all-reduce's ranks * count values */
  int64_t gather_cap;
} mpi_host;

#define MH(c) ((mpi_host *)(c)->impl)

static MPI_Datatype mpi_type(cis_dtype t) { return t == CIS_F64 ? MPI_DOUBLE : MPI_FLOAT; }

static cis_status mpi_fail(int rc, const char *what) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error %d", rc);
  return cis_error(CIS_ERR_IO, "%s: %s", what, msg);
}

#define MPI_CHECK(call, what)                         \
  do {                                                \
    int rc_ = (call);                                 \
    if (rc_ != MPI_SUCCESS) {                         \
      st = mpi_fail(rc_, what);                       \
      goto cleanup;                                   \
    }                                                 \
  } while (0)

static cis_status h_allreduce(cis_dist_comm *c, double *vals, int count) {
  cis_status st = CIS_OK;
  mpi_host *I = MH(c);
  const int64_t need = (int64_t)c->ranks * count;
  if (count <= 0) return CIS_OK;
  if (need > I->gather_cap) {
    double *g = cis_realloc(I->gather, (size_t)need * sizeof(double));
    if (!g) return cis_error(CIS_ERR_ALLOC, "MPI all-reduce: cannot allocate %lld doubles", (long long)need);
    I->gather = g;
    I->gather_cap = need;
  }
  MPI_CHECK(MPI_Allgather(vals, count, MPI_DOUBLE, I->gather, count, MPI_DOUBLE, I->comm), "MPI all-reduce");
  for (int i = 0; i < count; ++i) { /* rank order, from zero: the fake comm's sum */
    double s = 0;
    for (int r = 0; r < c->ranks; ++r) s += I->gather[(int64_t)r * count + i];
    vals[i] = s;
  }
cleanup:
  return st;
}

static cis_status h_allgather(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t) {
  cis_status st = CIS_OK;
  if (count > INT_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "MPI all-gather of %lld values per rank (at most %d)", (long long)count, INT_MAX);
  const int in_place = send[0] == (const char *)recv[0] + (size_t)c->first * (size_t)count * cis_dtype_size(t);
  MPI_CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : send[0], (int)count, mpi_type(t), recv[0], (int)count, mpi_type(t),
                          MH(c)->comm),
            "MPI all-gather");
cleanup:
  return st;
}

static cis_status h_exchange(cis_dist_comm *c, const dist_msg *sends, int nsend, const dist_msg *recvs, int nrecv,
                             cis_dtype t) {
  cis_status st = CIS_OK;
  const size_t es = cis_dtype_size(t);
  int64_t nreq = 0, k = 0;
  MPI_Request *req = NULL;
  MPI_Status *sts = NULL; /* (MPI_STATUSES_IGNORE trips GCC's access checks on MPICH's prototype) */
  for (int i = 0; i < nsend; ++i) nreq += (sends[i].count + MPI_CHUNK - 1) / MPI_CHUNK;
  for (int i = 0; i < nrecv; ++i) nreq += (recvs[i].count + MPI_CHUNK - 1) / MPI_CHUNK;
  CIS_TRY(cis_alloc_array((void **)&req, nreq + 1, sizeof *req, "MPI exchange requests"));
  CIS_TRY(cis_alloc_array((void **)&sts, nreq + 1, sizeof *sts, "MPI exchange requests"));
  for (int i = 0; i < nrecv; ++i) /* receives first: the sends find them posted */
    for (int64_t o = 0; o < recvs[i].count; o += MPI_CHUNK) {
      int n = (int)(recvs[i].count - o < MPI_CHUNK ? recvs[i].count - o : MPI_CHUNK);
      MPI_CHECK(MPI_Irecv((char *)recvs[i].buf + (size_t)o * es, n, mpi_type(t), recvs[i].peer, 0, MH(c)->comm,
                          &req[k++]), "MPI exchange (receive)");
    }
  for (int i = 0; i < nsend; ++i)
    for (int64_t o = 0; o < sends[i].count; o += MPI_CHUNK) {
      int n = (int)(sends[i].count - o < MPI_CHUNK ? sends[i].count - o : MPI_CHUNK);
      MPI_CHECK(MPI_Isend((char *)sends[i].buf + (size_t)o * es, n, mpi_type(t), sends[i].peer, 0, MH(c)->comm,
                          &req[k++]), "MPI exchange (send)");
    }
  MPI_CHECK(MPI_Waitall((int)k, req, sts), "MPI exchange");
cleanup:
  cis_free(req);
  cis_free(sts);
  return st;
}

/* Rank r's rows row_start[r] .. row_start[r+1]-1 from r into every rank's
 * whole vector: MPI_Allgatherv in place, or an MPI_Bcast per owner in
 * chunks when a count or displacement passes INT_MAX. */
static cis_status h_bcast_parts(cis_dist_comm *c, void *const *whole, const cis_int *row_start, cis_dtype t) {
  cis_status st = CIS_OK;
  const size_t es = cis_dtype_size(t);
  int *cnt = NULL, *dsp = NULL;
  if (row_start[c->ranks] <= INT_MAX) {
    CIS_TRY(cis_alloc_array((void **)&cnt, c->ranks, sizeof(int), "MPI all-gather of parts"));
    CIS_TRY(cis_alloc_array((void **)&dsp, c->ranks, sizeof(int), "MPI all-gather of parts"));
    for (int r = 0; r < c->ranks; ++r) {
      dsp[r] = (int)row_start[r];
      cnt[r] = (int)(row_start[r + 1] - row_start[r]);
    }
    MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, whole[0], cnt, dsp, mpi_type(t), MH(c)->comm),
              "MPI all-gather of parts");
  } else {
    for (int r = 0; r < c->ranks; ++r)
      for (int64_t o = row_start[r]; o < row_start[r + 1]; o += MPI_CHUNK) {
        int n = (int)(row_start[r + 1] - o < MPI_CHUNK ? row_start[r + 1] - o : MPI_CHUNK);
        MPI_CHECK(MPI_Bcast((char *)whole[0] + (size_t)o * es, n, mpi_type(t), r, MH(c)->comm),
                  "MPI broadcast of a part");
      }
  }
cleanup:
  cis_free(cnt);
  cis_free(dsp);
  return st;
}

static void h_destroy(cis_dist_comm *c) {
  mpi_host *I = MH(c);
  if (!I) return;
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin && I->comm != MPI_COMM_NULL) MPI_Comm_free(&I->comm);
  cis_free(I->gather);
  cis_free(I);
  c->impl = NULL;
}

static const dist_comm_ops mpi_host_ops = {h_allreduce, h_allgather, h_exchange, h_bcast_parts, NULL, h_destroy,
                                           NULL}; /* slots: through h_allreduce (MPI_Allreduce) */

/* MPI_Init has run (by the caller or cis_dist_mpi_init) and not MPI_Finalize. */
static cis_status mpi_ready(const char *who) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return cis_error(CIS_ERR_INVALID, "%s: MPI is not initialised (call cis_dist_mpi_init or MPI_Init first)", who);
  return CIS_OK;
}

cis_status cis_dist_comm_mpi_host(cis_dist_comm **out) {
  cis_status st;
  cis_dist_comm *c = NULL;
  mpi_host *I = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_mpi_host: NULL output");
  *out = NULL;
  CIS_TRY(mpi_ready("cis_dist_comm_mpi_host"));
  CIS_TRY(cis_alloc_zeroed((void **)&c, 1, sizeof *c, "MPI communicator"));
  CIS_TRY(cis_alloc_zeroed((void **)&I, 1, sizeof *I, "MPI communicator"));
  I->comm = MPI_COMM_NULL;
  c->impl = I;
  c->ops = &mpi_host_ops;
  c->name = "mpi";
  c->nlocal = 1;
  c->where = CIS_MEM_HOST;
  MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &I->comm), "MPI_Comm_dup");
  MPI_CHECK(MPI_Comm_rank(I->comm, &c->first), "MPI_Comm_rank");
  MPI_CHECK(MPI_Comm_size(I->comm, &c->ranks), "MPI_Comm_size");
  *out = c;
  return CIS_OK;
cleanup:
  cis_dist_comm_free(c);
  return st;
}

/* The host's cores shared among its processes of MPI_COMM_WORLD: each
 * takes at most (online cores) / (processes on the host) OpenMP threads,
 * unless OMP_NUM_THREADS says otherwise (measured: 4 processes on a
 * 64-core host, each with 64 threads, took 1.01 s for a P-space guess one
 * process makes in 0.20 s). */
static cis_status share_host_cores(void) {
  cis_status st = CIS_OK;
  MPI_Comm host = MPI_COMM_NULL;
  int on_host = 1;
  if (cis_host_env("OMP_NUM_THREADS")) return CIS_OK;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  MPI_CHECK(MPI_Comm_size(host, &on_host), "MPI_Comm_size");
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int share = online > on_host ? (int)(online / on_host) : 1;
  if (share < omp_get_max_threads()) omp_set_num_threads(share);
cleanup:
  if (host != MPI_COMM_NULL) MPI_Comm_free(&host);
  return st;
}

cis_status cis_dist_mpi_init(int *rank, int *size) {
  cis_status st = CIS_OK;
  int init = 0, fin = 0, provided = 0;
  MPI_Finalized(&fin);
  if (fin) return cis_error(CIS_ERR_INVALID, "cis_dist_mpi_init: MPI was finalised already");
  MPI_Initialized(&init);
  if (!init) {
    MPI_CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    mpi_started_here = 1;
  }
  if (agree_comm == MPI_COMM_NULL) {
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &agree_comm), "MPI_Comm_dup");
    CIS_TRY(share_host_cores());
  }
  if (rank) MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, rank), "MPI_Comm_rank");
  if (size) MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, size), "MPI_Comm_size");
cleanup:
  return st;
}

int cis_dist_mpi_agree(cis_status mine, double wait_s) {
  int init = 0, fin = 0, rank = 0, size = 1, lowest = INT_MAX, done = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin || agree_comm == MPI_COMM_NULL) return -3;
  MPI_Comm_rank(agree_comm, &rank);
  MPI_Comm_size(agree_comm, &size);
  int failed = mine == CIS_OK ? size : rank;
  MPI_Request req;
  if (MPI_Iallreduce(&failed, &lowest, 1, MPI_INT, MPI_MIN, agree_comm, &req) != MPI_SUCCESS) return -2;
  if (mine == CIS_OK) { /* a rank that failed either arrives or aborts the job */
    if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -2;
  } else {
    const double t0 = cis_wtime();
    while (!done && cis_wtime() - t0 < wait_s) {
      if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -2;
      if (!done) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
      }
    }
    if (!done) return -2; /* the others are inside a collective this rank left */
  }
  return lowest < size ? lowest : -1;
}

void cis_dist_mpi_abort(int code) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  fflush(stdout);
  fflush(stderr);
  if (init && !fin) {
    struct timespec pause = {0, 200000000}; /* the launcher forwards what this rank printed before the kill */
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  exit(code);
}

void cis_dist_mpi_finalize(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return;
  if (agree_comm != MPI_COMM_NULL) MPI_Comm_free(&agree_comm);
  if (mpi_started_here) MPI_Finalize();
}

int dist_mpi_available(void) { return 1; }

#else /* built without MPI */

#define NO_MPI "cisparse was built without MPI (install an MPI, e.g. Debian's libmpich-dev, and configure again; -DCISPARSE_MPI=OFF turns it off)"

cis_status cis_dist_comm_mpi_host(cis_dist_comm **out) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_UNSUPPORTED, NO_MPI);
}
cis_status cis_dist_mpi_init(int *rank, int *size) {
  if (rank) *rank = 0;
  if (size) *size = 1;
  return cis_error(CIS_ERR_UNSUPPORTED, NO_MPI);
}
int cis_dist_mpi_agree(cis_status mine, double wait_s) {
  (void)mine, (void)wait_s;
  return -3;
}
void cis_dist_mpi_abort(int code) { exit(code); }
void cis_dist_mpi_finalize(void) {}
int dist_mpi_available(void) { return 0; }

#endif
