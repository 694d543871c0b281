/* registry.c: the public format entry points validate and dispatch through
 * the format's ops table (PETSc-style); the registry is format_list.h's
 * list of tables, with each one's storage (all entries or the upper
 * triangle of a symmetric matrix). */
#include <string.h>
#include "core/internal.h"
#include "formats/format_types.h"

typedef struct registered_format {
  const cis_format_ops *ops;
  enum cis_format_storage storage;
} registered_format;

#define REGISTER_FORMAT(id, storage) {&cis_format_##id, storage},
static const registered_format all_formats[] = {CIS_FORMAT_LIST(REGISTER_FORMAT)};
#undef REGISTER_FORMAT
enum { FORMAT_COUNT = sizeof all_formats / sizeof *all_formats };

/* The i-th table of the whole list (NULL past its end). */
static const cis_format_ops *table(int i) { return i >= 0 && i < FORMAT_COUNT ? all_formats[i].ops : NULL; }

/* The i-th format that stores any matrix (CIS_STORE_FULL), NULL past them. */
static const cis_format_ops *full_table(int i) {
  for (int k = 0; k < FORMAT_COUNT; ++k)
    if (all_formats[k].storage == CIS_STORE_FULL && i-- == 0) return all_formats[k].ops;
  return NULL;
}

int cis_format_count(void) {
  int n = 0;
  while (full_table(n)) ++n;
  return n;
}

const char *cis_format_name(int i) {
  const cis_format_ops *o = full_table(i);
  return o ? o->name : NULL;
}

static const cis_format_ops *find(const char *name) {
  for (int i = 0; table(i); ++i)
    if (strcmp(table(i)->name, name) == 0) return table(i);
  return NULL;
}

int cis_format_is_symmetric(const char *name) {
  for (int k = 0; name && k < FORMAT_COUNT; ++k)
    if (strcmp(all_formats[k].ops->name, name) == 0) return all_formats[k].storage == CIS_STORE_UPPER;
  return 0;
}

cis_format_params cis_format_params_default(void) {
  cis_format_params p;
  memset(&p, 0, sizeof p);
  p.dtype = CIS_F64;
  p.slice = 32;
  p.sigma = 1024;
  p.block = 0;
  p.boundary = -1;
  p.boundary_mode = CIS_BOUNDARY_COUNT;
  p.csr5_sigma = 0;
  return p;
}

cis_status cis_matrix_create(const cis_csr *A, const char *name, const cis_format_params *p,
                             cis_matrix **out) {
  cis_status st;
  cis_format_params def = cis_format_params_default();
  const cis_format_ops *ops;
  cis_matrix *M = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_matrix_create: NULL output");
  *out = NULL;
  if (!A || !name) return cis_error(CIS_ERR_INVALID, "cis_matrix_create: NULL matrix or format name");
  if (!(ops = find(name))) {
    char names[256] = "";
    for (int i = 0; table(i); ++i) {
      strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
      strncat(names, table(i)->name, sizeof names - strlen(names) - 1);
    }
    return cis_error(CIS_ERR_NOT_FOUND, "unknown format '%s' (known: %s)", name, names);
  }
  if (!p) p = &def;
  if (p->dtype != CIS_F64 && p->dtype != CIS_F32)
    return cis_error(CIS_ERR_INVALID, "format %s: unknown value type %d", name, (int)p->dtype);
  if (p->float_values && (strcmp(ops->name, "sell16") || p->dtype != CIS_F64))
    return cis_error(CIS_ERR_UNSUPPORTED, "float values with double vectors: sell16 in double only (got %s in %s)",
                     ops->name, cis_dtype_name(p->dtype));
  CIS_TRY(cis_csr_check(A));
  M = cis_calloc(1, sizeof *M);
  if (!M) return cis_error(CIS_ERR_ALLOC, "cannot allocate a matrix handle");
  M->ops = ops;
  CIS_TRY(ops->build(A, p, &M->impl));
  *out = M;
  return CIS_OK;
cleanup:
  cis_free(M);
  return st;
}

void cis_matrix_free(cis_matrix *M) {
  if (!M) return;
  if (M->impl) M->ops->destroy(M->impl);
  cis_free(M);
}

static const cis_fmt_head *head(const cis_matrix *M) { return (const cis_fmt_head *)M->impl; }

cis_int cis_matrix_bytes(const cis_matrix *M) { return M->ops->bytes(M->impl); }

cis_status cis_matrix_spmv(const cis_matrix *M, double alpha, const void *x, double beta, void *y) {
  if (!M || !x || !y) return cis_error(CIS_ERR_INVALID, "cis_matrix_spmv: NULL argument");
  if (!M->ops->spmv)
    return cis_error(CIS_ERR_UNSUPPORTED, "no CPU SpMV for format %s", M->ops->name);
  const int prev = cis_threads_limit(head(M)->nnz + head(M)->rows, CIS_GRAIN_NNZ);
  const cis_status st = M->ops->spmv(M->impl, alpha, x, beta, y);
  cis_threads_restore(prev);
  return st;
}

cis_status cis_matrix_dump(const cis_matrix *M, FILE *f) {
  if (!M || !f) return cis_error(CIS_ERR_INVALID, "cis_matrix_dump: NULL argument");
  if (!M->ops->dump) return cis_error(CIS_ERR_UNSUPPORTED, "no dump for format %s", M->ops->name);
  return M->ops->dump(M->impl, f);
}

const char *cis_matrix_format_name(const cis_matrix *M) { return M->ops->name; }
cis_dtype cis_matrix_dtype(const cis_matrix *M) { return head(M)->dtype; }
cis_int cis_matrix_rows(const cis_matrix *M) { return head(M)->rows; }
cis_int cis_matrix_cols(const cis_matrix *M) { return head(M)->cols; }
cis_int cis_matrix_nnz(const cis_matrix *M) { return head(M)->nnz; }
const void *cis_matrix_impl(const cis_matrix *M) { return M->impl; }
