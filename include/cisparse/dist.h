/* cisparse/dist.h: a matrix and its vectors spread over several parts (GPUs
 * or, for tests, CPU "ranks"), and the solvers of solver.h run unchanged on
 * top of it.
 *
 * The pattern is PETSc's MATMPIAIJ (src/mat/impls/aij/mpi/mpiaij.c,
 * MatMult_MPIAIJ) and Ginkgo's distributed::Matrix (local and non-local
 * parts): the rows are split into G contiguous ranges balanced by nonzeros;
 * part p holds
 *   local  = A[rows_p, rows_p]   (its diagonal block, columns renumbered from 0)
 *   remote = A[rows_p, needed_p] (the off-diagonal block, its columns
 *                                 compressed to the sorted list needed_p of
 *                                 the x entries that part p lacks),
 * and y_p = local * x_p + remote * x[needed_p]. The x entries are exchanged
 * before the remote product, either by an all-gather of every part's x or by
 * point-to-point messages of just the needed entries (cis_dist_exchange:
 * the rule is there), while the local product runs on its own stream.
 *
 * Communicators (cis_dist_comm): NCCL with one process driving every GPU of
 * a host (ncclCommInitAll, one stream per GPU, collectives in
 * ncclGroupStart/End), NCCL with one process per GPU bootstrapped by MPI,
 * MPI over host memory with one part per process (both when built with
 * MPI: found at configure time, -DCISPARSE_MPI=OFF turns it off), and a fake
 * one over threads (host memory) for the CPU tests. One process may drive several parts ("local ranks");
 * every process runs the same solver code on its local parts.
 *
 * NVLink multicast (NVLS): NCCL reads NCCL_NVLS_ENABLE when the NCCL
 * constructors make its communicators; the library sets no environment. The
 * cisparse tool and the Python package set it to 0 unless it is set; a C
 * program that wants it off calls setenv("NCCL_NVLS_ENABLE", "0", 0) before
 * the first NCCL constructor (or cis_ci_solve over several GPUs). */
#ifndef CISPARSE_DIST_H
#define CISPARSE_DIST_H

#include "cisparse/operator.h"
#include "cisparse/solver.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- partitioning (host, no communication) ------------------------------ */

/* Split the rows of A into `parts` contiguous ranges with about nnz/parts
 * nonzeros each (row p ends where the running nonzero count first reaches
 * (p+1)*nnz/parts; every part keeps at least one row). row_start: parts+1
 * entries, row_start[0] = 0, row_start[parts] = rows. CIS_ERR_INVALID when
 * parts < 1 or parts > rows. */
CIS_API cis_status cis_dist_partition_rows(const cis_csr *A, int parts, cis_int *row_start);

/* The same split from the nonzeros of each row (row_nnz: `rows` counts),
 * for a matrix not yet built: equal to cis_dist_partition_rows on a matrix
 * with those counts. row_nnz NULL: by rows (part p starts at rows*p/parts). */
CIS_API cis_status cis_dist_partition_counts(cis_int rows, const cis_int *row_nnz, int parts, cis_int *row_start);

/* How the x entries a part lacks reach it in each product. The rule for
 * CIS_XCHG_AUTO: point-to-point when
 *   p2p_values * value_bytes + p2p_messages * msg_bytes < allgather_values * value_bytes
 * (the volumes of cis_dist_info), else the gather (the all-gather, then the
 * whole rows: as fast as the overlapped all-gather or faster wherever both
 * were measured, bench/results/multigpu.md; the all-gather itself for rows
 * built part by part, cis_dist_matrix_create_rows): a message costs a latency
 * (several microseconds in NCCL, i.e. a few hundred KB of NVLink time;
 * msg_bytes <= 0 means CIS_DIST_MSG_BYTES; value_bytes is 8 whatever the
 * dtype, so the choice depends on the matrix only), the all-gather is one
 * collective. */
