/* sort.c: in-place ascending sorts of integer keys, one body for every key
 * type: quicksort (median of three, Hoare partition, smaller side first so
 * the stack stays O(log n)), insertion sort below 24 elements. */
#include <stdlib.h>
#include "core/internal.h"

#define CIS_DEFINE_SORT(name, T)                                                     \
  void name(T *a, int64_t n) {                                                       \
    while (n > 24) {                                                                 \
      T x = a[0], y = a[n / 2], z = a[n - 1];                                        \
      T pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)); \
      int64_t i = 0, j = n - 1;                                                      \
      for (;;) {                                                                     \
        while (a[i] < pivot) ++i;                                                    \
        while (a[j] > pivot) --j;                                                    \
        if (i >= j) break;                                                           \
        T t = a[i]; a[i] = a[j]; a[j] = t;                                           \
        ++i; --j;                                                                    \
      }                                                                              \
      /* [0, j] <= pivot <= [j+1, n) */                                              \
      if (j + 1 < n - j - 1) { name(a, j + 1); a += j + 1; n -= j + 1; }             \
      else { name(a + j + 1, n - j - 1); n = j + 1; }                                \
    }                                                                                \
    for (int64_t i = 1; i < n; ++i) {                                                \
      T v = a[i];                                                                    \
      int64_t j = i;                                                                 \
      for (; j > 0 && a[j - 1] > v; --j) a[j] = a[j - 1];                            \
      a[j] = v;                                                                      \
    }                                                                                \
  }

CIS_DEFINE_SORT(cis_sort_idx, cis_idx)
CIS_DEFINE_SORT(cis_sort_u64, uint64_t)
