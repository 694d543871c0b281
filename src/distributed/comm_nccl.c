/* comm_nccl.c: the NCCL communicators of dist.h.
 *   cis_dist_comm_nccl  one process drives every GPU of the host:
 *                       ncclCommInitAll, one stream per GPU, every
 *                       collective issued for all local ranks inside
 *                       ncclGroupStart/ncclGroupEnd (NCCL User Guide,
 *                       "Group calls: management of multiple GPUs from one
 *                       thread"); the init runs on a thread of its own
 *                       while the caller sets up, and the first collective
 *                       waits for it;
 *   cis_dist_comm_mpi   one process per GPU: rank 0's ncclGetUniqueId sent
 *                       to every rank with MPI_Bcast, ncclCommInitRank
 *                       (NCCL User Guide, "Example 2: one device per
 *                       process or thread"); only when built with MPI.
 * NVLink multicast: NCCL reads NCCL_NVLS_ENABLE itself when the
 * communicators are made; the library sets no environment, so the caller
 * does (the cisparse tool and the Python package set it to 0 unless the
 * user did: docs/multi-gpu.md).
 * Built without CUDA or NCCL, both report why. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/options.h"
#include "distributed/dist_internal.h"

#if defined(CISPARSE_HAVE_CUDA) && defined(CISPARSE_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>
#include "gpu/cuda_check.h"
#include "gpu/gpu_mem.h"
#ifdef CISPARSE_HAVE_MPI
#include <mpi.h>
#endif

/* An NCCL failure as one line; a CUDA error under NCCL (most often its
 * buffers, made at the first collective, finding the device full) names
 * the CUDA error and the current device's free memory. */
static cis_status nccl_failed(ncclResult_t r, const char *call, int line) {
  if (r == ncclUnhandledCudaError) {
    size_t fr = 0, tot = 0;
    int dev = -1;
    const cudaError_t e = cudaGetLastError();
    cudaGetDevice(&dev);
    cudaMemGetInfo(&fr, &tot);
    cudaGetLastError();
    return cis_error(CIS_ERR_CUDA, "%s (comm_nccl.c:%d): %s (CUDA: %s; GPU %d has %.2f GiB free: NCCL makes its "
                     "buffers at the first exchange)", call, line, ncclGetErrorString(r), cudaGetErrorString(e), dev,
                     fr / 1073741824.0);
  }
  return cis_error(CIS_ERR_CUDA, "%s (comm_nccl.c:%d): %s", call, line, ncclGetErrorString(r));
}

#define NCCL_TRY(call)                             \
  do {                                             \
    ncclResult_t r_ = (call);                      \
    if (r_ != ncclSuccess) {                       \
      st = nccl_failed(r_, #call, __LINE__);       \
      goto cleanup;                                \
    }                                              \
  } while (0)

typedef struct nccl_impl {
  ncclComm_t *comm;   /* [nlocal] */
  double **scratch;   /* [nlocal] device doubles for the host all-reduce */
  int scratch_cap;
  /* cis_dist_comm_nccl's ncclCommInitAll on a thread of its own (NCCL's
   * bootstrap takes about a second at 4 GPUs; the host's set-up, the
   * strings, diagonal, operators and guesses, runs meanwhile) */
  pthread_t init_thread;
  int init_pending;          /* the thread started and not yet joined */
  ncclResult_t init_result;
  double init_start, init_end; /* the thread's ncclCommInitAll, cis_wtime */
} nccl_impl;

#define NI(c) ((nccl_impl *)(c)->impl)

static void *init_all(void *arg) {
  cis_dist_comm *c = arg;
  NI(c)->init_start = cis_wtime();
  NI(c)->init_result = ncclCommInitAll(NI(c)->comm, c->nlocal, c->device);
  NI(c)->init_end = cis_wtime();
  return NULL;
}

/* The communicators made: the init thread joined (once); its result. */
static cis_status ready(cis_dist_comm *c) {
  nccl_impl *I = NI(c);
  if (I->init_pending) {
    const double t0 = cis_wtime();
    pthread_join(I->init_thread, NULL);
    I->init_pending = 0;
    if (dist_trace()) /* what the first collective waited for: NCCL's bootstrap, not overlapped with the set-up */
      fprintf(stderr, "NCCL: ncclCommInitAll over %d GPUs took %.3f s on its thread; the first collective waited "
              "%.3f s for it\n", c->nlocal, I->init_end - I->init_start, cis_wtime() - t0);
  }
  if (I->init_result != ncclSuccess)
    return cis_error(CIS_ERR_CUDA, "NCCL's communicators over %d GPUs (ncclCommInitAll): %s", c->nlocal,
                     ncclGetErrorString(I->init_result));
  return CIS_OK;
}

static ncclDataType_t nccl_type(cis_dtype t) { return t == CIS_F64 ? ncclDouble : ncclFloat; }

static cis_status n_allreduce(cis_dist_comm *c, double *vals, int count) {
  cis_status st = ready(c);
  nccl_impl *I = NI(c);
  if (st != CIS_OK || count <= 0) return st;
  if (count > I->scratch_cap) {
    for (int l = 0; l < c->nlocal; ++l) {
      CIS_CUDA_TRY(cudaSetDevice(c->device[l]));
      cis_gpu_free(I->scratch[l]);
      I->scratch[l] = NULL;
      CIS_TRY(cis_gpu_alloc_copy((void **)&I->scratch[l], NULL, (size_t)count * sizeof(double), "all-reduce scratch"));
    }
    I->scratch_cap = count;
  }
  for (int l = 0; l < c->nlocal; ++l) {
    CIS_CUDA_TRY(cudaSetDevice(c->device[l]));
    CIS_CUDA_TRY(cudaMemcpyAsync(I->scratch[l], vals + (size_t)l * count, (size_t)count * sizeof(double),
                           cudaMemcpyHostToDevice, (cudaStream_t)c->stream[l]));
  }
  NCCL_TRY(ncclGroupStart());
  for (int l = 0; l < c->nlocal; ++l)
    NCCL_TRY(ncclAllReduce(I->scratch[l], I->scratch[l], (size_t)count, ncclDouble, ncclSum, I->comm[l],
                           (cudaStream_t)c->stream[l]));
  NCCL_TRY(ncclGroupEnd());
  for (int l = 0; l < c->nlocal; ++l) {
    CIS_CUDA_TRY(cudaSetDevice(c->device[l]));
    CIS_CUDA_TRY(cudaMemcpyAsync(vals + (size_t)l * count, I->scratch[l], (size_t)count * sizeof(double),
                           cudaMemcpyDeviceToHost, (cudaStream_t)c->stream[l]));
  }
  for (int l = 0; l < c->nlocal; ++l) {
    CIS_CUDA_TRY(cudaSetDevice(c->device[l]));
    CIS_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)c->stream[l]));
  }
