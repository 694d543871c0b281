/* dist_parts.h: the distributed matrix object (not public): the local parts
 * of this process, the exchange plan, and the table of distributed vectors;
 * and the part memory every file of this layer uses (dist_parts.c). */
#ifndef CISPARSE_DIST_PARTS_H
#define CISPARSE_DIST_PARTS_H

#include "cisparse/format.h"
#include "distributed/dist_internal.h"
#include "distributed/partition.h"

/* Most parts one process drives (one per GPU of a host). */
#define DIST_MAX_LOCAL 64

typedef struct dist_part {
  int rank;
  cis_int row0, rows;
  cis_matrix *Ml, *Mr;      /* host blocks (fake comm) */
  cis_gpu_plan *Pl, *Pr;    /* device blocks */
  cis_int nneeded, nsend;
  void *xr;                 /* the needed x entries (nneeded) */
  void *stage, *xfull;      /* all-gather: send (max_rows) and receive (parts*max_rows) */
  void *sendbuf;            /* point-to-point: packed values (nsend) */
  void *ywhole;             /* summed operator: the part's contribution, a whole y */
  void *yown;               /* summed operator with host vectors: the part's rows of y on its GPU */
  cis_idx *idx;             /* all-gather: unpack positions in xfull; p2p: pack indices */
  cis_stream compute;       /* device: the stream of the two products */
  void *ev_x, *ev_start, *ev_done, *ev_y;
  void *ev_local;           /* device, synchronous products: the local block's end (option dist_trace) */
  void **ring;              /* device, products in stream order: DIST_RING x {x, start, done, y} events */
  double t_work;            /* summed operator: seconds of f since the times were reset */
} dist_part;

/* Products in stream order (dist_apply_after) whose times are read back
 * later: each records its events in the next of DIST_RING entries, and an
 * entry's times are read when it is reused (long finished by then) or when
 * the times are asked for (dist_times_flush). */
#define DIST_RING 32

typedef struct dist_vec {
  char *base;               /* reserved, inaccessible: the handle */
  int64_t span;             /* count*n*value bytes */
  int count;
  void **loc;               /* [nlocal] count*rows values each */
} dist_vec;

struct cis_dist_matrix {
  cis_dist_comm *comm;
  dist_plan plan;
  cis_int n;
  cis_dtype dtype;
  cis_memspace where;       /* of the parts: host or device */
  cis_memspace vwhere;      /* of the distributed vectors: where, or host on a device comm
                             * (dist_summed_set_vectors_host) */
  int vpinned;              /* host vectors on a device comm: 1 page-locked (cudaHostRegister), 0 not
                             * asked, -1 asked but refused by the system (pageable) */
  char format[32];
  int nlocal;
  dist_part *part;
  double *diag;             /* global diag(A), host */
  int has_diag;             /* diag is A's (0: a summed operator made without one; diag unused, untouched) */
  dist_vec *vecs;
  int nvecs, cap;
  double t_exchange, t_product;
  double t_split, t_store;  /* set-up: the parts' rows split into blocks, the blocks stored (plans, uploads) */
  int64_t products;
  cis_dist_part_fn summed;  /* a summed operator (dist_summed.c): its parts' product, else NULL */
  void *summed_ctx;
  int summed_uniform;       /* the collectives' layout: over more than 2 parts, its split uniform, or padded */
  int summed_padded;        /* whole vectors padded: part p's rows at p * max_rows, whatever the split (dist_upper.c) */
  int summed_collective;    /* its sum is the comm's reduce-scatter (dist_summed_set_sum) */
  int summed_write_back;    /* f's changes to its rows of x go back to the input (dist_summed_set_write_back) */
  int summed_async;         /* f only queues work on its stream (never waits on the host): the parts called in turn
                             * from the calling thread, no thread per GPU (dist_upper.c) */
  cis_dist_prepare_fn summed_prepare; /* run before each of its products (dist_summed_set_prepare) */
  void *summed_prepare_ctx;
  dist_msg *snd, *rcv;      /* point-to-point messages of a product, allocated by the first */
  int ring_next;            /* the ring entry the next product in stream order takes */
  unsigned char ring_busy[DIST_RING]; /* recorded, times not yet read */
};

