/* comm.c: the communicator front end (validating dispatch over an ops
 * table, PETSc style) and the fake communicator over threads: a world of
 * ranks in one process whose collectives meet at a barrier, publish their
 * buffer addresses, and copy or sum in rank order (deterministic). It stands
 * in for NCCL in the CPU tests: the same calls, in the same order, with the
 * same group semantics (every rank calls every collective). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_internal.h"


struct cis_dist_world {
  int ranks, comms;          /* ranks; communicators made (the barrier's party) */
  int *owned;                /* [ranks] 1 once a comm drives it */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int arrived;
  unsigned long generation;
  const void **pub;          /* [ranks] published buffers (all-gather, all-reduce) */
  const void **pub_p2p;      /* [ranks*ranks] src*ranks+dst: send buffer */
  cis_int *cnt_p2p;          /* [ranks*ranks] its count */
};

cis_status cis_dist_world_create(int nranks, cis_dist_world **out) {
  cis_status st;
  cis_dist_world *w = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_dist_world_create: NULL output");
  *out = NULL;
  if (nranks < 1 || nranks > 4096) return cis_error(CIS_ERR_INVALID, "a world of %d ranks", nranks);
  CIS_TRY(cis_alloc_zeroed((void **)&w, 1, sizeof *w, "fake world"));
  w->ranks = nranks;
  CIS_TRY(cis_alloc_zeroed((void **)&w->owned, nranks, sizeof(int), "fake world"));
  CIS_TRY(cis_alloc_zeroed((void **)&w->pub, nranks, sizeof(void *), "fake world"));
  CIS_TRY(cis_alloc_zeroed((void **)&w->pub_p2p, (int64_t)nranks * nranks, sizeof(void *), "fake world"));
  CIS_TRY(cis_alloc_zeroed((void **)&w->cnt_p2p, (int64_t)nranks * nranks, sizeof(cis_int), "fake world"));
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  *out = w;
  return CIS_OK;
cleanup:
  if (w) {
    cis_free(w->owned);
    cis_free(w->pub);
    cis_free(w->pub_p2p);
    cis_free(w->cnt_p2p);
    cis_free(w);
  }
  return st;
}

void cis_dist_world_free(cis_dist_world *w) {
  if (!w) return;
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  cis_free(w->owned);
  cis_free(w->pub);
  cis_free(w->pub_p2p);
  cis_free(w->cnt_p2p);
  cis_free(w);
}

/* Every communicator of the world arrives before any leaves. */
static void barrier(cis_dist_world *w) {
  pthread_mutex_lock(&w->mu);
  unsigned long gen = w->generation;
  if (++w->arrived == w->comms) {
    w->arrived = 0;
    w->generation++;
    pthread_cond_broadcast(&w->cv);
  } else {
    while (gen == w->generation) pthread_cond_wait(&w->cv, &w->mu);
  }
  pthread_mutex_unlock(&w->mu);
}

#define WORLD(c) ((cis_dist_world *)(c)->impl)

static cis_status fake_allreduce(cis_dist_comm *c, double *vals, int count) {
  cis_dist_world *w = WORLD(c);
  double *sum = cis_calloc(count > 0 ? (size_t)count : 1, sizeof(double));
  for (int l = 0; l < c->nlocal; ++l) w->pub[c->first + l] = vals + (size_t)l * count;
  barrier(w);
  if (sum) /* every comm sums all ranks in rank order: identical results */
    for (int r = 0; r < w->ranks; ++r)
      for (int i = 0; i < count; ++i) sum[i] += ((const double *)w->pub[r])[i];
  barrier(w); /* everyone has read before anyone writes */
  if (sum)
    for (int l = 0; l < c->nlocal; ++l) memcpy(vals + (size_t)l * count, sum, (size_t)count * sizeof(double));
  cis_free(sum);
  return sum ? CIS_OK : cis_error(CIS_ERR_ALLOC, "fake all-reduce: out of memory");
}

static cis_status fake_allgather(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t) {
  cis_dist_world *w = WORLD(c);
  size_t bytes = (size_t)count * cis_dtype_size(t);
  for (int l = 0; l < c->nlocal; ++l) w->pub[c->first + l] = send[l];
  barrier(w);
  for (int l = 0; l < c->nlocal; ++l)
    for (int r = 0; r < w->ranks; ++r) {
      char *to = (char *)recv[l] + (size_t)r * bytes;
      if (to != w->pub[r]) memcpy(to, w->pub[r], bytes); /* in place: rank r's own block */
    }
  barrier(w);
  return CIS_OK;
}

