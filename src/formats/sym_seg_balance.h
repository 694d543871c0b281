/* sym_seg_balance.h: sym-seg's piece order for the GPU kernel's shared-memory
 * banks, one source for the host layout (sym_seg.c) and the device one
 * (src/kernels/sym_seg_build.cu), so that both lay out the same bytes.
 *
 * Piece q0's entries reordered inside each lane's runs of one segment (the
 * GPU kernel's lane l takes entries l*E ... l*E+E-1 of a piece, E =
 * CIS_SYM_SEG_PIECE / 32, and the 32 lanes read x_r and add to the window at
 * row r of their entry k together, step k): step by step, each lane takes
 * from the rest of its run the entry whose row is least used in the step so
 * far by shared-memory bank (r mod 16 for x_r's 8 bytes, r mod 32 for the
 * window's 4-byte words). Random rows put ~6 of the 32 lanes' 8-byte reads
 * in one bank pair (Nsight Compute, H2O FCI: 6.05 wavefronts per read
 * against 2, the kernel bound by the L1/shared pipe); a segment's order is
 * free (its terms go to distinct rows, its mirror sum commutes), its head
 * stays on its first position. Padding never moves. */
#ifndef CISPARSE_SYM_SEG_BALANCE_H
#define CISPARSE_SYM_SEG_BALANCE_H

#include <stddef.h>
#include <stdint.h>
#include "formats/sym_seg.h"

#ifdef __CUDACC__
#define CIS_SYM_SEG_HD __host__ __device__
#else
#define CIS_SYM_SEG_HD
#endif

/* One piece: lr[0 .. CIS_SYM_SEG_PIECE) and its values (vs bytes each). */
static inline CIS_SYM_SEG_HD void cis_sym_seg_piece_balance(uint16_t *lr, char *val, size_t vs) {
  enum { E = CIS_SYM_SEG_PIECE / 32 };
  for (int k = 0; k < E; ++k) {
    unsigned char use16[16] = {0}, use32[32] = {0};
    for (int l = 0; l < 32; ++l) {
      const int q = l * E + k, last = l * E + E - 1;
      if (lr[q] == CIS_SYM_SEG_PAD) continue;
      int best = q, cost = 1 << 30;
      for (int m = q; m <= last && (m == q || (!(lr[m] & CIS_SYM_SEG_HEAD) && lr[m] != CIS_SYM_SEG_PAD)); ++m) {
        const unsigned r = lr[m] & CIS_SYM_SEG_PAD;
        const int c = 2 * use16[r & 15u] + use32[r & 31u];
        if (c < cost) cost = c, best = m;
      }
      const unsigned rb = lr[best] & CIS_SYM_SEG_PAD;
      if (best != q) {
        lr[best] = (uint16_t)(lr[q] & CIS_SYM_SEG_PAD);
        lr[q] = (uint16_t)((lr[q] & CIS_SYM_SEG_HEAD) | rb);
        char *a = val + (size_t)q * vs, *b = val + (size_t)best * vs;
        for (size_t t = 0; t < vs; ++t) {
          const char c = a[t];
          a[t] = b[t];
          b[t] = c;
        }
      }
      use16[rb & 15u]++, use32[rb & 31u]++;
    }
  }
}

#endif
