/* dist_parts.c: the part memory of a distributed matrix (dist_parts.h),
 * shared by the matrix, its vectors and its product: host memory on a fake
 * comm, the part's GPU (made current first) on a device comm. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_parts.h"

int dist_on_device(const cis_dist_matrix *D) { return D->where == CIS_MEM_DEVICE; }

cis_status dist_set_dev(const cis_dist_matrix *D, int l) {
  return dist_on_device(D) ? dd_set_device(D->comm->device[l]) : CIS_OK;
}

/* bytes on the part's side: host malloc or device malloc (device set) */
cis_status dist_part_alloc(const cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what) {
  cis_status st;
  *p = NULL;
  if (bytes <= 0) bytes = 8;
  if (!dist_on_device(D)) return cis_alloc_array(p, bytes, 1, what);
  if ((st = dist_set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_malloc(p, (size_t)bytes);
}
void dist_part_free(const cis_dist_matrix *D, int l, void *p) {
  if (!p) return;
  if (!dist_on_device(D)) cis_free(p);
  else if (dist_set_dev(D, l) == CIS_OK) cis_gpu_free(p);
}
cis_status dist_part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes) {
  cis_status st;
  if (!bytes) return CIS_OK;
  if (!dist_on_device(D)) {
    memcpy(dst, host, bytes);
    return CIS_OK;
  }
  if ((st = dist_set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_upload(dst, host, bytes);
}
cis_status dist_part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes) {
  cis_status st;
  if (!bytes) return CIS_OK;
  if (!dist_on_device(D)) {
    memcpy(host, src, bytes);
    return CIS_OK;
  }
  if ((st = dist_set_dev(D, l)) != CIS_OK) return st;
  return cis_gpu_download(host, src, bytes);
}

int dist_trace(void) {
  static int on = -1; /* a benign race: every thread reads the same value */
  if (on < 0) {
    const char *e = getenv("CISPARSE_DIST_TRACE");
    on = e && *e && strcmp(e, "0") != 0;
  }
  return on;
}

/* The ring's events and the message arrays of the products (dist_product.c). */
void dist_product_free(cis_dist_matrix *D) {
  for (int l = 0; l < D->nlocal; ++l) {
    dist_part *P = &D->part[l];
    if (!P->ring) continue;
    dist_set_dev(D, l);
    for (int k = 0; k < 4 * DIST_RING; ++k) dd_event_destroy(P->ring[k]);
    cis_free(P->ring);
    P->ring = NULL;
  }
  cis_free(D->snd);
  cis_free(D->rcv);
  D->snd = D->rcv = NULL;
}
