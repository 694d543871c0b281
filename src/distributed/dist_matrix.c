/* dist_matrix.c: the distributed matrix of dist.h: its creation (the
 * needed lists of every part and the exchange plan, then each local part's
 * blocks stored as host matrices or GPU plans with its exchange buffers),
 * and its accessors. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_matrix.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_internal.h"

cis_dist_opts cis_dist_opts_default(void) {
  cis_dist_opts o = {CIS_XCHG_AUTO, 0, NULL, NULL, (cis_dtype)-1};
  return o;
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
  const char *format = o->format ? o->format : "auto", *kernel = o->kernel;
  if (!strcmp(format, "auto")) { /* each block by the rule for where it is multiplied */
    cis_format_choice ch;
    CIS_TRY(dist_on_device(D) ? cis_format_auto(c ? c : blk, D->dtype, &ch)
                              : cis_format_auto_cpu(c ? c : blk, D->dtype, &ch));
    format = ch.format;
    fp = ch.params;
    if (!kernel && dist_on_device(D)) kernel = ch.kernel;
  }
  fp.dtype = D->dtype; /* the blocks in the vectors' dtype (float too) */
  CIS_TRY(cis_matrix_create(c ? c : blk, format, &fp, &m));
  if (!dist_on_device(D)) {
    *M = m;
    m = NULL;
  } else {
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(cis_gpu_plan_create(m, kernel, 0, P));
  }
  st = CIS_OK;
cleanup:
  cis_matrix_free(m);
  cis_csr_free(c);
  return st;
}

/* The part's exchange buffers and index lists. */
static cis_status part_exchange_setup(cis_dist_matrix *D, int l, const dist_block *b) {
  cis_status st;
  dist_part *P = &D->part[l];
  const dist_plan *pl = &D->plan;
  size_t es = cis_dtype_size(D->dtype);
  cis_idx *h = NULL;
  int r = P->rank, G = pl->parts;
  P->nneeded = b->nneeded;
  if (pl->kind == CIS_XCHG_P2P) {
    cis_int tot = 0;
    for (int p = 0; p < G; ++p) tot += pl->count[(int64_t)p * G + r];
    P->nsend = tot;
    CIS_TRY(dist_part_alloc(D, l, &P->xr, (int64_t)P->nneeded * es, "needed x entries"));
    CIS_TRY(dist_part_alloc(D, l, &P->sendbuf, tot * (int64_t)es, "point-to-point send buffer"));
    CIS_TRY(dist_part_alloc(D, l, (void **)&P->idx, (int64_t)(tot > 0 ? tot : 1) * sizeof(cis_idx), "pack indices"));
    CIS_TRY(dist_part_put(D, l, P->idx, pl->send_idx[r], (size_t)tot * sizeof(cis_idx)));
    return CIS_OK;
  }
  /* the all-gathers: xfull holds rank q's rows at q*max_rows */
  CIS_TRY(dist_part_alloc(D, l, &P->stage, pl->max_rows * (int64_t)es, "all-gather send buffer"));
  CIS_TRY(dist_part_alloc(D, l, &P->xfull, (int64_t)G * pl->max_rows * (int64_t)es, "all-gather receive buffer"));
  if (pl->kind == CIS_XCHG_GATHER) return CIS_OK; /* the whole rows read xfull itself: nothing to unpack */
  CIS_TRY(dist_part_alloc(D, l, &P->xr, (int64_t)P->nneeded * es, "needed x entries"));
  CIS_TRY(cis_alloc_array((void **)&h, P->nneeded > 0 ? P->nneeded : 1, sizeof(cis_idx), "unpack indices"));
  CIS_TRY(dist_gathered_positions(b, pl, h));
  CIS_TRY(dist_part_alloc(D, l, (void **)&P->idx, (int64_t)(P->nneeded > 0 ? P->nneeded : 1) * sizeof(cis_idx), "unpack indices"));
  CIS_TRY(dist_part_put(D, l, P->idx, h, (size_t)P->nneeded * sizeof(cis_idx)));
  st = CIS_OK;
cleanup:
  cis_free(h);
  return st;
}

