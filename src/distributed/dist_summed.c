/* dist_summed.c: the summed distributed operator of dist.h
 * (dist_matrix_create_summed), y = sum over the parts p of f_p(x), where
 * every part reads the whole x and contributes to every row of y: the
 * pattern of a direct CI sigma split by the strings it gathers from (each
 * part's D = E c over its alpha strings reaches c everywhere, and its
 * scatter reaches sigma everywhere). The product is an all-gather of x, the
 * parts' work, and a reduce-scatter of the partial ys (as MPI_Allgatherv and
 * MPI_Reduce_scatter; here NCCL broadcasts of unequal parts in one group,
 * NCCL User Guide "Collective operations", and point-to-point messages
 * summed by each owner in rank order, dist_summed_apply). A uniform split
 * (every part but the last of max_rows rows) makes the whole vectors the
 * layout of NCCL's own collectives: the gather is one in-place
 * ncclAllGather, and the sum may be one ncclReduceScatter
 * (dist_summed_set_sum), over more than two parts. The rule is
 * measured (bench/nccl_patterns.c, 165,636,900 doubles, 4 x H100 SXM,
 * 2026-11-27): over 4 GPUs the all-gather took 4.23 ms against the
 * broadcasts' 6.49, the reduce-scatter 3.17 against point to point's 5.33;
 * over 2 GPUs the broadcasts (1.95 ms) and point to point (1.91) beat them
 * (2.31, 2.60). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_matrix.h"
#include "distributed/dist_vec.h"
#include "core/options.h"
#include "distributed/dist_internal.h"

cis_status dist_summed_new(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype, cis_dist_part_fn f,
                           void *ctx, cis_dist_comm *c, int padded, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  cis_dist_opts o = cis_dist_opts_default();
  if (!row_start || !f || !c || !out) return cis_error(CIS_ERR_INVALID, "dist_matrix_create_summed: NULL argument");
  *out = NULL;
  const int G = c->ranks;
  if (dtype != CIS_F64 && dtype != CIS_F32) return cis_error(CIS_ERR_INVALID, "summed operator: unknown value type %d", (int)dtype);
  if (n < G) return cis_error(CIS_ERR_INVALID, "%lld rows cannot be spread over %d parts", (long long)n, G);
  if (row_start[0] != 0 || row_start[G] != n)
    return cis_error(CIS_ERR_INVALID, "summed operator: the split runs from %lld to %lld, not 0 to %lld",
                     (long long)row_start[0], (long long)row_start[G], (long long)n);
  for (int p = 0; p < G; ++p)
    if (row_start[p + 1] <= row_start[p])
      return cis_error(CIS_ERR_INVALID, "summed operator: part %d has no rows (%lld .. %lld)", p,
                       (long long)row_start[p], (long long)row_start[p + 1] - 1);
  o.format = "summed";
  o.dtype = dtype;
  CIS_TRY(dist_matrix_new(c, n, dtype, &o, &D));
  D->summed = f;
  D->summed_ctx = ctx;
  D->has_diag = diag != NULL;
  if (diag) cis_copy_doubles(D->diag, diag, n); /* the copy's page faults spread over the cores */
  dist_plan *pl = &D->plan;
  pl->parts = G;
  pl->kind = CIS_XCHG_ALLGATHER;
  CIS_TRY(cis_alloc_array((void **)&pl->row_start, G + 1, sizeof(cis_int), "row split"));
  memcpy(pl->row_start, row_start, (size_t)(G + 1) * sizeof(cis_int));
  for (int p = 0; p < G; ++p)
    if (row_start[p + 1] - row_start[p] > pl->max_rows) pl->max_rows = row_start[p + 1] - row_start[p];
  pl->allgather_values = 2 * (int64_t)(G - 1) * n; /* gathered in, summed out */
  const size_t es = cis_dtype_size(dtype);
  D->summed_uniform = G > 2; /* the collectives' rule (above) */
  for (int p = 0; p + 1 < G; ++p) D->summed_uniform &= row_start[p + 1] - row_start[p] == pl->max_rows;
  D->summed_padded = padded && G > 1;
  D->summed_uniform |= D->summed_padded;
  /* uniform or padded: the collectives' layout, G blocks of max_rows (the parts' tails unused, zeroed) */
  const int64_t whole = D->summed_uniform ? (int64_t)G * pl->max_rows : n;
  /* zeroed from z0 on: padded, all of it, whatever the split (an even split
   * has no tails, but dist_upper.c's f never writes y before its part's
   * rows and sums it: uninitialised memory there was summed into the
   * product); else the last part's tail past n (up to max_rows - 1 values) */
  const int64_t z0 = D->summed_padded ? 0 : n;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    P->row0 = row_start[P->rank];
    P->rows = row_start[P->rank + 1] - P->row0;
    CIS_TRY(dist_part_alloc(D, l, &P->xfull, whole * (int64_t)es, "summed operator: the whole x"));
    CIS_TRY(dist_part_alloc(D, l, &P->ywhole, whole * (int64_t)es, "summed operator: a part's whole y"));
    if (whole > z0) {
      void *zeros = NULL;
      st = cis_alloc_zeroed(&zeros, whole - z0, es, "summed operator: the tail of a whole vector");
      if (st == CIS_OK) st = dist_part_put(D, l, (char *)P->xfull + (size_t)z0 * es, zeros, (size_t)(whole - z0) * es);
      if (st == CIS_OK) st = dist_part_put(D, l, (char *)P->ywhole + (size_t)z0 * es, zeros, (size_t)(whole - z0) * es);
      cis_free(zeros);
      CIS_TRY(st);
    }
    if (dist_on_device(D)) {
      CIS_TRY(dist_set_dev(D, l));
      CIS_TRY(dd_event_create(&P->ev_start));
      CIS_TRY(dd_event_create(&P->ev_x));
      CIS_TRY(dd_event_create(&P->ev_done));
      CIS_TRY(dd_event_create(&P->ev_y));
    }
  }
  *out = D;
  return CIS_OK;
