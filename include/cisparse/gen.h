/* cisparse/gen.h: deterministic matrix generators named by a spec string.
 *
 *   ci:rows=32768,seed=1[,cols=rows,ref_frac=0.1,ref_per_row=655|ref_density=D,
 *      exp_per_row=295.1,exp_sd=30]
 *       CI-structured (Mahmoud et al. 2018, Tables 3-4): Reference region =
 *       first ceil(ref_frac*cols) columns with ref_per_row nonzeros in every
 *       row (655 = round(0.2*3277) at 32,768 rows; ref_density=D asks for
 *       round(D*ref) instead); Expansion Space region: the rest of the
 *       columns with a per-row count drawn from N(exp_per_row, exp_sd^2)
 *       (longest row ~1,060-1,080). Nonzeros per row are kept when rows
 *       grow, so nnz grows linearly. See src/gen/gen_ci.c.
 *   laplace3d:size=64,points=7|27       3D Laplacian on a size^3 grid
 *   powerlaw:rows=100000,seed=3[,cols=rows,avg=16,alpha=2.0,max=cols]  power-law row lengths
 *   random:rows=1000,cols=800,density=0.01,seed=2            uniform random
 *
 * The same spec always gives the same matrix, independent of thread count. */
#ifndef CISPARSE_GEN_H
#define CISPARSE_GEN_H

#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if s looks like a generator spec ("kind:..." with a known kind). */
CIS_API int cis_gen_is_spec(const char *s);

/* Generate the matrix named by spec, values of dtype t. Unknown kinds or
 * keys, malformed numbers, and sizes that overflow or exceed memory are
 * refused with a one-line message. */
CIS_API cis_status cis_generate(const char *spec, cis_dtype t, cis_csr **out);

/* x[i] (n values of dtype t) uniform in (-1, 1), never 0, from the
 * generators' counter-based stream for (seed, i): x[i] depends on seed and i
 * only, so any length and thread count give the same values. */
CIS_API void cis_gen_random_vector(uint64_t seed, cis_dtype t, cis_int n, void *x);

/* For a ci: spec, the number of Reference-region columns (0 for others). */
CIS_API cis_int cis_gen_reference_cols(const char *spec, cis_int cols);

#ifdef __cplusplus
}
#endif
#endif