typedef enum cis_dist_exchange {
  CIS_XCHG_AUTO = 0,      /* the rule above */
  CIS_XCHG_ALLGATHER = 1, /* every part receives every other part's x (padded to the largest part) */
  CIS_XCHG_P2P = 2,       /* every part receives exactly its needed entries from their owners */
  /* the all-gather first, then each part's whole rows in one product on the
   * gathered x: no split into diagonal and off-diagonal blocks, so no
   * overlap of the exchange with a local product either. For a part whose
   * rows reach most of x (the CI Hamiltonian's), where the two blocks'
   * products took about 25 % longer than its rows' one (bench/NOTES.md).
   * AUTO's all-gather choice (the rule above). cis_dist_matrix_create only:
   * the row builders of cis_dist_matrix_create_rows keep the blocks (asked
   * for there, CIS_ERR_UNSUPPORTED; the rule gives them the all-gather). */
  CIS_XCHG_GATHER = 3
} cis_dist_exchange;

/* Latency allowance of the exchange rule, in bytes per point-to-point message. */
#define CIS_DIST_MSG_BYTES ((int64_t)256 * 1024)

/* "allgather", "p2p", "gather", "auto"; parse gives CIS_ERR_NOT_FOUND naming the choices. */
CIS_API const char *cis_dist_exchange_name(cis_dist_exchange k);
CIS_API cis_status cis_dist_exchange_parse(const char *s, cis_dist_exchange *k);

/* ---- communicators -------------------------------------------------------- */

typedef struct cis_dist_comm cis_dist_comm;
typedef struct cis_dist_world cis_dist_world;

/* A fake world of nranks CPU ranks in this process (the CPU tests): threads
 * each make a communicator for their ranks and call the collectives
 * together; buffers are host memory. Free the world after every comm. */
CIS_API cis_status cis_dist_world_create(int nranks, cis_dist_world **out);
CIS_API void cis_dist_world_free(cis_dist_world *w);
/* A communicator for ranks first .. first+nlocal-1 of w, driven by the
 * calling thread (each rank of w must belong to exactly one communicator). */
CIS_API cis_status cis_dist_comm_fake(cis_dist_world *w, int first, int nlocal, cis_dist_comm **out);
/* NCCL over `ngpus` GPUs of this host driven by this process
 * (ncclCommInitAll on devices 0..ngpus-1, one stream per GPU). ngpus = 0:
 * every GPU. CIS_ERR_INVALID when ngpus exceeds the device count,
 * CIS_ERR_NO_GPU / CIS_ERR_UNSUPPORTED when built without CUDA or NCCL. */
CIS_API cis_status cis_dist_comm_nccl(int ngpus, cis_dist_comm **out);
/* NCCL with one process per GPU, bootstrapped through MPI (MPI_Init or
 * cis_dist_mpi_init done by the caller; every process calls it together; the
 * process of local rank k on its host (MPI_COMM_TYPE_SHARED) uses device
 * k % that host's GPUs; the unique id is broadcast with MPI_Bcast). A rank
 * without a GPU fails on every rank (checked together before NCCL starts):
 * CIS_ERR_NO_GPU. CIS_ERR_UNSUPPORTED unless built with CUDA, NCCL and MPI. */
CIS_API cis_status cis_dist_comm_mpi(cis_dist_comm **out);
/* One host part per process of MPI_COMM_WORLD (rank r drives part r; the
 * buffers are host memory, the collectives MPI's on a duplicate of
 * MPI_COMM_WORLD; dots summed in rank order, the same bits on every rank and
 * as on a fake world of as many ranks). Every process calls it together,
 * after MPI_Init or cis_dist_mpi_init. CIS_ERR_INVALID when MPI is not
 * initialised, CIS_ERR_UNSUPPORTED (the message says how to build it) when
 * cisparse was built without MPI. */
CIS_API cis_status cis_dist_comm_mpi_host(cis_dist_comm **out);

/* ---- launching under mpirun (one process per part) ------------------------
 * Built without MPI, cis_dist_mpi_init returns CIS_ERR_UNSUPPORTED (rank 0,
 * size 1), agree returns -3, abort exits, finalize does nothing. */

