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

int dist_vec_on_device(const cis_dist_matrix *D) { return D->vwhere == CIS_MEM_DEVICE; }

cis_status dist_vec_set_dev(const cis_dist_matrix *D, int l) {
  return dist_vec_on_device(D) ? dd_set_device(D->comm->device[l]) : CIS_OK;
}

/* bytes between two host arrays, on OpenMP threads (a vector's part is
 * gigabytes where host vectors are chosen) */
static void copy_bytes(void *dst, const void *src, size_t bytes) {
  const size_t chunk = (size_t)1 << 24, nch = (bytes + chunk - 1) / chunk;
  CIS_PRAGMA(omp parallel for schedule(static) if (nch > 1))
  for (size_t c = 0; c < nch; ++c) {
    const size_t lo = c * chunk, len = bytes - lo < chunk ? bytes - lo : chunk;
    memcpy((char *)dst + lo, (const char *)src + lo, len);
  }
}
/* bytes of a fresh host array zeroed on OpenMP threads (its pages touched) */
static void fill_bytes(void *dst, size_t bytes) {
  const size_t chunk = (size_t)1 << 24, nch = (bytes + chunk - 1) / chunk;
  CIS_PRAGMA(omp parallel for schedule(static) if (nch > 1))
  for (size_t c = 0; c < nch; ++c) memset((char *)dst + c * chunk, 0, bytes - c * chunk < chunk ? bytes - c * chunk : chunk);
}

/* Host vectors on a device comm: malloc'ed, then page-locked when asked
 * (copies to and from the GPUs at the link's speed, not through the
 * driver's staging buffers). Where the system refuses to lock them
 * (RLIMIT_MEMLOCK, memory), they stay pageable (slower copies, the same
 * results) and no later vector tries: D->vpinned -1. */
cis_status dist_vec_part_alloc(cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what) {
  if (D->vwhere == D->where) return dist_part_alloc(D, l, p, bytes, what);
  cis_status st = cis_alloc_array(p, bytes > 0 ? bytes : 8, 1, what);
  if (st != CIS_OK || D->vpinned != 1) return st;
  fill_bytes(*p, (size_t)(bytes > 0 ? bytes : 8)); /* its pages made on every core, not by the registering thread */
  if (dd_host_register(*p, (size_t)(bytes > 0 ? bytes : 8)) != CIS_OK) {
    D->vpinned = -1;
    cis_clear_error();
  }
  return CIS_OK;
}
void dist_vec_part_free(const cis_dist_matrix *D, int l, void *p) {
  if (!p) return;
  if (D->vwhere == D->where) {
    dist_part_free(D, l, p);
    return;
  }
  if (D->vpinned) dd_host_unregister(p); /* a no-op for memory never locked */
  cis_free(p);
}
cis_status dist_vec_part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes) {
  if (dist_vec_on_device(D)) return dist_part_put(D, l, dst, host, bytes);
  copy_bytes(dst, host, bytes);
  return CIS_OK;
}
cis_status dist_vec_part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes) {
  if (dist_vec_on_device(D)) return dist_part_get(D, l, host, src, bytes);
  copy_bytes(host, src, bytes);
  return CIS_OK;
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
