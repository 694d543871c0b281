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
// touch global memory. A warp takes a piece of CIS_SYM_SEG_PIECE entries,
// SEG_E consecutive per lane (streamed), with few branches:
//  - the piece's segments are staged in the warp's slice of shared memory,
//    one per lane: column and scaled x_j, read once per piece;
//  - forward terms a x_j go to the window in 64-bit fixed point
//    (fixed_point.cuh: two native 32-bit shared atomics per entry, no
//    compare-and-swap loop; the scale from the block's bound times max|x|);
//  - mirror terms a x_i are summed per segment, inside the lane and then by
//    a segmented warp scan (Sengupta, Harris, Zhang, Owens, Graphics
//    Hardware 2007); each segment's sum is left in the staging slot and the
//    lane owning the segment sends it on: one update of y_j per segment and
//    piece, not one per entry as in csr-sym (Gkountouvas et al. IPDPS 2013);
//    columns inside the block go to the window (fixed point) too.
// At the end the window is added to y (one atomic per row of the block).
// Passes before the chunks find max|x| and set y = beta*y + alpha*diag.*x.
// The window's sums do not depend on the order of the additions; the
// mirror updates of y outside the block are floating atomics, so the last
// bits of y can vary run to run (csr-sym-det is the deterministic symmetric
// kernel). Fixed point makes the window's error at most about 2^-63 * n
// * B, B the block's bound times max|x|: small against each row's size when
// the rows of a block are alike in size, as in a CI Hamiltonian. A NaN or
// Inf in x makes every y NaN, one in a block's values that block's rows.
#include <stdint.h>
#include "formats/sym_seg.h"
#include "kernels/fixed_point.cuh"
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

#define SEG_E (CIS_SYM_SEG_PIECE / 32) /* entries per lane */
static_assert(SEG_E % 4 == 0, "sym-seg: a piece is 32 lanes of a multiple of 4 entries");