/* 1 when cisparse was built with MPI (the constructors above work), else 0. */
CIS_API int cis_dist_mpi_available(void);
/* MPI_Init_thread (MPI_THREAD_FUNNELED) unless MPI is initialised already,
 * and the agreement's own communicator; *rank and *size (NULL: not wanted) of
 * MPI_COMM_WORLD. Unless OMP_NUM_THREADS is set, each process then takes at
 * most its share of the host's cores as OpenMP threads (online cores over
 * the processes on the host, MPI_COMM_TYPE_SHARED). Every process calls it
 * once, first. */
CIS_API cis_status cis_dist_mpi_init(int *rank, int *size);
/* Every process of MPI_COMM_WORLD calls this after a step with its status
 * `mine`: the lowest rank whose status was not CIS_OK, or -1 when every
 * rank's was. It runs on its own communicator, so a rank that failed inside
 * a step may call it while the others still wait in a collective it left: a
 * rank with mine != CIS_OK waits at most wait_s seconds for the others, then
 * returns -2 (they did not arrive: end the job with cis_dist_mpi_abort); a
 * rank with mine == CIS_OK waits until every rank arrives (or the job is
 * aborted). -3 without cis_dist_mpi_init. */
CIS_API int cis_dist_mpi_agree(cis_status mine, double wait_s);
/* Ends every process of the job with exit status `code` (MPI_Abort), or
 * this process where MPI is not running. Does not return. */
CIS_API void cis_dist_mpi_abort(int code);
/* MPI_Finalize if cis_dist_mpi_init initialised MPI (after every
 * communicator is freed); nothing otherwise. */
CIS_API void cis_dist_mpi_finalize(void);
CIS_API void cis_dist_comm_free(cis_dist_comm *c);
CIS_API int cis_dist_comm_ranks(const cis_dist_comm *c);       /* all ranks */
CIS_API int cis_dist_comm_local_ranks(const cis_dist_comm *c); /* driven here */
CIS_API int cis_dist_comm_first_rank(const cis_dist_comm *c);
/* Where the comm's buffers live: CIS_MEM_HOST (fake) or CIS_MEM_DEVICE. */
CIS_API cis_memspace cis_dist_comm_memspace(const cis_dist_comm *c);
/* Make local part `local`'s GPU the current device (device comms; nothing
 * on host comms), e.g. before creating that part's device objects.
 * CIS_ERR_INVALID when local is not a local part. */
CIS_API cis_status cis_dist_comm_use_part(cis_dist_comm *c, int local);
/* "fake", "nccl", "nccl+mpi", "mpi" */
CIS_API const char *cis_dist_comm_name(const cis_dist_comm *c);
/* vals[l*count .. +count) of each local rank l: replaced by the sum over all
 * ranks (host doubles; summed in rank order on the fake comm). */
CIS_API cis_status cis_dist_allreduce_host(cis_dist_comm *c, double *vals, int count);
/* Whether the ranks of c hold the same k values (64-bit hashes of what must
 * be equal on every rank: the integrals, each option; cis_hash64): one
 * all-reduce of ranks x 2k doubles (each value as two exact 32-bit halves in
 * its rank's slots, zeros elsewhere), a size fixed by k and the comm, so it
 * may be the first collective however else the ranks differ. Every process
 * calls it together with the same k; each local rank contributes mine[0..k).
 * differ[g] = 1 where some rank's value g differs from rank 0's, else 0.
 * CIS_ERR_INVALID on a NULL argument or k < 1 (before any collective); the
 * comm's error else. */
CIS_API cis_status cis_dist_comm_agree(cis_dist_comm *c, const uint64_t *mine, int k, int *differ);
/* 64-bit FNV-1a (Fowler, Noll, Vo) of n bytes at p, continuing from h (start
 * with CIS_HASH64_START): the hash cis_dist_comm_agree's callers compare. */
#define CIS_HASH64_START 14695981039346656037ull
CIS_API uint64_t cis_hash64(uint64_t h, const void *p, size_t n);
/* The all-reduces c has made so far: *host through cis_dist_allreduce_host
 * (values to and from the host), *slots of solver scalars in stream order
 * (the distributed backend's device-resident versions). NULL outputs skipped. */
CIS_API void cis_dist_comm_allreduces(const cis_dist_comm *c, int64_t *host, int64_t *slots);

/* ---- distributed matrix, vectors and operator ----------------------------- */

