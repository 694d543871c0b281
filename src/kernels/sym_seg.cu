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
// per lane (16-byte loads, streamed); a lane sums its entries' mirror terms
// per segment, and the warp joins the lanes' partial sums with a segmented
// scan (Sengupta, Harris, Zhang, Owens, Graphics Hardware 2007), so a
// segment's mirror sum reaches y_j by one atomic per piece it spans, not
// one per entry as in csr-sym (Gkountouvas et al. IPDPS 2013). Columns
// inside the block go to the window too. At the end the window is added to
// y (one atomic per row of the block). A pass before the chunks sets
// y = beta*y + alpha*diag.*x. Atomics make the last bits depend on the
// order of the additions (as csr-sym; csr-sym-det is the deterministic
// symmetric kernel).
#include <stdint.h>
#include "formats/sym_seg.h"
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

// A segment's (partial) mirror sum s to y_j: into the window when j is a row
// of this block (j > i >= I0), else to y (scaled by alpha). j < 0: not yet
// read.
template <typename T>
__device__ __forceinline__ void seg_emit(const cis_idx *__restrict__ segcol, int64_t seg, cis_idx j, T s,
                                         int64_t I0, int R, T *win, T *y, T alpha) {
  if (j < 0) j = __ldg(segcol + seg);
  const int64_t off = (int64_t)j - I0;
  if (off < R) atomicAdd(win + off, s);
  else atomicAdd(y + j, alpha * s);
}

// y = beta*y + alpha*diag.*x (beta == 0: a NaN in y does not propagate).
template <typename T>
__global__ void sym_seg_diag(int64_t n, const T *__restrict__ diag, const T *__restrict__ x, T alpha, T beta,
                             T *y) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = (beta == T(0) ? T(0) : beta * y[i]) + alpha * (diag[i] * x[i]);
}

template <typename T>
__global__ void __launch_bounds__(1024) sym_seg_tk(cis_sym_seg_dev d, T alpha, const T *__restrict__ x, T *y) {
  extern __shared__ unsigned char seg_smem[];
  T *win = (T *)seg_smem, *xs = win + d.R;
  const int64_t I0 = (int64_t)d.chunk_block[blockIdx.x] * d.R;
  const int rows_in = (int)min((int64_t)d.R, d.n - I0);
  for (int w = threadIdx.x; w < d.R; w += blockDim.x) {
    win[w] = T(0);
    xs[w] = w < rows_in ? x[I0 + w] : T(0);
  }
  __syncthreads();
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
    unsigned before = 0; /* heads in the lanes below */
#pragma unroll
    for (int k = 0; k < 4; ++k) before += __popc(__ballot_sync(0xFFFFFFFFu, code[k] & CIS_SYM_SEG_HEAD) & below);
    const int64_t first_seg = __ldg(d.piece_heads + p) + before - 1; /* the segment of the entries before my first head */
    int64_t seg = first_seg;
    cis_idx j = -1, first_j = -1;
    T xj = T(0), cur = T(0), pre = T(0);
    bool any = false;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (code[k] & CIS_SYM_SEG_HEAD) {
        if (any) seg_emit(d.segcol, seg, j, cur, I0, d.R, win, y, alpha); /* a segment inside the lane */
        else pre = cur, first_j = j;
        any = true;
        cur = T(0);
        ++seg;
        j = -1;
      }
      if (code[k] == CIS_SYM_SEG_PAD) continue;
      if (j < 0) {
        j = __ldg(d.segcol + seg);
        xj = __ldg(x + j);
      }
      const int r = (int)(code[k] & CIS_SYM_SEG_PAD);
      atomicAdd(win + r, a[k] * xj);
      cur += a[k] * xs[r];
    }
    if (!any) pre = cur, first_j = j;
    /* Segmented inclusive scan over the lanes: v = the open segment's sum
     * at the end of this lane (restarting at a lane that holds a head). */
    T v = any ? cur : pre;
    int f = any;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T t = __shfl_up_sync(0xFFFFFFFFu, v, o);
      const int tf = __shfl_up_sync(0xFFFFFFFFu, f, o);
      if (lane >= o) {
        if (!f) v += t;
        f |= tf;
      }
    }
    const T left = __shfl_up_sync(0xFFFFFFFFu, v, 1);
    /* My first head closes the segment open from the lanes below. */
    if (any && (lane > 0 || !(code[0] & CIS_SYM_SEG_HEAD)))
      seg_emit(d.segcol, first_seg, first_j, (lane > 0 ? left : T(0)) + pre, I0, d.R, win, y, alpha);
    /* The last lane ends the piece: the open segment so far. */
    if (lane == 31) seg_emit(d.segcol, seg, j, v, I0, d.R, win, y, alpha);
  }
  __syncthreads();
  for (int w = threadIdx.x; w < rows_in; w += blockDim.x) {
    const T s = win[w];
    if (s != T(0)) atomicAdd(y + I0 + w, alpha * s);
  }
}

template <typename T>
static cis_status launch_seg(const cis_sym_seg_dev *d, double alpha, const void *x, double beta, void *y,
                             int threads, cudaStream_t s) {
  const size_t smem = (size_t)2 * d->R * sizeof(T);
  unsigned vgrid = cis_blocks_for(d->n, 256);
  if (vgrid > 4096) vgrid = 4096;
  sym_seg_diag<T><<<vgrid, 256, 0, s>>>(d->n, (const T *)d->diag, (const T *)x, (T)alpha, (T)beta, (T *)y);
  CIS_CUDA_LAUNCH_CHECK("sym-seg diagonal");
  if (d->chunks == 0) return CIS_OK;
  sym_seg_tk<T><<<(unsigned)d->chunks, threads, smem, s>>>(*d, (T)alpha, (const T *)x, (T *)y);
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
  CIS_DISPATCH_REAL(t, { /* x and y windows above the 48 KiB default: set once, here, on the plan's device */
    CIS_CUDA_CHECK(cudaFuncSetAttribute(sym_seg_tk<REAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        2 * CIS_SYM_SEG_WINDOW_BYTES));
    CIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sym_seg_tk<REAL>, threads,
                                                                 (size_t)2 * R * sizeof(REAL)));
  });
  *slots = sms * (per_sm > 0 ? per_sm : 1);
  return CIS_OK;
}
