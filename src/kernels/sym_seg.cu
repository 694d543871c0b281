// sym_seg.cu: y = alpha*A*x + beta*y for a symmetric A in the sym-seg
// layout (src/formats/sym_seg.h): the diagonal, and the strict upper
// triangle cut into blocks of R rows whose entries are sorted by column into
// segments. Every stored entry a = A(i, j), i < j, is read once and used
// twice (Buluc, Fineman, Frigo, Gilbert, Leiserson, SPAA 2009, symmetric
// case): the forward term a x_j goes to y_i, the mirror term a x_i to y_j.
//
// One thread block per chunk (a run of pieces of one block row): the block's
// x_I (R values) is staged in shared memory and its y_I gathered in a
// shared-memory window of R values, so the forward terms and x_i never
// touch global memory. A warp takes a piece of 128 entries, 4 consecutive
// per lane (16-byte loads, streamed), branch-free:
//  - the piece's segment columns and their x_j are read once, one segment
//    per lane, and handed to the entries by warp shuffles;
//  - forward terms a x_j go to the window in 64-bit fixed point
//    (fixed_point.cuh: two native 32-bit shared atomics per entry, no
//    compare-and-swap loop; the scale from the block's bound times max|x|);
//  - mirror terms a x_i are summed per segment, inside the lane and then by
//    a segmented warp scan (Sengupta, Harris, Zhang, Owens, Graphics
//    Hardware 2007), so a segment reaches y_j by one atomic per piece it
//    spans, not one per entry as in csr-sym (Gkountouvas et al. IPDPS 2013);
//    columns inside the block go to the window (fixed point) too.
// At the end the window is added to y (one atomic per row of the block).
// Passes before the chunks find max|x| and set y = beta*y + alpha*diag.*x.
// The window's sums do not depend on the order of the additions; the
// mirror updates of y outside the block are floating atomics, so the last
// bits of y can vary run to run (csr-sym-det is the deterministic symmetric
// kernel). A NaN or Inf in x makes every y NaN, one in a block's values that
// block's rows (fixed point has none).
#include <stdint.h>
#include "formats/sym_seg.h"
#include "kernels/fixed_point.cuh"
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

// The 4 values of entries q ... q+3 (q a multiple of 4), streamed.
__device__ __forceinline__ void seg_load(const double *__restrict__ v, int64_t q, double (&a)[4]) {
  const double2 p0 = __ldcs((const double2 *)(v + q)), p1 = __ldcs((const double2 *)(v + q) + 1);
  a[0] = p0.x; a[1] = p0.y; a[2] = p1.x; a[3] = p1.y;
}
__device__ __forceinline__ void seg_load(const float *__restrict__ v, int64_t q, float (&a)[4]) {
  const float4 p = __ldcs((const float4 *)(v + q));
  a[0] = p.x; a[1] = p.y; a[2] = p.z; a[3] = p.w;
}

// A segment's (partial) mirror sum s to y_j: into the window (fixed point,
// scale) when j is a row of this block (j > i >= I0), else to y (scaled by
// alpha).
template <typename T>
__device__ __forceinline__ void seg_emit(cis_idx j, T s, int64_t I0, int R, unsigned *lo, int *hi, double scale,
                                         T *y, T alpha) {
  const int64_t off = (int64_t)j - I0;
  if (off < R) cis_fx_add_shared(lo + off, hi + off, __double2ll_rn((double)s * scale));
  else atomicAdd(y + j, alpha * s);
}

// y = beta*y + alpha*diag.*x (beta == 0: a NaN in y does not propagate); all
// of y NaN when max|x| is not finite.
template <typename T>
__global__ void sym_seg_diag(int64_t n, const T *__restrict__ diag, const T *__restrict__ x, T alpha, T beta,
                             const unsigned long long *__restrict__ xmax, T *y) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const bool finite = isfinite(__longlong_as_double((long long)*xmax));
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = finite ? (beta == T(0) ? T(0) : beta * y[i]) + alpha * (diag[i] * x[i]) : T(NAN);
}