/* One product done: tx seconds of exchange, started at wall clock t0. */
static inline void dist_count_product(cis_dist_matrix *D, double tx, double t0) {
  D->t_exchange += tx;
  D->t_product += cis_wtime() - t0;
  D->products++;
}

/* y_l = A x_l on the local parts (exchange included), for the
 * device-resident backend: on device parts ordered after the work already
 * on after[l] (the part backend's stream), which then waits for the
 * product's end; no host synchronization (a summed operator: after[l]
 * synchronized first, then its product). Host parts: done on return. Its
 * times are read later (dist_times_flush). */
cis_status dist_apply_after(cis_dist_matrix *D, void *const *x, void *const *y, const cis_stream *after);
/* The exchange and product times of the products in stream order added to
 * D's (each waited for; nothing to do without any). */
cis_status dist_times_flush(cis_dist_matrix *D);
/* Collective, once the parts are finished (dist_part_finish): the product's
 * exchange run once on the parts' own buffers (contents unused), waited
 * for, so that NCCL's connections between the GPUs (made on first use: 32 ms
 * at 2 H100s, 220 ms at 4, bench/results/multigpu.md) are made in the
 * set-up, not in the first product. Nothing on host parts or one part. */
cis_status dist_exchange_warm(cis_dist_matrix *D);
/* The exchange's collective for every local rank, on the comm's streams
 * after the parts' x are packed: the all-gather of the stages into xfull,
 * or the point-to-point messages from the send buffers into xr (listed in
 * D->snd and D->rcv by the first call) (dist_exchange.c). */
cis_status dist_exchange_collective(cis_dist_matrix *D);
/* D->snd and D->rcv, room for every local part's messages to and from every
 * rank (made once, freed with the matrix: dist_product_free). */
cis_status dist_msgs_room(cis_dist_matrix *D);
/* The ring's events and the message arrays freed (cis_dist_matrix_free). */
void dist_product_free(cis_dist_matrix *D);


/* dst[0..m) (NULL: not wanted) = the sum over all ranks of what they
 * contribute: local rank `owner` of this process its src[0..m), every other
 * rank zeros (owner < 0: this process contributes only zeros), so that one
 * holder's values reach every process exactly; in chunks through
 * dist_allreduce_host (dist_rows.c). Values as doubles (src, dst) or as
 * indices (isrc, idst; exact below 2^53). Collective. */
cis_status dist_share_values(cis_dist_comm *c, int owner, const double *src, const cis_idx *isrc, cis_int m,
                             double *dst, cis_idx *idst);

/* dist_matrix_create_summed, and with padded != 0 (over more than one
 * part) its whole vectors in the collectives' layout whatever the split:
 * part p's rows at p * max_rows of G * max_rows values, the gaps zero (f
 * reads and writes that layout), so that the gather is one all-gather and
 * the sum may be one reduce-scatter (dist_summed.c). */
cis_status dist_summed_new(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype, cis_dist_part_fn f,
                           void *ctx, cis_dist_comm *c, int padded, cis_dist_matrix **out);
/* Where part `rank`'s rows start in a summed operator's whole vectors. */
static inline int64_t dist_whole_at(const cis_dist_matrix *D, int rank) {
  return D->summed_padded ? (int64_t)rank * D->plan.max_rows : D->plan.row_start[rank];
}
/* The length of a summed operator's whole vectors (n, or the collectives'
 * G * max_rows). */
static inline int64_t dist_whole_len(const cis_dist_matrix *D) {
  return D->summed_uniform ? (int64_t)D->plan.parts * D->plan.max_rows : D->n;
}
/* A summed operator's gather and sum exchanged once on device parts (the
 * buffers' contents unused), its streams synchronized: NCCL connects the
 * peers of a collective or message at its first use, so that the first
 * product does not carry it (dist_summed.c; as dist_exchange_warm). */
cis_status dist_summed_warm(cis_dist_matrix *D);
/* The product of a summed operator on the local parts (dist_summed.c). */
cis_status dist_summed_apply(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y);