cleanup:
  return st;
}

/* One group of 1-value all-reduces of device slots (NCCL aggregates the
 * group's collectives into one launch per GPU), each local rank's on its
 * stream (default: the comm's); no host synchronization. */
static cis_status n_allreduce_slots(cis_dist_comm *c, double *const *slots, const int *src, const int *dst, int k,
                                    const cis_stream *streams) {
  cis_status st;
  CIS_TRY(ready(c));
  if (k == 0) return CIS_OK;
  if (c->ranks == 1) { /* the sum over one rank: the values themselves, no NCCL kernel */
    for (int j = 0; j < k; ++j)
      if (src[j] != dst[j])
        CIS_CUDA_TRY(cudaMemcpyAsync(slots[0] + dst[j], slots[0] + src[j], sizeof(double), cudaMemcpyDeviceToDevice,
                                     (cudaStream_t)(streams ? streams[0] : c->stream[0])));
    return CIS_OK;
  }
  NCCL_TRY(ncclGroupStart());
  for (int l = 0; l < c->nlocal; ++l)
    for (int j = 0; j < k; ++j)
      NCCL_TRY(ncclAllReduce(slots[l] + src[j], slots[l] + dst[j], 1, ncclDouble, ncclSum, NI(c)->comm[l],
                             (cudaStream_t)(streams ? streams[l] : c->stream[l])));
  NCCL_TRY(ncclGroupEnd());
cleanup:
  return st;
}

static cis_status n_allgather(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t) {
  cis_status st;
  CIS_TRY(ready(c));
  NCCL_TRY(ncclGroupStart());
  for (int l = 0; l < c->nlocal; ++l)
    NCCL_TRY(ncclAllGather(send[l], recv[l], (size_t)count, nccl_type(t), NI(c)->comm[l], (cudaStream_t)c->stream[l]));
  NCCL_TRY(ncclGroupEnd());
cleanup:
  return st;
}

static cis_status n_exchange(cis_dist_comm *c, const dist_msg *sends, int nsend, const dist_msg *recvs, int nrecv,
                             cis_dtype t) {
  cis_status st;
  CIS_TRY(ready(c));
  NCCL_TRY(ncclGroupStart());
  for (int i = 0; i < nsend; ++i)
    NCCL_TRY(ncclSend(sends[i].buf, (size_t)sends[i].count, nccl_type(t), sends[i].peer, NI(c)->comm[sends[i].local],
                      (cudaStream_t)c->stream[sends[i].local]));
  for (int i = 0; i < nrecv; ++i)
    NCCL_TRY(ncclRecv(recvs[i].buf, (size_t)recvs[i].count, nccl_type(t), recvs[i].peer, NI(c)->comm[recvs[i].local],
                      (cudaStream_t)c->stream[recvs[i].local]));
  NCCL_TRY(ncclGroupEnd());
cleanup:
  return st;
}

