/* cisparse/gen.h: deterministic matrix generators named by a spec string.
 *
 *   ci:rows=32768,seed=1[,ref_frac=0.1,ref_density=0.2,exp_per_row=295,exp_sd=30]
 *       CI-structured (Mahmoud et al. 2018, Tables 3-4): Reference region =
 *       first ref_frac of the columns at ref_density (655 nonzeros per row at
 *       32,768 rows); Expansion Space region: the rest of the columns with a
 *       per-row count drawn around exp_per_row (longest row ~1,060-1,080).
 *       Nonzeros per row are kept when rows grow, so nnz grows linearly.
 *   laplace3d:size=64,points=7|27       3D Laplacian on a size^3 grid
 *   powerlaw:rows=100000,seed=3[,avg=16,alpha=2.0,max=rows]  power-law row lengths
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
int cis_gen_is_spec(const char *s);

/* Generate the matrix named by spec, values of dtype t. Unknown kinds or
 * keys, malformed numbers, and sizes that overflow or exceed memory are
 * refused with a one-line message. */
cis_status cis_generate(const char *spec, cis_dtype t, cis_csr **out);

/* For a ci: spec, the number of Reference-region columns (0 for others). */
cis_int cis_gen_reference_cols(const char *spec, cis_int cols);

#ifdef __cplusplus
}
#endif
#endif
