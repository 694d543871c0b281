/* dist_internal.h: the communicator, the distributed matrix and the device
 * helpers behind cisparse/dist.h (not public). */
#ifndef CISPARSE_DIST_INTERNAL_H
#define CISPARSE_DIST_INTERNAL_H

#include "cisparse/dist.h"
#include "cisparse/gpu.h"

/* One point-to-point message of an exchange: local rank `local` sends to (or
 * receives from) global rank `peer` `count` values at buf. */
typedef struct dist_msg {
  int local, peer;
  void *buf;
  cis_int count;
} dist_msg;

typedef struct dist_comm_ops {
  cis_status (*allreduce_host)(cis_dist_comm *c, double *vals, int count);
  /* recv[l] = the `count` values of send[r] for r = 0..ranks-1, rank r's at r*count */
  cis_status (*allgather)(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t);
  /* all sends and receives of every local rank as one group */
  cis_status (*exchange)(cis_dist_comm *c, const dist_msg *sends, int nsend, const dist_msg *recvs, int nrecv,
                         cis_dtype t);
  /* whole[l]: one whole vector per local rank (rank r's rows at
   * row_start[r] .. row_start[r+1]-1); every rank's own rows are copied into
   * every other rank's whole vector, in place (an all-gather of unequal parts) */
  cis_status (*bcast_parts)(cis_dist_comm *c, void *const *whole, const cis_int *row_start, cis_dtype t);
  /* recv[l] = sum over every rank r of send_r[rank_l * count .. + count): a
   * reduce-scatter of equal blocks (NCCL: ncclReduceScatter, summed in its
   * ring's order, which depends on the block's owner; the fake comm sums in
   * rank order). NULL: not offered (the caller sends point to point). */
  cis_status (*reduce_scatter)(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t);
  void (*destroy)(cis_dist_comm *c);
  /* dist_allreduce_slots on device buffers, in stream order (NULL: host
   * comms, served by allreduce_host) */
  cis_status (*allreduce_slots)(cis_dist_comm *c, double *const *slots, const int *src, const int *dst, int k,
                                const cis_stream *streams);
} dist_comm_ops;

struct cis_dist_comm {
  const dist_comm_ops *ops;
  const char *name;
  int ranks, nlocal, first;
  cis_memspace where;  /* of the buffers: host (fake) or device (nccl) */
  int *device;         /* [nlocal] CUDA device of each local rank (device comms) */
  cis_stream *stream;  /* [nlocal] the stream NCCL calls go on (device comms) */
  void *impl;
  int64_t allreduces_host;  /* calls of cis_dist_allreduce_host so far */
  int64_t allreduces_slots; /* calls of dist_allreduce_slots so far */
};

/* The scalar slots of the local ranks' solver backends summed over all
 * ranks: slots[l][dst[j]] = sum over ranks r of rank r's slots[src[j]], for
 * j < k (<= 8; dst == src: in place). The slot arrays are in the comm's
 * memory: host doubles on host comms (summed in rank order through
 * allreduce_host), device doubles on NCCL comms, where the sums are enqueued
 * on streams[l] (one group of 1-value ncclAllReduce calls, which NCCL
 * aggregates) without any host synchronization. */
cis_status dist_allreduce_slots(cis_dist_comm *c, double *const *slots, const int *src, const int *dst, int k,
                                const cis_stream *streams);

/* ---- device helpers (src/distributed/gpu/dist_dev.c; nogpu stubs) ---- */
/* option dist_trace=1 (read once): every synchronized product prints its
 * parts' times from its events on stderr (device parts), and NCCL's
 * communicator its bootstrap's time at the first collective (a
 * diagnostic; dist_parts.c). */
int dist_trace(void);

cis_status dd_set_device(int dev);
cis_status dd_stream_create(cis_stream *s);
void dd_stream_destroy(cis_stream s);
cis_status dd_stream_sync(cis_stream s);
cis_status dd_device_sync(void); /* the current device: every stream's work done */
cis_status dd_event_create(void **e);
void dd_event_destroy(void *e);
cis_status dd_event_record(void *e, cis_stream s);
cis_status dd_stream_wait(cis_stream s, void *e);
cis_status dd_event_sync(void *e); /* the host waits until e's record is done */
cis_status dd_event_ms(void *start, void *end, float *ms);
cis_status dd_copy_async(void *dst, const void *src, size_t bytes, cis_stream s); /* any direction */
cis_status dd_zero_async(void *dst, size_t bytes, cis_stream s); /* device memory */
/* host memory page-locked for copies (cudaHostRegister, portable: every
 * GPU's copies run at the link's speed) and released again */