/* Each local rank's block summed over the published sends, in rank order. */
static cis_status fake_reduce_scatter(cis_dist_comm *c, void *const *send, void *const *recv, cis_int count, cis_dtype t) {
  cis_dist_world *w = WORLD(c);
  for (int l = 0; l < c->nlocal; ++l) w->pub[c->first + l] = send[l];
  barrier(w);
  for (int l = 0; l < c->nlocal; ++l) {
    const int64_t at = (int64_t)(c->first + l) * count;
    CIS_FOR_DTYPE(t, {
      REAL *out = recv[l];
      for (cis_int i = 0; i < count; ++i) {
        double s = 0;
        for (int r = 0; r < w->ranks; ++r) s += (double)((const REAL *)w->pub[r])[at + i];
        out[i] = (REAL)s;
      }
    });
  }
  barrier(w);
  return CIS_OK;
}

static cis_status fake_exchange(cis_dist_comm *c, const dist_msg *sends, int nsend, const dist_msg *recvs, int nrecv,
                                cis_dtype t) {
  cis_dist_world *w = WORLD(c);
  cis_status st = CIS_OK;
  size_t es = cis_dtype_size(t);
  for (int i = 0; i < nsend; ++i) {
    int64_t k = (int64_t)(c->first + sends[i].local) * w->ranks + sends[i].peer;
    w->pub_p2p[k] = sends[i].buf;
    w->cnt_p2p[k] = sends[i].count;
  }
  barrier(w);
  for (int i = 0; i < nrecv && st == CIS_OK; ++i) {
    int64_t k = (int64_t)recvs[i].peer * w->ranks + (c->first + recvs[i].local);
    if (w->cnt_p2p[k] != recvs[i].count || !w->pub_p2p[k])
      st = cis_error(CIS_ERR_INVALID, "fake exchange: rank %d expects %lld values from rank %d, which sends %lld",
                     c->first + recvs[i].local, (long long)recvs[i].count, recvs[i].peer, (long long)w->cnt_p2p[k]);
    else
      memcpy(recvs[i].buf, w->pub_p2p[k], (size_t)recvs[i].count * es);
  }
  barrier(w);
  for (int i = 0; i < nsend; ++i) { /* unpublish (a stale pointer must not match next time) */
    int64_t k = (int64_t)(c->first + sends[i].local) * w->ranks + sends[i].peer;
    w->pub_p2p[k] = NULL;
    w->cnt_p2p[k] = 0;
  }
  barrier(w);
  return st;
}

/* Every rank's rows copied from its owner's published whole vector. */
static cis_status fake_bcast_parts(cis_dist_comm *c, void *const *whole, const cis_int *row_start, cis_dtype t) {
  cis_dist_world *w = WORLD(c);
  size_t es = cis_dtype_size(t);
  for (int l = 0; l < c->nlocal; ++l) w->pub[c->first + l] = whole[l];
  barrier(w);
  for (int l = 0; l < c->nlocal; ++l)
    for (int r = 0; r < w->ranks; ++r)
      if (r != c->first + l && w->pub[r] != whole[l]) /* one buffer for several local parts: nothing to copy */
        memcpy((char *)whole[l] + (size_t)row_start[r] * es, (const char *)w->pub[r] + (size_t)row_start[r] * es,
               (size_t)(row_start[r + 1] - row_start[r]) * es);
  barrier(w);
  return CIS_OK;
}

static void fake_destroy(cis_dist_comm *c) { (void)c; }

static const dist_comm_ops fake_ops = {fake_allreduce,   fake_allgather,      fake_exchange, fake_bcast_parts,
                                       fake_reduce_scatter, fake_destroy,
                                       NULL}; /* slots: through fake_allreduce */