typedef struct cis_dist_matrix cis_dist_matrix;

typedef struct cis_dist_opts {
  cis_dist_exchange exchange;  /* default AUTO */
  int64_t msg_bytes;           /* exchange rule's per-message allowance (0 = default) */
  const char *format;          /* format of both blocks (NULL = "csr"); host parts: any CPU format */
  const char *kernel;          /* GPU kernel (NULL = the format's default) */
  cis_dtype dtype;             /* value type of the blocks and vectors (default A's) */
} cis_dist_opts;
CIS_API cis_dist_opts cis_dist_opts_default(void);

/* Distribute the square matrix A (every process passes the same A; each
 * keeps only its local parts' blocks) over the parts of c: host blocks
 * (cis_matrix of o->format) on a fake comm, GPU plans on the comm's GPUs on
 * an NCCL comm. Records diag(A) for Jacobi and Davidson. With a symmetric
 * format (o->format sym-seg or csr-sym) and o->exchange AUTO, a symmetric A
 * (full, or its upper triangle flagged CIS_FLAG_UPPER) keeps each entry once
 * (cis_dist_matrix_create_upper_rows on its upper triangle; CIS_ERR_INVALID
 * naming the first unequal pair when A is not symmetric); otherwise
 * symmetric storage is expanded and the parts hold full rows. */
CIS_API cis_status cis_dist_matrix_create(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o,
                                          cis_dist_matrix **out);
/* 1 when options o (NULL: the defaults) keep a symmetric matrix's entries
 * once (a symmetric format and CIS_XCHG_AUTO: cis_dist_matrix_create's
 * rule above, the one for callers that build by rows to choose
 * cis_dist_matrix_create_upper_rows), else 0. */
CIS_API int cis_dist_stores_once(const cis_dist_opts *o);
CIS_API void cis_dist_matrix_free(cis_dist_matrix *D);
/* Rows r0..r1-1 of an n x n matrix, built on demand: *rows a new CSR of
 * r1-r0 rows and n columns (global column indices, ascending in each row,
 * full rows: no CIS_FLAG_UPPER), freed by the caller; any status but CIS_OK
 * stops the construction with it. */
typedef cis_status (*cis_dist_rows_fn)(void *ctx, cis_int r0, cis_int r1, cis_csr **rows);

/* The distributed matrix of cis_dist_matrix_create without the whole matrix
 * anywhere: the rows are split by row_nnz (cis_dist_partition_counts: n
 * counts, NULL by rows), then each local part, one after the other, calls
 * build(ctx, its r0, its r1), splits the rows into its local and remote
 * blocks, frees them and stores the blocks (host matrices or its GPU's
 * plans). Host memory peaks at one part's rows and blocks (plus, on a fake
 * comm, the host blocks stored so far). The needed lists of parts driven by
 * other processes or threads come through cis_dist_allreduce_host (one sum
 * per part: their owner contributes, the others add zeros), so every comm
 * of the world must call this together; so does diag(A). Equal, bit for bit
 * in its blocks, plan and diagonal, to cis_dist_matrix_create on the
 * assembled matrix (with the same split). Values: o->dtype, else the rows'. */
CIS_API cis_status cis_dist_matrix_create_rows(cis_int n, const cis_int *row_nnz, cis_dist_rows_fn build, void *ctx,
                                               cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out);

/* Rows r0..r1-1 of an n x n matrix built on demand on the GPU of local part
 * `local` (the current device when called): *rows a device CSR (cis_gpu_csr)
 * of r1-r0 rows and n columns, global column indices ascending in each row,
 * full rows, double values, its arrays from cis_gpu_malloc on that GPU and
 * handed over (the distributed matrix frees them); any status but CIS_OK
 * stops the construction with it (arrays already set in *rows are freed). */
typedef cis_status (*cis_dist_rows_gpu_fn)(void *ctx, int local, cis_int r0, cis_int r1, cis_gpu_csr *rows);

/* cis_dist_matrix_create_rows with the rows built on each part's own GPU
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
 * products (to rounding of the local kernel) as cis_dist_matrix_create_rows
 * with the same rows built on the host. */
