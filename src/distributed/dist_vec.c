/* dist_vec.c: distributed vectors. A handle is an address inside a reserved,
 * inaccessible range (mmap PROT_NONE) of count*rows values, so the solvers'
 * offsets by whole vectors (v + j*rows) stay inside it; dist_vec_resolve
 * maps (handle, local rank) to that rank's rows of vector j. */
#include <sys/mman.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_vec.h"

/* Bytes of `count` vectors' rows on local part l. */
static int64_t part_bytes(const cis_dist_matrix *D, int count, int l) {
  return (int64_t)count * D->part[l].rows * (int64_t)cis_dtype_size(D->dtype);
}

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
    CIS_TRY(dist_vec_part_alloc(D, l, &V.loc[l], part_bytes(D, count, l), "distributed vector part"));
  D->vecs[D->nvecs++] = V;
  *v = base;
  return CIS_OK;
cleanup:
  if (V.loc)
    for (int l = 0; l < D->nlocal; ++l) dist_vec_part_free(D, l, V.loc[l], part_bytes(D, count, l));
  cis_free(V.loc);
  munmap(base, (size_t)span);
  return st;
}

void cis_dist_vec_free(cis_dist_matrix *D, void *v) {
  if (!D || !v) return;
  for (int i = 0; i < D->nvecs; ++i)
    if (D->vecs[i].base == v) {
      for (int l = 0; l < D->nlocal; ++l) dist_vec_part_free(D, l, D->vecs[i].loc[l], part_bytes(D, D->vecs[i].count, l));
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
  /* the parts' copies (from or into pageable host memory) side by side */
  const size_t es = cis_dtype_size(D->dtype);
  DIST_EACH_PART_WAITING_IF(D, dist_vec_on_device(D), l, pst, {
    const dist_part *P = &D->part[l];
    for (int j = 0; j < count && pst == CIS_OK; ++j) {
      char *h = (char *)host + ((size_t)j * (size_t)D->n + (size_t)P->row0) * es;
      char *d = (char *)loc[l] + (size_t)j * (size_t)P->rows * es;
      pst = up ? dist_vec_part_put(D, l, d, h, (size_t)P->rows * es) : dist_vec_part_get(D, l, h, d, (size_t)P->rows * es);
    }
  });
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

cis_status cis_dist_vec_gather_host(cis_dist_matrix *D, void *host, int count) {
  cis_status st = CIS_OK;
  void *whole[DIST_MAX_LOCAL] = {0};
  if (!D || (!host && count > 0)) return cis_error(CIS_ERR_INVALID, "cis_dist_vec_gather_host: NULL argument");
  if (count < 0) return cis_error(CIS_ERR_INVALID, "cis_dist_vec_gather_host: %d vectors", count);
  cis_dist_comm *c = D->comm;
  if (D->nlocal == c->ranks) return CIS_OK; /* every part's rows are here */
  const size_t bytes = (size_t)D->n * cis_dtype_size(D->dtype);
  /* a summed operator's whole-x buffers serve (no product runs meanwhile):
   * no whole vector allocated on GPUs whose memory its sigma has taken */
  const int borrowed = D->summed != NULL;
  if (dist_on_device(D))
    for (int l = 0; l < D->nlocal; ++l) {
      if (borrowed) whole[l] = D->part[l].xfull;
      else CIS_TRY(dist_part_alloc(D, l, &whole[l], (int64_t)bytes, "a gathered vector"));
    }
  for (int j = 0; j < count; ++j) {
    char *h = (char *)host + (size_t)j * bytes;
    if (dist_on_device(D)) {
      for (int l = 0; l < D->nlocal; ++l) CIS_TRY(dist_part_put(D, l, whole[l], h, bytes));
    } else {
      for (int l = 0; l < D->nlocal; ++l) whole[l] = h;
    }
    CIS_TRY(c->ops->bcast_parts(c, whole, D->plan.row_start, D->dtype));
    if (dist_on_device(D))
      for (int l = 0; l < D->nlocal; ++l) {
        CIS_TRY(dist_set_dev(D, l));
        CIS_TRY(dd_stream_sync(c->stream[l]));
        CIS_TRY(dist_part_get(D, l, h, whole[l], bytes));
      }
  }
cleanup:
  if (dist_on_device(D) && !borrowed)
    for (int l = 0; l < D->nlocal; ++l) dist_part_free(D, l, whole[l]);
  return st;
}