cis_status dist_matrix_new(cis_dist_comm *c, cis_int n, cis_dtype dtype, const cis_dist_opts *o, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  *out = NULL;
  if (c->nlocal > DIST_MAX_LOCAL) return cis_error(CIS_ERR_UNSUPPORTED, "at most %d parts per process", DIST_MAX_LOCAL);
  CIS_TRY(cis_alloc_zeroed((void **)&D, 1, sizeof *D, "distributed matrix"));
  D->comm = c;
  D->n = n;
  D->dtype = (o->dtype == CIS_F64 || o->dtype == CIS_F32) ? o->dtype : dtype;
  D->where = D->vwhere = c->where;
  D->nlocal = c->nlocal;
  snprintf(D->format, sizeof D->format, "%s", o->format ? o->format : "auto");
  CIS_TRY(cis_alloc_zeroed((void **)&D->diag, n > 0 ? n : 1, sizeof(double), "distributed diagonal"));
  D->has_diag = 1;
  CIS_TRY(cis_alloc_zeroed((void **)&D->part, D->nlocal, sizeof(dist_part), "distributed parts"));
  for (int l = 0; l < D->nlocal; ++l) D->part[l].rank = c->first + l;
  *out = D;
  return CIS_OK;
cleanup:
  cis_dist_matrix_free(D);
  return st;
}

/* A part must hold entries in its diagonal block (the local product). */
static cis_status need_local_entries(const dist_part *P) {
  if (P->Ml || P->Pl) return CIS_OK;
  return cis_error(CIS_ERR_UNSUPPORTED, "part %d (rows %lld..%lld) has no entries in its diagonal block", P->rank,
                   (long long)P->row0, (long long)(P->row0 + P->rows - 1));
}

cis_status dist_part_store(cis_dist_matrix *D, int l, dist_block *b, const cis_dist_opts *o) {
  cis_status st;
  dist_part *P = &D->part[l];
  double t0 = cis_wtime();
  cis_csr *whole = NULL;
  P->row0 = b->row0;
  P->rows = b->rows;
  if (D->plan.kind == CIS_XCHG_GATHER) { /* the rows as one block over the gathered x (the plan is built) */
    CIS_TRY(dist_block_gathered(b, &D->plan, &whole));
    CIS_TRY(block_store(D, l, whole, o, &P->Ml, &P->Pl));
  } else {
    cis_dist_opts orem = *o; /* the remote block is rectangular: csr where the local one is symmetric */
    if (cis_format_is_symmetric(o->format)) orem.format = "csr", orem.kernel = NULL;
    CIS_TRY(block_store(D, l, b->local, o, &P->Ml, &P->Pl));
    CIS_TRY(block_store(D, l, b->remote, &orem, &P->Mr, &P->Pr));
  }
  CIS_TRY(need_local_entries(P));
  cis_csr_free(b->local); /* stored: the host copies go */
  cis_csr_free(b->remote);
  b->local = b->remote = NULL;
  st = CIS_OK;
cleanup:
  cis_csr_free(whole);
  D->t_store += cis_wtime() - t0;
  return st;
}

/* How rows built on the device keep their local block, from o->format:
 * csr (or auto, or NULL) a csr plan on the device; sym-seg, csr-sym (kernel
 * o->kernel) its upper triangle in a symmetric plan; any other format (or a
 * csr kernel other than csr-vector) built on the host from the downloaded
 * block, as cis_dist_matrix_create stores it. */
static dist_local_kind dev_local_kind(const cis_dist_opts *o, const char **kernel) {
  const char *f = o->format ? o->format : "csr";
  *kernel = NULL;
  if (!strcmp(f, "sym-seg")) {
    *kernel = "sym-seg";
    return DIST_LOCAL_SYM;
  }
  if (!strcmp(f, "csr-sym")) {
    *kernel = o->kernel;
    return DIST_LOCAL_SYM;
  }
  if ((!strcmp(f, "csr") || !strcmp(f, "auto")) && (!o->kernel || !strcmp(o->kernel, "csr-vector")))
    return DIST_LOCAL_CSR;
  return DIST_LOCAL_HOST;
}

