/* ci_gemm_own.c: the project's own DGEMM, used when CMake finds no optimised
 * BLAS (contract in ci_gemm.h). The algorithm of BLIS (F. G. Van Zee and
 * R. A. van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS
 * Functionality", ACM TOMS 41, 14 (2015), Fig. 2; K. Goto and R. van de
 * Geijn, ACM TOMS 34, 12 (2008)): the K dimension in blocks of KC, the rows of
 * A in blocks of MC packed into MR-row micro-panels (L2), the columns of B
 * packed KC x NR at a time (L1), and a micro-kernel that keeps an MR x NR
 * tile of C in vector registers, one rank-1 update per k.
 *
 * The micro-kernel is written once with GCC/Clang vector extensions and
 * compiled for three instruction sets in this file (target attributes): the
 * widest the CPU supports is chosen at run time (__builtin_cpu_supports), so
 * one binary is portable and needs no -march. Every element of C is summed
 * over k in the same order whatever the thread count (threads own whole NR
 * column panels): results do not depend on the threads. All buffers are on
 * the stack (at most PACK_BYTES): the call cannot fail. */
#include <omp.h>
#include <string.h>
#include "ci/ci_gemm.h"
#include "core/internal.h"

#define KC 192          /* k per block: a B micro-panel of KC x NR stays in L1 */
#define MC 72           /* rows of A per packed block (a multiple of every MR): KC x MC in L2 */
#define NR_MAX 24       /* the widest micro-kernel's columns */
#define PAR_FLOPS 4000000 /* flops per thread: less work does not fan out (fork/join costs more) */

/* C[0..mr) x [0..nr) (= or +=) the MR x NR tile of Ap (kc x MR) times Bp (kc x NR). */
typedef void (*micro_kernel)(int kc, const double *Ap, const double *Bp, double *C, cis_int ldc, int mr, int nr,
                             int accumulate);

/* One body, three instruction sets: VT is a vector of VL doubles; the tile
 * is MR rows by NV vectors. Edge tiles go through a buffer on the stack. */
#define OWN_MICRO_KERNEL(NAME, ATTR, VT, VL, MR, NV)                                                               \
  typedef double VT __attribute__((vector_size(8 * (VL))));                                                        \
  typedef double VT##_u __attribute__((vector_size(8 * (VL)), aligned(8)));                                        \
  ATTR static void NAME(int kc, const double *restrict Ap, const double *restrict Bp, double *restrict C,            \
                        cis_int ldc, int mr, int nr, int accumulate) {                                              \
    VT acc[MR][NV];                                                                                                \
    for (int i = 0; i < (MR); ++i)                                                                                 \
      for (int v = 0; v < (NV); ++v) acc[i][v] = (VT){0};                                                          \
    for (int l = 0; l < kc; ++l) { /* acc += Ap(:, l) Bp(l, :) */                                                  \
      const VT *b = (const VT *)(Bp + (cis_int)l * (VL) * (NV));                                                   \
      const double *a = Ap + (cis_int)l * (MR);                                                                    \
      for (int i = 0; i < (MR); ++i)                                                                               \
        for (int v = 0; v < (NV); ++v) acc[i][v] += b[v] * a[i];                                                   \
    }                                                                                                              \
    if (mr == (MR) && nr == (VL) * (NV)) {                                                                         \
      for (int i = 0; i < (MR); ++i)                                                                               \
        for (int v = 0; v < (NV); ++v) {                                                                           \
          VT##_u *c = (VT##_u *)(C + (cis_int)i * ldc + v * (VL));                                                  \
          *c = accumulate ? *c + acc[i][v] : acc[i][v];                                                            \
        }                                                                                                          \
      return;                                                                                                      \
    }                                                                                                              \
    _Alignas(64) double t[(MR) * (VL) * (NV)];                                                                     \
    for (int i = 0; i < (MR); ++i)                                                                                 \
      for (int v = 0; v < (NV); ++v) *(VT *)(t + i * (VL) * (NV) + v * (VL)) = acc[i][v];                          \
    for (int i = 0; i < mr; ++i)                                                                                   \
      for (int j = 0; j < nr; ++j) {                                                                               \
        double *c = C + (cis_int)i * ldc + j;                                                                      \
        *c = accumulate ? *c + t[i * (VL) * (NV) + j] : t[i * (VL) * (NV) + j];                                    \
      }                                                                                                            \
  }

/* SSE2 (every x86-64) or the base vector unit elsewhere: 4 x 4. */
OWN_MICRO_KERNEL(kernel_base, , v2d, 2, 4, 2)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OWN_GEMM_X86 1
/* AVX2 + FMA (16 ymm): 6 x 8, 12 accumulators. */
OWN_MICRO_KERNEL(kernel_avx2, __attribute__((target("avx2,fma"))), v4d, 4, 6, 2)
/* AVX-512 (32 zmm): 8 x 24, 24 accumulators. */
OWN_MICRO_KERNEL(kernel_avx512, __attribute__((target("avx512f,fma"))), v8d, 8, 8, 3)
#endif

typedef struct { micro_kernel fn; int mr, nr; const char *name; } kernel_info;

static const kernel_info kernels[CI_GEMM_OWN_KERNELS] = {
    {kernel_base, 4, 4, "generic"},
#ifdef OWN_GEMM_X86
    {kernel_avx2, 6, 8, "avx2"},
    {kernel_avx512, 8, 24, "avx512"},
#else
    {NULL, 0, 0, "avx2"},
    {NULL, 0, 0, "avx512"},
#endif
};

