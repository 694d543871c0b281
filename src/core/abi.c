/* abi.c: the sizes of the public structs (cis_abi_struct_size), which
 * bindings compare with their mirrors when they load the library
 * (python/cisparse/_lib.py: check_struct). A struct added to a public
 * header that a binding mirrors gets a line here. */
#include <string.h>
#include "core/internal.h"

#define CIS_ABI_ENTRY(type) {#type, sizeof(type)}

static const struct abi_entry {
  const char *name;
  size_t size;
} abi_table[] = {
  /* types.h, format.h, gpu.h, solver.h */
  CIS_ABI_ENTRY(cis_csr),
  CIS_ABI_ENTRY(cis_coo),
  CIS_ABI_ENTRY(cis_csr_stats),
  CIS_ABI_ENTRY(cis_format_params),
  CIS_ABI_ENTRY(cis_hyb_split),
  CIS_ABI_ENTRY(cis_format_choice),
  CIS_ABI_ENTRY(cis_gpu_info),
  CIS_ABI_ENTRY(cis_krylov_opts),
  CIS_ABI_ENTRY(cis_krylov_info),
  CIS_ABI_ENTRY(cis_davidson_opts),
  CIS_ABI_ENTRY(cis_davidson_info),
  /* ci.h */
  CIS_ABI_ENTRY(cis_fcidump),
  CIS_ABI_ENTRY(cis_ci_counts),
  CIS_ABI_ENTRY(cis_ci_memory_need),
  CIS_ABI_ENTRY(cis_ci_direct_opts),
  CIS_ABI_ENTRY(cis_ci_direct_info),
  CIS_ABI_ENTRY(cis_ci_direct_gpu_opts),
  CIS_ABI_ENTRY(cis_ci_direct_gpu_info),
  CIS_ABI_ENTRY(cis_ci_gpu_stats),
  CIS_ABI_ENTRY(cis_ci_rdm12),
  /* sci.h */
  CIS_ABI_ENTRY(cis_sci_info),
  /* ci_solve.h */
  CIS_ABI_ENTRY(cis_ci_solve_opts),
};

size_t cis_abi_struct_size(const char *name) {
  if (!name) return 0;
  for (size_t i = 0; i < sizeof abi_table / sizeof abi_table[0]; ++i)
    if (!strcmp(abi_table[i].name, name)) return abi_table[i].size;
  return 0;
}
