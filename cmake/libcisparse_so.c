/* libcisparse_so.c: the shared library's own translation unit. Everything
 * else comes from the static library `cisparse`, linked whole
 * (CMakeLists.txt, "shared library"). */
#include "cisparse/util.h"

/* A marker, readable with `strings` (hidden like every non-API symbol). */
const char cis_shared_library_ident[] = "libcisparse shared library";
