/* plan.c: the public plan API. A plan = one format's device table (found by
 * name in format_list.h's list below) + its uploaded arrays + the chosen
 * kernel. */
#include <stdio.h>
#include <string.h>
#include "gpu/gpu_internal.h"
#include "gpu/gpu_plan_internal.h"

typedef struct device_format {
  const cis_gpu_format_ops *ops;
  enum cis_format_storage storage;
} device_format;

#define DEVICE_FORMAT(id, storage) {&cis_gpu_format_##id, storage},
static const device_format device_formats[] = {CIS_FORMAT_LIST(DEVICE_FORMAT)};
#undef DEVICE_FORMAT
enum { DEVICE_FORMAT_COUNT = sizeof device_formats / sizeof *device_formats };

static const cis_gpu_format_ops *find_table(const char *format) {
  for (int k = 0; k < DEVICE_FORMAT_COUNT; ++k)
    if (!strcmp(device_formats[k].ops->format, format)) return device_formats[k].ops;
  return NULL;
}

int gpu_plan_is_symmetric(const cis_gpu_plan *p) {
  for (int k = 0; p && k < DEVICE_FORMAT_COUNT; ++k)
    if (p->ops == device_formats[k].ops) return device_formats[k].storage == CIS_STORE_UPPER;
  return 0; /* NULL, or a cuSPARSE baseline */
}

#define KERNELS_MAX (int)(sizeof ((cis_gpu_format_ops *)0)->kernels / sizeof *((cis_gpu_format_ops *)0)->kernels)

int cis_gpu_kernel_known(const cis_gpu_format_ops *ops, const char *kernel) {
  for (int k = 0; k < KERNELS_MAX && ops->kernels[k]; ++k)
    if (!strcmp(ops->kernels[k], kernel)) return 1;
  return 0;
}

cis_status cis_gpu_unknown_kernel(const cis_gpu_format_ops *ops, const char *kernel) {
  char names[128] = "";
  for (int k = 0; k < KERNELS_MAX && ops->kernels[k]; ++k) {
    strncat(names, k ? ", " : "", sizeof names - strlen(names) - 1);
    strncat(names, ops->kernels[k], sizeof names - strlen(names) - 1);
  }
  return cis_error(CIS_ERR_NOT_FOUND, "unknown kernel '%s' for %s (known: %s)", kernel,
                   ops->format, names);
}

static cis_status need_gpu(void) {
  char why[160];
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  return CIS_OK;
}