CIS_API cis_status cis_dist_matrix_create_rows_gpu(cis_int n, const cis_int *row_nnz, cis_dist_rows_gpu_fn build,
                                                   void *ctx, cis_dist_comm *c, const cis_dist_opts *o,
                                                   cis_dist_matrix **out);

/* One part's share of a summed operator (cis_dist_matrix_create_summed):
 * from the whole x (n values, every part's rows gathered) write the part's
 * contribution to y as a whole vector of n values (overwritten: every entry,
 * zeros where it contributes nothing). Called for each local part with that
 * part's GPU current and its stream s (device comm: x and y are on that GPU,
 * work queued on s is waited for), or on the host (fake comm, s NULL).
 * local: the part's index in this process; rank: its global rank. */
typedef cis_status (*cis_dist_part_fn)(void *ctx, int local, int rank, const void *x, void *y, cis_stream s);

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
 *      cis_dist_summed_set_sum(CIS_DIST_SUM_COLLECTIVE) on a uniform split,
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
CIS_API cis_status cis_dist_matrix_create_summed(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype,
                                                 cis_dist_part_fn f, void *ctx, cis_dist_comm *c,
                                                 cis_dist_matrix **out);

/* A symmetric n x n matrix over the parts of c with each stored entry held
 * once, on one part: its upper triangle built part by part. build (host
 * parts) or build_gpu (GPU parts; exactly one of them given) returns rows
 * r0..r1-1 of the upper triangle (every column >= its row, ascending, global
 * indices: cis_ci_hamiltonian_rows with upper = 1); upper_nnz[i] (n counts)
 * their entries. The rows are split so that each part stores about the same
 * number of entries (cis_dist_partition_counts of upper_nnz: fewer rows to
 * the first parts, whose rows reach further). Part p keeps its rows' entries,
 * those in later parts' columns included, as the symmetric matrix of the
 * trailing rows and columns r_p..n-1 (rows past its own empty) in o->format:
 * "sym-seg" or "csr-sym" (NULL or "auto": sym-seg on GPUs, csr-sym on host
 * parts; other formats CIS_ERR_UNSUPPORTED). A product is that of a summed
 * operator (cis_dist_matrix_create_summed, whose steps and sums it shares):
 * x gathered whole, each part's forward terms A(i,j) x_j to its own rows
 * and mirror terms A(i,j) x_i to later parts' rows j, the partial ys summed
 * onto their owners. Its whole vectors are padded (part p's rows at
 * p * max_rows, the blocks' columns mapped there), so the gather is one
 * all-gather and the sum one reduce-scatter (NCCL's order;
 * option dist_sum=rank: point-to-point, summed in rank order); both are
 * run once in the set-up (NCCL's connections). Against cis_dist_matrix_create_rows
 * (every part holds full rows, so the entries between two parts are stored
 * twice) each part reads about 1/parts of the triangle, for a second
 * exchange of the same volume: 2 (parts - 1) n values a product. diag(A)
 * from the rows' first entries (every process's, through
 * cis_dist_allreduce_host). Every process calls this together. Errors:
 * CIS_ERR_INVALID naming a row with an entry below the diagonal, rows of the
 * wrong shape, build_gpu on a host comm, or not exactly one builder; the
 * builders' own; CIS_ERR_OVERFLOW when the padded vectors exceed 32-bit
 * column indices. */
CIS_API cis_status cis_dist_matrix_create_upper_rows(cis_int n, const cis_int *upper_nnz, cis_dist_rows_fn build,
                                                     cis_dist_rows_gpu_fn build_gpu, void *ctx, cis_dist_comm *c,
                                                     const cis_dist_opts *o, cis_dist_matrix **out);

/* How a summed operator sums the parts' contributions onto the owners' rows. */
typedef enum cis_dist_sum {
  CIS_DIST_SUM_RANK_ORDER = 0, /* point-to-point, each row summed in rank order (the default) */
  CIS_DIST_SUM_COLLECTIVE = 1  /* one reduce-scatter: NCCL sums a row in its ring's order from the row's
                                * owner, so two rows of different owners with the same contributions
                                * may differ in the last bits (exactly symmetric contributions stay
                                * symmetric to rounding only); the fake comm sums in rank order */
} cis_dist_sum;

