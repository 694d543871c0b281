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
  int64_t allreduces_host;  /* calls of dist_allreduce_host so far */
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
 * (dist_matrix_create_upper_rows); diag[0..R->rows) = the rows'
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

/* ---- moved from cisparse/dist.h: internal, not exported ---------------------------------- */

/* Split the rows of A into `parts` contiguous ranges with about nnz/parts
 * nonzeros each (row p ends where the running nonzero count first reaches
 * (p+1)*nnz/parts; every part keeps at least one row). row_start: parts+1
 * entries, row_start[0] = 0, row_start[parts] = rows. CIS_ERR_INVALID when
 * parts < 1 or parts > rows. */
cis_status dist_partition_rows(const cis_csr *A, int parts, cis_int *row_start);

/* The same split from the nonzeros of each row (row_nnz: `rows` counts),
 * for a matrix not yet built: equal to dist_partition_rows on a matrix
 * with those counts. row_nnz NULL: by rows (part p starts at rows*p/parts). */
cis_status dist_partition_counts(cis_int rows, const cis_int *row_nnz, int parts, cis_int *row_start);

/* 1 when cisparse was built with MPI (the constructors above work), else 0. */
int dist_mpi_available(void);

/* Where the comm's buffers live: CIS_MEM_HOST (fake) or CIS_MEM_DEVICE. */
cis_memspace dist_comm_memspace(const cis_dist_comm *c);

/* Make local part `local`'s GPU the current device (device comms; nothing
 * on host comms), e.g. before creating that part's device objects.
 * CIS_ERR_INVALID when local is not a local part. */
cis_status dist_comm_use_part(cis_dist_comm *c, int local);

/* vals[l*count .. +count) of each local rank l: replaced by the sum over all
 * ranks (host doubles; summed in rank order on the fake comm). */
cis_status dist_allreduce_host(cis_dist_comm *c, double *vals, int count);

/* 1 when options o (NULL: the defaults) keep a symmetric matrix's entries
 * once (a symmetric format and CIS_XCHG_AUTO: cis_dist_matrix_create's
 * rule above, the one for callers that build by rows to choose
 * dist_matrix_create_upper_rows), else 0. */
int dist_stores_once(const cis_dist_opts *o);

/* The distributed matrix of cis_dist_matrix_create without the whole matrix
 * anywhere: the rows are split by row_nnz (dist_partition_counts: n
 * counts, NULL by rows), then each local part, one after the other, calls
 * build(ctx, its r0, its r1), splits the rows into its local and remote
 * blocks, frees them and stores the blocks (host matrices or its GPU's
 * plans). Host memory peaks at one part's rows and blocks (plus, on a fake
 * comm, the host blocks stored so far). The needed lists of parts driven by
 * other processes or threads come through dist_allreduce_host (one sum
 * per part: their owner contributes, the others add zeros), so every comm
 * of the world must call this together; so does diag(A). Equal, bit for bit
 * in its blocks, plan and diagonal, to cis_dist_matrix_create on the
 * assembled matrix (with the same split). Values: o->dtype, else the rows'. */
cis_status dist_matrix_create_rows(cis_int n, const cis_int *row_nnz, cis_dist_rows_fn build, void *ctx,
                                               cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out);

/* dist_matrix_create_rows with the rows built on each part's own GPU
 * (c a device communicator): each local part builds its rows there, splits
 * them there into its local block and its remote block with the needed
 * columns (sorted, unique), frees them and keeps both blocks as plans on its
 * GPU; only row pointers' totals, the needed list and the rows' diagonal
 * reach the host. The local block as o->format names it: "csr" or "auto"
 * (NULL too) a csr plan (csr-vector) on the device; "sym-seg", or "csr-sym"
 * with o->kernel, its upper triangle in a symmetric plan (the matrix must be
 * symmetric: the diagonal block of a symmetric matrix is); any other format
 * (or a csr kernel other than csr-vector) is built on the host from the
 * downloaded local block. The remote block is a csr plan. Values double
 * (o->dtype F32 is CIS_ERR_UNSUPPORTED). The same split, plan, diagonal and
 * products (to rounding of the local kernel) as dist_matrix_create_rows
 * with the same rows built on the host. */
cis_status dist_matrix_create_rows_gpu(cis_int n, const cis_int *row_nnz, cis_dist_rows_gpu_fn build,
                                                   void *ctx, cis_dist_comm *c, const cis_dist_opts *o,
                                                   cis_dist_matrix **out);

