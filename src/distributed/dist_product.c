/* dist_product.c: the distributed product and its operator, after PETSc's
 * MatMult_MPIAIJ (src/mat/impls/aij/mpi/mpiaij.c):
 *
 *   y_p = alpha local_p x_p + beta y_p            (compute stream, overlapped)
 *   start the exchange of x   (comm stream: pack the needed entries, NCCL)
 *   finish the exchange       (comm stream: all-gather -> unpack into xr)
 *   y_p += alpha remote_p xr_p                    (compute stream, after an event)
 *
 * or, with the gather exchange (CIS_XCHG_GATHER), the all-gather first and
 * then y_p = alpha rows_p xfull + beta y_p, the part's whole rows in one
 * product on the gathered x (no overlap, no second pass over y).
 *
 * Host parts (fake comm) do the same steps in order. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/backend_dist.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_vec.h"
#include "operators/operator_internal.h"

static cis_status spmv_block(cis_dist_matrix *D, cis_matrix *M, cis_gpu_plan *P, double alpha, const void *x,
                             double beta, void *y, cis_stream s) {
  if (P) return cis_gpu_spmv(P, alpha, x, beta, y, s);
  if (M) return cis_matrix_spmv(M, alpha, x, beta, y);
  return CIS_OK;
}

/* The events of ring entry e of part P: x (the product's start on the
 * backend's stream), start (the exchange's on the comm stream), done (the
 * exchange's end), y (the product's end on the compute stream). */
#define RING_EV(P, e, k) ((P)->ring[4 * (e) + (k)])
enum { EV_X, EV_START, EV_DONE, EV_Y };

/* Ring entry e's times added to D's (its products waited for). */
static cis_status ring_read(cis_dist_matrix *D, int e) {
  cis_status st;
  float tx = 0, tp = 0;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    float ms;
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(dd_event_sync(RING_EV(P, e, EV_Y)));
    CIS_TRY(dd_event_ms(RING_EV(P, e, EV_START), RING_EV(P, e, EV_DONE), &ms));
    if (ms > tx) tx = ms; /* the slowest part's */
    CIS_TRY(dd_event_ms(RING_EV(P, e, EV_X), RING_EV(P, e, EV_Y), &ms));
    if (ms > tp) tp = ms;
  }
  D->t_exchange += tx / 1e3;
  D->t_product += tp / 1e3;
  D->ring_busy[e] = 0;
  st = CIS_OK;
cleanup:
  return st;
}

cis_status dist_times_flush(cis_dist_matrix *D) {
  for (int k = 0; k < DIST_RING; ++k) { /* oldest first */
    int e = (D->ring_next + k) % DIST_RING;
    if (D->ring_busy[e]) {
      cis_status st = ring_read(D, e);
      if (st != CIS_OK) return st;
    }
  }
  return CIS_OK;
}

/* The next ring entry (the events made by the first product in stream
 * order), its earlier times read first. */
static cis_status ring_take(cis_dist_matrix *D, int *e) {
  cis_status st;
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (P->ring) continue;
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(cis_alloc_zeroed((void **)&P->ring, 4 * DIST_RING, sizeof(void *), "product events"));
    for (int k = 0; k < 4 * DIST_RING && st == CIS_OK; ++k) st = dd_event_create(&P->ring[k]);
    if (st != CIS_OK) { /* none half made: the next product tries again */
      for (int k = 0; k < 4 * DIST_RING; ++k) dd_event_destroy(P->ring[k]);
      cis_free(P->ring);
      P->ring = NULL;
      goto cleanup;
    }
  }
  *e = D->ring_next;
  if (D->ring_busy[*e]) CIS_TRY(ring_read(D, *e));
  D->ring_next = (*e + 1) % DIST_RING;
  st = CIS_OK;
cleanup:
  return st;
}


/* One part in all (nothing to exchange), in stream order: the product on
 * the backend's own stream after[0], without the hop to the compute stream
 * and back (two event waits fewer a product: CG with --gpus 1); ring entry
 * e's events all on that stream, the exchange's span empty. */
static cis_status apply_alone(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y,
                              const cis_stream *after, int e) {
  cis_status st;
  dist_part *P = &D->part[0];
  CIS_TRY(dist_set_dev(D, 0));
  for (int k = EV_X; k <= EV_DONE; ++k) CIS_TRY(dd_event_record(RING_EV(P, e, k), after[0]));
  CIS_TRY(spmv_block(D, P->Ml, P->Pl, alpha, x[0], beta, y[0], after[0]));
  CIS_TRY(dd_event_record(RING_EV(P, e, EV_Y), after[0]));
  D->ring_busy[e] = 1;
  D->products++;
  st = CIS_OK;
cleanup:
  return st;
}

