/* cisparse/export.h: CIS_API marks the functions the shared library exports.
 *
 * The library is compiled with -fvisibility=hidden: only declarations in the
 * public headers that carry CIS_API are visible to programs linking
 * libcisparse.so; everything else (src/, the kernels' launchers) stays
 * internal. tests/cli/exports.sh checks that every function declared in
 * include/cisparse/ is exported and nothing else is. */
#ifndef CISPARSE_EXPORT_H
#define CISPARSE_EXPORT_H

#if defined(_WIN32)
#  if defined(CISPARSE_BUILDING)
#    define CIS_API __declspec(dllexport)
#  else
#    define CIS_API
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define CIS_API __attribute__((visibility("default")))
#else
#  define CIS_API
#endif

#endif