/* A distributed operator y = sum over all parts p of f_p(x), for operators
 * whose parts each need the whole x and contribute to every row (the direct
 * CI sigma split by alpha strings): the rows are split by row_start (parts+1
 * ascending entries, row_start[0] = 0, row_start[parts] = n, every part at
 * least one row), and each product
 *   1. gathers every part's rows of x into a whole vector on every part: one
 *      in-place all-gather (ncclAllGather) over more than 2 parts when the
 *      split is uniform (every part but the last has row_start[1] rows:
 *      row_start[p] = p row_start[1]; the whole vectors are then
 *      parts * row_start[1] values long), else
 *      ncclBroadcast from each owner in one group (the all-gather of unequal
 *      parts); the fake comm copies,
 *   2. calls f on every local part (partial whole y),
 *   3. sums the partial ys onto their owners' rows: each part sends its
 *      contribution to every owner (point-to-point in one group), and the
 *      owner sums them in rank order, so every row is summed in the same
 *      order whoever owns it (exactly symmetric contributions stay exactly
 *      symmetric) and the result does not depend on timing; or, after
 *      dist_summed_set_sum(CIS_DIST_SUM_COLLECTIVE) on a uniform split,
 *      one reduce-scatter (ncclReduceScatter).
 * Each part holds two whole vectors besides the solver's; the exchange moves
 * 2 (parts - 1) n values per product (cis_dist_matrix_exchange_bytes).
 * diag: diag(A), n host values (copied, and copied again into the operator
 * of cis_operator_from_dist: Jacobi, Davidson), or NULL: none (that
 * operator's cis_operator_diagonal is then NULL; a caller that keeps the
 * diagonal itself, as the CI driver's C1 Davidson does, saves two copies).
 * Vectors, the operator (cis_operator_from_dist), times and part rows work
 * as for any distributed matrix; f and ctx must outlive the matrix. Every
 * process calls this together. CIS_ERR_INVALID on a bad split. */
cis_status dist_matrix_create_summed(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype,
                                                 cis_dist_part_fn f, void *ctx, cis_dist_comm *c,
                                                 cis_dist_matrix **out);

/* A symmetric n x n matrix over the parts of c with each stored entry held
 * once, on one part: its upper triangle built part by part. build (host
 * parts) or build_gpu (GPU parts; exactly one of them given) returns rows
 * r0..r1-1 of the upper triangle (every column >= its row, ascending, global
 * indices: ci_hamiltonian_rows with upper = 1); upper_nnz[i] (n counts)
 * their entries. The rows are split so that each part stores about the same
 * number of entries (dist_partition_counts of upper_nnz: fewer rows to
 * the first parts, whose rows reach further). Part p keeps its rows' entries,
 * those in later parts' columns included, as the symmetric matrix of the
 * trailing rows and columns r_p..n-1 (rows past its own empty) in o->format:
 * "sym-seg" or "csr-sym" (NULL or "auto": sym-seg on GPUs, csr-sym on host
 * parts; other formats CIS_ERR_UNSUPPORTED). A product is that of a summed
 * operator (dist_matrix_create_summed, whose steps and sums it shares):
 * x gathered whole, each part's forward terms A(i,j) x_j to its own rows
 * and mirror terms A(i,j) x_i to later parts' rows j, the partial ys summed
 * onto their owners. Its whole vectors are padded (part p's rows at
 * p * max_rows, the blocks' columns mapped there), so the gather is one
 * all-gather and the sum one reduce-scatter (NCCL's order;
 * the option dist_sum=rank: point-to-point, summed in rank order); both are
 * run once in the set-up (NCCL's connections). Against dist_matrix_create_rows
 * (every part holds full rows, so the entries between two parts are stored
 * twice) each part reads about 1/parts of the triangle, for a second
 * exchange of the same volume: 2 (parts - 1) n values a product. diag(A)
 * from the rows' first entries (every process's, through
 * dist_allreduce_host). Every process calls this together. Errors:
 * CIS_ERR_INVALID naming a row with an entry below the diagonal, rows of the
 * wrong shape, build_gpu on a host comm, or not exactly one builder; the
 * builders' own; CIS_ERR_OVERFLOW when the padded vectors exceed 32-bit
 * column indices. */
cis_status dist_matrix_create_upper_rows(cis_int n, const cis_int *upper_nnz, cis_dist_rows_fn build,
                                                     cis_dist_rows_gpu_fn build_gpu, void *ctx, cis_dist_comm *c,
                                                     const cis_dist_opts *o, cis_dist_matrix **out);

