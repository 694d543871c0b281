/* dist_vec.h: distributed vector handles inside this layer (dist_vec.c;
 * not public). */
#ifndef CISPARSE_DIST_VEC_H
#define CISPARSE_DIST_VEC_H

#include "distributed/dist_parts.h"

/* The local pointers (one per local rank) of the vector at handle h (any
 * whole-vector offset inside an allocation); *nleft (may be NULL): vectors
 * from h to the allocation's end. */
cis_status dist_vec_resolve(const cis_dist_matrix *D, const void *h, void **loc, int *nleft);

#endif