cleanup:
  cis_dist_matrix_free(D);
  return st;
}

cis_status dist_matrix_create_summed(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype,
                                         cis_dist_part_fn f, void *ctx, cis_dist_comm *c, cis_dist_matrix **out) {
  return dist_summed_new(n, row_start, diag, dtype, f, ctx, c, 0, out);
}

cis_status dist_summed_set_sum(cis_dist_matrix *D, cis_dist_sum how) {
  if (!D || !D->summed) return cis_error(CIS_ERR_INVALID, "dist_summed_set_sum: not a summed operator");
  if (how != CIS_DIST_SUM_RANK_ORDER && how != CIS_DIST_SUM_COLLECTIVE)
    return cis_error(CIS_ERR_INVALID, "dist_summed_set_sum: unknown sum %d", (int)how);
  if (cis_opt_is(CIS_OPT_DIST_SUM, "rank")) how = CIS_DIST_SUM_RANK_ORDER;
  if (cis_opt_is(CIS_OPT_DIST_SUM, "collective")) how = CIS_DIST_SUM_COLLECTIVE;
  D->summed_collective = how == CIS_DIST_SUM_COLLECTIVE && D->summed_uniform && D->comm->ops->reduce_scatter;
  return CIS_OK;
}

cis_status dist_summed_set_write_back(cis_dist_matrix *D, int on) {
  if (!D || !D->summed) return cis_error(CIS_ERR_INVALID, "dist_summed_set_write_back: not a summed operator");
  D->summed_write_back = on != 0;
  return CIS_OK;
}