// The SEG_E values and row codes of entries q ... q+SEG_E-1 (q a multiple
// of SEG_E), streamed.
__device__ __forceinline__ void seg_load(const double *__restrict__ v, const uint16_t *__restrict__ lr, int64_t q,
                                         double (&a)[SEG_E], unsigned (&code)[SEG_E]) {
#pragma unroll
  for (int h = 0; h < SEG_E; h += 4) {
    const double2 p0 = __ldcs((const double2 *)(v + q + h)), p1 = __ldcs((const double2 *)(v + q + h) + 1);
    const uint2 c = __ldcs((const uint2 *)(lr + q + h));
    a[h] = p0.x, a[h + 1] = p0.y, a[h + 2] = p1.x, a[h + 3] = p1.y;
    code[h] = c.x & 0xFFFFu, code[h + 1] = c.x >> 16, code[h + 2] = c.y & 0xFFFFu, code[h + 3] = c.y >> 16;
  }
}
__device__ __forceinline__ void seg_load(const float *__restrict__ v, const uint16_t *__restrict__ lr, int64_t q,
                                         float (&a)[SEG_E], unsigned (&code)[SEG_E]) {
#pragma unroll
  for (int h = 0; h < SEG_E; h += 4) {
    const float4 p = __ldcs((const float4 *)(v + q + h));
    const uint2 c = __ldcs((const uint2 *)(lr + q + h));
    a[h] = p.x, a[h + 1] = p.y, a[h + 2] = p.z, a[h + 3] = p.w;
    code[h] = c.x & 0xFFFFu, code[h + 1] = c.x >> 16, code[h + 2] = c.y & 0xFFFFu, code[h + 3] = c.y >> 16;
  }
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

// A warp's staging slots: one per segment a piece can touch.
#define SEG_SLOTS (CIS_SYM_SEG_PIECE + 1)

template <typename T>
__global__ void __launch_bounds__(1024) sym_seg_tk(cis_sym_seg_dev d, T alpha, const T *__restrict__ x, T *y) {
  extern __shared__ unsigned char seg_smem[];
  unsigned *lo = (unsigned *)seg_smem;
  int *hi = (int *)(lo + d.R);
  T *xs = (T *)(hi + d.R);
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  /* this warp's slots: x_j * scale (then the segment's sum), and column */
  double *stage = (double *)(xs + d.R);
  double *sx = stage + (threadIdx.x >> 5) * SEG_SLOTS;
  cis_idx *sc = (cis_idx *)(stage + warps * SEG_SLOTS) + (threadIdx.x >> 5) * SEG_SLOTS;
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
  const unsigned FULL = 0xFFFFFFFFu, below = (1u << lane) - 1u;
  const T *__restrict__ val = (const T *)d.val;
  const int64_t pend = d.chunk_piece[blockIdx.x + 1];
  for (int64_t p = d.chunk_piece[blockIdx.x] + (threadIdx.x >> 5); p < pend; p += warps) {
    T a[SEG_E];
    unsigned code[SEG_E], hb = 0, before = 0; /* my heads (bit k: entry k), heads in the lanes below */
    seg_load(val, d.lr, p * CIS_SYM_SEG_PIECE + lane * SEG_E, a, code);
#pragma unroll
    for (int k = 0; k < SEG_E; ++k) {
      const bool h = code[k] & CIS_SYM_SEG_HEAD;
      hb |= (unsigned)h << k;
      before += __popc(__ballot_sync(FULL, h) & below);
    }
    /* Entry k is in the piece's segment ls (0 ... total; 0 = the segment
     * open when the piece starts, S0, absent when the piece starts with a
     * head). */
    const int total = __shfl_sync(FULL, (int)(before + __popc(hb)), 31);
    const int first = __shfl_sync(FULL, (int)(hb & 1u), 0);
    const int64_t S0 = __ldg(d.piece_heads + p) - 1;
    for (int t = first + lane; t <= total; t += 32) {
      const cis_idx c = __ldg(d.segcol + S0 + t);
      sc[t] = c;
      sx[t] = (double)__ldg(x + c) * scale;
    }
    __syncwarp();
    /* Forward terms to the window; mirror terms summed in the lane. */
    T s[SEG_E];
    int ls = (int)before;
#pragma unroll
    for (int k = 0; k < SEG_E; ++k) {
      ls += (hb >> k) & 1u;
      const bool pad = code[k] == CIS_SYM_SEG_PAD;
      const int r = pad ? 0 : (int)(code[k] & CIS_SYM_SEG_PAD);
      if (!pad) cis_fx_add_shared(lo + r, hi + r, __double2ll_rn((double)a[k] * sx[ls]));
      const T m = pad ? T(0) : a[k] * xs[r];
      s[k] = k > 0 && !((hb >> k) & 1u) ? s[k > 0 ? k - 1 : 0] + m : m;
    }
    /* Segmented inclusive scan over the lanes of the open segment's sum at
     * the end of each lane (restarting at a lane that holds a head). */
    T v = s[SEG_E - 1];
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
    __syncwarp(); /* every x_j read: the slots take the sums */
    /* A segment's sum is complete at its last entry in the piece: before a
     * head, or at the piece's end. */
    ls = (int)before;
#pragma unroll
    for (int k = 0; k < SEG_E; ++k) {
      ls += (hb >> k) & 1u;
      const bool end = k < SEG_E - 1 ? (hb >> (k + 1)) & 1u : (lane == 31 || next_head);
      if (end) sx[ls] = (double)(s[k] + ((hb & ((2u << k) - 1u)) ? T(0) : carry));
    }
    __syncwarp();
    /* Each segment's owner lane sends its sum to y_j: into the window (fixed
     * point) when j is a row of this block, else to y. */
    for (int t = first + lane; t <= total; t += 32) {
      const cis_idx j = sc[t];
      const int64_t off = (int64_t)j - I0;
      if (off < d.R) cis_fx_add_shared(lo + off, hi + off, __double2ll_rn(sx[t] * scale));
      else atomicAdd(y + j, alpha * (T)sx[t]);
    }
    __syncwarp(); /* the slots free for the next piece */
  }
  __syncthreads();
  for (int w = threadIdx.x; w < rows_in; w += blockDim.x) {
    const long long v = cis_fx_join(hi[w], lo[w]);
    if (scale == 0.0) y[I0 + w] = T(NAN);
    else if (v != 0) atomicAdd(y + I0 + w, alpha * (T)((double)v / scale));
  }
}

// Shared memory of a block of R rows and `threads` threads: the window (R
// 64-bit integers), x_I, and each warp's staging slots.
template <typename T>
static size_t seg_smem_bytes(cis_int R, int threads) {
  return (size_t)R * (8 + sizeof(T)) + (size_t)(threads / 32) * SEG_SLOTS * (8 + sizeof(cis_idx));
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
  sym_seg_tk<T><<<(unsigned)d->chunks, threads, seg_smem_bytes<T>(d->R, threads), s>>>(*d, (T)alpha, (const T *)x, (T *)y);
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
    const cis_int most = CIS_SYM_SEG_WINDOW_BYTES / 8;
    CIS_CUDA_CHECK(cudaFuncSetAttribute(sym_seg_tk<REAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)seg_smem_bytes<REAL>(most, 1024)));
    CIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sym_seg_tk<REAL>, threads,
                                                                 seg_smem_bytes<REAL>(R, threads)));
  });
  *slots = sms * (per_sm > 0 ? per_sm : 1);
  return CIS_OK;
}
