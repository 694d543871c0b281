/* version.c: the library's version string and build options. */
#include "cisparse/util.h"
#include "cisparse/version.h"

const char *cis_version(void) { return CISPARSE_VERSION_STRING; }

int cis_built_with_cuda(void) { return CISPARSE_WITH_CUDA; }
