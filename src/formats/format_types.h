/* format_types.h: the array layout of every storage format, exactly as the
 * GPU kernels read it, and the ops table each format fills.
 *
 * Conventions shared by all formats:
 *  - values are `void *` of `dtype` (double or float); column indices int32;
 *  - padding slots hold column -1 and value 0 (kernels skip col < 0);
 *  - "column-major" ELLPACK storage (thread-per-row kernels): slot k of row i
 *    is at [k * ld + i]; the hybrid format is row-major (warp-per-row kernel);
 *  - per-row offsets into a nonzero array are 32-bit unsigned when the array
 *    has fewer than 2^32 entries (the paper's `unsigned int`), else 64-bit:
 *    see cis_offsets. */
#ifndef CISPARSE_FORMAT_TYPES_H
#define CISPARSE_FORMAT_TYPES_H

#include <stdint.h>
#include <stdio.h>
#include "cisparse/format.h"
#include "formats/format_list.h"

/* The format-specific struct behind M (one of the cis_fmt_* below, by
 * cis_matrix_format_name): for the GPU layer and tests (not exported). */
const void *cis_matrix_impl(const cis_matrix *M);

/* An array of offsets, 32-bit (wide == 0, u32) or 64-bit (wide == 1, i64). */
typedef struct cis_offsets {
  int wide;
  uint32_t *u32;
  int64_t *i64;
} cis_offsets;

static inline int64_t cis_off_get(const cis_offsets *o, int64_t i) {
  return o->wide ? o->i64[i] : (int64_t)o->u32[i];
}
static inline void cis_off_set(cis_offsets *o, int64_t i, int64_t v) {
  if (o->wide) o->i64[i] = v; else o->u32[i] = (uint32_t)v;
}
static inline const void *cis_off_data(const cis_offsets *o) {
  return o->wide ? (const void *)o->i64 : (const void *)o->u32;
}
/* Allocate n offsets, wide iff max_value >= 2^32. Bytes: n * (4 or 8). */
cis_status cis_offsets_alloc(cis_offsets *o, int64_t n, int64_t max_value);
void cis_offsets_free(cis_offsets *o);
static inline int64_t cis_offsets_bytes(const cis_offsets *o, int64_t n) {
  return n * (o->wide ? 8 : 4);
}

/* Common header of every format struct (first member of each). */
typedef struct cis_fmt_head {
  cis_int rows, cols, nnz; /* nnz = true nonzeros (no padding) */
  cis_dtype dtype;
} cis_fmt_head;

/* csr: Algorithm 1. bytes = nnz*(vs+4) + (rows+1)*(4|8). */
typedef struct cis_fmt_csr {
  cis_fmt_head h;
  cis_offsets rowptr; /* rows + 1 */
  cis_idx *col;       /* nnz */
  void *val;          /* nnz */
} cis_fmt_csr;

/* ell: Algorithm 2, column-major with ld = rows, width = longest row.
 * bytes = rows*width*(vs+4) (the paper's ELLPACK equation). */
typedef struct cis_fmt_ell {
  cis_fmt_head h;
  cis_int width;
  cis_idx *col; /* width * rows, col[k*rows + i], -1 = padding */
  void *val;    /* width * rows */
  cis_idx *rowlen; /* ellr only (rows): Algorithm 3's NonZerosCount; NULL for ell */
} cis_fmt_ell;

/* sell / sellr / sellcs: slices of S consecutive (sellcs: sorted) rows, each
 * slice column-major inside itself, padded to its longest row; the last slice
 * is padded to S rows. Slot k of local row r of slice s is at
 * slice_ptr[s] + k*S + r. bytes = (nslices+1)*8 + slots*(vs+4)
 *   [+ rows*4 rowlen for sellr] [+ rows*4 perm for sellcs]. */
typedef struct cis_fmt_sell {
  cis_fmt_head h;
  cis_int S;          /* slice height (C for sellcs) */
  cis_int sigma;      /* sellcs sort window (rows), 1 for sell/sellr */
  cis_int nslices;    /* ceil(rows / S) */
  int64_t *slice_ptr; /* nslices + 1; slice_ptr[nslices] = slots */
  cis_idx *col;       /* slots */
  void *val;          /* slots */
  cis_idx *rowlen;    /* sellr: rows (original order); NULL otherwise */
  cis_idx *perm;      /* sellcs: rows, sorted position -> original row; NULL otherwise */
} cis_fmt_sell;

