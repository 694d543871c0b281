/* cisparse/util.h: what this library is: its version, whether it has the
 * CUDA kernels, and the sizes of its public structs (for bindings that
 * mirror them, e.g. Python's ctypes). */
#ifndef CISPARSE_UTIL_H
#define CISPARSE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "cisparse/export.h"
#include "cisparse/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (CISPARSE_VERSION_STRING of
 * cisparse/version.h when the header and the library match). Never NULL. */
CIS_API const char *cis_version(void);
/* 1 if this library was built with the CUDA kernels (GPU calls may still
 * report CIS_ERR_NO_GPU where no device is present), else 0. */
CIS_API int cis_built_with_cuda(void);
/* The cores this process may use: its CPU affinity mask, lowered to its
 * cgroup's CPU quota (cpu.max, rounded up) when there is one; >= 1. The
 * library's kernels take no more OpenMP threads than this unless
 * OMP_NUM_THREADS is set, and one thread for work too small to share.
 * OpenMP's wait policy is read by the runtime when it starts: on a shared
 * machine run programs with OMP_WAIT_POLICY=passive (the cisparse tool sets
 * it for itself unless the user did). */
CIS_API int cis_cpu_limit(void);
/* The dense linear algebra of the CPU CI (the direct sigma's GEMM, the
 * P-space eigensolver), one line chosen at configure and run time: e.g.
 * "blas: libopenblas.so; lapack: libopenblas.so (dsyevr)" or "blas: own-gemm
 * avx512 (reference libblas.so found, not used); lapack: liblapack.so
 * (dsyevr)". Never NULL. */
CIS_API const char *cis_blas_info(void);
/* sizeof the public struct named `name` ("cis_csr", "cis_krylov_opts",
 * "cis_fcidump", ...: every struct a binding may mirror field by field),
 * 0 for a NULL or unknown name. A binding compares its mirror's size with
 * this at load time, so a struct that changed fails loudly, not silently. */
CIS_API size_t cis_abi_struct_size(const char *name);

/* The library's tuning options, one table, set by name (docs/options.md):
 * kernel variants and overrides kept for measurements (bench/NOTES.md),
 * none needed for a correct result, and the tool's energy meter paths. The
 * library reads no environment variable for them but CISPARSE_OPTIONS, and
 * that only in cis_options_from_env.
 *
 * cis_option_set: name's value (a decimal integer in its range, one of its
 * words, or for a text option any text), or NULL for its default.
 * CIS_ERR_INVALID naming the known options for an unknown name, naming the
 * accepted values for a value out of them. Set them before the work they
 * tune (a plan, a GPU sigma, a distributed operator reads them when made);
 * not thread-safe against concurrent work. */
CIS_API cis_status cis_option_set(const char *name, const char *value);
/* "name=value[,name=value...]" (a value holds no comma; "name=" is the
 * default), each by cis_option_set's rules, all checked before any is set:
 * the first bad one is refused with CIS_ERR_INVALID naming it, and then
 * nothing changes. */
CIS_API cis_status cis_option_set_pairs(const char *pairs);
/* The value set, or NULL while the default holds (or for an unknown name);
 * marks the option read. */
CIS_API const char *cis_option_get(const char *name);
typedef enum cis_option_kind { CIS_OPTION_INT, CIS_OPTION_WORD, CIS_OPTION_TEXT } cis_option_kind;
/* One row of the table, as `cisparse options` lists it. */
typedef struct cis_option_desc {
  const char *name;
  cis_option_kind kind;
  const char *words; /* CIS_OPTION_WORD: the accepted words, space-separated; else NULL */
  long lo, hi;       /* CIS_OPTION_INT: the accepted range */
  const char *def;   /* the default, in words */
  const char *help;
  const char *value; /* the value set, NULL while the default holds (not a read) */
} cis_option_desc;
/* Option i (0-based) into *d: 1, or 0 past the end (or d NULL). */
CIS_API int cis_option_describe(int i, cis_option_desc *d);
/* How many options were set and not read since (by the kernel or code they
 * tune): a setting that changed nothing. Their names, ", "-separated, into
 * names (n bytes, may be NULL). */
CIS_API int cis_options_unused(char *names, size_t n);
/* The one environment variable of the library. */
#define CIS_OPTIONS_ENV "CISPARSE_OPTIONS"
/* CISPARSE_OPTIONS="name=value,name=value", when set and not empty, set by
 * cis_option_set_pairs (an unknown name or a bad value refused in one line
 * naming the variable and the option); what a program calls once at start,
 * as the cisparse tool and the Python package do. */
CIS_API cis_status cis_options_from_env(void);

#ifdef __cplusplus
}
#endif
#endif
