/* davidson_core.h: the Davidson iteration over a vector backend (PETSc-style
 * ops table): the same algorithm runs on host vectors (OpenMP, davidson.c)
 * or on device vectors (cuBLAS + a preconditioner kernel,
 * src/gpu/ci_davidson_dev.c). A vector is n doubles at a backend pointer;
 * block j of a multi-vector allocation starts at base + j*n. */
#ifndef CISPARSE_DAVIDSON_CORE_H
#define CISPARSE_DAVIDSON_CORE_H

#include "cisparse/ci.h"

typedef struct dav_ops {
  void *ctx;
  cis_int n;
  cis_status (*alloc)(void *ctx, double **p, cis_int count, const char *what); /* count*n doubles */
  void (*release)(void *ctx, double *p);
  cis_status (*apply)(void *ctx, const double *x, double *y);                  /* y = H x */
  cis_status (*dot)(void *ctx, const double *a, const double *b, double *r);   /* *r = a . b */
  cis_status (*axpy)(void *ctx, double alpha, const double *x, double *y);     /* y += alpha x */
  cis_status (*scal)(void *ctx, double alpha, double *x);                      /* x *= alpha */
  cis_status (*copy)(void *ctx, const double *x, double *y);                   /* y = x */
  /* out_r = sum_{j<m} c[j*m + r] V_j for r < k (c: host, m x m row-major) */
  cis_status (*combine)(void *ctx, const double *V, const double *c, int m, int k, double *out);
  /* t_i = r_i / (theta - D_i), |theta - D_i| kept >= 1e-8 */
  cis_status (*precond)(void *ctx, const double *r, double theta, double *t);
  cis_status (*unit)(void *ctx, double *x, cis_int i);                         /* x = e_i */
  cis_status (*to_host)(void *ctx, const double *x, double *h, cis_int count); /* count*n doubles */
} dav_ops;

/* The Davidson iteration of cis_davidson on backend ops; diag (host) picks
 * the guess vectors. */
cis_status dav_run(const dav_ops *ops, const double *diag, const cis_davidson_opts *o, double *evals,
                   double *evecs, cis_davidson_info *info);

#endif