cis_status cis_gpu_plan_create(const cis_matrix *M, const char *kernel, int block,
                               cis_gpu_plan **out) {
  cis_status st;
  const cis_gpu_format_ops *ops;
  const cis_fmt_head *h;
  cis_gpu_plan *p = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create: NULL output");
  *out = NULL;
  if (!M) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create: NULL matrix");
  if (block < 0 || block > 1024)
    return cis_error(CIS_ERR_INVALID, "block size %d: must be 0 (default) or 1..1024", block);
  if (!(ops = find_table(cis_matrix_format_name(M))))
    return cis_error(CIS_ERR_UNSUPPORTED, "format %s has no GPU kernel in this build",
                     cis_matrix_format_name(M));
  if (!kernel) kernel = ops->kernels[0];
  if (!cis_gpu_kernel_known(ops, kernel)) return cis_gpu_unknown_kernel(ops, kernel);
  if ((st = need_gpu()) != CIS_OK) return st;
  if (!(p = cis_calloc(1, sizeof *p))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan");
  h = cis_matrix_impl(M);
  p->ops = ops;
  p->rows = h->rows;
  p->cols = h->cols;
  p->nnz = h->nnz;
  p->dtype = h->dtype;
  p->block = block;
  snprintf(p->kernel, sizeof p->kernel, "%s", kernel);
  CIS_TRY(ops->upload(cis_matrix_impl(M), &p->dev, &p->bytes, &p->ws));
  *out = p;
  return CIS_OK;
cleanup:
  cis_free(p);
  return st;
}

cis_status cis_gpu_spmv(cis_gpu_plan *p, double alpha, const void *d_x, double beta, void *d_y,
                        cis_stream s) {
  if (!p) return cis_error(CIS_ERR_INVALID, "cis_gpu_spmv: NULL plan");
  if ((p->cols && !d_x) || (p->rows && !d_y))
    return cis_error(CIS_ERR_INVALID, "cis_gpu_spmv: NULL vector");
  return p->ops->spmv(p->dev, p->kernel, p->block, alpha, d_x, beta, d_y, s);
}

cis_status cis_gpu_spmm(cis_gpu_plan *p, int k, double alpha, const void *d_X, cis_int ldx, double beta,
                        void *d_Y, cis_int ldy, cis_layout layout, cis_stream s) {
  const int cm = layout == CIS_COL_MAJOR;
  if (!p) return cis_error(CIS_ERR_INVALID, "cis_gpu_spmm: NULL plan");
  if (k < 1 || k > CIS_GPU_SPMM_MAX_K)
    return cis_error(CIS_ERR_INVALID, "cis_gpu_spmm: k = %d vectors, must be 1..%d", k, CIS_GPU_SPMM_MAX_K);
  if (layout != CIS_ROW_MAJOR && layout != CIS_COL_MAJOR)
    return cis_error(CIS_ERR_INVALID, "cis_gpu_spmm: layout %d is neither row- nor column-major", (int)layout);
  if (cm ? (ldx < p->cols || ldy < p->rows) : (ldx < k || ldy < k))
    return cis_error(CIS_ERR_INVALID, "cis_gpu_spmm: leading dimensions %lld, %lld too small for %s blocks of %d",
                     (long long)ldx, (long long)ldy, cm ? "column-major" : "row-major", k);
  if ((p->cols && !d_X) || (p->rows && !d_Y)) return cis_error(CIS_ERR_INVALID, "cis_gpu_spmm: NULL block");
  if (!p->ops->spmm)
    return cis_error(CIS_ERR_UNSUPPORTED, "cis_gpu_spmm: no SpMM kernel for %s (plan %s); csr and the "
                                          "symmetric csr have one", p->ops->format, p->kernel);
  return p->ops->spmm(p->dev, p->block, k, alpha, d_X, ldx, beta, d_Y, ldy, cm, s);
}

int gpu_plan_has_spmm(const cis_gpu_plan *p) { return p && p->ops && p->ops->spmm; }

cis_int cis_gpu_plan_bytes(const cis_gpu_plan *p) { return p ? p->bytes : 0; }
cis_int cis_gpu_plan_workspace_bytes(const cis_gpu_plan *p) { return p ? p->ws : 0; }
const char *cis_gpu_plan_kernel(const cis_gpu_plan *p) { return p ? p->kernel : ""; }

cis_status gpu_plan_shape(const cis_gpu_plan *p, cis_int *rows, cis_int *cols, cis_dtype *t) {
  if (!p) return cis_error(CIS_ERR_INVALID, "gpu_plan_shape: NULL plan");
  if (rows) *rows = p->rows;
  if (cols) *cols = p->cols;
  if (t) *t = p->dtype;
  return CIS_OK;
}

void cis_gpu_plan_free(cis_gpu_plan *p) {
  if (!p) return;
  if (p->dev) p->ops->release(p->dev);
  cis_free(p);
}

/* Used by cusparse_gpu.c: a plan around an already uploaded baseline. */
cis_status cis_gpu_plan_wrap(const cis_gpu_format_ops *ops, void *dev, const char *kernel,
                             cis_int rows, cis_int cols, cis_int nnz, cis_dtype t, cis_int bytes,
                             cis_int ws, cis_gpu_plan **out) {
  cis_gpu_plan *p = cis_calloc(1, sizeof *p);
  if (!p) {
    ops->release(dev);
    return cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan");
  }
  *p = (cis_gpu_plan){ops, dev, rows, cols, nnz, bytes, ws, t, 0, ""};
  snprintf(p->kernel, sizeof p->kernel, "%s", kernel);
  *out = p;
  return CIS_OK;
}
