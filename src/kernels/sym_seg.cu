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
//  - a software pipeline over the warp's pieces: the next piece's entries,
//    its first 64 segment columns and their x_j are loaded during this
//    piece, the piece table one piece further ahead (without it, 30% of
//    the warps' stalls were these dependent loads: Nsight Compute, H2O FCI);
//  - the piece's segments are staged in the warp's slice of shared memory,
//    slot t by lane t % 32: column and scaled x_j, read once per piece;
//  - forward terms a x_j go to the window in 64-bit fixed point
//    (fixed_point.cuh: two native 32-bit shared atomics per entry, no
//    compare-and-swap loop; the scale from the block's bound times max|x|);
//    the builder orders each piece for the window's and x_I's banks;
//  - mirror terms a x_i are summed per segment along the lane (a running
//    sum: a segment that begins and ends in the lane leaves its sum in its
//    slot at once), the lane's first and last parts by a segmented warp
//    scan (Sengupta, Harris, Zhang, Owens, Graphics Hardware 2007); the
//    lane owning each slot sends the sum on: one update of y_j per segment
//    and piece, not one per entry as in csr-sym (Gkountouvas et al. IPDPS
//    2013); columns inside the block go to the window (fixed point) too.
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
// of SEG_E), streamed; the codes stay packed two to a word (seg_code).
__device__ __forceinline__ void seg_load(const double *__restrict__ v, const uint16_t *__restrict__ lr, int64_t q,
                                         double (&a)[SEG_E], unsigned (&cw)[SEG_E / 2]) {
#pragma unroll
  for (int h = 0; h < SEG_E; h += 4) {
    const double2 p0 = __ldcs((const double2 *)(v + q + h)), p1 = __ldcs((const double2 *)(v + q + h) + 1);
    const uint2 c = __ldcs((const uint2 *)(lr + q + h));
    a[h] = p0.x, a[h + 1] = p0.y, a[h + 2] = p1.x, a[h + 3] = p1.y;
    cw[h / 2] = c.x, cw[h / 2 + 1] = c.y;
  }
}
__device__ __forceinline__ void seg_load(const float *__restrict__ v, const uint16_t *__restrict__ lr, int64_t q,
                                         float (&a)[SEG_E], unsigned (&cw)[SEG_E / 2]) {
#pragma unroll
  for (int h = 0; h < SEG_E; h += 4) {
    const float4 p = __ldcs((const float4 *)(v + q + h));
    const uint2 c = __ldcs((const uint2 *)(lr + q + h));
    a[h] = p.x, a[h + 1] = p.y, a[h + 2] = p.z, a[h + 3] = p.w;
    cw[h / 2] = c.x, cw[h / 2 + 1] = c.y;
  }
}
// Row code k of a lane's packed codes.
__device__ __forceinline__ unsigned seg_code(const unsigned (&cw)[SEG_E / 2], int k) {
  return (cw[k >> 1] >> ((k & 1) * 16)) & 0xFFFFu;
}

