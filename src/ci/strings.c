/* strings.c: occupation strings in graphical (colexicographic) addressing and
 * their single-replacement link lists (layout and citations in strings.h). */
#include "ci/strings.h"
#include <stdlib.h>
#include "ci/ci_rules.h"
#include "core/internal.h"

cis_int ci_binom(int n, int k) {
  if (k < 0 || n < 0 || k > n) return 0;
  if (k > n - k) k = n - k;
  /* C(n, i) = C(n, i-1) (n-i+1) / i is exact at every step; 128-bit product. */
  unsigned __int128 c = 1;
  for (int i = 1; i <= k; ++i) {
    c = c * (unsigned)(n - k + i) / (unsigned)i;
    if (c > (unsigned __int128)INT64_MAX) return -1;
  }
  return (cis_int)c;
}

/* C(n, k) for 0 <= k <= n <= 63 (all below 2^63), filled once at load time:
 * the address (below) is on the hot path of <S^2> and the P-space. */
static cis_int binom_table[64][65];
__attribute__((constructor)) static void binom_table_init(void) {
  for (int n = 0; n < 64; ++n)
    for (int k = 0; k <= 64; ++k) binom_table[n][k] = ci_binom(n, k);
}

cis_int ci_string_addr(uint64_t s) {
  cis_int addr = 0;
  int i = 1;
  for (; s; s &= s - 1, ++i) addr += binom_table[ci_lowest(s)][i]; /* lowest orbital <= 63, i <= 64 */
  return addr;
}

uint64_t ci_string_of_addr(cis_int addr, int nel) {
  uint64_t s = 0;
  /* Greedy from the highest electron: o_i = the largest o with C(o, i) <= addr. */
  for (int i = nel; i >= 1; --i) {
    int o = i - 1;
    while (o + 1 < 64 && ci_binom(o + 1, i) <= addr && ci_binom(o + 1, i) >= 0) ++o;
    addr -= ci_binom(o, i);
    s |= 1ull << o;
  }
  return s;
}

cis_status ci_strings_size(int norb, int nel, cis_int *count, cis_int *bytes) {
  if (norb < 0 || norb > 64 || nel < 0 || nel > norb)
    return cis_error(CIS_ERR_INVALID, "strings: %d electrons in %d orbitals", nel, norb);
  cis_int c = ci_binom(norb, nel), per = 8 + 8 * (cis_int)nel * (norb - nel + 1), b;
  *count = c;
  if (c < 0 || c > INT32_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "strings: C(%d,%d) = %s%lld strings exceed the 31-bit string addresses",
                     norb, nel, c < 0 ? "more than " : "", (long long)(c < 0 ? INT64_MAX : c));
  if (cis_mul_overflows(c, per, &b))
    return cis_error(CIS_ERR_OVERFLOW, "strings: %lld strings x %lld bytes overflow", (long long)c, (long long)per);
  *bytes = b;
  return CIS_OK;
}

cis_status ci_strings_create(int norb, int nel, ci_strings **out) {
  cis_status st;
  cis_int count, bytes;
  ci_strings *S = NULL;
  *out = NULL;
  CIS_TRY(ci_strings_size(norb, nel, &count, &bytes));
  CIS_TRY(cis_alloc_zeroed((void **)&S, 1, sizeof *S, "string set"));
  S->norb = norb;
  S->nel = nel;
  S->count = count;
  S->nlink = nel * (norb - nel + 1);
  CIS_TRY(cis_alloc_array((void **)&S->str, count, sizeof(uint64_t), "strings"));
  CIS_TRY(cis_alloc_array((void **)&S->link, count * (cis_int)(S->nlink > 0 ? S->nlink : 1), sizeof(ci_link),
                          "string link lists"));
  /* Strings in increasing integer order: Gosper's next-combination step
   * (HAKMEM item 175) from the lowest nel bits. */
  uint64_t s = nel >= 64 ? ~0ull : (1ull << nel) - 1;
  for (cis_int a = 0; a < count; ++a) {
    S->str[a] = s;
    if (s == 0 || a + 1 == count) break;
    uint64_t c = s & (~s + 1), r = s + c;
    s = (((r ^ s) >> 2) / c) | r;
  }
  const int nlink = S->nlink;
#pragma omp parallel for schedule(static)
  for (cis_int a = 0; a < count; ++a) {
    const uint64_t I = S->str[a];
    ci_link *L = S->link + a * nlink;
    int n = 0;
    for (uint64_t occ = I; occ; occ &= occ - 1) {
      const int q = ci_lowest(occ);
      for (int p = 0; p < norb; ++p) {
        if (p != q && (I >> p & 1)) continue;
        const uint64_t J = (I & ~(1ull << q)) | (1ull << p);
        L[n].str = (int32_t)ci_string_addr(J);
        L[n].pair = (int16_t)ci_pair(p, q);
        L[n].sign = (int16_t)(p == q ? 1 : (int)ci_sign_between(I, p, q));
        ++n;
      }
    }
  }
  *out = S;
  return CIS_OK;
cleanup:
  ci_strings_free(S);
  return st;
}

void ci_strings_free(ci_strings *s) {
  if (!s) return;
  cis_free(s->str);
  cis_free(s->link);
  cis_free(s);
}