cis_status dist_summed_set_prepare(cis_dist_matrix *D, cis_dist_prepare_fn f, void *ctx) {
  if (!D || !D->summed) return cis_error(CIS_ERR_INVALID, "dist_summed_set_prepare: not a summed operator");
  D->summed_prepare = f;
  D->summed_prepare_ctx = ctx;
  return CIS_OK;
}

cis_status dist_summed_set_vectors_host(cis_dist_matrix *D, int pinned) {
  cis_status st;
  if (!D || !D->summed) return cis_error(CIS_ERR_INVALID, "dist_summed_set_vectors_host: not a summed operator");
  if (D->nvecs > 0)
    return cis_error(CIS_ERR_INVALID, "dist_summed_set_vectors_host: %d distributed vectors already allocated", D->nvecs);
  if (!dist_on_device(D)) return CIS_OK; /* a host comm's vectors are host memory already */
  for (int l = 0; l < D->nlocal; ++l)
    if (!D->part[l].yown)
      CIS_TRY(dist_part_alloc(D, l, &D->part[l].yown, (int64_t)D->part[l].rows * (int64_t)cis_dtype_size(D->dtype),
                              "summed operator: the part's rows of y (host vectors)"));
  D->vwhere = CIS_MEM_HOST;
  D->vpinned = pinned != 0;
  st = CIS_OK;
cleanup:
  return st;
}

int dist_vectors_on_host(const cis_dist_matrix *D) {
  if (!D || D->vwhere != CIS_MEM_HOST) return 0;
  return D->where == CIS_MEM_DEVICE && D->vpinned == 1 ? 2 : 1;
}

cis_status dist_summed_work(cis_dist_matrix *D, double *seconds, int64_t *products) {
  if (!D || !D->summed || !seconds) return cis_error(CIS_ERR_INVALID, "dist_summed_work: not a summed operator or NULL");
  cis_status st;
  const int G = D->plan.parts;
  double *all = NULL; /* [l * G + r]: each local part's row holds its own rank's time (the sum's layout) */
  CIS_TRY(cis_alloc_zeroed((void **)&all, (int64_t)D->nlocal * G, sizeof(double), "the parts' work"));
  for (int l = 0; l < D->nlocal; ++l) all[(int64_t)l * G + D->part[l].rank] = D->part[l].t_work;
  CIS_TRY(dist_allreduce_host(D->comm, all, G));
  memcpy(seconds, all, (size_t)G * sizeof(double));
  if (products) *products = D->products;
cleanup:
  cis_free(all);
  return st;
}

/* Where local part l receives the other parts' contributions to its rows:
 * (parts - 1) * rows values, in the whole-x buffer when they fit (x is not
 * needed again in this product), else a buffer of their own (lazily). */
static cis_status recv_buffer(cis_dist_matrix *D, int l, void **buf) {
  dist_part *P = &D->part[l];
  const int64_t need = (int64_t)(D->plan.parts - 1) * P->rows;
  if (need <= D->n) {
    *buf = P->xfull;
    return CIS_OK;
  }
  cis_status st;
  if (!P->stage &&
      (st = dist_part_alloc(D, l, &P->stage, need * (int64_t)cis_dtype_size(D->dtype), "summed operator: receive buffer")) != CIS_OK)
    return st;
  *buf = P->stage;
  return CIS_OK;
}

/* The collective of the gather: every part's rows of its whole-x buffer to
 * all (in place: one all-gather in the collectives' layout, else a
 * broadcast from each owner), queued on the comm streams. */
static cis_status gather_collective(cis_dist_matrix *D) {
  cis_dist_comm *c = D->comm;
  const size_t es = cis_dtype_size(D->dtype);
  void *whole[DIST_MAX_LOCAL], *own[DIST_MAX_LOCAL];
  for (int l = 0; l < D->nlocal; ++l) {
    whole[l] = D->part[l].xfull;
    own[l] = (char *)whole[l] + (size_t)dist_whole_at(D, D->part[l].rank) * es;
  }
  return D->summed_uniform ? c->ops->allgather(c, own, whole, D->plan.max_rows, D->dtype)
                           : c->ops->bcast_parts(c, whole, D->plan.row_start, D->dtype);
}

