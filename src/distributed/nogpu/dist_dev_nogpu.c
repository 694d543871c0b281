/* dist_dev_nogpu.c: the device helpers of dist_internal.h without CUDA:
 * each reports it (a host-only build distributes over host parts only). */
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_internal.h"

static cis_status no(void) { return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA"); }
cis_status dd_set_device(int dev) { (void)dev; return no(); }
cis_status dd_stream_create(cis_stream *s) { *s = NULL; return no(); }
void dd_stream_destroy(cis_stream s) { (void)s; }
cis_status dd_stream_sync(cis_stream s) { (void)s; return no(); }
cis_status dd_device_sync(void) { return no(); }
cis_status dd_event_create(void **e) { *e = NULL; return no(); }
void dd_event_destroy(void *e) { (void)e; }
cis_status dd_event_record(void *e, cis_stream s) { return no(); }
cis_status dd_stream_wait(cis_stream s, void *e) { return no(); }
cis_status dd_event_sync(void *e) { (void)e; return no(); }
cis_status dd_event_ms(void *a, void *b, float *ms) { return no(); }
cis_status dd_copy_async(void *d, const void *s, size_t n, cis_stream st) { return no(); }
cis_status dd_zero_async(void *d, size_t n, cis_stream st) { return no(); }
cis_status dd_host_register(void *p, size_t bytes) { return no(); }
void dd_host_unregister(void *p) { (void)p; }
cis_status dd_gather(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out, cis_stream s) { return no(); }
cis_status dd_sum_parts(cis_dtype t, int p, int o, cis_int n, const void *m, const void *r, double a, double b, void *y,
                        cis_stream s) { return no(); }
cis_status dist_split_rows_dev(cis_gpu_csr *R, cis_int n, cis_int r0, dist_local_kind kind, const char *kernel,
                               double *diag, dist_dev_split *out) {
  if (out) memset(out, 0, sizeof *out);
  return no();
}
cis_status dist_upper_slice_dev(cis_gpu_csr *R, cis_int n, cis_int r0, const dist_upper_pad *pad, const char *kernel,
                                double *diag, cis_gpu_plan **out) {
  if (out) *out = NULL;
  return no();
}