cis_status cis_dist_comm_fake(cis_dist_world *w, int first, int nlocal, cis_dist_comm **out) {
  cis_dist_comm *c;
  if (!w || !out) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_fake: NULL argument");
  *out = NULL;
  if (nlocal < 1 || first < 0 || first + nlocal > w->ranks)
    return cis_error(CIS_ERR_INVALID, "fake comm: ranks %d..%d outside the world's 0..%d", first, first + nlocal - 1,
                     w->ranks - 1);
  for (int r = first; r < first + nlocal; ++r)
    if (w->owned[r]) return cis_error(CIS_ERR_INVALID, "fake comm: rank %d already has a communicator", r);
  if (!(c = cis_calloc(1, sizeof *c))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a communicator");
  for (int r = first; r < first + nlocal; ++r) w->owned[r] = 1;
  w->comms++;
  c->ops = &fake_ops;
  c->name = "fake";
  c->ranks = w->ranks;
  c->nlocal = nlocal;
  c->first = first;
  c->where = CIS_MEM_HOST;
  c->impl = w;
  *out = c;
  return CIS_OK;
}

void cis_dist_comm_free(cis_dist_comm *c) {
  if (!c) return;
  if (c->ops && c->ops->destroy) c->ops->destroy(c);
  cis_free(c->device);
  cis_free(c->stream);
  cis_free(c);
}

int cis_dist_comm_ranks(const cis_dist_comm *c) { return c ? c->ranks : 0; }
int dist_comm_local_ranks(const cis_dist_comm *c) { return c ? c->nlocal : 0; }
int dist_comm_first_rank(const cis_dist_comm *c) { return c ? c->first : 0; }
cis_memspace dist_comm_memspace(const cis_dist_comm *c) { return c ? c->where : CIS_MEM_HOST; }
const char *cis_dist_comm_name(const cis_dist_comm *c) { return c ? c->name : ""; }

cis_status dist_comm_use_part(cis_dist_comm *c, int local) {
  if (!c || local < 0 || local >= c->nlocal)
    return cis_error(CIS_ERR_INVALID, "dist_comm_use_part: part %d of %d local parts", local, c ? c->nlocal : 0);
  return c->where == CIS_MEM_DEVICE ? dd_set_device(c->device[local]) : CIS_OK;
}

cis_status dist_allreduce_host(cis_dist_comm *c, double *vals, int count) {
  if (!c || (!vals && count > 0)) return cis_error(CIS_ERR_INVALID, "dist_allreduce_host: NULL argument");
  if (count < 0) return cis_error(CIS_ERR_INVALID, "all-reduce of %d values", count);
  c->allreduces_host++;
  return c->ops->allreduce_host(c, vals, count);
}

void cis_dist_comm_allreduces(const cis_dist_comm *c, int64_t *host, int64_t *slots) {
  if (host) *host = c ? c->allreduces_host : 0;
  if (slots) *slots = c ? c->allreduces_slots : 0;
}

#define SLOTS_MAX 8
#define SLOTS_BUF (64 * SLOTS_MAX) /* host staging: DIST_MAX_LOCAL local ranks (dist_parts.h) x SLOTS_MAX */

cis_status dist_allreduce_slots(cis_dist_comm *c, double *const *slots, const int *src, const int *dst, int k,
                                const cis_stream *streams) {
  double v[SLOTS_BUF];
  if (!c || !slots || (k > 0 && (!src || !dst))) return cis_error(CIS_ERR_INVALID, "dist_allreduce_slots: NULL argument");
  if (k < 0 || k > SLOTS_MAX) return cis_error(CIS_ERR_INVALID, "all-reduce of %d slots (at most %d)", k, SLOTS_MAX);
  if (c->nlocal * k > SLOTS_BUF) return cis_error(CIS_ERR_UNSUPPORTED, "all-reduce of %d slots over %d local ranks", k, c->nlocal);
  c->allreduces_slots++;
  if (c->ops->allreduce_slots) return c->ops->allreduce_slots(c, slots, src, dst, k, streams);
  if (c->where != CIS_MEM_HOST) return cis_error(CIS_ERR_UNSUPPORTED, "%s comm: no all-reduce of device slots", c->name);
  for (int l = 0; l < c->nlocal; ++l) /* [l*k + j], as allreduce_host sums them */
    for (int j = 0; j < k; ++j) v[l * k + j] = slots[l][src[j]];
  cis_status st = c->ops->allreduce_host(c, v, k);
  if (st != CIS_OK) return st;
  for (int l = 0; l < c->nlocal; ++l)
    for (int j = 0; j < k; ++j) slots[l][dst[j]] = v[l * k + j];
  return CIS_OK;
}

void dist_gather_host(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out) {
  CIS_FOR_DTYPE(t, {
    const REAL *xv = x;
    REAL *ov = out;
    for (cis_int k = 0; k < n; ++k) ov[k] = xv[idx[k]];
  });
}

void dist_sum_parts_host(cis_dtype t, int parts, int own, cis_int n, const void *mine, const void *recv, double alpha,
                         double beta, void *y) {
  CIS_FOR_DTYPE(t, {
    const REAL *m = mine, *r = recv;
    REAL *yv = y;
    for (cis_int i = 0; i < n; ++i) {
      double s = 0;
      for (int q = 0; q < parts; ++q) s += (double)(q == own ? m[i] : r[(int64_t)(q < own ? q : q - 1) * n + i]);
      yv[i] = beta == 0.0 ? (REAL)(alpha * s) : (REAL)(alpha * s + beta * (double)yv[i]);
    }
  });
}