/* Choose how the summed operator D sums (cis_dist_sum). COLLECTIVE takes
 * effect over more than 2 parts when D's split is uniform (both as for the
 * all-gather of cis_dist_matrix_create_summed) and the
 * communicator offers a reduce-scatter (NCCL, fake), else the rank-order
 * sum stays. The option dist_sum=rank|collective, when set,
 * overrides the choice made here (a diagnostic; it must be the same on
 * every process). CIS_ERR_INVALID when D is not a summed operator or how is
 * unknown. */
CIS_API cis_status cis_dist_summed_set_sum(cis_dist_matrix *D, cis_dist_sum how);

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
 * pageable where the system refuses: cis_dist_vectors_on_host).
 * Call before any vector of D is allocated (CIS_ERR_INVALID after);
 * nothing to do on a host comm. CIS_ERR_INVALID when D is not a summed
 * operator; a failed allocation leaves the vectors where they were. */
CIS_API cis_status cis_dist_summed_set_vectors_host(cis_dist_matrix *D, int pinned);
/* Where D's distributed vectors are: 0 the GPUs (or NULL), 1 host memory
 * (a host comm's, or after cis_dist_summed_set_vectors_host: pageable, as
 * asked or because the system refused to lock them), 2 page-locked host
 * memory (asked and granted; known once a vector is allocated). */
CIS_API int cis_dist_vectors_on_host(const cis_dist_matrix *D);

/* A callback a summed operator runs on the calling thread at the start of
 * each of its products (before the gather; every process at the same
 * product), e.g. to re-split the parts' work from their measured times
 * (cis_dist_summed_work). A failure ends the product with its status. */
typedef cis_status (*cis_dist_prepare_fn)(void *ctx, cis_dist_matrix *D);
/* Install (f NULL: remove) D's prepare callback. CIS_ERR_INVALID when D is
 * not a summed operator. */
CIS_API cis_status cis_dist_summed_set_prepare(cis_dist_matrix *D, cis_dist_prepare_fn f, void *ctx);
/* on != 0: each part's f may change the whole x it is given in place
 * (the same deterministic change on every part, e.g. a projection onto a
 * symmetry), and after f each part's rows of that x replace its rows of the
 * product's input vector, so that the input and y = A x stay a consistent
 * pair with no exchange of its own (the one-device CI paths' in-place
 * projection, made distributed: cis_dist_summed_transform costs an
 * all-gather). A copy of the part's rows per product, on its stream (over
 * the GPU's link when the vectors are in host memory:
 * cis_dist_summed_set_vectors_host). CIS_ERR_INVALID when D is not a summed
 * operator. */
CIS_API cis_status cis_dist_summed_set_write_back(cis_dist_matrix *D, int on);
/* seconds[r], for every rank r of D's communicator (cis_dist_comm_ranks
 * values): the time rank r's part spent in f over D's products since its
 * times were last reset (device parts: CUDA events around f's work on the
 * part's stream; host parts: the wall clock); *products: their number.
 * Collective: every process calls it together (the ranks' times are summed
 * through the communicator). CIS_ERR_INVALID when D is not a summed
 * operator. */
CIS_API cis_status cis_dist_summed_work(cis_dist_matrix *D, double *seconds, int64_t *products);

/* A whole-vector transformation of the distributed vector v (one vector of
 * the summed operator D's rows): v gathered whole on every local part (into
 * the part's x buffer, as before a product), then f(ctx, local, rank, w, w,
 * s) on each local part changing that whole vector w in place, then each
 * part's rows of v replaced by its rows of w. f must give every part the
 * same w (the same deterministic map of the same input), e.g. a projection
 * that pairs entries owned by different parts. CIS_ERR_INVALID when D is not
 * a summed operator or v not one of its vectors. */
CIS_API cis_status cis_dist_summed_transform(cis_dist_matrix *D, void *v, cis_dist_part_fn f, void *ctx);

