/* gen_placeholder.c: TEMPORARY stand-in until the generators merge (io branch only). */
#include "cisparse/gen.h"
#include "core/internal.h"
int cis_gen_is_spec(const char *s) { (void)s; return 0; }
cis_status cis_generate(const char *spec, cis_dtype t, cis_csr **out) {
  (void)spec; (void)t; *out = NULL;
  return cis_error(CIS_ERR_UNSUPPORTED, "generators not built");
}
cis_int cis_gen_reference_cols(const char *spec, cis_int cols) { (void)spec; (void)cols; return 0; }