/* The product's gather: every local part's rows (loc[l], in the vectors'
 * memory) copied into its whole-x buffer on its comm stream (ev_start
 * marked first; from host vectors each GPU's copy, gigabytes, on a thread
 * of its own), then gather_collective. settle:
 * the device synchronized first (loc written on the solver's streams). *tx
 * += the collective's host seconds on host parts (device parts time it by
 * events). */
static cis_status gather_whole(cis_dist_matrix *D, void *const *loc, int settle, double *tx) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const size_t es = cis_dtype_size(D->dtype);
  const int dev = dist_on_device(D);
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (!dev) memcpy((char *)P->xfull + (size_t)dist_whole_at(D, P->rank) * es, loc[l], (size_t)P->rows * es);
  }
  if (dev)
    DIST_EACH_PART_WAITING_IF(D, !dist_vec_on_device(D), l, pst, {
      dist_part *P = &D->part[l];
      pst = dist_set_dev(D, l);
      if (pst == CIS_OK && settle) pst = dd_device_sync();
      if (pst == CIS_OK) pst = dd_event_record(P->ev_start, c->stream[l]);
      if (pst == CIS_OK)
        pst = dist_copy_host(D, (char *)P->xfull + (size_t)dist_whole_at(D, P->rank) * es, loc[l], (size_t)P->rows * es,
                             0, c->stream[l]);
    });
  const double ta = cis_wtime();
  CIS_TRY(gather_collective(D));
  if (!dev) *tx += cis_wtime() - ta;
  st = CIS_OK;
cleanup:
  return st;
}

/* Part l's rows of its whole x (as f left them) into loc, its rows of the
 * distributed vector (the product's input under
 * dist_summed_set_write_back; the transformed vector): on its comm
 * stream on a GPU, so before the exchange reuses the buffer. */
static cis_status write_back(cis_dist_matrix *D, int l, void *loc) {
  const dist_part *P = &D->part[l];
  const size_t es = cis_dtype_size(D->dtype);
  const void *mine = (const char *)P->xfull + (size_t)dist_whole_at(D, P->rank) * es;
  if (!dist_on_device(D)) {
    memcpy(loc, mine, (size_t)P->rows * es);
    return CIS_OK;
  }
  return dist_copy_host(D, loc, mine, (size_t)P->rows * es, 1, D->comm->stream[l]);
}

/* Device part l's sum of its rows (terms contributions: mine, then recv)
 * into y, its own rows of the result in the vectors' memory: on the GPU
 * directly, or through yown and a copy when the vectors are on the host
 * (beta != 0: y brought up first); then its stream synchronized and its
 * gather plus exchange seconds into *tx (events). */
static cis_status finish_part(cis_dist_matrix *D, int l, int terms, const void *mine, const void *recv, double alpha,
                              double beta, void *y, double *tx) {
  cis_status st;
  dist_part *P = &D->part[l];
  const cis_stream s = D->comm->stream[l];
  const size_t bytes = (size_t)P->rows * cis_dtype_size(D->dtype);
  const int host_y = !dist_vec_on_device(D);
  void *out = host_y ? P->yown : y;
  float gather = 0, exch = 0, work = 0;
  CIS_TRY(dist_set_dev(D, l));
  CIS_TRY(dd_event_record(P->ev_done, s));
  if (host_y && beta != 0) CIS_TRY(dist_copy_host(D, out, y, bytes, 0, s));
  CIS_TRY(dd_sum_parts(D->dtype, terms, D->summed_collective ? 0 : P->rank, P->rows, mine, recv, alpha, beta, out, s));
  if (host_y) CIS_TRY(dist_copy_host(D, y, out, bytes, 1, s));
  CIS_TRY(dd_stream_sync(s));
  CIS_TRY(dd_event_ms(P->ev_start, P->ev_x, &gather));
  CIS_TRY(dd_event_ms(P->ev_y, P->ev_done, &exch));
  CIS_TRY(dd_event_ms(P->ev_x, P->ev_y, &work));
  *tx = (gather + exch) / 1e3;
  P->t_work += work / 1e3;
  if (dist_trace())
    fprintf(stderr, "summed product %lld part %d: gather %.2f ms, work %.2f ms, exchange (with the wait for the "
            "others) %.2f ms\n", (long long)D->products, P->rank, gather, work, exch);
  st = CIS_OK;
cleanup:
  return st;
}