/* sell16: SELL-C-sigma with 16-bit column deltas (issue 10, item 3). Rows
 * sorted by length in windows of sigma (perm as sellcs; sigma = 1: no sort
 * and no perm), slices of C rows, column-major inside each slice: slot k of
 * local row r of slice s at slice_ptr[s] + k*C + r. Each row is read in
 * `lanes` lanes (the GPU kernel's threads per row): the row's nonzero i
 * goes to lane i mod lanes, whose m-th code sits in slot k = lane + m*lanes.
 * A code is the column's delta from the lane's previous column (base[s],
 * the slice's smallest column, for the first): 0 ... CIS_SELL16_SPAN; a
 * larger delta is CIS_SELL16_ESC followed by its high and low 16 bits (the
 * value in the last of the three slots, 0 in the others); padding is
 * CIS_SELL16_PAD with value 0. bytes = (nslices+1)*8 + nslices*4 +
 * slots*(vs+2) [+ rows*4 perm]. */
#define CIS_SELL16_SPAN 0xFFFD
#define CIS_SELL16_PAD 0xFFFE
#define CIS_SELL16_ESC 0xFFFF
typedef struct cis_fmt_sell16 {
  cis_fmt_head h;
  cis_int C, sigma, nslices;
  int lanes;          /* codes per row interleaved in this many lanes */
  int64_t *slice_ptr; /* nslices + 1 */
  int32_t *base;      /* nslices: the slice's smallest column (each lane starts there) */
  uint16_t *off;      /* slots: column codes */
  void *val;          /* slots */
  cis_idx *perm;      /* rows: sorted position -> original row; NULL when sigma = 1 */
  cis_int escapes;    /* nonzeros stored as three codes */
  cis_dtype vdtype;   /* the values' type: h.dtype, or float under double (float_values) */
} cis_fmt_sell16;

/* csb: §3.6. Blocks of z x z in row-major block order; inside a block the
 * entries are in Z-Morton order; row/col inside the block in 16 bits.
 * bytes = (nbr*nbc+1)*8 + nnz*(vs+2+2). */
typedef struct cis_fmt_csb {
  cis_fmt_head h;
  cis_int z;          /* block size, power of two, <= 65536 */
  cis_int nbr, nbc;   /* block rows, block columns */
  int64_t *block_ptr; /* nbr*nbc + 1 */
  uint16_t *lrow, *lcol; /* nnz, local indices */
  void *val;          /* nnz */
} cis_fmt_csb;

/* hyb: §4.1, Algorithm 6. The first part of every row is stored ELLPACK-style
 * (`width` slots per row, ROW-major: slot k of row i at [i*width + k], as
 * Algorithm 7's NonZerosEntries[Warp_id][r2] reads it: one warp per row, so
 * consecutive lanes read consecutive slots), the rest in CSR.
 * Count mode: the first BOUNDARY nonzeros of each row go to ELLPACK
 *   (width = min(BOUNDARY, longest row): slots past the longest row would
 *   hold only padding). Column mode: nonzeros with column < BOUNDARY go to
 *   ELLPACK (width = largest such count over the rows). In both modes width
 *   is the largest ELLPACK part of any row.
 * rownnz = AllNonZerosCount, start/end = StartArr/EndArr (offsets into
 * csr_col/csr_val; start == end for rows with no CSR part).
 * bytes = 3*rows*4 + rows*width*(vs+4) + csr_nnz*(vs+4)  (the paper's
 * equation; start/end are 8 bytes each when csr_nnz >= 2^32). */
typedef struct cis_fmt_hyb {
  cis_fmt_head h;
  cis_boundary_mode mode;
  cis_int boundary;   /* as given/chosen (a count or a column) */
  cis_int width;      /* ELLPACK slots per row */
  cis_idx *ell_col;   /* rows * width, row-major, -1 = padding */
  void *ell_val;      /* width * rows */
  uint32_t *rownnz;   /* rows: all nonzeros of the row */
  cis_offsets start, end; /* rows each */
  cis_int csr_nnz;
  cis_idx *csr_col;   /* csr_nnz */
  void *csr_val;      /* csr_nnz */
} cis_fmt_hyb;

/* csr5: defined in src/formats/csr5.h (the layout the CSR5 kernel reads). */

/* One ops table per format. */
typedef struct cis_format_ops {
  const char *name;     /* --format name */
  const char *citation; /* paper, section, algorithm */
  cis_status (*build)(const cis_csr *A, const cis_format_params *p, void **impl);
  cis_int (*bytes)(const void *impl);
  cis_status (*spmv)(const void *impl, double alpha, const void *x, double beta, void *y);
  cis_status (*dump)(const void *impl, FILE *f);
  void (*destroy)(void *impl);
} cis_format_ops;

/* The public handle. */
struct cis_matrix {
  const cis_format_ops *ops;
  void *impl; /* starts with cis_fmt_head */
};

/* Every format's table, defined in its own file: one per entry of
 * format_list.h (registry.c lists them from there). */
#define CIS_FORMAT_EXTERN(id, storage) extern const cis_format_ops cis_format_##id;
CIS_FORMAT_LIST(CIS_FORMAT_EXTERN)
#undef CIS_FORMAT_EXTERN

#endif
