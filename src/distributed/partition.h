/* partition.h: the partition of a distributed matrix (partition.c; not
 * public): one part's local and remote blocks, and the exchange plan of all
 * parts (the pattern and the exchange rule: cisparse/dist.h). */
#ifndef CISPARSE_DIST_PARTITION_H
#define CISPARSE_DIST_PARTITION_H

#include "cisparse/dist.h"

/* One part of a row-distributed matrix (cisparse/dist.h). */
typedef struct dist_block {
  int part, parts;
  cis_int row0, rows;  /* global rows row0 .. row0+rows-1 */
  cis_csr *local;      /* rows x rows, columns - row0 */
  cis_csr *remote;     /* rows x nneeded, column k is global column needed[k] */
  cis_int nneeded;
  cis_idx *needed;     /* ascending global columns outside this part's rows */
} dist_block;

/* Block `part` of A under row_start (from dist_partition_rows or any
 * ascending split). A square, plain storage (a CIS_FLAG_UPPER matrix is
 * refused: expand it first). Values keep A's dtype. Free with
 * dist_block_clear. */
cis_status dist_block_split(const cis_csr *A, const cis_int *row_start, int parts, int part, dist_block *out);
/* Free what a block holds and zero it; NULL accepted. */
void dist_block_clear(dist_block *b);

/* The exchange plan: who sends which x entries to whom in each product. */
typedef struct dist_plan {
  int parts;
  cis_dist_exchange kind;    /* ALLGATHER or P2P (never AUTO once built) */
  cis_int max_rows;          /* largest part (the all-gather's padded count) */
  cis_int *row_start;        /* parts+1 */
  /* count[p*parts + q]: entries part p receives from part q (0 for p == q);
   * send_idx[q][..]: the local indices part q sends, peer by peer in order
   * of p, count[p*parts+q] each (these are q's rows in p's needed list). */
  cis_int *count;
  cis_idx **send_idx;
  int64_t p2p_values;        /* values received per product, all parts: sum of nneeded */
  int64_t allgather_values;  /* values received per product by the padded all-gather: parts*(parts-1)*max_rows */
  int64_t p2p_messages;      /* (p, q) pairs with count > 0 */
} dist_plan;

/* Where global row (or column) j sits in the gathered x of the split
 * row_start (parts + 1 starts; part q's rows at q * max_rows): the
 * all-gather's layout. With one part, j itself. (The GPU slice kernel of
 * dist_split.cu computes the same on the device.) */
static inline int64_t dist_gathered_at(const cis_int *row_start, int parts, cis_int max_rows, int64_t j) {
  int lo = 0, hi = parts - 1; /* the owner: the last start <= j */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (row_start[mid] <= j) lo = mid;
    else hi = mid - 1;
  }
  return (int64_t)lo * max_rows + (j - row_start[lo]);
}

/* pos[k] = where block b's needed entry k sits in plan pl's gathered x
 * (owner q's rows at q*max_rows): the all-gather's unpack positions.
 * CIS_ERR_OVERFLOW past 32-bit indices. */
cis_status dist_gathered_positions(const dist_block *b, const dist_plan *pl, cis_idx *pos);
/* Block b's rows as one matrix over the gathered x of plan pl
 * (CIS_XCHG_GATHER): rows x parts*max_rows, global column j of owner q at
 * q*max_rows + (j - row_start[q]), each row's entries ascending. The
 * block's dtype; b keeps its local and remote blocks. CIS_ERR_OVERFLOW when
 * a position exceeds 32-bit indices. */
cis_status dist_block_gathered(const dist_block *b, const dist_plan *pl, cis_csr **out);

/* The plan for the blocks of all parts (blocks[p].part == p), the exchange
 * `want` or, for CIS_XCHG_AUTO, the rule of cisparse/dist.h with msg_bytes
 * per message (<= 0: CIS_DIST_MSG_BYTES). Free with dist_plan_clear. */
cis_status dist_plan_build(const dist_block *blocks, int parts, cis_dist_exchange want, int64_t msg_bytes,
                           dist_plan *out);
/* Free what a plan holds and zero it. */
void dist_plan_clear(dist_plan *p);

/* Part `part`'s needed list only (dist_block_split without the blocks:
 * local and remote stay NULL), for the exchange plan of parts held elsewhere. */
cis_status dist_block_needed(const cis_csr *A, const cis_int *row_start, int parts, int part, dist_block *out);

/* Part `part`'s block from R, its rows row_start[part] .. row_start[part+1]-1
 * of an n x n matrix (R: those rows, n columns, global column indices). */
cis_status dist_block_from_rows(const cis_csr *R, cis_int n, const cis_int *row_start, int parts, int part,
                                dist_block *out);

#endif