/* Part memory: host arrays on a fake comm, the part's GPU on a device comm
 * (dist_parts.c). dist_set_dev makes the part's GPU current (no-op on host). */
int dist_on_device(const cis_dist_matrix *D);
cis_status dist_set_dev(const cis_dist_matrix *D, int l);
cis_status dist_part_alloc(const cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what);
void dist_part_free(const cis_dist_matrix *D, int l, void *p);
cis_status dist_part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes);
cis_status dist_part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes);

/* The distributed vectors' part memory: dist_part_* for vectors in the
 * parts' memory, host arrays (page-locked when D->vpinned) for host vectors
 * on a device comm (dist_summed_set_vectors_host); put and get copy
 * host arrays on OpenMP threads. dist_vec_set_dev: the part's GPU current
 * when its vectors are there (no-op otherwise). */
/* Page-locked host vectors are locked in chunks of this many bytes, each
 * aligned to it (dist_parts.c). */
#define DIST_PIN_CHUNK ((size_t)1 << 30)
/* bytes between one of D's vectors' parts (dst when host_is_dst, else src)
 * and a GPU array on stream s: one copy, or, where D's vectors are
 * page-locked host memory, one per DIST_PIN_CHUNK-aligned piece of the host
 * side (a copy spanning two locked chunks would be taken as pageable) */
cis_status dist_copy_host(const cis_dist_matrix *D, void *dst, const void *src, size_t bytes, int host_is_dst,
                          cis_stream s);
int dist_vec_on_device(const cis_dist_matrix *D);
cis_status dist_vec_set_dev(const cis_dist_matrix *D, int l);
cis_status dist_vec_part_alloc(cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what);
void dist_vec_part_free(const cis_dist_matrix *D, int l, void *p, int64_t bytes);
cis_status dist_vec_part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes);
cis_status dist_vec_part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes);

/* For the calls that wait for their part (copies to or from the host, dots
 * brought to the host): `body` run for every local part l of D, setting
 * the part's status `pst` (it must not jump out); GPU parts each on a thread
 * of their own, so that the parts' work and waits overlap instead of running
 * one GPU after another, host parts in turn (their own OpenMP does the
 * rest). Then CIS_TRY of the first part's error, its message raised again
 * on the calling thread (each thread has its own, status.h). */
#define DIST_EACH_PART_WAITING(D, l, pst, body) DIST_EACH_PART_WAITING_IF(D, (D)->where == CIS_MEM_DEVICE, l, pst, body)
/* The same with the threads chosen by `threaded` (the distributed vector
 * backend: threads when its vectors are on the GPUs; host vectors' parts in
 * turn, each part's loops on every core). */
#define DIST_EACH_PART_WAITING_IF(D, threaded, l, pst, body)                                   \
  do {                                                                                         \
    cis_status ps_[DIST_MAX_LOCAL];                                                            \
    char pm_[DIST_MAX_LOCAL][200];                                                             \
    const int nl_ = (D)->nlocal, par_ = nl_ > 1 && (threaded);                                 \
    CIS_PRAGMA(omp parallel for num_threads(nl_) schedule(static, 1) if (par_))                \
    for (int l = 0; l < nl_; ++l) {                                                            \
      if (!par_ && l > 0 && ps_[l - 1] != CIS_OK) { /* in turn: stop at the first failure, */ \
        ps_[l] = ps_[l - 1];                         /* its message kept */                    \
        continue;                                                                              \
      }                                                                                        \
      cis_status pst = CIS_OK;                                                                 \
      body;                                                                                    \
      ps_[l] = pst;                                                                            \
      if (pst != CIS_OK && par_) snprintf(pm_[l], sizeof pm_[l], "%s", cis_last_error());      \
    }                                                                                          \
    for (int l = 0; l < nl_; ++l)                                                              \
      if (ps_[l] != CIS_OK) CIS_TRY(par_ ? cis_error(ps_[l], "part %d: %s", l, pm_[l]) : ps_[l]); \
  } while (0)

#endif