/* y_l = alpha A x_l + beta y_l on the local parts, exchange included.
 * after == NULL: the device streams are synchronized on return, the times
 * counted now. Else (device parts) the product runs after the work on
 * after[l] and after[l] waits for its end: nothing waits on the host, the
 * times go through the ring. */
static cis_status dist_apply_local(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y,
                                   const cis_stream *after) {
  cis_status st;
  cis_dist_comm *c = D->comm;
  const dist_plan *pl = &D->plan;
  size_t es = cis_dtype_size(D->dtype);
  const int whole = pl->kind == CIS_XCHG_GATHER; /* one product of the whole rows, after the all-gather */
  int dev = dist_on_device(D), G = pl->parts, ag = pl->kind == CIS_XCHG_ALLGATHER || whole, e = 0;
  const int xchg = G > 1; /* one part: nothing to exchange (no copy of x either) */
  double t0 = cis_wtime(), tx = 0;
  if (!dev) after = NULL; /* host parts: in order anyway */
  if (D->summed) {
    for (int l = 0; after && l < D->nlocal; ++l) {
      CIS_TRY(dist_set_dev(D, l));
      CIS_TRY(dd_stream_sync(after[l]));
    }
    return dist_summed_apply(D, alpha, x, beta, y);
  }
  if (after) CIS_TRY(ring_take(D, &e));
  if (after && !xchg) return apply_alone(D, alpha, x, beta, y, after, e); /* one part in all: nlocal 1 */
  /* 1. every part's local product (compute stream) and the start of its
   *    exchange: x packed (comm stream), both after x is ready. The local
   *    products are enqueued before the collective, so that the last part's
   *    starts as early as the first's, not after the host has issued every
   *    earlier part's exchange (weak scaling at 2 H200s: 0.505 -> 0.493 ms a
   *    product, bench/NOTES.md); the exchange's stream has the device's
   *    greatest priority (comm_nccl.c), so its kernels still get SMs while
   *    the product runs */
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (dev) {
      CIS_TRY(dist_set_dev(D, l));
      if (after) { /* x and y are the backend's: both streams start after its work */
        CIS_TRY(dd_event_record(RING_EV(P, e, EV_X), after[l]));
        CIS_TRY(dd_stream_wait(c->stream[l], RING_EV(P, e, EV_X)));
        CIS_TRY(dd_stream_wait(P->compute, RING_EV(P, e, EV_X)));
      }
      CIS_TRY(dd_event_record(after ? RING_EV(P, e, EV_START) : P->ev_start, c->stream[l]));
      if (xchg && ag) CIS_TRY(dd_copy_async(P->stage, x[l], (size_t)P->rows * es, c->stream[l]));
      else if (xchg) CIS_TRY(dd_gather(D->dtype, x[l], P->idx, P->nsend, P->sendbuf, c->stream[l]));
      if (!after) CIS_TRY(dd_event_record(P->ev_x, P->compute)); /* the part's products: ev_x .. ev_y */
    } else if (xchg) {
      double ta = cis_wtime();
      if (ag) memcpy(P->stage, x[l], (size_t)P->rows * es);
      else dist_gather_host(D->dtype, x[l], P->idx, P->nsend, P->sendbuf);
      tx += cis_wtime() - ta;
    }
    if (!whole) CIS_TRY(spmv_block(D, P->Ml, P->Pl, alpha, x[l], beta, y[l], P->compute));
    if (dev && !after) CIS_TRY(dd_event_record(P->ev_local, P->compute));
  }
  /* 2. the collective (all local ranks in one group) */
  if (xchg) {
    double ta = cis_wtime();
    CIS_TRY(dist_exchange_collective(D));
    if (!dev) tx += cis_wtime() - ta;
  }
  /* 3. unpack, then the remote products (compute stream, after the exchange) */
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    void *done = after ? RING_EV(P, e, EV_DONE) : P->ev_done;
    CIS_TRY(dist_set_dev(D, l));
    if (xchg && ag && !whole) {
      if (dev) CIS_TRY(dd_gather(D->dtype, P->xfull, P->idx, P->nneeded, P->xr, c->stream[l]));
      else {
        double ta = cis_wtime();
        dist_gather_host(D->dtype, P->xfull, P->idx, P->nneeded, P->xr);
        tx += cis_wtime() - ta;
      }
    }
    if (dev) {
      CIS_TRY(dd_event_record(done, c->stream[l]));
      CIS_TRY(dd_stream_wait(P->compute, done));
    }
    if (whole) /* one part: its rows' columns are x's own */
      CIS_TRY(spmv_block(D, P->Ml, P->Pl, alpha, xchg ? P->xfull : x[l], beta, y[l], P->compute));
    else
      CIS_TRY(spmv_block(D, P->Mr, P->Pr, alpha, P->xr, 1.0, y[l], P->compute));
    if (dev && !after) CIS_TRY(dd_event_record(P->ev_y, P->compute));
    if (after) { /* the backend's stream goes on once y is complete */
      CIS_TRY(dd_event_record(RING_EV(P, e, EV_Y), P->compute));
      CIS_TRY(dd_stream_wait(after[l], RING_EV(P, e, EV_Y)));
    }
  }
  if (after) { /* the times when the entry is reused or asked for */
    D->ring_busy[e] = 1;
    D->products++;
    return CIS_OK;
  }
  if (dev) /* the product is complete on return (the backends' streams follow) */
    for (int l = 0; l < D->nlocal; ++l) {
      float ms = 0;
      CIS_TRY(dist_set_dev(D, l));
      CIS_TRY(dd_stream_sync(D->part[l].compute));
      CIS_TRY(dd_event_ms(D->part[l].ev_start, D->part[l].ev_done, &ms));
      if (ms / 1e3 > tx) tx = ms / 1e3; /* the slowest part's exchange */
      if (dist_trace()) { /* where a part's span goes: its local block, the exchange beside it, the remote block */
        const dist_part *P = &D->part[l];
        float all = 0, loc = 0, start = 0, rem = 0;
        CIS_TRY(dd_event_ms(P->ev_x, P->ev_y, &all));
        CIS_TRY(dd_event_ms(P->ev_x, P->ev_local, &loc));
        CIS_TRY(dd_event_ms(P->ev_x, P->ev_start, &start));
        CIS_TRY(dd_event_ms(P->ev_done, P->ev_y, &rem));
        fprintf(stderr, "product %lld part %d: exchange %.3f ms (pack, collective, unpack; from %.3f ms after the "
                "local start), local block %.3f ms, exchange end to remote end %.3f ms, span %.3f ms\n",
                (long long)D->products, P->rank, ms, start, loc, rem, all);
      }
    }
  dist_count_product(D, tx, t0);
  st = CIS_OK;
