/* dist_matrix.h: the construction of the distributed matrix
 * (dist_matrix.c; not public), shared with dist_rows.c. */
#ifndef CISPARSE_DIST_MATRIX_H
#define CISPARSE_DIST_MATRIX_H

#include "distributed/dist_parts.h"

/* Construction steps shared by cis_dist_matrix_create and
 * dist_matrix_create_rows (dist_matrix.c): a matrix with its parts'
 * ranks set and a zeroed diagonal; part l's blocks stored (b->local and
 * b->remote freed after, b->needed kept); then, once D->plan is built, its
 * exchange buffers and streams. */
cis_status dist_matrix_new(cis_dist_comm *c, cis_int n, cis_dtype dtype, const cis_dist_opts *o, cis_dist_matrix **out);
/* cis_dist_matrix_create with full-row blocks (symmetric storage expanded):
 * every process lists every part's needed entries, then splits and stores
 * its own parts (dist_matrix.c). */
cis_status dist_matrix_create_full(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out);
/* cis_dist_matrix_create of a symmetric A (full, or its upper triangle
 * flagged CIS_FLAG_UPPER) with a symmetric format: its upper triangle
 * (cis_csr_upper_symmetric: a non-symmetric A is refused naming the pair)
 * stored once over the parts through dist_matrix_create_upper_rows,
 * each part asking for its rows (dist_upper.c). */
cis_status dist_matrix_create_once(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out);
cis_status dist_part_store(cis_dist_matrix *D, int l, dist_block *b, const cis_dist_opts *o);
/* The same from part l's rows built on its GPU (R: rows b->row0.., global
 * columns ascending, double; freed here, also on failure), split on the
 * device (dist_split_rows_dev) with the local block stored as o->format
 * says (dev_local_kind in dist_matrix.c); sets b->needed / nneeded and the
 * rows' entries of D->diag; D's split and store times become the slowest
 * part's (the parts may run at once). */
cis_status dist_part_store_dev(cis_dist_matrix *D, int l, dist_block *b, cis_gpu_csr *R, const cis_dist_opts *o);
/* 1 when dist_part_store_dev keeps the local block on the device (no host
 * conversion): the parts may then be built on a thread each. */
int dist_part_store_dev_on_device(const cis_dist_opts *o);
cis_status dist_part_finish(cis_dist_matrix *D, int l, const dist_block *b);

#endif