/* The exchange of the sum: every local part's whole y to the owners (the
 * point-to-point messages, recv[l] where part l receives, or the
 * reduce-scatter into its x buffer), queued on the comm streams. */
static cis_status sum_exchange(cis_dist_matrix *D, void **recv) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const size_t es = cis_dtype_size(D->dtype);
  const int G = D->plan.parts;
  const cis_int *rs = D->plan.row_start;
  int ns = 0, nr = 0;
  CIS_TRY(dist_msgs_room(D));
  dist_msg *snd = D->snd, *rcv = D->rcv;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (D->summed_collective) { /* the sum of my rows lands in the x buffer (x is done with) */
      recv[l] = P->xfull;
      continue;
    }
    CIS_TRY(recv_buffer(D, l, &recv[l]));
    for (int q = 0; q < G; ++q) { /* my contribution to q's rows; q's to mine */
      if (q == P->rank) continue;
      snd[ns++] = (dist_msg){l, q, (char *)P->ywhole + (size_t)dist_whole_at(D, q) * es, rs[q + 1] - rs[q]};
      rcv[nr++] = (dist_msg){l, q, (char *)recv[l] + (size_t)((q < P->rank ? q : q - 1) * P->rows) * es, P->rows};
    }
  }
  if (D->summed_collective) {
    void *parts_y[DIST_MAX_LOCAL];
    for (int l = 0; l < D->nlocal; ++l) parts_y[l] = D->part[l].ywhole;
    return c->ops->reduce_scatter(c, parts_y, recv, D->plan.max_rows, D->dtype);
  }
  return c->ops->exchange(c, snd, ns, rcv, nr, D->dtype);
cleanup:
  return st;
}

cis_status dist_summed_warm(cis_dist_matrix *D) {
  cis_status st;
  void *recv[DIST_MAX_LOCAL];
  if (!D->summed || !dist_on_device(D) || D->plan.parts < 2) return CIS_OK;
  CIS_TRY(gather_collective(D)); /* the buffers' contents unused */
  CIS_TRY(sum_exchange(D, recv));
  for (int l = 0; l < D->nlocal; ++l) {
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(dd_stream_sync(D->comm->stream[l]));
  }
cleanup:
  return st;
}

/* y_l = alpha sum_p f_p(x) + beta y_l on the local parts; everything runs on
 * each part's comm stream in order (gather, work, exchange, sum),
 * synchronized on return. The reduce-scatter is point-to-point messages of
 * each part's contribution to every owner, summed by the owner in rank order
 * (dd_sum_parts): the same order for every row, so an operator whose parts'
 * contributions are each exactly symmetric (the half sigma: sigma(A,B) =
 * t sigma(B,A)) gives an exactly symmetric sum, and any result is the same
 * whichever rank owns a row (NCCL's reduce orders by ring position). The
 * exchange time is the slowest part's gather plus exchange (events on
 * device parts, the wall clock on host parts). */
