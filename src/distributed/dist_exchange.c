/* dist_exchange.c: the collective of a stored distributed matrix's
 * exchange of x (dist_exchange_collective, used by every product in
 * dist_product.c), and that exchange run once at the end of the set-up
 * (dist_exchange_warm, called by the constructors in dist_matrix.c and
 * dist_rows.c), both declared in dist_parts.h. Below both files, so that
 * neither needs the other. */
#include "core/internal.h"
#include "distributed/dist_parts.h"

/* The point-to-point messages for every local rank into D->snd and D->rcv
 * (dist_msgs_room): *ns sends from the parts' send
 * buffers, *nr receives into xr. */
cis_status dist_msgs_room(cis_dist_matrix *D) {
  if (D->snd) return CIS_OK;
  const int64_t cap = (int64_t)D->nlocal * D->plan.parts + 1;
  cis_status st = cis_alloc_array((void **)&D->snd, cap, sizeof *D->snd, "exchange messages");
  if (st == CIS_OK) st = cis_alloc_array((void **)&D->rcv, cap, sizeof *D->rcv, "exchange messages");
  return st;
}

static cis_status p2p_messages(cis_dist_matrix *D, void *const *xr, int *ns, int *nr) {
  cis_status st = dist_msgs_room(D);
  if (st != CIS_OK) return st;
  dist_msg *snd = D->snd, *rcv = D->rcv;
  const dist_plan *pl = &D->plan;
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

cis_status dist_exchange_collective(cis_dist_matrix *D) {
  cis_dist_comm *c = D->comm;
  const dist_plan *pl = &D->plan;
  void *stage[DIST_MAX_LOCAL], *xfull[DIST_MAX_LOCAL], *xr[DIST_MAX_LOCAL];
  int ns, nr;
  for (int l = 0; l < D->nlocal; ++l) {
    stage[l] = D->part[l].stage;
    xfull[l] = D->part[l].xfull;
    xr[l] = D->part[l].xr;
  }
  if (pl->kind == CIS_XCHG_ALLGATHER || pl->kind == CIS_XCHG_GATHER)
    return c->ops->allgather(c, stage, xfull, pl->max_rows, D->dtype);
  cis_status st = p2p_messages(D, xr, &ns, &nr);
  return st != CIS_OK ? st : c->ops->exchange(c, D->snd, ns, D->rcv, nr, D->dtype);
}

cis_status dist_exchange_warm(cis_dist_matrix *D) {
  cis_status st = CIS_OK;
  if (!dist_on_device(D) || D->summed || D->plan.parts < 2) return CIS_OK;
  CIS_TRY(dist_exchange_collective(D));
  for (int l = 0; l < D->nlocal; ++l) {
    CIS_TRY(dist_set_dev(D, l));
    CIS_TRY(dd_stream_sync(D->comm->stream[l]));
  }
cleanup:
  return st;
}