/* One ncclBroadcast per owner, in place, every local rank in one group. */
static cis_status n_bcast_parts(cis_dist_comm *c, void *const *whole, const cis_int *row_start, cis_dtype t) {
  cis_status st;
  size_t es = cis_dtype_size(t);
  CIS_TRY(ready(c));
  NCCL_TRY(ncclGroupStart());
  for (int r = 0; r < c->ranks; ++r)
    for (int l = 0; l < c->nlocal; ++l) {
      char *p = (char *)whole[l] + (size_t)row_start[r] * es;
      NCCL_TRY(ncclBroadcast(p, p, (size_t)(row_start[r + 1] - row_start[r]), nccl_type(t), r, NI(c)->comm[l],
                             (cudaStream_t)c->stream[l]));
    }
  NCCL_TRY(ncclGroupEnd());
cleanup:
  return st;
}

static cis_status n_reduce_scatter(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t) {
  cis_status st;
  CIS_TRY(ready(c));
  NCCL_TRY(ncclGroupStart());
  for (int l = 0; l < c->nlocal; ++l)
    NCCL_TRY(ncclReduceScatter(send[l], recv[l], (size_t)count, nccl_type(t), ncclSum, NI(c)->comm[l],
                               (cudaStream_t)c->stream[l]));
  NCCL_TRY(ncclGroupEnd());
cleanup:
  return st;
}

static void n_destroy(cis_dist_comm *c) {
  nccl_impl *I = NI(c);
  if (!I) return;
  if (I->init_pending) { /* a comm given up before its first collective */
    pthread_join(I->init_thread, NULL);
    I->init_pending = 0;
  }
  for (int l = 0; l < c->nlocal; ++l) {
    if (c->device) cudaSetDevice(c->device[l]);
    if (I->comm && I->comm[l] && I->init_result == ncclSuccess) ncclCommDestroy(I->comm[l]);
    if (I->scratch) cis_gpu_free(I->scratch[l]);
    if (c->stream && c->stream[l]) cudaStreamDestroy((cudaStream_t)c->stream[l]);
  }
  cis_free(I->comm);
  cis_free(I->scratch);
  cis_free(I);
  c->impl = NULL;
}

static const dist_comm_ops nccl_ops = {n_allreduce,      n_allgather, n_exchange,       n_bcast_parts,
                                       n_reduce_scatter, n_destroy,   n_allreduce_slots};

/* The comm shell for nlocal local ranks on the given devices, streams made. */
static cis_status shell(int ranks, int first, int nlocal, const int *devs, const char *name, cis_dist_comm **out) {
  cis_status st;
  cis_dist_comm *c = NULL;
  nccl_impl *I = NULL;
  CIS_TRY(cis_alloc_zeroed((void **)&c, 1, sizeof *c, "NCCL communicator"));
  c->ops = &nccl_ops;
  c->name = name;
  c->ranks = ranks;
  c->first = first;
  c->nlocal = nlocal;
  c->where = CIS_MEM_DEVICE;
  CIS_TRY(cis_alloc_zeroed((void **)&c->device, nlocal, sizeof(int), "NCCL communicator"));
  CIS_TRY(cis_alloc_zeroed((void **)&c->stream, nlocal, sizeof(cis_stream), "NCCL communicator"));
  CIS_TRY(cis_alloc_zeroed((void **)&I, 1, sizeof *I, "NCCL communicator"));
  c->impl = I;
  CIS_TRY(cis_alloc_zeroed((void **)&I->comm, nlocal, sizeof(ncclComm_t), "NCCL communicator"));
  CIS_TRY(cis_alloc_zeroed((void **)&I->scratch, nlocal, sizeof(double *), "NCCL communicator"));
  /* the exchange's stream at the device's greatest priority: its pack,
   * NCCL and unpack kernels are given SMs ahead of the product they overlap
   * (a product grid fills the GPU; at equal priority NCCL's kernel waited
   * for its blocks, and the peer GPUs for it: CUDA Programming Guide,
   * "Stream Priorities"); the option exchange_priority 0: the default
   * priority, for a comparison) */
  const int top = cis_opt_int(CIS_OPT_EXCHANGE_PRIORITY, 1) != 0;
  for (int l = 0; l < nlocal; ++l) {
    cudaStream_t s;
    int least = 0, greatest = 0;
    c->device[l] = devs[l];
    CIS_CUDA_TRY(cudaSetDevice(devs[l]));
    CIS_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CIS_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, top ? greatest : least));
    c->stream[l] = (cis_stream)s;
  }
  *out = c;
  return CIS_OK;