cleanup:
  return st;
}

cis_status dist_apply_after(cis_dist_matrix *D, void *const *x, void *const *y, const cis_stream *after) {
  return dist_apply_local(D, 1.0, x, 0.0, y, after);
}

static cis_status dist_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_status st;
  cis_dist_matrix *D = ctx;
  void *xl[DIST_MAX_LOCAL], *yl[DIST_MAX_LOCAL];
  (void)s;
  if ((st = dist_vec_resolve(D, x, xl, NULL)) != CIS_OK) return st;
  if ((st = dist_vec_resolve(D, y, yl, NULL)) != CIS_OK) return st;
  return dist_apply_local(D, alpha, xl, beta, yl, NULL);
}

cis_status cis_operator_from_dist(cis_dist_matrix *D, cis_operator **out) {
  cis_status st;
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "cis_operator_from_dist: NULL argument");
  if ((st = cis_operator_from_callback(D->n, D->n, D->dtype, CIS_MEM_HOST, dist_apply, D, NULL, out)) != CIS_OK)
    return st;
  (*out)->where = CIS_MEM_DIST;
  (*out)->make_backend = kry_be_dist_create; /* the solvers' vectors are distributed handles */
  if (D->summed)
    snprintf((*out)->name, sizeof (*out)->name, "dist %s x%d (%s)", D->format, D->plan.parts,
             cis_dist_comm_name(D->comm)); /* "summed", or "upper sym-seg" (dist_upper.c) */
  else
    snprintf((*out)->name, sizeof (*out)->name, "dist %s x%d (%s, %s)", D->format, D->plan.parts,
             cis_dist_comm_name(D->comm), cis_dist_exchange_name(D->plan.kind));
  if (D->has_diag && (st = cis_operator_set_diagonal(*out, D->diag)) != CIS_OK) {
    cis_operator_free(*out);
    *out = NULL;
  }
  return st;
}

void cis_dist_matrix_times(const cis_dist_matrix *D, double *exchange_s, double *product_s, int64_t *products) {
  /* the products in stream order not yet read back: their times are part of
   * D's logical state (the public contract takes D const) */
  if (D && dist_times_flush((cis_dist_matrix *)D) != CIS_OK) cis_clear_error();
  if (exchange_s) *exchange_s = D ? D->t_exchange : 0;
  if (product_s) *product_s = D ? D->t_product : 0;
  if (products) *products = D ? D->products : 0;
}

void cis_dist_matrix_reset_times(cis_dist_matrix *D) {
  if (!D) return;
  if (dist_times_flush(D) != CIS_OK) cis_clear_error(); /* read, then dropped with the rest */
  D->t_exchange = D->t_product = 0;
  D->products = 0;
  for (int l = 0; l < D->nlocal; ++l) D->part[l].t_work = 0;
}
