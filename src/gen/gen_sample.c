/* gen_sample.c: k distinct sorted integers from a range.
 *
 * Floyd's algorithm (Bentley & Floyd, "A sample of brilliance", CACM 30(9),
 * 1987): for j = n-k .. n-1 draw t in [0, j]; take t unless already taken,
 * else take j. Exactly k draws, uniform over all k-subsets. Membership is a
 * bitmap over the range (a hash set for very wide matrices); the sorted
 * output comes from scanning the bitmap when the range is short compared
 * with k, else from sorting the k values. */
#include <string.h>
#include "gen/gen_internal.h"

/* Insert v into the open-addressing set of generation ws->hgen (slots of
 * older generations count as empty, so the set is emptied in O(1)); 1 if it
 * was already there. */
static int hash_insert(gen_ws *ws, uint32_t v) {
  uint64_t mask = (uint64_t)ws->hcap - 1, h = gen_mix64(v) & mask;
  uint64_t tag = (uint64_t)ws->hgen << 32;
  while ((ws->hash[h] >> 32) == ws->hgen) {
    if (ws->hash[h] == (tag | v)) return 1;
    h = (h + 1) & mask;
  }
  ws->hash[h] = tag | v;
  return 0;
}

static int bit_test_set(uint64_t *bits, int64_t t) {
  uint64_t m = 1ull << (t & 63);
  int had = (bits[t >> 6] & m) != 0;
  bits[t >> 6] |= m;
  return had;
}

void gen_sample_sorted(gen_rng *r, int64_t lo, int64_t n, int64_t k, cis_idx *out, gen_ws *ws) {
  if (k <= 0) return;
  int64_t cnt = 0;
  if (ws->bits) {
    for (int64_t j = n - k; j < n; ++j) {
      int64_t t = gen_below(r, j + 1);
      if (bit_test_set(ws->bits, t)) { t = j; ws->bits[t >> 6] |= 1ull << (t & 63); }
      out[cnt++] = (cis_idx)t;
    }
    if ((n >> 6) <= 16 * k) { /* scan the bitmap: sorted, and clears it */
      cnt = 0;
      for (int64_t w = 0; w <= (n - 1) >> 6; ++w)
        for (uint64_t b = ws->bits[w]; b; b &= b - 1)
          out[cnt++] = (cis_idx)(lo + (w << 6) + __builtin_ctzll(b));
      memset(ws->bits, 0, (size_t)(((n - 1) >> 6) + 1) * sizeof(uint64_t));
      return;
    }
    for (int64_t i = 0; i < k; ++i) ws->bits[out[i] >> 6] = 0;
  } else {
    for (int64_t j = n - k; j < n; ++j) {
      int64_t t = gen_below(r, j + 1);
      if (hash_insert(ws, (uint32_t)t)) { t = j; hash_insert(ws, (uint32_t)t); }
      out[cnt++] = (cis_idx)t;
    }
    if (++ws->hgen == 0) { /* generation counter wrapped: really empty the set */
      memset(ws->hash, 0, (size_t)ws->hcap * sizeof(uint64_t));
      ws->hgen = 1;
    }
  }
  cis_sort_idx(out, k);
  for (int64_t i = 0; i < k; ++i) out[i] += (cis_idx)lo;
}

void gen_fill_uniform_row(const void *g, cis_int i, int64_t len, gen_rng *r, cis_idx *col, double *val,
                          gen_ws *ws) {
  gen_sample_sorted(r, 0, *(const cis_int *)g, len, col, ws);
  for (int64_t k = 0; k < len; ++k) val[k] = gen_value(r);
}