int dist_part_store_dev_on_device(const cis_dist_opts *o) {
  const char *kernel = NULL;
  return dev_local_kind(o, &kernel) != DIST_LOCAL_HOST;
}

cis_status dist_part_store_dev(cis_dist_matrix *D, int l, dist_block *b, cis_gpu_csr *R, const cis_dist_opts *o) {
  cis_status st;
  dist_part *P = &D->part[l];
  dist_dev_split sp;
  const char *kernel = NULL;
  const dist_local_kind kind = dev_local_kind(o, &kernel);
  memset(&sp, 0, sizeof sp);
  P->row0 = b->row0;
  P->rows = b->rows;
  if (!dist_on_device(D))
    st = cis_error(CIS_ERR_INVALID, "rows built on a GPU need GPU parts (a device communicator)");
  else if (D->dtype != CIS_F64)
    st = cis_error(CIS_ERR_UNSUPPORTED, "rows built on a GPU are stored as double, not %s", cis_dtype_name(D->dtype));
  else if ((st = dist_set_dev(D, l)) == CIS_OK)
    st = dist_split_rows_dev(R, D->n, b->row0, kind, kernel, D->diag + b->row0, &sp); /* frees R's arrays */
  if (st != CIS_OK) {
    cis_gpu_free(R->rowptr); /* not split: the rows go here (NULL after a split) */
    cis_gpu_free(R->colind);
    cis_gpu_free(R->val);
    memset(R, 0, sizeof *R);
    goto cleanup;
  }
  CIS_PRAGMA(omp critical(dist_part_times)) { /* the slowest part's (parts may run at once) */
    D->t_split = sp.split_seconds > D->t_split ? sp.split_seconds : D->t_split;
    D->t_store = sp.store_seconds > D->t_store ? sp.store_seconds : D->t_store;
  }
  b->nneeded = sp.nneeded;
  b->needed = sp.needed;
  sp.needed = NULL;
  P->Pr = sp.remote;
  sp.remote = NULL;
  P->Pl = sp.local;
  sp.local = NULL;
  if (sp.local_host) { /* parts one after another (dist_part_store_dev_on_device): the stores add up */
    double t0 = cis_wtime();
    st = block_store(D, l, sp.local_host, o, &P->Ml, &P->Pl);
    D->t_store += cis_wtime() - t0;
    CIS_TRY(st);
  }
  CIS_TRY(need_local_entries(P));
  st = CIS_OK;
cleanup:
  dist_dev_split_clear(&sp);
  return st;
}

void dist_dev_split_clear(dist_dev_split *s) {
  if (!s) return;
  cis_gpu_plan_free(s->local);
  cis_gpu_plan_free(s->remote);
  cis_csr_free(s->local_host);
  cis_free(s->needed);
  memset(s, 0, sizeof *s);
}

cis_status dist_part_finish(cis_dist_matrix *D, int l, const dist_block *b) {
  cis_status st;
  dist_part *P = &D->part[l];
  CIS_TRY(part_exchange_setup(D, l, b));
  if (dist_on_device(D)) {
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(dd_stream_create(&P->compute));
    CIS_TRY(dd_event_create(&P->ev_x));
    CIS_TRY(dd_event_create(&P->ev_start));
    CIS_TRY(dd_event_create(&P->ev_done));
    CIS_TRY(dd_event_create(&P->ev_y));
    CIS_TRY(dd_event_create(&P->ev_local));
  }
  st = CIS_OK;
cleanup:
  return st;
}