/* What the exchange plan of a distributed matrix does in each product. */
typedef struct cis_dist_info {
  int parts;                   /* all parts, of every process */
  cis_dist_exchange exchange;  /* the exchange chosen: ALLGATHER or P2P (never AUTO) */
  int64_t p2p_values;          /* values received per product point-to-point, all parts */
  int64_t p2p_messages;        /* (receiver, sender) pairs with values to move */
  int64_t allgather_values;    /* values received per product by the padded all-gather */
} cis_dist_info;
/* The plan's figures of D into *out. CIS_ERR_INVALID on a NULL argument. */
CIS_API cis_status cis_dist_matrix_info(const cis_dist_matrix *D, cis_dist_info *out);
/* The global rows row0 .. row0+rows-1 of part `part` (0 <= part < parts, any
 * process's part). CIS_ERR_INVALID on a NULL argument or a part out of range. */
CIS_API cis_status cis_dist_matrix_part_rows(const cis_dist_matrix *D, int part, cis_int *row0, cis_int *rows);
/* Bytes moved between parts per product (all parts; values * value size). */
CIS_API int64_t cis_dist_matrix_exchange_bytes(const cis_dist_matrix *D);
/* Seconds spent in the exchange (pack, communication, unpack: on GPUs timed
 * by events on the communication stream, the slowest part's, so time hidden
 * behind the local product still counts; on host parts by the wall clock)
 * and in whole products (wall clock, device synchronized) since creation or
 * the last reset, and the number of products. */
CIS_API void cis_dist_matrix_times(const cis_dist_matrix *D, double *exchange_s, double *product_s,
                                   int64_t *products);
CIS_API void cis_dist_matrix_reset_times(cis_dist_matrix *D);
/* Seconds of its set-up (kept by reset_times): splitting the parts' rows
 * into their blocks (host rows: partition.c; GPU rows: on the device), and
 * storing the blocks (host formats, plans and uploads; sym-seg: its layout);
 * over GPU parts built at once (a host thread each, local blocks kept on
 * the GPUs) the slowest part's, else the parts' sum. */
CIS_API void cis_dist_matrix_setup_times(const cis_dist_matrix *D, double *split_s, double *store_s);

/* Distributed vectors: `count` vectors of the matrix's rows, each spread like
 * the rows. The handle is an address that the solvers may offset by whole
 * vectors (v + j*rows values), never dereference; it is valid until freed. */
CIS_API cis_status cis_dist_vec_alloc(cis_dist_matrix *D, int count, void **v);
CIS_API void cis_dist_vec_free(cis_dist_matrix *D, void *v);
/* count*rows values (the matrix's dtype) from / to a host array in global
 * order; each process reads / writes only its local parts' rows. */
CIS_API cis_status cis_dist_vec_upload(cis_dist_matrix *D, void *v, const void *host, int count);
CIS_API cis_status cis_dist_vec_download(cis_dist_matrix *D, void *host, const void *v, int count);
/* count whole vectors in host memory (count*rows values in global order) of
 * which this process holds its local parts' rows (as cis_dist_vec_download
 * leaves them): every other part's rows are filled in from their owner, so
 * each process ends with the whole vectors (the all-gather of unequal parts
 * of the comm; through a device buffer on a device comm). Every process calls
 * it together; nothing to do when one process holds every part. */
CIS_API cis_status cis_dist_vec_gather_host(cis_dist_matrix *D, void *host, int count);

/* The operator y = alpha*A*x + beta*y on distributed vectors (memory space
 * CIS_MEM_DIST); cis_krylov_solve and cis_davidson_operator run on it with a
 * distributed backend (cis_dist_solver_path). D outlives it. */
CIS_API cis_status cis_operator_from_dist(cis_dist_matrix *D, cis_operator **out);
/* How cis_krylov_solve in version v runs on a distributed operator, in
 * words: "device-resident scalars ..." (cuda, merge, merge_10, graph: each
 * part keeps the solver's scalars, partial dots summed over the ranks in
 * stream order, no host round trip per dot or product) or "host scalars
 * ..." (cublasL, cublasN: every dot brought to the host). Never NULL. */
CIS_API const char *cis_dist_solver_path(cis_solver_version v);

#ifdef __cplusplus
}
#endif
#endif