template <typename T>
__global__ void __launch_bounds__(1024) sym_seg_tk(cis_sym_seg_dev d, T alpha, const T *__restrict__ x, T *y) {
  extern __shared__ unsigned char seg_smem[];
  unsigned *lo = (unsigned *)seg_smem;
  int *hi = (int *)(lo + d.R);
  T *xs = (T *)(hi + d.R);
  const int b = d.chunk_block[blockIdx.x];
  const int64_t I0 = (int64_t)b * d.R;
  const int rows_in = (int)min((int64_t)d.R, d.n - I0);
  const double scale = cis_fx_scale(d.block_bound[b], *d.xmax);
  for (int w = threadIdx.x; w < d.R; w += blockDim.x) {
    lo[w] = 0u;
    hi[w] = 0;
    xs[w] = w < rows_in ? x[I0 + w] : T(0);
  }
  __syncthreads();
  const unsigned FULL = 0xFFFFFFFFu;
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  const T *__restrict__ val = (const T *)d.val;
  const int64_t pend = d.chunk_piece[blockIdx.x + 1];
  for (int64_t p = d.chunk_piece[blockIdx.x] + (threadIdx.x >> 5); p < pend; p += warps) {
    const int64_t q0 = p * CIS_SYM_SEG_PIECE + lane * 4;
    const uint2 c2 = __ldcs((const uint2 *)(d.lr + q0));
    T a[4];
    seg_load(val, q0, a);
    const unsigned code[4] = {c2.x & 0xFFFFu, c2.x >> 16, c2.y & 0xFFFFu, c2.y >> 16};
    unsigned hb = 0, before = 0; /* my heads (bit k: entry k), heads in the lanes below */
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const bool h = code[k] & CIS_SYM_SEG_HEAD;
      hb |= (unsigned)h << k;
      before += __popc(__ballot_sync(FULL, h) & below);
    }
    /* Entry k is in segment S0 + ls[k] of the piece's total + 1 (S0: the
     * segment open when the piece starts). */
    const int total = __shfl_sync(FULL, (int)(before + __popc(hb)), 31);
    const int64_t S0 = __ldg(d.piece_heads + p) - 1;
    int ls[4];
#pragma unroll
    for (int k = 0, c = (int)before; k < 4; ++k) ls[k] = c += (hb >> k) & 1u;
    /* The segments' columns and scaled x_j, 32 at a time, one per lane. */
    cis_idx jc[4] = {0, 0, 0, 0};
    double xj[4] = {0.0, 0.0, 0.0, 0.0};
    for (int w0 = 0; w0 <= total; w0 += 32) {
      const int t = w0 + lane;
      cis_idx c = 0;
      double xv = 0.0;
      if (t <= total && S0 + t >= 0) {
        c = __ldg(d.segcol + S0 + t);
        xv = (double)__ldg(x + c) * scale;
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int src = ls[k] - w0;
        const double v = __shfl_sync(FULL, xv, src & 31);
        const cis_idx cv = __shfl_sync(FULL, c, src & 31);
        if ((unsigned)src < 32u) xj[k] = v, jc[k] = cv;
      }
    }
    /* Forward terms to the window; mirror terms summed in the lane. */
    T s[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const bool pad = code[k] == CIS_SYM_SEG_PAD;
      const int r = pad ? 0 : (int)(code[k] & CIS_SYM_SEG_PAD);
      if (!pad) cis_fx_add_shared(lo + r, hi + r, __double2ll_rn((double)a[k] * xj[k]));
      const T m = pad ? T(0) : a[k] * xs[r];
      s[k] = k > 0 && !((hb >> k) & 1u) ? s[k > 0 ? k - 1 : 0] + m : m;
    }
    /* Segmented inclusive scan over the lanes of the open segment's sum at
     * the end of each lane (restarting at a lane that holds a head). */
    T v = s[3];
    int f = hb != 0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T t = __shfl_up_sync(FULL, v, o);
      const int tf = __shfl_up_sync(FULL, f, o);
      if (lane >= o) {
        if (!f) v += t;
        f |= tf;
      }
    }
    T carry = __shfl_up_sync(FULL, v, 1); /* the segment open from the lanes below */
    if (lane == 0) carry = T(0);
    const unsigned next_head = __shfl_down_sync(FULL, hb & 1u, 1);
    /* A segment's sum leaves at its last entry in the piece: before a head,
     * or at the piece's end. */
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const bool end = k < 3 ? (hb >> (k + 1)) & 1u : (lane == 31 || next_head);
      if (end) seg_emit(jc[k], s[k] + ((hb & ((2u << k) - 1u)) ? T(0) : carry), I0, d.R, lo, hi, scale, y, alpha);
    }
  }
  __syncthreads();
  for (int w = threadIdx.x; w < rows_in; w += blockDim.x) {
    const long long v = cis_fx_join(hi[w], lo[w]);
    if (scale == 0.0) y[I0 + w] = T(NAN);
    else if (v != 0) atomicAdd(y + I0 + w, alpha * (T)((double)v / scale));
  }
}