cis_status dist_matrix_create_full(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o_in, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  dist_block *blocks = NULL;
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
    /* symmetric storage with full-row blocks: the parts hold full rows
     * (U + U^T - diag U) */
    CIS_TRY(csr_symmetric_expand(A, 0, &full));
    full->flags &= ~CIS_FLAG_UPPER;
    A = full;
  }
  CIS_TRY(dist_matrix_new(c, A->rows, A->dtype, &o, &D));
  /* every process lists every part's needed entries (one pass over A, no
   * copy) for the plan; then it splits its own parts one at a time, each
   * freed once stored (host peak: A plus one part's blocks) */
  CIS_TRY(cis_alloc_array((void **)&rs, G + 1, sizeof(cis_int), "row split"));
  CIS_TRY(dist_partition_rows(A, G, rs));
  CIS_TRY(cis_alloc_zeroed((void **)&blocks, G, sizeof *blocks, "distributed blocks"));
  for (int p = 0; p < G; ++p) CIS_TRY(dist_block_needed(A, rs, G, p, &blocks[p]));
  CIS_TRY(dist_plan_build(blocks, G, o.exchange, o.msg_bytes, &D->plan));
  CIS_TRY(cis_csr_diagonal(A, D->diag));
  for (int l = 0; l < D->nlocal; ++l) {
    dist_block *b = &blocks[c->first + l];
    dist_block_clear(b);
    CIS_TRY(dist_block_split(A, rs, G, D->part[l].rank, b));
    CIS_TRY(dist_part_store(D, l, b, &o));
    CIS_TRY(dist_part_finish(D, l, b));
    dist_block_clear(b);
  }
  CIS_TRY(dist_exchange_warm(D));
  *out = D;
  D = NULL;
  st = CIS_OK;
cleanup:
  if (blocks)
    for (int p = 0; p < G; ++p) dist_block_clear(&blocks[p]);
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
      if (dist_on_device(D)) dist_set_dev(D, l);
      cis_matrix_free(P->Ml);
      cis_matrix_free(P->Mr);
      cis_gpu_plan_free(P->Pl);
      cis_gpu_plan_free(P->Pr);
      dist_part_free(D, l, P->xr);
      dist_part_free(D, l, P->stage);
      dist_part_free(D, l, P->xfull);
      dist_part_free(D, l, P->sendbuf);
      dist_part_free(D, l, P->ywhole);
      dist_part_free(D, l, P->yown);
      dist_part_free(D, l, P->idx);
      dd_stream_destroy(P->compute);
      dd_event_destroy(P->ev_x);
      dd_event_destroy(P->ev_start);
      dd_event_destroy(P->ev_done);
      dd_event_destroy(P->ev_y);
      dd_event_destroy(P->ev_local);
    }
  if (D->part) dist_product_free(D);
  cis_free(D->part);
  dist_plan_clear(&D->plan);
  cis_free(D->diag);
  cis_free(D);
}

cis_status cis_dist_matrix_info(const cis_dist_matrix *D, cis_dist_info *out) {
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "cis_dist_matrix_info: NULL argument");
  out->parts = D->plan.parts;
  out->exchange = D->plan.kind;
  out->p2p_values = D->plan.p2p_values;
  out->p2p_messages = D->plan.p2p_messages;
  out->allgather_values = D->plan.allgather_values;
  return CIS_OK;
}

cis_status cis_dist_matrix_part_rows(const cis_dist_matrix *D, int part, cis_int *row0, cis_int *rows) {
  if (!D || !row0 || !rows) return cis_error(CIS_ERR_INVALID, "cis_dist_matrix_part_rows: NULL argument");
  if (part < 0 || part >= D->plan.parts)
    return cis_error(CIS_ERR_INVALID, "cis_dist_matrix_part_rows: part %d of %d", part, D->plan.parts);
  *row0 = D->plan.row_start[part];
  *rows = D->plan.row_start[part + 1] - D->plan.row_start[part];
  return CIS_OK;
}

int64_t cis_dist_matrix_exchange_bytes(const cis_dist_matrix *D) {
  if (!D) return 0;
  int64_t v = D->plan.kind == CIS_XCHG_P2P ? D->plan.p2p_values : D->plan.allgather_values;
  return v * (int64_t)cis_dtype_size(D->dtype);
}

void dist_matrix_setup_times(const cis_dist_matrix *D, double *split_s, double *store_s) {
  if (split_s) *split_s = D ? D->t_split : 0;
  if (store_s) *store_s = D ? D->t_store : 0;
}