/* Choose how the summed operator D sums (cis_dist_sum). COLLECTIVE takes
 * effect over more than 2 parts when D's split is uniform (both as for the
 * all-gather of dist_matrix_create_summed) and the
 * communicator offers a reduce-scatter (NCCL, fake), else the rank-order
 * sum stays. The option dist_sum=rank|collective, when set,
 * overrides the choice made here (a diagnostic; it must be the same on
 * every process). CIS_ERR_INVALID when D is not a summed operator or how is
 * unknown. */
cis_status dist_summed_set_sum(cis_dist_matrix *D, cis_dist_sum how);

/* Keep the distributed vectors of the summed operator D (cis_dist_vec_alloc,
 * the solvers' backend) in host memory although its comm is a device one:
 * for a space whose solver vectors do not fit the GPUs beside the whole
 * vectors each product needs there (Davidson's subspace of a large CI
 * space). Each product then copies a part's rows of x from the host into
 * its whole x on the GPU and its rows of y back (through a buffer of the
 * part's rows, allocated here on each GPU); the vectors' arithmetic runs on
 * the host (OpenMP), one part after another. pinned: the vectors'
 * memory page-locked as it is allocated (cudaHostRegister; copies at the
 * link's speed, at the cost of touching and locking every page once;
 * pageable where the system refuses: dist_vectors_on_host).
 * Call before any vector of D is allocated (CIS_ERR_INVALID after);
 * nothing to do on a host comm. CIS_ERR_INVALID when D is not a summed
 * operator; a failed allocation leaves the vectors where they were. */
cis_status dist_summed_set_vectors_host(cis_dist_matrix *D, int pinned);

/* Where D's distributed vectors are: 0 the GPUs (or NULL), 1 host memory
 * (a host comm's, or after dist_summed_set_vectors_host: pageable, as
 * asked or because the system refused to lock them), 2 page-locked host
 * memory (asked and granted; known once a vector is allocated). */
int dist_vectors_on_host(const cis_dist_matrix *D);

/* Install (f NULL: remove) D's prepare callback. CIS_ERR_INVALID when D is
 * not a summed operator. */
cis_status dist_summed_set_prepare(cis_dist_matrix *D, cis_dist_prepare_fn f, void *ctx);

/* on != 0: each part's f may change the whole x it is given in place
 * (the same deterministic change on every part, e.g. a projection onto a
 * symmetry), and after f each part's rows of that x replace its rows of the
 * product's input vector, so that the input and y = A x stay a consistent
 * pair with no exchange of its own (the one-device CI paths' in-place
 * projection, made distributed: dist_summed_transform costs an
 * all-gather). A copy of the part's rows per product, on its stream (over
 * the GPU's link when the vectors are in host memory:
 * dist_summed_set_vectors_host). CIS_ERR_INVALID when D is not a summed
 * operator. */
cis_status dist_summed_set_write_back(cis_dist_matrix *D, int on);

/* seconds[r], for every rank r of D's communicator (cis_dist_comm_ranks
 * values): the time rank r's part spent in f over D's products since its
 * times were last reset (device parts: CUDA events around f's work on the
 * part's stream; host parts: the wall clock); *products: their number.
 * Collective: every process calls it together (the ranks' times are summed
 * through the communicator). CIS_ERR_INVALID when D is not a summed
 * operator. */
cis_status dist_summed_work(cis_dist_matrix *D, double *seconds, int64_t *products);

/* A whole-vector transformation of the distributed vector v (one vector of
 * the summed operator D's rows): v gathered whole on every local part (into
 * the part's x buffer, as before a product), then f(ctx, local, rank, w, w,
 * s) on each local part changing that whole vector w in place, then each
 * part's rows of v replaced by its rows of w. f must give every part the
 * same w (the same deterministic map of the same input), e.g. a projection
 * that pairs entries owned by different parts. CIS_ERR_INVALID when D is not
 * a summed operator or v not one of its vectors. */
cis_status dist_summed_transform(cis_dist_matrix *D, void *v, cis_dist_part_fn f, void *ctx);

/* Seconds of its set-up (kept by reset_times): splitting the parts' rows
 * into their blocks (host rows: partition.c; GPU rows: on the device), and
 * storing the blocks (host formats, plans and uploads; sym-seg: its layout);
 * over GPU parts built at once (a host thread each, local blocks kept on
 * the GPUs) the slowest part's, else the parts' sum. */
void dist_matrix_setup_times(const cis_dist_matrix *D, double *split_s, double *store_s);

/* Ranks this process drives, and the global number of its first one. */
int dist_comm_local_ranks(const cis_dist_comm *c);
int dist_comm_first_rank(const cis_dist_comm *c);

#endif
