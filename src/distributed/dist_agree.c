/* dist_agree.c: whether the ranks of a communicator hold the same values
 * (cis_dist_comm_agree, dist.h), and the hash they compare (cis_hash64:
 * 64-bit FNV-1a, Fowler, Noll and Vo, IETF draft-eastlake-fnv). Processes
 * that each read their own integrals and options must agree on them before
 * any collective whose size or count depends on them: otherwise a rank left
 * waiting in a collective the others never enter hangs, messages of
 * different sizes are truncated, or the parts of different problems sum to
 * an energy of neither. The comparison is one all-reduce whose size depends
 * only on the comm and k. */
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_internal.h"

uint64_t cis_hash64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; b && i < n; ++i) {
    h ^= b[i];
    h *= 1099511628211ull; /* the 64-bit FNV prime */
  }
  return h;
}

cis_status cis_dist_comm_agree(cis_dist_comm *c, const uint64_t *mine, int k, int *differ) {
  cis_status st;
  double *v = NULL;
  if (!c || !mine || !differ || k < 1) return cis_error(CIS_ERR_INVALID, "cis_dist_comm_agree: NULL argument or k < 1");
  const int G = c->ranks, L = c->nlocal;
  const int64_t count = (int64_t)G * 2 * k; /* rank r's value g: halves at (r * k + g) * 2 */
  if (count > 0x7fffffff) return cis_error(CIS_ERR_OVERFLOW, "agreement of %d values over %d ranks", k, G);
  CIS_TRY(cis_alloc_zeroed((void **)&v, (int64_t)L * count, sizeof(double), "the ranks' agreement"));
  for (int l = 0; l < L; ++l) /* local rank l's own slots of its copy; the sum leaves each rank's values exact */
    for (int g = 0; g < k; ++g) {
      double *at = v + (int64_t)l * count + ((int64_t)(c->first + l) * k + g) * 2;
      at[0] = (double)(mine[g] >> 32);
      at[1] = (double)(mine[g] & 0xffffffffu);
    }
  CIS_TRY(dist_allreduce_host(c, v, (int)count));
  for (int g = 0; g < k; ++g) { /* local rank 0's copy: every copy holds the same sums */
    differ[g] = 0;
    for (int r = 1; r < G; ++r)
      differ[g] |= v[((int64_t)r * k + g) * 2] != v[(int64_t)g * 2] || v[((int64_t)r * k + g) * 2 + 1] != v[(int64_t)g * 2 + 1];
  }
  st = CIS_OK;
cleanup:
  cis_free(v);
  return st;
}
