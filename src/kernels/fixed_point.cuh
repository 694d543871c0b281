// fixed_point.cuh: sums in 64-bit fixed point for the symmetric kernels
// (csr_sym.cu: csr-sym-det; sym_seg.cu: sym-seg's shared-memory window).
// A term t is rounded to the integer t * 2^f and added with an integer
// atomic: integer addition is associative, so the sum does not depend on
// the order of the additions, and sm_90 adds 32-bit integers in shared
// memory natively (ATOMS.ADD) where a double needs a compare-and-swap loop.
// f comes from a bound B on the sum of |t| (B = C * max|x|, C a bound on the
// absolute sums of the matrix, max|x| found per product): |sum| * 2^f <=
// 2^62, so each term's rounding error is at most 2^-63 B, far below a
// double's rounding of a sum of that size.
#ifndef CISPARSE_FIXED_POINT_CUH
#define CISPARSE_FIXED_POINT_CUH

#include <math.h>
#include <stdint.h>

// The scale 2^f for the bound B = c * bits-of(xmax_bits); 0 when c, max|x|
// or B is not finite (a NaN or Inf in x or in the matrix: fixed point has
// none, the caller makes its output NaN).
__device__ __forceinline__ double cis_fx_scale(double c, unsigned long long xmax_bits) {
  const double xm = __longlong_as_double((long long)xmax_bits), b = c * xm;
  if (!isfinite(b) || !isfinite(c) || !isfinite(xm)) return 0.0;
  if (b == 0.0) return 1.0;
  int f = 62 - (ilogb(b) + 1); /* b < 2^(ilogb(b)+1) */
  if (f > 1000) f = 1000;
  return ldexp(1.0, f);
}

// *w = 0 (before cis_fx_absmax).
static __global__ void cis_fx_zero_word(unsigned long long *w) { *w = 0; }

// *out = max over i of |v_i| as the bits of a non-negative double (their
// unsigned order is the numeric order; a NaN's bits exceed Inf's, so a NaN
// wins); *out must start at 0.
template <typename T>
__global__ void cis_fx_absmax(int64_t n, const T *__restrict__ v, unsigned long long *out) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  unsigned long long m = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(fabs((double)v[i]));
    m = b > m ? b : m;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long u = __shfl_xor_sync(0xffffffffu, m, o);
    m = u > m ? u : m;
  }
  if ((threadIdx.x & 31) == 0 && m) atomicMax(out, m);
}

// v added to the 64-bit integer (hi, lo) in shared memory with two native
// 32-bit atomics: lo first, its carry into hi with the high word. The sum
// is exact modulo 2^64, so any order gives the same bits.
__device__ __forceinline__ void cis_fx_add_shared(unsigned *lo, int *hi, long long v) {
  const unsigned l = (unsigned)v;
  const unsigned old = atomicAdd(lo, l);
  const int h = (int)(v >> 32) + (int)(old + l < old);
  if (h) atomicAdd(hi, h);
}

// The 64-bit integer held as (hi, lo).
__device__ __forceinline__ long long cis_fx_join(int hi, unsigned lo) {
  return (long long)(((unsigned long long)(unsigned)hi << 32) | lo);
}

#endif
