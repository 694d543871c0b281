/* offsets.c: 32/64-bit offset arrays (see format_types.h). */
#include "core/internal.h"
#include "formats/format_types.h"

cis_status cis_offsets_alloc(cis_offsets *o, int64_t n, int64_t max_value) {
  o->wide = max_value >= ((int64_t)1 << 32);
  o->u32 = NULL;
  o->i64 = NULL;
  if (o->wide) return cis_alloc_array((void **)&o->i64, n, sizeof(int64_t), "64-bit offsets");
  return cis_alloc_array((void **)&o->u32, n, sizeof(uint32_t), "32-bit offsets");
}

void cis_offsets_free(cis_offsets *o) {
  if (!o) return;
  cis_free(o->u32);
  cis_free(o->i64);
  o->u32 = NULL;
  o->i64 = NULL;
}