static int chosen = -1; /* index into kernels; -1: not chosen yet */

int ci_gemm_own_supported(int kernel) {
  if (kernel < 0 || kernel >= CI_GEMM_OWN_KERNELS || !kernels[kernel].fn) return 0;
#ifdef OWN_GEMM_X86
  __builtin_cpu_init();
  if (kernel == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (kernel == 2) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#endif
  return 1;
}

int ci_gemm_own_kernel(void) {
  if (chosen < 0) {
    int best = 0;
    for (int k = 1; k < CI_GEMM_OWN_KERNELS; ++k)
      if (ci_gemm_own_supported(k)) best = k;
    chosen = best; /* the same value from any thread that races here */
  }
  return chosen;
}

int ci_gemm_own_set_kernel(int kernel) {
  if (!ci_gemm_own_supported(kernel)) return 0;
  chosen = kernel;
  return 1;
}

const char *ci_gemm_own_kernel_name(void) { return kernels[ci_gemm_own_kernel()].name; }

/* Ap: rows i0 .. i0+mc of A (columns p0 .. p0+kc) as MR-row micro-panels,
 * each kc x MR (column l: MR consecutive doubles), zero past row mc. */
static void pack_a(const double *A, cis_int lda, cis_int i0, int mc, cis_int p0, int kc, int mr, double *Ap) {
  for (int ir = 0; ir < mc; ir += mr) {
    double *panel = Ap + (cis_int)ir * kc;
    const int rows = mc - ir < mr ? mc - ir : mr;
    for (int l = 0; l < kc; ++l)
      for (int i = 0; i < mr; ++i) panel[l * mr + i] = i < rows ? A[(i0 + ir + i) * lda + p0 + l] : 0.0;
  }
}

/* Bp: op(B)(p0 .. p0+kc, j0 .. j0+nr) as kc rows of NR, zero past column nr;
 * op(B)(l, j) = B[l ldb + j], or B[j ldb + l] when transposed. */
static void pack_b(const double *B, cis_int ldb, int transb, cis_int p0, int kc, cis_int j0, int nr, int NR,
                   double *Bp) {
  for (int l = 0; l < kc; ++l) {
    double *row = Bp + (cis_int)l * NR;
    if (!transb) {
      const double *b = B + (p0 + l) * ldb + j0;
      for (int j = 0; j < nr; ++j) row[j] = b[j];
    } else {
      for (int j = 0; j < nr; ++j) row[j] = B[(j0 + j) * ldb + p0 + l];
    }
    for (int j = nr; j < NR; ++j) row[j] = 0.0;
  }
}

/* Column panels jp0 .. jp1 (NR wide) of the block: each packs its B micro-panel
 * and runs the micro-kernel down the packed rows of A. */
static void panel_range(const kernel_info *K, cis_int jp0, cis_int jp1, cis_int n, const double *Ap, int mc,
                        const double *B, cis_int ldb, int transb, cis_int p0, int kc, double *C, cis_int ldc,
                        int accumulate) {
  _Alignas(64) double Bp[KC * NR_MAX];
  for (cis_int jp = jp0; jp < jp1; ++jp) {
    const cis_int j0 = jp * K->nr;
    const int nr = n - j0 < K->nr ? (int)(n - j0) : K->nr;
    pack_b(B, ldb, transb, p0, kc, j0, nr, K->nr, Bp);
    for (int ir = 0; ir < mc; ir += K->mr)
      K->fn(kc, Ap + (cis_int)ir * kc, Bp, C + (cis_int)ir * ldc + j0, ldc, mc - ir < K->mr ? mc - ir : K->mr, nr,
            accumulate);
  }
}

void ci_gemm_own(int transb, cis_int m, cis_int n, cis_int k, const double *A, cis_int lda, const double *B,
                 cis_int ldb, int accumulate, double *C, cis_int ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (cis_int i = 0; i < m; ++i) memset(C + i * ldc, 0, (size_t)n * sizeof(double));
    return;
  }
  const kernel_info *K = &kernels[ci_gemm_own_kernel()];
  const cis_int npanel = (n + K->nr - 1) / K->nr;
  /* fan out only outside a parallel region and for enough work */
  const int threads = omp_in_parallel() || npanel < 2 ? 1 : cis_threads_for((int64_t)(2.0 * m * n * k), PAR_FLOPS);
  _Alignas(64) double Ap[MC * KC];
  for (cis_int p0 = 0; p0 < k; p0 += KC) {
    const int kc = k - p0 < KC ? (int)(k - p0) : KC;
    const int acc = accumulate || p0 > 0;
    for (cis_int i0 = 0; i0 < m; i0 += MC) {
      const int mc = m - i0 < MC ? (int)(m - i0) : MC;
      pack_a(A, lda, i0, mc, p0, kc, K->mr, Ap);
      double *Cb = C + i0 * ldc;
      if (threads < 2) {
        panel_range(K, 0, npanel, n, Ap, mc, B, ldb, transb, p0, kc, Cb, ldc, acc);
        continue;
      }
#pragma omp parallel num_threads(threads)
      {
        const cis_int t = omp_get_thread_num(), T = omp_get_num_threads();
        panel_range(K, npanel * t / T, npanel * (t + 1) / T, n, Ap, mc, B, ldb, transb, p0, kc, Cb, ldc, acc);
      }
    }
  }
}
