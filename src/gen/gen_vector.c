/* gen_vector.c: cis_gen_random_vector, the generators' value stream as a
 * vector: x[i] is the first gen_value of the stream gen_rng_row(seed, i)
 * (SplitMix64, Steele, Lea, Flood 2014), as `cisparse spmv --x random` has
 * always drawn it. */
#include "gen/gen_internal.h"

void cis_gen_random_vector(uint64_t seed, cis_dtype t, cis_int n, void *x) {
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i) {
    gen_rng r = gen_rng_row(seed, (uint64_t)i);
    cis_set(x, t, i, gen_value(&r));
  }
}
