/* dist_summed.c: the summed distributed operator of dist.h
 * (cis_dist_matrix_create_summed), y = sum over the parts p of f_p(x), where
 * every part reads the whole x and contributes to every row of y: the
 * pattern of a direct CI sigma split by the strings it gathers from (each
 * part's D = E c over its alpha strings reaches c everywhere, and its
 * scatter reaches sigma everywhere). The product is an all-gather of x, the
 * parts' work, and a reduce-scatter of the partial ys (as MPI_Allgatherv and
 * MPI_Reduce_scatter; here NCCL broadcasts and reduces of unequal parts in
 * one group each, NCCL User Guide "Collective operations"). */
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_matrix.h"

cis_status cis_dist_matrix_create_summed(cis_int n, const cis_int *row_start, const double *diag, cis_dtype dtype,
                                         cis_dist_part_fn f, void *ctx, cis_dist_comm *c, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  cis_dist_opts o = cis_dist_opts_default();
  if (!row_start || !f || !c || !out) return cis_error(CIS_ERR_INVALID, "cis_dist_matrix_create_summed: NULL argument");
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
  if (diag) memcpy(D->diag, diag, (size_t)n * sizeof(double));
  dist_plan *pl = &D->plan;
  pl->parts = G;
  pl->kind = CIS_XCHG_ALLGATHER;
  CIS_TRY(cis_alloc_array((void **)&pl->row_start, G + 1, sizeof(cis_int), "row split"));
  memcpy(pl->row_start, row_start, (size_t)(G + 1) * sizeof(cis_int));
  for (int p = 0; p < G; ++p)
    if (row_start[p + 1] - row_start[p] > pl->max_rows) pl->max_rows = row_start[p + 1] - row_start[p];
  pl->allgather_values = 2 * (int64_t)(G - 1) * n; /* gathered in, summed out */
  const size_t es = cis_dtype_size(dtype);
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    P->row0 = row_start[P->rank];
    P->rows = row_start[P->rank + 1] - P->row0;
    CIS_TRY(dist_part_alloc(D, l, &P->xfull, n * (int64_t)es, "summed operator: the whole x"));
    CIS_TRY(dist_part_alloc(D, l, &P->ywhole, n * (int64_t)es, "summed operator: a part's whole y"));
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

/* y_l = alpha sum_p f_p(x) + beta y_l on the local parts; everything runs on
 * each part's comm stream in order (gather, work, reduce), synchronized on
 * return. The exchange time is the slowest part's gather plus reduce
 * (events on device parts, the wall clock on host parts). */
cis_status dist_summed_apply(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const size_t es = cis_dtype_size(D->dtype);
  const int dev = dist_on_device(D), plain = alpha == 1.0 && beta == 0.0;
  void *whole[DIST_MAX_LOCAL], *yw[DIST_MAX_LOCAL], *mine[DIST_MAX_LOCAL];
  double t0 = cis_wtime(), tx = 0, ta;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    whole[l] = P->xfull;
    yw[l] = P->ywhole;
    if (!plain && !P->yrows) CIS_TRY(dist_part_alloc(D, l, &P->yrows, P->rows * (int64_t)es, "summed operator: y's rows"));
    mine[l] = plain ? y[l] : P->yrows;
    void *at = (char *)P->xfull + (size_t)P->row0 * es;
    if (dev) {
      CIS_TRY(dist_set_dev(D, l));
      CIS_TRY(dd_event_record(P->ev_start, c->stream[l]));
      CIS_TRY(dd_copy_async(at, x[l], (size_t)P->rows * es, c->stream[l]));
    } else {
      memcpy(at, x[l], (size_t)P->rows * es);
    }
  }
  ta = cis_wtime();
  CIS_TRY(c->ops->bcast_parts(c, whole, D->plan.row_start, D->dtype));
  if (!dev) tx += cis_wtime() - ta;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    CIS_TRY(dist_set_dev(D, l));
    if (dev) CIS_TRY(dd_event_record(P->ev_x, c->stream[l]));
    CIS_TRY(D->summed(D->summed_ctx, l, P->rank, P->xfull, P->ywhole, dev ? c->stream[l] : NULL));
    if (dev) CIS_TRY(dd_event_record(P->ev_y, c->stream[l]));
  }
  ta = cis_wtime();
  CIS_TRY(c->ops->reduce_parts(c, yw, mine, D->plan.row_start, D->dtype));
  if (!dev) tx += cis_wtime() - ta;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    CIS_TRY(dist_set_dev(D, l));
    if (dev) {
      CIS_TRY(dd_event_record(P->ev_done, c->stream[l]));
      if (!plain) CIS_TRY(dd_axpby(D->dtype, P->rows, alpha, P->yrows, beta, y[l], c->stream[l]));
      CIS_TRY(dd_stream_sync(c->stream[l]));
      float gather = 0, reduce = 0;
      CIS_TRY(dd_event_ms(P->ev_start, P->ev_x, &gather));
      CIS_TRY(dd_event_ms(P->ev_y, P->ev_done, &reduce));
      if ((gather + reduce) / 1e3 > tx) tx = (gather + reduce) / 1e3;
    } else if (!plain) {
      dist_axpby_host(D->dtype, P->rows, alpha, P->yrows, beta, y[l]);
    }
  }
  D->t_exchange += tx;
  D->t_product += cis_wtime() - t0;
  D->products++;
  st = CIS_OK;
cleanup:
  return st;
}