// Shared memory of a block of R rows: the window (R 64-bit integers) and x_I.
template <typename T>
static size_t seg_smem_bytes(cis_int R) {
  return (size_t)R * (8 + sizeof(T));
}

template <typename T>
static cis_status launch_seg(const cis_sym_seg_dev *d, double alpha, const void *x, double beta, void *y,
                             int threads, cudaStream_t s) {
  unsigned vgrid = cis_blocks_for(d->n, 256);
  if (vgrid > 4096) vgrid = 4096;
  cis_fx_zero_word<<<1, 1, 0, s>>>(d->xmax);
  cis_fx_absmax<T><<<vgrid, 256, 0, s>>>(d->n, (const T *)x, d->xmax);
  CIS_CUDA_LAUNCH_CHECK("sym-seg max|x|");
  sym_seg_diag<T><<<vgrid, 256, 0, s>>>(d->n, (const T *)d->diag, (const T *)x, (T)alpha, (T)beta, d->xmax,
                                        (T *)y);
  CIS_CUDA_LAUNCH_CHECK("sym-seg diagonal");
  if (d->chunks == 0) return CIS_OK;
  sym_seg_tk<T><<<(unsigned)d->chunks, threads, seg_smem_bytes<T>(d->R), s>>>(*d, (T)alpha, (const T *)x, (T *)y);
  CIS_CUDA_LAUNCH_CHECK("sym-seg");
  return CIS_OK;
}

extern "C" cis_status cis_launch_sym_seg(const cis_sym_seg_dev *d, double alpha, const void *x, double beta,
                                         void *y, int block, cudaStream_t s) {
  CIS_BLOCK_OR(block, 1024, 32, "sym-seg");
  if (d->n == 0) return CIS_OK;
  CIS_DISPATCH_REAL(d->t, { return launch_seg<REAL>(d, alpha, x, beta, y, threads_, s); });
  return CIS_OK;
}

extern "C" cis_status cis_sym_seg_slots(cis_dtype t, cis_int R, int block, int *slots) {
  int dev = 0, sms = 0, per_sm = 0;
  const int threads = block > 0 ? block : 1024;
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CIS_DISPATCH_REAL(t, { /* windows above the 48 KiB default: set once, here, on the plan's device */
    const cis_int most = CIS_SYM_SEG_WINDOW_BYTES / (cis_int)sizeof(REAL);
    CIS_CUDA_CHECK(cudaFuncSetAttribute(sym_seg_tk<REAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)seg_smem_bytes<REAL>(most)));
    CIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sym_seg_tk<REAL>, threads,
                                                                 seg_smem_bytes<REAL>(R)));
  });
  *slots = sms * (per_sm > 0 ? per_sm : 1);
  return CIS_OK;
}
