/* dist_parts.c: the part memory of a distributed matrix (dist_parts.h),
 * shared by the matrix, its vectors and its product: host memory on a fake
 * comm, the part's GPU (made current first) on a device comm. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_parts.h"
#include "core/options.h"

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
/* Page-locking in chunks of DIST_PIN_CHUNK, each touched (zeroed) and
 * locked by one OpenMP thread: the system locks pages at a few GB/s per
 * thread (2.3 GB/s in all for one 128-GB registration, 2 x H200 host,
 * 2026-11-27), so the chunks go side by side. The memory is aligned to the
 * chunk, so that a copy split at the chunk's multiples (dist_copy_host)
 * never spans two registrations. Unlocked again the same way. */
#define PIN_CHUNK DIST_PIN_CHUNK
static void unlock_chunks(void *p, size_t bytes) {
  const size_t nch = (bytes + PIN_CHUNK - 1) / PIN_CHUNK;
  CIS_PRAGMA(omp parallel for schedule(dynamic) if (nch > 1))
  for (size_t c = 0; c < nch; ++c) dd_host_unregister((char *)p + c * PIN_CHUNK); /* a no-op where never locked */
}
static int lock_chunks(void *p, size_t bytes) {
  const size_t nch = (bytes + PIN_CHUNK - 1) / PIN_CHUNK;
  int bad = 0;
  CIS_PRAGMA(omp parallel for schedule(dynamic) reduction(max : bad) if (nch > 1))
  for (size_t c = 0; c < nch; ++c) {
    char *at = (char *)p + c * PIN_CHUNK;
    const size_t len = bytes - c * PIN_CHUNK < PIN_CHUNK ? bytes - c * PIN_CHUNK : PIN_CHUNK;
    memset(at, 0, len); /* its pages made by this thread, then locked */
    if (dd_host_register(at, len) != CIS_OK) bad = 1;
  }
  if (bad) unlock_chunks(p, bytes);
  return !bad;
}

/* Host vectors on a device comm: malloc'ed, then page-locked when asked
 * (copies to and from the GPUs at the link's speed, not through the
 * driver's staging buffers). Where the system refuses to lock them
 * (RLIMIT_MEMLOCK, memory), they stay pageable (slower copies, the same
 * results) and no later vector tries: D->vpinned -1. */
cis_status dist_vec_part_alloc(cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what) {
  if (D->vwhere == D->where) return dist_part_alloc(D, l, p, bytes, what);
  if (bytes <= 0) bytes = 8;
  if (D->vpinned != 1) return cis_alloc_array(p, bytes, 1, what);
  if (posix_memalign(p, PIN_CHUNK, (size_t)bytes) != 0) {
    *p = NULL;
    return cis_error(CIS_ERR_ALLOC, "cannot allocate %.3f GiB of host memory for %s", (double)bytes / 1073741824.0, what);
  }
  if (!lock_chunks(*p, (size_t)bytes)) {
    D->vpinned = -1;
    cis_clear_error();
  }
  return CIS_OK;
}
void dist_vec_part_free(const cis_dist_matrix *D, int l, void *p, int64_t bytes) {
  if (!p) return;
  if (D->vwhere == D->where) {
    dist_part_free(D, l, p);
    return;
  }
  if (D->vpinned) unlock_chunks(p, (size_t)(bytes > 0 ? bytes : 8));
  cis_free(p);
}
cis_status dist_copy_host(const cis_dist_matrix *D, void *dst, const void *src, size_t bytes, int host_is_dst,
                          cis_stream s) {
  if (D->vpinned != 1 || dist_vec_on_device(D)) return dd_copy_async(dst, src, bytes, s); /* nothing locked in chunks */
  const char *h = host_is_dst ? (const char *)dst : (const char *)src;
  size_t done = 0;
  while (done < bytes) {
    const size_t to_edge = PIN_CHUNK - (size_t)((uintptr_t)(h + done) % PIN_CHUNK);
    const size_t len = bytes - done < to_edge ? bytes - done : to_edge;
    cis_status st = dd_copy_async((char *)dst + done, (const char *)src + done, len, s);
    if (st != CIS_OK) return st;
    done += len;
  }
  return CIS_OK;
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

int dist_trace(void) { return cis_opt_int(CIS_OPT_DIST_TRACE, 0) != 0; }

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