cleanup:
  cis_dist_comm_free(c);
  return st;
}

cis_status cis_dist_comm_nccl(int ngpus, cis_dist_comm **out) {
  cis_status st;
  cis_dist_comm *c = NULL;
  int count = 0, *devs = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_nccl: NULL output");
  *out = NULL;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    cudaGetLastError();
    return cis_error(CIS_ERR_NO_GPU, "no CUDA device for NCCL");
  }
  if (ngpus < 0 || ngpus > count)
    return cis_error(CIS_ERR_INVALID, "%d GPUs requested: this host has %d GPU%s", ngpus, count, count == 1 ? "" : "s");
  if (ngpus == 0) ngpus = count;
  CIS_TRY(cis_alloc_array((void **)&devs, ngpus, sizeof(int), "NCCL devices"));
  for (int i = 0; i < ngpus; ++i) devs[i] = i;
  CIS_TRY(shell(ngpus, 0, ngpus, devs, "nccl", &c));
  if (pthread_create(&NI(c)->init_thread, NULL, init_all, c) != 0) /* no thread: made here */
    NCCL_TRY(ncclCommInitAll(NI(c)->comm, ngpus, devs));
  else
    NI(c)->init_pending = 1;
  *out = c;
  c = NULL;
  st = CIS_OK;
cleanup:
  cis_free(devs);
  cis_dist_comm_free(c);
  return st;
}

cis_status cis_dist_comm_mpi(cis_dist_comm **out) {
#ifdef CISPARSE_HAVE_MPI
  cis_status st;
  cis_dist_comm *c = NULL;
  int rank = 0, size = 0, count = 0, init = 0, fin = 0, local = 0, ok, all_ok = 0;
  MPI_Comm host = MPI_COMM_NULL;
  struct { ncclUniqueId id; int ok; } boot;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_mpi: NULL output");
  *out = NULL;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_mpi: MPI is not initialised (call cis_dist_mpi_init or MPI_Init first)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
    MPI_Comm_rank(host, &local);
    MPI_Comm_free(&host);
  }
  ok = cudaGetDeviceCount(&count) == cudaSuccess && count >= 1;
  if (!ok) cudaGetLastError();
  /* every rank learns whether every rank has a GPU before NCCL starts */
  if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
    return cis_error(CIS_ERR_IO, "MPI rank %d: MPI_Allreduce failed", rank);
  if (!ok) return cis_error(CIS_ERR_NO_GPU, "MPI rank %d: no CUDA device", rank);
  if (!all_ok) return cis_error(CIS_ERR_NO_GPU, "MPI rank %d: another rank has no CUDA device", rank);
  memset(&boot, 0, sizeof boot);
  if (rank == 0) boot.ok = ncclGetUniqueId(&boot.id) == ncclSuccess;
  if (MPI_Bcast(&boot, (int)sizeof boot, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return cis_error(CIS_ERR_IO, "MPI rank %d: MPI_Bcast of the NCCL unique id failed", rank);
  if (!boot.ok) return cis_error(CIS_ERR_CUDA, "MPI rank %d: rank 0 could not make an NCCL unique id", rank);
  {
    int dev = local % count;
    CIS_TRY(shell(size, rank, 1, &dev, "nccl+mpi", &c));
  }
  NCCL_TRY(ncclCommInitRank(&NI(c)->comm[0], size, boot.id, rank));
  *out = c;
  c = NULL;
  st = CIS_OK;
cleanup:
  cis_dist_comm_free(c);
  return st;
#else
  if (out) *out = NULL;
  return cis_error(CIS_ERR_UNSUPPORTED, "cisparse was built without MPI (install an MPI, e.g. Debian's libmpich-dev, and configure again)");
#endif
}

#else /* no CUDA or no NCCL */

cis_status cis_dist_comm_nccl(int ngpus, cis_dist_comm **out) {
  if (out) *out = NULL;
#ifdef CISPARSE_HAVE_CUDA
  return cis_error(CIS_ERR_UNSUPPORTED, "cisparse was built without NCCL (nccl.h / libnccl not found at configure time)");
#else
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA: no NCCL communicator");
#endif
}

cis_status cis_dist_comm_mpi(cis_dist_comm **out) {
  if (out) *out = NULL;
#ifdef CISPARSE_HAVE_CUDA
  return cis_error(CIS_ERR_UNSUPPORTED, "cisparse was built without NCCL: no GPU communicator under MPI (the MPI host "
                   "communicator runs the same parts on the CPU)");
#else
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA: no GPU communicator under MPI (the MPI host "
                   "communicator runs the same parts on the CPU)");
#endif
}

#endif