// The columns of a piece's segment slots lane and lane + 32 (the piece's
// slots count from its open segment s0 = heads before it - 1), 0 outside
// the table: the staging of most pieces needs no other.
__device__ __forceinline__ void seg_cols(const cis_sym_seg_dev &d, int64_t s0, int lane, cis_idx &c0, cis_idx &c1) {
  const int64_t i0 = s0 + lane, i1 = i0 + 32;
  c0 = i0 >= 0 && i0 < d.segments ? __ldg(d.segcol + i0) : 0;
  c1 = i1 >= 0 && i1 < d.segments ? __ldg(d.segcol + i1) : 0;
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
  const unsigned FULL = 0xFFFFFFFFu, below = (1u << lane) - 1u;
  const T *__restrict__ val = (const T *)d.val;
  const int64_t pend = d.chunk_piece[blockIdx.x + 1];
  /* Software pipeline (each warp's pieces p, p + warps, ...): a piece's
   * entries, its segment columns for slots < 64 and their x_j are in
   * flight during the piece before it, the piece table one more ahead; the
   * dependent chain piece table -> columns -> x_j -> entries never stalls a
   * piece of its own. */
  /* s0: the piece's open segment; h_next: heads before the next piece (its
   * s0 + 1, kept as loaded: a subtraction at the load would wait for it) */
  int64_t p = d.chunk_piece[blockIdx.x] + (threadIdx.x >> 5), s0 = 0, h_next = 0;
  T a[SEG_E];
  unsigned cw[SEG_E / 2];
  cis_idx c0 = 0, c1 = 0;
  double x0 = 0, x1 = 0;
  if (p < pend) {
    seg_load(val, d.lr, p * CIS_SYM_SEG_PIECE + lane * SEG_E, a, cw);
    s0 = __ldg(d.piece_heads + p) - 1;
    seg_cols(d, s0, lane, c0, c1);
    if (p + warps < pend) h_next = __ldg(d.piece_heads + p + warps);
  }
  for (int w = threadIdx.x; w < d.R; w += blockDim.x) {
    lo[w] = 0u;
    hi[w] = 0;
    xs[w] = w < rows_in ? x[I0 + w] : T(0);
  }
  if (p < pend) x0 = (double)__ldg(x + c0), x1 = (double)__ldg(x + c1);
  __syncthreads();
  for (; p < pend; p += warps) {
    const int64_t pn = p + warps;
    const int64_t h_after = pn + warps < pend ? __ldg(d.piece_heads + pn + warps) : 0;
    cis_idx c0n = 0, c1n = 0;
    if (pn < pend) seg_cols(d, h_next - 1, lane, c0n, c1n);
    unsigned hb = 0, before = 0; /* my heads (bit k: entry k), heads in the lanes below */
#pragma unroll
    for (int k = 0; k < SEG_E; ++k) {
      const bool h = seg_code(cw, k) & CIS_SYM_SEG_HEAD;
      hb |= (unsigned)h << k;
      before += __popc(__ballot_sync(FULL, h) & below);
    }
    /* Entry k is in the piece's segment slot ls (0 ... total; 0 = the
     * segment open when the piece starts, s0, absent when the piece starts
     * with a head). Slot t is staged by lane t % 32. */
    const int total = __shfl_sync(FULL, (int)(before + __popc(hb)), 31);
    const int first = __shfl_sync(FULL, (int)(hb & 1u), 0);
    for (int t = lane; t <= total; t += 32) {
      if (t < first) continue;
      cis_idx c = t < 32 ? c0 : c1;
      double xj = t < 32 ? x0 : x1;
      if (t >= 64) c = __ldg(d.segcol + s0 + t), xj = (double)__ldg(x + c);
      sc[t] = c;
      sx[t] = xj * scale;
    }
    __syncwarp();
    /* Forward terms to the window; mirror terms summed along the lane: a
     * segment that begins and ends in the lane (only this lane reads its
     * slot) leaves its sum in its slot at once; the part before the lane's
     * first head (pre) and the open part at its end (run) wait for the
     * scan. */
    T run = T(0), pre = T(0);
    int ls = (int)before;
    double xj = 0.0; /* the segment's x_j * scale, read where it begins (only those lanes take part) */
#pragma unroll
    for (int k = 0; k < SEG_E; ++k) {
      const unsigned hk = (hb >> k) & 1u, code = seg_code(cw, k);
      if (hk) {
        if (hb & ((1u << k) - 1u)) sx[ls] = (double)run;
        else pre = run;
      }
      ls += hk;
      if (k == 0 || hk) xj = sx[ls];
      const bool pad = code == CIS_SYM_SEG_PAD;
      const int r = pad ? 0 : (int)(code & CIS_SYM_SEG_PAD);
      if (!pad) cis_fx_add_shared(lo + r, hi + r, __double2ll_rn((double)a[k] * xj));
      const T m = pad ? T(0) : a[k] * xs[r];
      run = hk ? m : run + m;
    }
    /* The next piece's entries and x_j, in flight during the scan and the
     * sends below; the columns of the piece after it fetched into L2 (its
     * piece-table entry has come by now; from DRAM, the columns' load took
     * longer than a piece: 13% of the stalls, Nsight Compute). */
    if (pn + warps < pend && (uint64_t)(h_after - 1 + lane) < (uint64_t)d.segments)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(d.segcol + (h_after - 1 + lane)));
    double x0n = 0, x1n = 0;
    if (pn < pend) {
      seg_load(val, d.lr, pn * CIS_SYM_SEG_PIECE + lane * SEG_E, a, cw);
      x0n = (double)__ldg(x + c0n);
      x1n = (double)__ldg(x + c1n);
    }
    /* Segmented inclusive scan over the lanes of the open segment's sum at
     * the end of each lane (restarting at a lane that holds a head). */
    T v = run;
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
    const unsigned next_head = __shfl_down_sync(FULL, hb & 1u, 1); /* (every lane takes part) */
    const bool ends = lane == 31 || next_head;                          /* the open part ends with the lane */
    __syncwarp(); /* every x_j read: the shared slots take their sums */
    if (hb) {
      if (!(hb & 1u)) sx[before] = (double)(pre + carry);
      if (ends) sx[ls] = (double)run;
    } else if (ends) {
      sx[before] = (double)v;
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
    s0 = h_next - 1;
    h_next = h_after;
    c0 = c0n, c1 = c1n;
    x0 = x0n, x1 = x1n;
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
