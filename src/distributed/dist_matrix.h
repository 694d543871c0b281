/* dist_matrix.h: the distributed matrix object (not public): the local parts
 * of this process, the exchange plan, and the table of distributed vectors. */
#ifndef CISPARSE_DIST_MATRIX_H
#define CISPARSE_DIST_MATRIX_H

#include "cisparse/format.h"
#include "distributed/dist_internal.h"

/* Most parts one process drives (one per GPU of a host). */
#define DIST_MAX_LOCAL 64

typedef struct dist_part {
  int rank;
  cis_int row0, rows;
  cis_matrix *Ml, *Mr;      /* host blocks (fake comm) */
  cis_gpu_plan *Pl, *Pr;    /* device blocks */
  cis_int nneeded, nsend;
  void *xr;                 /* the needed x entries (nneeded) */
  void *stage, *xfull;      /* all-gather: send (max_rows) and receive (parts*max_rows) */
  void *sendbuf;            /* point-to-point: packed values (nsend) */
  cis_idx *idx;             /* all-gather: unpack positions in xfull; p2p: pack indices */
  cis_stream compute;       /* device: the stream of the two products */
  void *ev_x, *ev_start, *ev_done;
} dist_part;

typedef struct dist_vec {
  char *base;               /* reserved, inaccessible: the handle */
  int64_t span;             /* count*n*value bytes */
  int count;
  void **loc;               /* [nlocal] count*rows values each */
} dist_vec;

struct cis_dist_matrix {
  cis_dist_comm *comm;
  cis_dist_plan plan;
  cis_int n;
  cis_dtype dtype;
  cis_memspace where;       /* of the parts: host or device */
  char format[32];
  int nlocal;
  dist_part *part;
  double *diag;             /* global diag(A), host */
  dist_vec *vecs;
  int nvecs, cap;
  double t_exchange, t_product;
  int64_t products;
};

/* Part memory: host arrays on a fake comm, the part's GPU on a device comm
 * (dist_matrix.c). dist_set_dev makes the part's GPU current (no-op on host). */
int dist_on_device(const cis_dist_matrix *D);
cis_status dist_set_dev(const cis_dist_matrix *D, int l);
cis_status dist_part_alloc(const cis_dist_matrix *D, int l, void **p, int64_t bytes, const char *what);
void dist_part_free(const cis_dist_matrix *D, int l, void *p);
cis_status dist_part_put(const cis_dist_matrix *D, int l, void *dst, const void *host, size_t bytes);
cis_status dist_part_get(const cis_dist_matrix *D, int l, void *host, const void *src, size_t bytes);

/* Construction steps shared by cis_dist_matrix_create and
 * cis_dist_matrix_create_rows (dist_matrix.c): a matrix with its parts'
 * ranks set and a zeroed diagonal; part l's blocks stored (b->local and
 * b->remote freed after, b->needed kept); then, once D->plan is built, its
 * exchange buffers and streams. */
cis_status dist_matrix_new(cis_dist_comm *c, cis_int n, cis_dtype dtype, const cis_dist_opts *o, cis_dist_matrix **out);
cis_status dist_part_store(cis_dist_matrix *D, int l, cis_dist_block *b, const cis_dist_opts *o);
cis_status dist_part_finish(cis_dist_matrix *D, int l, const cis_dist_block *b);

/* The local pointers (one per local rank) of the vector at handle h (any
 * whole-vector offset inside an allocation); *nleft (may be NULL): vectors
 * from h to the allocation's end. */
cis_status dist_vec_resolve(const cis_dist_matrix *D, const void *h, void **loc, int *nleft);
/* y_l = alpha A x_l + beta y_l on the local parts, exchange included; the
 * device streams are synchronized on return. */
cis_status dist_apply_local(cis_dist_matrix *D, double alpha, void *const *x, double beta, void *const *y);
/* The distributed matrix behind an operator of memory space CIS_MEM_DIST, else NULL. */
cis_dist_matrix *dist_matrix_of(const cis_operator *A);

#endif
