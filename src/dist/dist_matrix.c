/* dist_matrix.c: the distributed matrix of dist.h, its vectors and its
 * product, after PETSc's MatMult_MPIAIJ (src/mat/impls/aij/mpi/mpiaij.c):
 *
 *   start the exchange of x   (comm stream: pack the needed entries, NCCL)
 *   y_p = alpha local_p x_p + beta y_p            (compute stream, overlapped)
 *   finish the exchange       (comm stream: all-gather -> unpack into xr)
 *   y_p += alpha remote_p xr_p                    (compute stream, after an event)
 *
 * Host parts (fake comm) do the same steps in order. Vectors: a handle is an
 * address inside a reserved, inaccessible range (mmap PROT_NONE) of
 * count*rows values, so the solvers' offsets by whole vectors (v + j*rows)
 * stay inside it; dist_vec_resolve maps (handle, local rank) to that rank's
 * rows of vector j. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "core/internal.h"
#include "dist/dist_matrix.h"
#include "operators/operator_internal.h"

cis_dist_opts cis_dist_opts_default(void) {
  cis_dist_opts o = {CIS_XCHG_AUTO, 0, NULL, NULL, (cis_dtype)-1};
  return o;
}

static int on_device(const cis_dist_matrix *D) { return D->where == CIS_MEM_DEVICE; }

static cis_status set_dev(const cis_dist_matrix *D, int l) {
  return on_device(D) ? dd_set_device(D->comm->device[l]) : CIS_OK;
}

/* bytes on the part's side: host malloc or device malloc (device set) */
static cis_status part_alloc(const cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what) {
  cis_status st;
  *p = NULL;
  if (bytes <= 0) bytes = 8;
  if (!on_device(D)) return cis_alloc_array(p, bytes, 1, what);
  if ((st = set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_malloc(p, (size_t)bytes);
}
static void part_free(const cis_dist_matrix *D, int l, void *p) {
  if (!p) return;
  if (!on_device(D)) cis_free(p);
  else if (set_dev(D, l) == CIS_OK) cis_gpu_free(p);
}
static cis_status part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes) {
  cis_status st;
  if (!bytes) return CIS_OK;
  if (!on_device(D)) {
    memcpy(dst, host, bytes);
    return CIS_OK;
  }
  if ((st = set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_upload(dst, host, bytes);
}
static cis_status part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes) {
  cis_status st;
  if (!bytes) return CIS_OK;
  if (!on_device(D)) {
    memcpy(host, src, bytes);
    return CIS_OK;
  }
  if ((st = set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_download(host, src, bytes);
}

/* One block as a host cis_matrix or a GPU plan (NULL when it has no entries). */
static cis_status block_store(cis_dist_matrix *D, int l, const cis_csr *blk, const cis_dist_opts *o, cis_matrix **M,
                              cis_gpu_plan **P) {
  cis_status st;
  cis_csr *c = NULL;
  cis_matrix *m = NULL;
  *M = NULL;
  *P = NULL;
  if (blk->nnz == 0) return CIS_OK;
  if (blk->dtype != D->dtype) CIS_TRY(cis_csr_copy(blk, D->dtype, &c));
  cis_format_params fp = cis_format_params_default();
  CIS_TRY(cis_matrix_create(c ? c : blk, o->format ? o->format : "csr", &fp, &m));
  if (!on_device(D)) {
    *M = m;
    m = NULL;
  } else {
    CIS_TRY(set_dev(D, l));
    CIS_TRY(cis_gpu_plan_create(m, o->kernel, 0, P));
  }
  st = CIS_OK;
cleanup:
  cis_matrix_free(m);
  cis_csr_free(c);
  return st;
}

/* The part's exchange buffers and index lists. */
static cis_status part_exchange_setup(cis_dist_matrix *D, int l, const cis_dist_block *b) {
  cis_status st;
  dist_part *P = &D->part[l];
  const cis_dist_plan *pl = &D->plan;
  size_t es = cis_dtype_size(D->dtype);
  cis_idx *h = NULL;
  int r = P->rank, G = pl->parts;
  P->nneeded = b->nneeded;
  CIS_TRY(part_alloc(D, l, &P->xr, (int64_t)P->nneeded * es, "needed x entries"));
  if (pl->kind == CIS_XCHG_ALLGATHER) {
    /* xfull holds rank q's rows at q*max_rows; needed entry k sits at
     * owner*max_rows + (column - row_start[owner]) */
    CIS_TRY(part_alloc(D, l, &P->stage, pl->max_rows * (int64_t)es, "all-gather send buffer"));
    CIS_TRY(part_alloc(D, l, &P->xfull, (int64_t)G * pl->max_rows * (int64_t)es, "all-gather receive buffer"));
    CIS_TRY(cis_alloc_array((void **)&h, P->nneeded > 0 ? P->nneeded : 1, sizeof(cis_idx), "unpack indices"));
    int q = 0;
    for (cis_int k = 0; k < P->nneeded; ++k) {
      cis_idx j = b->needed[k];
      while (j >= pl->row_start[q + 1]) ++q;
      int64_t pos = (int64_t)q * pl->max_rows + (j - pl->row_start[q]);
      if (pos > CIS_IDX_MAX) CIS_TRY(cis_error(CIS_ERR_OVERFLOW, "all-gather buffer position %lld exceeds 32-bit indices", (long long)pos));
      h[k] = (cis_idx)pos;
    }
    CIS_TRY(part_alloc(D, l, (void **)&P->idx, (int64_t)(P->nneeded > 0 ? P->nneeded : 1) * sizeof(cis_idx), "unpack indices"));
    CIS_TRY(part_put(D, l, P->idx, h, (size_t)P->nneeded * sizeof(cis_idx)));
  } else {
    cis_int tot = 0;
    for (int p = 0; p < G; ++p) tot += pl->count[(int64_t)p * G + r];
    P->nsend = tot;
    CIS_TRY(part_alloc(D, l, &P->sendbuf, tot * (int64_t)es, "point-to-point send buffer"));
    CIS_TRY(part_alloc(D, l, (void **)&P->idx, (int64_t)(tot > 0 ? tot : 1) * sizeof(cis_idx), "pack indices"));
    CIS_TRY(part_put(D, l, P->idx, pl->send_idx[r], (size_t)tot * sizeof(cis_idx)));
  }
  st = CIS_OK;
cleanup:
  cis_free(h);
  return st;
}

cis_status cis_dist_matrix_create(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o_in, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  cis_dist_block *blocks = NULL;
  cis_int *rs = NULL;
  cis_csr *full = NULL;
  cis_dist_opts o = o_in ? *o_in : cis_dist_opts_default();
  if (!A || !c || !out) return cis_error(CIS_ERR_INVALID, "cis_dist_matrix_create: NULL argument");
  *out = NULL;
  int G = c->ranks;
  if (A->rows != A->cols)
    return cis_error(CIS_ERR_INVALID, "a distributed matrix must be square, got %lld x %lld", (long long)A->rows,
                     (long long)A->cols);
  if (A->rows < G) return cis_error(CIS_ERR_INVALID, "%lld rows cannot be spread over %d parts", (long long)A->rows, G);
  if (c->nlocal > DIST_MAX_LOCAL) return cis_error(CIS_ERR_UNSUPPORTED, "at most %d parts per process", DIST_MAX_LOCAL);
  if (A->flags & CIS_FLAG_UPPER) {
    /* symmetric storage: the parts hold full rows (U + U^T - diag U); the
     * distributed product of the triangle alone would need a second,
     * reverse exchange of the transposed contributions (not done) */
    CIS_TRY(cis_csr_symmetric_expand(A, 0, &full));
    full->flags &= ~CIS_FLAG_UPPER;
    A = full;
  }
  CIS_TRY(cis_alloc_zeroed((void **)&D, 1, sizeof *D, "distributed matrix"));
  D->comm = c;
  D->n = A->rows;
  D->dtype = (o.dtype == CIS_F64 || o.dtype == CIS_F32) ? o.dtype : A->dtype;
  D->where = c->where;
  D->nlocal = c->nlocal;
  snprintf(D->format, sizeof D->format, "%s", o.format ? o.format : "csr");
  /* every process lists every part's needed entries (one pass over A, no
   * copy) for the plan; then it splits its own parts one at a time, each
   * freed once stored (host peak: A plus one part's blocks) */
  CIS_TRY(cis_alloc_array((void **)&rs, G + 1, sizeof(cis_int), "row split"));
  CIS_TRY(cis_dist_partition_rows(A, G, rs));
  CIS_TRY(cis_alloc_zeroed((void **)&blocks, G, sizeof *blocks, "distributed blocks"));
  for (int p = 0; p < G; ++p) CIS_TRY(dist_block_needed(A, rs, G, p, &blocks[p]));
  CIS_TRY(cis_dist_plan_build(blocks, G, o.exchange, o.msg_bytes, &D->plan));
  CIS_TRY(cis_alloc_array((void **)&D->diag, A->rows, sizeof(double), "distributed diagonal"));
  CIS_TRY(cis_csr_diagonal(A, D->diag));
  CIS_TRY(cis_alloc_zeroed((void **)&D->part, D->nlocal, sizeof(dist_part), "distributed parts"));
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    cis_dist_block *b = &blocks[c->first + l];
    P->rank = c->first + l;
    cis_dist_block_clear(b);
    CIS_TRY(cis_dist_block_split(A, rs, G, P->rank, b));
    P->row0 = b->row0;
    P->rows = b->rows;
    CIS_TRY(block_store(D, l, b->local, &o, &P->Ml, &P->Pl));
    CIS_TRY(block_store(D, l, b->remote, &o, &P->Mr, &P->Pr));
    if (!P->Ml && !P->Pl)
      CIS_TRY(cis_error(CIS_ERR_UNSUPPORTED, "part %d (rows %lld..%lld) has no entries in its diagonal block", P->rank,
                        (long long)P->row0, (long long)(P->row0 + P->rows - 1)));
    CIS_TRY(part_exchange_setup(D, l, b));
    cis_dist_block_clear(b); /* stored: the host copy goes */
    if (on_device(D)) {
      CIS_TRY(set_dev(D, l));
      CIS_TRY(dd_stream_create(&P->compute));
      CIS_TRY(dd_event_create(&P->ev_x));
      CIS_TRY(dd_event_create(&P->ev_start));
      CIS_TRY(dd_event_create(&P->ev_done));
    }
  }
  *out = D;
  D = NULL;
  st = CIS_OK;
cleanup:
  if (blocks)
    for (int p = 0; p < G; ++p) cis_dist_block_clear(&blocks[p]);
  cis_free(blocks);
  cis_free(rs);
  cis_csr_free(full);
  cis_dist_matrix_free(D);
  return st;
}

void cis_dist_matrix_free(cis_dist_matrix *D) {
  if (!D) return;
  while (D->nvecs > 0) cis_dist_vec_free(D, D->vecs[D->nvecs - 1].base);
  cis_free(D->vecs);
  if (D->part)
    for (int l = 0; l < D->nlocal; ++l) {
      dist_part *P = &D->part[l];
      if (on_device(D)) set_dev(D, l);
      cis_matrix_free(P->Ml);
      cis_matrix_free(P->Mr);
      cis_gpu_plan_free(P->Pl);
      cis_gpu_plan_free(P->Pr);
      part_free(D, l, P->xr);
      part_free(D, l, P->stage);
      part_free(D, l, P->xfull);
      part_free(D, l, P->sendbuf);
      part_free(D, l, P->idx);
      dd_stream_destroy(P->compute);
      dd_event_destroy(P->ev_x);
      dd_event_destroy(P->ev_start);
      dd_event_destroy(P->ev_done);
    }
  cis_free(D->part);
  cis_dist_plan_clear(&D->plan);
  cis_free(D->diag);
  cis_free(D);
}

const cis_dist_plan *cis_dist_matrix_plan(const cis_dist_matrix *D) { return D ? &D->plan : NULL; }

int64_t cis_dist_matrix_exchange_bytes(const cis_dist_matrix *D) {
  if (!D) return 0;
  int64_t v = D->plan.kind == CIS_XCHG_P2P ? D->plan.p2p_values : D->plan.allgather_values;
  return v * (int64_t)cis_dtype_size(D->dtype);
}

void cis_dist_matrix_times(const cis_dist_matrix *D, double *exchange_s, double *product_s, int64_t *products) {
  if (exchange_s) *exchange_s = D ? D->t_exchange : 0;
  if (product_s) *product_s = D ? D->t_product : 0;
  if (products) *products = D ? D->products : 0;
}
void cis_dist_matrix_reset_times(cis_dist_matrix *D) {
  if (!D) return;
  D->t_exchange = D->t_product = 0;
  D->products = 0;
}

/* ---- vectors ------------------------------------------------------------- */

cis_status cis_dist_vec_alloc(cis_dist_matrix *D, int count, void **v) {
  cis_status st;
  dist_vec V;
  memset(&V, 0, sizeof V);
  if (!D || !v) return cis_error(CIS_ERR_INVALID, "cis_dist_vec_alloc: NULL argument");
  *v = NULL;
  if (count < 1) return cis_error(CIS_ERR_INVALID, "cis_dist_vec_alloc: %d vectors", count);
  size_t es = cis_dtype_size(D->dtype);
  int64_t span;
  if (cis_mul_overflows((int64_t)count, D->n * (int64_t)es, &span))
    return cis_error(CIS_ERR_OVERFLOW, "%d distributed vectors of %lld values", count, (long long)D->n);
  if (D->nvecs == D->cap) {
    int cap = D->cap ? 2 * D->cap : 16;
    dist_vec *nv = cis_realloc(D->vecs, (size_t)cap * sizeof *nv);
    if (!nv) return cis_error(CIS_ERR_ALLOC, "cannot grow the distributed vector table");
    D->vecs = nv;
    D->cap = cap;
  }
  /* the handle: reserved address space, never touched */
  void *base = mmap(NULL, (size_t)span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return cis_error(CIS_ERR_ALLOC, "cannot reserve %lld bytes of address space for distributed vectors", (long long)span);
  V.base = base;
  V.span = span;
  V.count = count;
  CIS_TRY(cis_alloc_zeroed((void **)&V.loc, D->nlocal, sizeof(void *), "distributed vector"));
  for (int l = 0; l < D->nlocal; ++l)
    CIS_TRY(part_alloc(D, l, &V.loc[l], (int64_t)count * D->part[l].rows * (int64_t)es, "distributed vector part"));
  D->vecs[D->nvecs++] = V;
  *v = base;
  return CIS_OK;
cleanup:
  if (V.loc)
    for (int l = 0; l < D->nlocal; ++l) part_free(D, l, V.loc[l]);
  cis_free(V.loc);
  munmap(base, (size_t)span);
  return st;
}

void cis_dist_vec_free(cis_dist_matrix *D, void *v) {
  if (!D || !v) return;
  for (int i = 0; i < D->nvecs; ++i)
    if (D->vecs[i].base == v) {
      for (int l = 0; l < D->nlocal; ++l) part_free(D, l, D->vecs[i].loc[l]);
      cis_free(D->vecs[i].loc);
      munmap(D->vecs[i].base, (size_t)D->vecs[i].span);
      D->vecs[i] = D->vecs[--D->nvecs];
      return;
    }
}

cis_status dist_vec_resolve(const cis_dist_matrix *D, const void *h, void **loc, int *nleft) {
  size_t es = cis_dtype_size(D->dtype);
  const char *p = h;
  for (int i = 0; i < D->nvecs; ++i) {
    const dist_vec *V = &D->vecs[i];
    if (p < V->base || p >= V->base + V->span) continue;
    int64_t off = p - V->base, vb = D->n * (int64_t)es;
    if (off % vb)
      return cis_error(CIS_ERR_INVALID, "distributed vector handle %p is not at a vector boundary", (const void *)h);
    int64_t j = off / vb;
    for (int l = 0; l < D->nlocal; ++l) loc[l] = (char *)V->loc[l] + (size_t)(j * D->part[l].rows) * es;
    if (nleft) *nleft = (int)(V->count - j);
    return CIS_OK;
  }
  return cis_error(CIS_ERR_INVALID, "%p is not a distributed vector of this matrix (cis_dist_vec_alloc)", (const void *)h);
}

static cis_status vec_move(cis_dist_matrix *D, void *host, const void *v, int count, int up) {
  cis_status st;
  void *loc[DIST_MAX_LOCAL];
  int left;
  if (!D || !host || !v) return cis_error(CIS_ERR_INVALID, "distributed vector copy: NULL argument");
  if ((st = dist_vec_resolve(D, v, loc, &left)) != CIS_OK) return st;
  if (count < 0 || count > left)
    return cis_error(CIS_ERR_INVALID, "distributed vector copy of %d vectors: only %d there", count, left);
  size_t es = cis_dtype_size(D->dtype);
  for (int j = 0; j < count; ++j)
    for (int l = 0; l < D->nlocal; ++l) {
      const dist_part *P = &D->part[l];
      char *h = (char *)host + ((size_t)j * (size_t)D->n + (size_t)P->row0) * es;
      char *d = (char *)loc[l] + (size_t)j * (size_t)P->rows * es;
      if (up) CIS_TRY(part_put(D, l, d, h, (size_t)P->rows * es));
      else CIS_TRY(part_get(D, l, h, d, (size_t)P->rows * es));
    }
  st = CIS_OK;
cleanup:
  return st;
}

cis_status cis_dist_vec_upload(cis_dist_matrix *D, void *v, const void *host, int count) {
  return vec_move(D, (void *)host, v, count, 1);
}
cis_status cis_dist_vec_download(cis_dist_matrix *D, void *host, const void *v, int count) {
  return vec_move(D, host, v, count, 0);
}

/* ---- the product ----------------------------------------------------------- */

static cis_status spmv_block(cis_dist_matrix *D, cis_matrix *M, cis_gpu_plan *P, double alpha, const void *x,
                             double beta, void *y, cis_stream s) {
  if (P) return cis_gpu_spmv(P, alpha, x, beta, y, s);
  if (M) return cis_matrix_spmv(M, alpha, x, beta, y);
  return CIS_OK;
}

/* Messages of the point-to-point exchange for every local rank. */
static cis_status p2p_messages(cis_dist_matrix *D, void *const *xr, dist_msg *snd, int *ns, dist_msg *rcv, int *nr) {
  const cis_dist_plan *pl = &D->plan;
  size_t es = cis_dtype_size(D->dtype);
  int G = pl->parts;
  *ns = *nr = 0;
  for (int l = 0; l < D->nlocal; ++l) {
    int r = D->part[l].rank;
    cis_int soff = 0, roff = 0;
    for (int q = 0; q < G; ++q) {
      cis_int cs = pl->count[(int64_t)q * G + r], cr = pl->count[(int64_t)r * G + q];
      if (cs > 0) {
        dist_msg m = {l, q, (char *)D->part[l].sendbuf + (size_t)soff * es, cs};
        snd[(*ns)++] = m;
        soff += cs;
      }
      if (cr > 0) {
        dist_msg m = {l, q, (char *)xr[l] + (size_t)roff * es, cr};
        rcv[(*nr)++] = m;
        roff += cr;
      }
    }
  }
  return CIS_OK;
}

cis_status dist_apply_local(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const cis_dist_plan *pl = &D->plan;
  size_t es = cis_dtype_size(D->dtype);
  int dev = on_device(D), G = pl->parts, ag = pl->kind == CIS_XCHG_ALLGATHER;
  void *stage[DIST_MAX_LOCAL], *xfull[DIST_MAX_LOCAL], *xr[DIST_MAX_LOCAL];
  dist_msg *snd = NULL, *rcv = NULL;
  double t0 = cis_wtime(), tx = 0;
  for (int l = 0; l < D->nlocal; ++l) {
    stage[l] = D->part[l].stage;
    xfull[l] = D->part[l].xfull;
    xr[l] = D->part[l].xr;
  }
  if (!ag) {
    CIS_TRY(cis_alloc_array((void **)&snd, (int64_t)D->nlocal * G + 1, sizeof *snd, "exchange messages"));
    CIS_TRY(cis_alloc_array((void **)&rcv, (int64_t)D->nlocal * G + 1, sizeof *rcv, "exchange messages"));
  }
  /* 1. start the exchange: pack x (comm stream, after x is ready) */
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (dev) {
      CIS_TRY(set_dev(D, l));
      CIS_TRY(dd_event_record(P->ev_start, c->stream[l]));
      if (ag) CIS_TRY(dd_copy_async(P->stage, x[l], (size_t)P->rows * es, c->stream[l]));
      else CIS_TRY(dd_gather(D->dtype, x[l], P->idx, P->nsend, P->sendbuf, c->stream[l]));
    } else {
      double ta = cis_wtime();
      if (ag) memcpy(P->stage, x[l], (size_t)P->rows * es);
      else dist_gather_host(D->dtype, x[l], P->idx, P->nsend, P->sendbuf);
      tx += cis_wtime() - ta;
    }
  }
  /* 2. the collective (all local ranks in one group) */
  {
    double ta = cis_wtime();
    if (ag) CIS_TRY(c->ops->allgather(c, stage, xfull, pl->max_rows, D->dtype));
    else {
      int ns, nr;
      CIS_TRY(p2p_messages(D, xr, snd, &ns, rcv, &nr));
      CIS_TRY(c->ops->exchange(c, snd, ns, rcv, nr, D->dtype));
    }
    if (!dev) tx += cis_wtime() - ta;
  }
  /* 3. local products (compute stream; on the device they run while the
   *    exchange is in flight), then unpack and the remote products */
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    CIS_TRY(set_dev(D, l));
    CIS_TRY(spmv_block(D, P->Ml, P->Pl, alpha, x[l], beta, y[l], P->compute));
    if (ag) {
      if (dev) CIS_TRY(dd_gather(D->dtype, P->xfull, P->idx, P->nneeded, P->xr, c->stream[l]));
      else {
        double ta = cis_wtime();
        dist_gather_host(D->dtype, P->xfull, P->idx, P->nneeded, P->xr);
        tx += cis_wtime() - ta;
      }
    }
    if (dev) {
      CIS_TRY(dd_event_record(P->ev_done, c->stream[l]));
      CIS_TRY(dd_stream_wait(P->compute, P->ev_done));
    }
    CIS_TRY(spmv_block(D, P->Mr, P->Pr, alpha, P->xr, 1.0, y[l], P->compute));
  }
  if (dev) /* the product is complete on return (the backends' streams follow) */
    for (int l = 0; l < D->nlocal; ++l) {
      float ms = 0;
      CIS_TRY(set_dev(D, l));
      CIS_TRY(dd_stream_sync(D->part[l].compute));
      CIS_TRY(dd_event_ms(D->part[l].ev_start, D->part[l].ev_done, &ms));
      if (ms / 1e3 > tx) tx = ms / 1e3; /* the slowest part's exchange */
    }
  D->t_exchange += tx;
  D->t_product += cis_wtime() - t0;
  D->products++;
  st = CIS_OK;
cleanup:
  cis_free(snd);
  cis_free(rcv);
  return st;
}

static cis_status dist_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_status st;
  cis_dist_matrix *D = ctx;
  void *xl[DIST_MAX_LOCAL], *yl[DIST_MAX_LOCAL];
  (void)s;
  if ((st = dist_vec_resolve(D, x, xl, NULL)) != CIS_OK) return st;
  if ((st = dist_vec_resolve(D, y, yl, NULL)) != CIS_OK) return st;
  return dist_apply_local(D, alpha, xl, beta, yl);
}

cis_status cis_operator_from_dist(cis_dist_matrix *D, cis_operator **out) {
  cis_status st;
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "cis_operator_from_dist: NULL argument");
  if ((st = cis_operator_from_callback(D->n, D->n, D->dtype, CIS_MEM_HOST, dist_apply, D, NULL, out)) != CIS_OK)
    return st;
  (*out)->where = CIS_MEM_DIST;
  snprintf((*out)->name, sizeof (*out)->name, "dist %s x%d (%s, %s)", D->format, D->plan.parts,
           cis_dist_comm_name(D->comm), cis_dist_exchange_name(D->plan.kind));
  if ((st = cis_operator_set_diagonal(*out, D->diag)) != CIS_OK) {
    cis_operator_free(*out);
    *out = NULL;
  }
  return st;
}

cis_dist_matrix *dist_matrix_of(const cis_operator *A) {
  return A && A->where == CIS_MEM_DIST ? (cis_dist_matrix *)A->ctx : NULL;
}
