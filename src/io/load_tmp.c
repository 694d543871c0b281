/* load_tmp.c: TEMPORARY (gen branch only) until src/io/ from the io helper
 * lands here: generator specs load, every file operation is refused.
 * Delete this file when src/io/load.c arrives. */
#include "cisparse/gen.h"
#include "cisparse/io.h"
#include "core/internal.h"

static cis_status no_io(const char *what) {
  return cis_error(CIS_ERR_UNSUPPORTED, "%s: file I/O is not built into this branch yet", what);
}

cis_status cis_load(const char *file_or_spec, cis_dtype t, cis_csr **out) {
  *out = NULL;
  if (cis_gen_is_spec(file_or_spec)) return cis_generate(file_or_spec, t, out);
  return no_io(file_or_spec ? file_or_spec : "(null)");
}
cis_status cis_save(const char *path, const cis_csr *A) { return no_io(path); }
cis_status cis_mm_write_vector(const char *path, const void *x, cis_dtype t, cis_int n) { return no_io(path); }
cis_status cis_text_write_vector(const char *path, const void *x, cis_dtype t, cis_int n) { return no_io(path); }
cis_status cis_vector_read(const char *path, cis_dtype t, cis_int n, void **out) { return no_io(path); }