cis_status dist_summed_apply(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const size_t es = cis_dtype_size(D->dtype);
  const int dev = dist_on_device(D), G = D->plan.parts;
  void *recv[DIST_MAX_LOCAL];
  double t0 = cis_wtime(), tx = 0, ta;
  if (D->summed_prepare) CIS_TRY(D->summed_prepare(D->summed_prepare_ctx, D));
  CIS_TRY(gather_whole(D, x, 0, &tx));
  /* the parts' work, each GPU's on a thread of its own: f may wait for its
   * stream (the direct sigma reads the vector's parity on the host); an
   * asynchronous f's in turn from this thread (no threads to wake) */
  DIST_EACH_PART_WAITING_IF(D, dev && !D->summed_async, l, pst, {
    dist_part *P = &D->part[l];
    const double tw = cis_wtime();
    pst = dist_set_dev(D, l);
    if (pst == CIS_OK && dev) pst = dd_event_record(P->ev_x, c->stream[l]);
    if (pst == CIS_OK) pst = D->summed(D->summed_ctx, l, P->rank, P->xfull, P->ywhole, dev ? c->stream[l] : NULL);
    if (pst == CIS_OK && D->summed_write_back) /* before the x buffer takes the others' sums */
      pst = write_back(D, l, x[l]);
    if (pst == CIS_OK && dev) pst = dd_event_record(P->ev_y, c->stream[l]);
    if (!dev) P->t_work += cis_wtime() - tw;
  });
  ta = cis_wtime();
  CIS_TRY(sum_exchange(D, recv));
  if (!dev) tx += cis_wtime() - ta;
  /* the owner's sum: of the parts' contributions in rank order, or (after
   * the reduce-scatter) of the one sum already made; to host vectors each
   * GPU's (a copy of gigabytes) on a thread of its own */
  const int terms = D->summed_collective ? 1 : G;
  const void *mine[DIST_MAX_LOCAL];
  double txp[DIST_MAX_LOCAL];
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    mine[l] = D->summed_collective ? recv[l] : (const char *)P->ywhole + (size_t)dist_whole_at(D, P->rank) * es;
    txp[l] = 0;
    if (!dev)
      dist_sum_parts_host(D->dtype, terms, D->summed_collective ? 0 : P->rank, P->rows, mine[l], recv[l], alpha, beta,
                          y[l]);
  }
  if (dev) {
    DIST_EACH_PART_WAITING_IF(D, !dist_vec_on_device(D), l, pst,
                              { pst = finish_part(D, l, terms, mine[l], recv[l], alpha, beta, y[l], &txp[l]); });
    for (int l = 0; l < D->nlocal; ++l)
      if (txp[l] > tx) tx = txp[l];
  }
  dist_count_product(D, tx, t0);
  st = CIS_OK;
cleanup:
  return st;
}

cis_status dist_summed_transform(cis_dist_matrix *D, void *v, cis_dist_part_fn f, void *ctx) {
  cis_status st;
  void *loc[DIST_MAX_LOCAL];
  double tx = 0;
  if (!D || !v || !f) return cis_error(CIS_ERR_INVALID, "dist_summed_transform: NULL argument");
  if (!D->summed) return cis_error(CIS_ERR_INVALID, "dist_summed_transform: not a summed operator");
  CIS_TRY(dist_vec_resolve(D, v, loc, NULL));
  cis_dist_comm *c = D->comm;
  const int dev = dist_on_device(D);
  CIS_TRY(gather_whole(D, loc, 1, &tx)); /* v was written on the solver's streams */
  DIST_EACH_PART_WAITING(D, l, pst, { /* each GPU on a thread of its own (f may wait for its stream) */
    dist_part *P = &D->part[l];
    pst = dist_set_dev(D, l);
    if (pst == CIS_OK) pst = f(ctx, l, P->rank, P->xfull, P->xfull, dev ? c->stream[l] : NULL);
    if (pst == CIS_OK) pst = write_back(D, l, loc[l]);
    if (pst == CIS_OK && dev) pst = dd_stream_sync(c->stream[l]);
  });
  st = CIS_OK;
cleanup:
  return st;
}
