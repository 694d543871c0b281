/* csb.c: Compressed Sparse Blocks (Mahmoud et al. 2018, §3.6; Buluç,
 * Fineman, Frigo, Gilbert, Leiserson, SPAA 2009, §3). The matrix is cut into
 * z x z blocks (nbr = ceil(rows/z) block rows, nbc = ceil(cols/z) block
 * columns, the last ones partial), stored in row-major block order;
 * block_ptr[b] is the first entry of block b = br*nbc + bc. Inside a block
 * the entries are in Z-Morton order: the key interleaves the bits of the
 * local row (odd bit positions) and local column (even positions), so the
 * row bit is the more significant of each pair. Local row/column (row_idx,
 * col_idx) are 16-bit. bytes = (nbr*nbc+1)*8 + nnz*(vs+2+2).
 *
 * Block size z = p->block: a power of two in [1, 65536]. When 0, z is chosen
 * near sqrt(cols) as Buluç et al. suggest: z = 2^floor(log2(cols)/2 + 1/2)
 * (the power of two nearest sqrt(cols) on a log scale), clamped to
 * [32, 65536]. A block pointer array larger than memory is refused. */
#include <math.h>
#include <stdlib.h>
#include "core/internal.h"
#include "formats/format_util.h"

#define CSB_MAX_Z 65536

static void csb_destroy(void *impl) {
  cis_fmt_csb *F = impl;
  if (!F) return;
  cis_free(F->block_ptr);
  cis_free(F->lrow);
  cis_free(F->lcol);
  cis_free(F->val);
  cis_free(F);
}

static cis_int choose_z(cis_int cols) {
  cis_int z = 32;
  if (cols > 0) {
    const int e = (int)floor(log2((double)cols) / 2.0 + 0.5);
    z = e > 16 ? CSB_MAX_Z : (cis_int)1 << (e < 0 ? 0 : e);
  }
  return z < 32 ? 32 : z;
}

static cis_status block_size(const cis_csr *A, cis_int block, cis_int *z) {
  if (block == 0) {
    *z = choose_z(A->cols);
    return CIS_OK;
  }
  if (block < 1 || block > CSB_MAX_Z || (block & (block - 1)) != 0)
    return cis_error(CIS_ERR_INVALID, "csb: block size z must be a power of two in [1, %d] (or 0 to choose), got %lld",
                     CSB_MAX_Z, (long long)block);
  *z = block;
  return CIS_OK;
}

/* Bit i of x moved to bit 2i. */
static uint32_t spread_bits(uint32_t x) {
  x = (x | (x << 8)) & 0x00FF00FFu;
  x = (x | (x << 4)) & 0x0F0F0F0Fu;
  x = (x | (x << 2)) & 0x33333333u;
  x = (x | (x << 1)) & 0x55555555u;
  return x;
}

typedef struct { uint32_t key; uint16_t lrow, lcol; int64_t src; } csb_entry;

static int by_morton_key(const void *a, const void *b) {
  const csb_entry *u = a, *v = b;
  return (u->key > v->key) - (u->key < v->key);
}

static cis_status csb_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_int z = 0, nblocks;
  int64_t *cursor = NULL;
  csb_entry *ent = NULL;
  cis_fmt_csb *F = NULL;
  CIS_TRY(block_size(A, p->block, &z));
  F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate csb format header");
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->z = z;
  F->nbr = (A->rows + z - 1) / z;
  F->nbc = (A->cols + z - 1) / z;
  CIS_TRY(cis_fmt_check_size("csb", "blocks (block rows x block columns; 16 bytes each while building)", F->nbr, F->nbc,
                             2 * (cis_int)sizeof(int64_t), &nblocks));
  CIS_TRY(cis_alloc_zeroed((void **)&F->block_ptr, nblocks + 1, sizeof(int64_t), "CSB block pointers"));
  CIS_TRY(cis_alloc_array((void **)&cursor, nblocks, sizeof(int64_t), "CSB block cursors"));
  CIS_TRY(cis_alloc_array((void **)&ent, A->nnz, sizeof *ent, "CSB sort entries"));
  CIS_TRY(cis_alloc_array((void **)&F->lrow, A->nnz, sizeof(uint16_t), "CSB row_idx"));
  CIS_TRY(cis_alloc_array((void **)&F->lcol, A->nnz, sizeof(uint16_t), "CSB col_idx"));
  CIS_TRY(cis_alloc_array(&F->val, A->nnz, cis_dtype_size(p->dtype), "CSB values"));
  /* count per block, prefix sum, scatter in row-major order, Morton-sort each block */
  for (cis_int i = 0; i < A->rows; ++i)
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
      F->block_ptr[(i / z) * F->nbc + A->colind[k] / z + 1]++;
  for (cis_int b = 0; b < nblocks; ++b) {
    F->block_ptr[b + 1] += F->block_ptr[b];
    cursor[b] = F->block_ptr[b];
  }
  for (cis_int i = 0; i < A->rows; ++i)
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      const uint16_t lr = (uint16_t)(i % z), lc = (uint16_t)(A->colind[k] % z);
      ent[cursor[(i / z) * F->nbc + A->colind[k] / z]++] =
          (csb_entry){(spread_bits(lr) << 1) | spread_bits(lc), lr, lc, k};
    }