cis_status dd_host_register(void *p, size_t bytes);
void dd_host_unregister(void *p);
/* out[k] = x[idx[k]], k < n (device arrays; dist_gather.cu) */
cis_status dd_gather(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out, cis_stream s);
/* y = alpha * sum_{q = 0 .. parts-1} s_q + beta y over n values, summed in
 * the order of q (beta == 0: NaN in y ignored), where s_own = mine and the
 * others come from recv, rank q's n values at (q < own ? q : q - 1) * n:
 * the owner's sum of the parts' contributions to its rows (dist_summed.c;
 * dist_gather.cu). */
cis_status dd_sum_parts(cis_dtype t, int parts, int own, cis_int n, const void *mine, const void *recv, double alpha,
                        double beta, void *y, cis_stream s);
/* How a part's local block is stored from rows built on its GPU. */
typedef enum dist_local_kind {
  DIST_LOCAL_CSR,  /* a csr plan (csr-vector) around the device block */
  DIST_LOCAL_SYM,  /* its upper triangle, a symmetric plan (csr-sym kernels, sym-seg) */
  DIST_LOCAL_HOST  /* downloaded as a host CSR, for a format built on the host */
} dist_local_kind;

/* The blocks of one part split on its GPU (dist_split_rows_dev). */
typedef struct dist_dev_split {
  cis_gpu_plan *local, *remote; /* NULL where a block has no entries (local: also when local_host) */
  cis_csr *local_host;          /* DIST_LOCAL_HOST: the local block on the host */
  cis_int local_nnz;            /* entries of the local block as stored */
  cis_int nneeded;
  cis_idx *needed;              /* host: ascending, unique remote columns */
  double split_seconds;         /* the split kernels and the needed list */
  double store_seconds;         /* the plans made (sym-seg: its layout) or the local block downloaded */
} dist_dev_split;

/* The rows r0..r0+R->rows-1 of an n x n matrix, built on the current GPU (R:
 * global columns ascending in each row, double values), split there as
 * partition.c's split_core does on the host: the local block (columns - r0;
 * its upper triangle for DIST_LOCAL_SYM, the caller asserting the matrix is
 * symmetric), the remote block (rows x nneeded, column k = global column
 * needed[k]), diag[0..rows) = the rows' diagonal (0 where absent). Stored
 * as plans on the current GPU (kernel: the symmetric plan's, NULL csr-sym),
 * the nonzeros never copied to the host except for DIST_LOCAL_HOST. R's
 * arrays are freed here, also on failure (R zeroed). Free *out with
 * dist_dev_split_clear. Without CUDA: CIS_ERR_NO_GPU. */
cis_status dist_split_rows_dev(cis_gpu_csr *R, cis_int n, cis_int r0, dist_local_kind kind, const char *kernel,
                               double *diag, dist_dev_split *out);
/* Free what a split holds and zero it; NULL accepted. */
void dist_dev_split_clear(dist_dev_split *s);
/* Where a part's trailing block sits in a summed operator's whole vectors
 * (dist_upper.c), which are in the all-gather's layout (part q's rows at
 * q * max_rows: dist_gathered_at, partition.h): the split (parts + 1
 * starts), max_rows, the part's start `at` and the vectors' length
 * `whole`. */
typedef struct dist_upper_pad {
  const cis_int *row_start;
  int parts;
  cis_int max_rows;
  int64_t at, whole;
} dist_upper_pad;
/* Upper-triangle rows r0..r0+R->rows-1 of an n x n symmetric matrix, built
 * on the current GPU (R: n columns, global, ascending; double), made the
 * symmetric plan (kernel: "sym-seg", "csr-sym", "csr-sym-det") of the
 * trailing square of the whole vectors from pad->at on (columns at their
 * positions there, dist_gathered_at; rows past R's empty)
 * (cis_dist_matrix_create_upper_rows); diag[0..R->rows) = the rows'
 * diagonal (0 where absent). *out NULL when R holds no entries. R's arrays
 * are freed here, also on failure (R zeroed). CIS_ERR_INVALID naming a row
 * with an entry below its diagonal. Without CUDA: CIS_ERR_NO_GPU. */
cis_status dist_upper_slice_dev(cis_gpu_csr *R, cis_int n, cis_int r0, const dist_upper_pad *pad, const char *kernel,
                                double *diag, cis_gpu_plan **out);

/* The CPU reference of dd_sum_parts. */
void dist_sum_parts_host(cis_dtype t, int parts, int own, cis_int n, const void *mine, const void *recv, double alpha,
                         double beta, void *y);
/* The CPU reference of dd_gather. */
void dist_gather_host(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out);

#endif