#pragma omp parallel for schedule(dynamic, 64)
  for (cis_int b = 0; b < nblocks; ++b) {
    const int64_t lo = F->block_ptr[b], n = F->block_ptr[b + 1] - lo;
    if (n > 1) qsort(ent + lo, (size_t)n, sizeof *ent, by_morton_key);
    for (int64_t e = lo; e < lo + n; ++e) {
      F->lrow[e] = ent[e].lrow;
      F->lcol[e] = ent[e].lcol;
      cis_set(F->val, p->dtype, e, cis_get(A->val, A->dtype, ent[e].src));
    }
  }
  *impl = F;
  F = NULL;
cleanup:
  cis_free(cursor);
  cis_free(ent);
  csb_destroy(F);
  return st;
}

static cis_int csb_bytes(const void *impl) {
  const cis_fmt_csb *F = impl;
  return (F->nbr * F->nbc + 1) * (cis_int)sizeof(int64_t) +
         F->h.nnz * (cis_int)(cis_dtype_size(F->h.dtype) + 2 * sizeof(uint16_t));
}

/* One block row per task: y_i = beta*y_i, then y_i += alpha*a_ij*x_j over
 * the row's blocks (Buluç et al.'s blockrow SpMV). */
static cis_status csb_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_csb *F = impl;
  CIS_FOR_DTYPE(F->h.dtype, {
    const REAL *xv = x, *av = F->val;
    REAL *yv = y;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 1))
    for (cis_int br = 0; br < F->nbr; ++br) {
      REAL *ys = yv + br * F->z;
      const cis_int nr = F->h.rows - br * F->z < F->z ? F->h.rows - br * F->z : F->z;
      for (cis_int r = 0; r < nr; ++r) ys[r] = (beta == 0.0) ? (REAL)0 : b * ys[r];
      for (cis_int bc = 0; bc < F->nbc; ++bc) {
        const cis_int blk = br * F->nbc + bc;
        const REAL *xs = xv + bc * F->z;
        for (int64_t e = F->block_ptr[blk]; e < F->block_ptr[blk + 1]; ++e)
          ys[F->lrow[e]] += a * (av[e] * xs[F->lcol[e]]);
      }
    }
  });
  return CIS_OK;
}

static cis_status csb_dump(const void *impl, FILE *f) {
  const cis_fmt_csb *F = impl;
  fprintf(f, "# csb rows=%lld cols=%lld nnz=%lld z=%lld nbr=%lld nbc=%lld "
             "(blocks row-major, entries of a block in Z-Morton order)\n",
          (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, (long long)F->z,
          (long long)F->nbr, (long long)F->nbc);
  cis_dump_i64(f, "Block_ptr", F->block_ptr, F->nbr * F->nbc + 1);
  cis_dump_u16(f, "row_idx", F->lrow, F->h.nnz);
  cis_dump_u16(f, "col_idx", F->lcol, F->h.nnz);
  cis_dump_vals(f, "Value", F->val, F->h.dtype, F->h.nnz);
  return cis_dump_done(f, "csb");
}

const cis_format_ops cis_format_csb = {
    .name = "csb",
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.6; Buluc et al., SPAA 2009, Sec. 3",
    .build = csb_build,
    .bytes = csb_bytes,
    .spmv = csb_spmv,
    .dump = csb_dump,
    .destroy = csb_destroy,
};
