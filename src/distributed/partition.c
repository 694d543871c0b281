/* partition.c: rows over parts balanced by nonzeros, the local / remote
 * blocks of one part with the remote columns compressed to the needed x
 * entries (PETSc MATMPIAIJ: MatSetUpMultiply_MPIAIJ's garray; Ginkgo
 * distributed::Matrix::read_distributed's non-local column map), and the
 * exchange plan with its all-gather vs point-to-point rule (cisparse/dist.h;
 * the structs: partition.h). */
#include <string.h>
#include "core/internal.h"
#include "distributed/partition.h"
#include "distributed/dist_internal.h"

/* The split of partition_rows over a running prefix count: prefix(e) is the
 * nonzeros of rows 0..e-1 (rowptr[e], or the sum of row counts). */
static void split_by_prefix(cis_int rows, double nnz, int parts, const cis_int *rowptr, const cis_int *counts,
                            cis_int *row_start) {
  row_start[0] = 0;
  cis_int r = 0;
  double pre = 0; /* prefix(r + 1) while scanning counts */
  if (counts) pre = (double)counts[0];
  for (int p = 0; p < parts - 1; ++p) {
    /* the end of part p: first row where the prefix count reaches (p+1)/parts of nnz */
    double target = nnz * (p + 1) / parts;
    cis_int lo = r + 1, hi = rows - (parts - 1 - p); /* >= 1 row each side */
    cis_int e = lo;
    if (counts) { /* pre = prefix(lo) here */
      while (e < hi && pre < target) pre += (double)counts[e++];
    } else {
      while (e < hi && (double)rowptr[e] < target) ++e;
    }
    row_start[p + 1] = e;
    r = e;
    if (counts) pre += (double)counts[e]; /* prefix(r + 1) for the next part */
  }
  row_start[parts] = rows;
}

cis_status dist_partition_rows(const cis_csr *A, int parts, cis_int *row_start) {
  if (!A || !row_start) return cis_error(CIS_ERR_INVALID, "dist_partition_rows: NULL argument");
  if (parts < 1 || parts > A->rows)
    return cis_error(CIS_ERR_INVALID, "cannot split %lld rows into %d parts", (long long)A->rows, parts);
  split_by_prefix(A->rows, (double)A->nnz, parts, A->rowptr, NULL, row_start);
  return CIS_OK;
}

cis_status dist_partition_counts(cis_int rows, const cis_int *row_nnz, int parts, cis_int *row_start) {
  if (!row_start) return cis_error(CIS_ERR_INVALID, "dist_partition_counts: NULL argument");
  if (parts < 1 || parts > rows)
    return cis_error(CIS_ERR_INVALID, "cannot split %lld rows into %d parts", (long long)rows, parts);
  if (!row_nnz) { /* by rows */
    for (int p = 0; p <= parts; ++p) row_start[p] = (cis_int)((double)rows * p / parts);
    return CIS_OK;
  }
  double nnz = 0;
  for (cis_int i = 0; i < rows; ++i) {
    if (row_nnz[i] < 0) return cis_error(CIS_ERR_INVALID, "row %lld has %lld nonzeros", (long long)i, (long long)row_nnz[i]);
    nnz += (double)row_nnz[i];
  }
  split_by_prefix(rows, nnz, parts, NULL, row_nnz, row_start);
  return CIS_OK;
}

void dist_block_clear(dist_block *b) {
  if (!b) return;
  cis_csr_free(b->local);
  cis_csr_free(b->remote);
  cis_free(b->needed);
  memset(b, 0, sizeof *b);
}

/* The block of rows r0..r1-1 of an n x n matrix whose row i is row i - roff
 * of A (A: the whole matrix, roff 0, or a slab of rows, roff its first row;
 * A->cols == n); needed_only: only its needed list, local and remote NULL.
 * Two passes over the rows, each shared among the OpenMP threads: the first
 * counts each row's local and remote entries and marks the needed columns,
 * the second fills both blocks at the rows' offsets, a remote column's
 * position read from a table of n entries (was a binary search per entry:
 * the split of a 4-part ci: matrix spent half its set-up there). */
static cis_status split_core(const cis_csr *A, cis_int roff, cis_int n, cis_int r0, cis_int r1, int parts, int part,
                             dist_block *out, int needed_only) {
  cis_status st;
  unsigned char *mark = NULL;
  cis_idx *pos = NULL;
  cis_int *cnt = NULL; /* [2 * row]: the row's local and remote entries, then their offsets */
  cis_int nl = 0, nr = 0, bad_row = -1, bad_col = 0;
  const cis_int rows = r1 - r0;
  out->part = part;
  out->parts = parts;
  out->row0 = r0;
  out->rows = rows;
  CIS_TRY(cis_alloc_zeroed((void **)&mark, n > 0 ? n : 1, 1, "distributed column marks"));
  CIS_TRY(cis_alloc_array((void **)&cnt, 2 * rows + 2, sizeof(cis_int), "distributed row counts"));
  CIS_PRAGMA(omp parallel for schedule(dynamic, 256) reduction(+ : nl, nr))
  for (cis_int i = r0; i < r1; ++i) {
    cis_int l = 0, r = 0;
    for (cis_int k = A->rowptr[i - roff]; k < A->rowptr[i - roff + 1]; ++k) {
      const cis_idx j = A->colind[k];
      if (j < 0 || j >= n) {
        CIS_PRAGMA(omp critical(split_bad))
        if (bad_row < 0 || i < bad_row) bad_row = i, bad_col = j; /* the first bad row, whichever thread */
        break;
      }
      if (j >= r0 && j < r1) ++l;
      else {
        ++r;
        unsigned char seen;
        CIS_PRAGMA(omp atomic read)
        seen = mark[j];
        if (!seen) { /* hot columns (every CI row's reference block) read, not written again */
          CIS_PRAGMA(omp atomic write)
          mark[j] = 1;
        }
      }
    }
    cnt[2 * (i - r0)] = l;
    cnt[2 * (i - r0) + 1] = r;
    nl += l, nr += r;
  }
  if (bad_row >= 0)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "row %lld has column %lld outside 0..%lld", (long long)bad_row,
                      (long long)bad_col, (long long)n - 1));
  for (cis_int j = 0; j < n; ++j) out->nneeded += mark[j];
  CIS_TRY(cis_alloc_array((void **)&out->needed, out->nneeded > 0 ? out->nneeded : 1, sizeof(cis_idx), "needed columns"));
  for (cis_int j = 0, m = 0; j < n; ++j)
    if (mark[j]) out->needed[m++] = (cis_idx)j;
  if (needed_only) {
    st = CIS_OK;
    goto cleanup;
  }
  CIS_TRY(cis_alloc_array((void **)&pos, n > 0 ? n : 1, sizeof(cis_idx), "needed column positions"));
  for (cis_int m = 0; m < out->nneeded; ++m) pos[out->needed[m]] = (cis_idx)m;
  CIS_TRY(cis_csr_alloc(rows, rows, nl, A->dtype, &out->local));
  CIS_TRY(cis_csr_alloc(rows, out->nneeded, nr, A->dtype, &out->remote));
  out->local->rowptr[0] = out->remote->rowptr[0] = 0;
  for (cis_int i = 0; i < rows; ++i) { /* the offsets: prefix sums of the counts */
    out->local->rowptr[i + 1] = out->local->rowptr[i] + cnt[2 * i];
    out->remote->rowptr[i + 1] = out->remote->rowptr[i] + cnt[2 * i + 1];
  }
  const size_t es = cis_dtype_size(A->dtype);
  CIS_PRAGMA(omp parallel for schedule(dynamic, 256))
  for (cis_int i = r0; i < r1; ++i) { /* columns stay ascending in both blocks */
    cis_int kl = out->local->rowptr[i - r0], kr = out->remote->rowptr[i - r0];
    for (cis_int k = A->rowptr[i - roff]; k < A->rowptr[i - roff + 1]; ++k) {
      const cis_idx j = A->colind[k];
      const char *v = (const char *)A->val + (size_t)k * es;
      if (j >= r0 && j < r1) {
        out->local->colind[kl] = (cis_idx)(j - r0);
        memcpy((char *)out->local->val + (size_t)kl++ * es, v, es);
      } else {
        out->remote->colind[kr] = pos[j];
        memcpy((char *)out->remote->val + (size_t)kr++ * es, v, es);
      }
    }
  }
  st = CIS_OK;
cleanup:
  cis_free(mark);
  cis_free(pos);
  cis_free(cnt);
  if (st != CIS_OK) dist_block_clear(out);
  return st;
}

/* The block (needed_only: only its needed list, local and remote NULL). */
static cis_status block_split(const cis_csr *A, const cis_int *row_start, int parts, int part, dist_block *out,
                              int needed_only) {
  if (!A || !row_start || !out) return cis_error(CIS_ERR_INVALID, "dist_block_split: NULL argument");
  memset(out, 0, sizeof *out);
  if (A->rows != A->cols)
    return cis_error(CIS_ERR_INVALID, "a distributed matrix must be square, got %lld x %lld", (long long)A->rows,
                     (long long)A->cols);
  if (A->flags & CIS_FLAG_UPPER)
    return cis_error(CIS_ERR_UNSUPPORTED, "distributed matrices take full storage: expand the symmetric (upper) matrix first");
  if (parts < 1 || part < 0 || part >= parts) return cis_error(CIS_ERR_INVALID, "part %d of %d", part, parts);
  cis_int r0 = row_start[part], r1 = row_start[part + 1];
  if (r0 < 0 || r1 < r0 || r1 > A->rows || row_start[0] != 0 || row_start[parts] != A->rows)
    return cis_error(CIS_ERR_INVALID, "row split [%lld, %lld) of part %d is not inside 0..%lld", (long long)r0,
                     (long long)r1, part, (long long)A->rows);
  return split_core(A, 0, A->rows, r0, r1, parts, part, out, needed_only);
}

cis_status dist_block_from_rows(const cis_csr *R, cis_int n, const cis_int *row_start, int parts, int part,
                                dist_block *out) {
  memset(out, 0, sizeof *out);
  cis_int r0 = row_start[part], r1 = row_start[part + 1];
  if (!R) return cis_error(CIS_ERR_INVALID, "part %d: the row builder gave no rows", part);
  if (R->rows != r1 - r0 || R->cols != n)
    return cis_error(CIS_ERR_INVALID, "part %d: the row builder gave %lld x %lld for rows %lld..%lld of %lld columns",
                     part, (long long)R->rows, (long long)R->cols, (long long)r0, (long long)r1 - 1, (long long)n);
  if (R->flags & CIS_FLAG_UPPER)
    return cis_error(CIS_ERR_UNSUPPORTED, "part %d: the row builder gave upper-triangle rows: full rows are needed", part);
  return split_core(R, r0, n, r0, r1, parts, part, out, 0);
}

cis_status dist_block_split(const cis_csr *A, const cis_int *row_start, int parts, int part, dist_block *out) {
  return block_split(A, row_start, parts, part, out, 0);
}

cis_status dist_gathered_positions(const dist_block *b, const dist_plan *pl, cis_idx *pos) {
  for (cis_int k = 0; k < b->nneeded; ++k) { /* needed entry k: its owner's block of the gathered x */
    const int64_t at = dist_gathered_at(pl->row_start, pl->parts, pl->max_rows, b->needed[k]);
    if (at > CIS_IDX_MAX)
      return cis_error(CIS_ERR_OVERFLOW, "all-gather buffer position %lld exceeds 32-bit indices", (long long)at);
    pos[k] = (cis_idx)at;
  }
  return CIS_OK;
}

cis_status dist_block_gathered(const dist_block *b, const dist_plan *pl, cis_csr **out) {
  cis_status st;
  const cis_csr *L = b->local, *R = b->remote;
  cis_csr *W = NULL;
  cis_idx *pos = NULL;
  *out = NULL;
  const int64_t cols = (int64_t)pl->parts * pl->max_rows, own = (int64_t)b->part * pl->max_rows;
  if (cols - 1 > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "gathered x of %lld values exceeds 32-bit indices", (long long)cols);
  const cis_int nl = L ? L->nnz : 0, nr = R ? R->nnz : 0;
  CIS_TRY(cis_alloc_array((void **)&pos, b->nneeded > 0 ? b->nneeded : 1, sizeof(cis_idx), "gathered positions"));
  CIS_TRY(dist_gathered_positions(b, pl, pos));
  CIS_TRY(cis_csr_alloc(b->rows, (cis_int)cols, nl + nr, L ? L->dtype : R->dtype, &W));
  const size_t es = cis_dtype_size(W->dtype);
  cis_int at = 0;
  W->rowptr[0] = 0;
  for (cis_int i = 0; i < b->rows; ++i) { /* the two rows merged by position (both ascend in the global column) */
    cis_int a = L ? L->rowptr[i] : 0, ae = L ? L->rowptr[i + 1] : 0, c = R ? R->rowptr[i] : 0, ce = R ? R->rowptr[i + 1] : 0;
    while (a < ae || c < ce) {
      const int64_t pa = a < ae ? own + L->colind[a] : INT64_MAX, pc = c < ce ? (int64_t)pos[R->colind[c]] : INT64_MAX;
      const int from_local = pa < pc;
      W->colind[at] = (cis_idx)(from_local ? pa : pc);
      memcpy((char *)W->val + (size_t)at * es,
             from_local ? (const char *)L->val + (size_t)a++ * es : (const char *)R->val + (size_t)c++ * es, es);
      ++at;
    }
    W->rowptr[i + 1] = at;
  }
  *out = W;
  W = NULL;
  st = CIS_OK;
cleanup:
  cis_free(pos);
  cis_csr_free(W);
  return st;
}

cis_status dist_block_needed(const cis_csr *A, const cis_int *row_start, int parts, int part, dist_block *out) {
  return block_split(A, row_start, parts, part, out, 1);
}

void dist_plan_clear(dist_plan *p) {
  if (!p) return;
  if (p->send_idx)
    for (int q = 0; q < p->parts; ++q) cis_free(p->send_idx[q]);
  cis_free(p->send_idx);
  cis_free(p->count);
  cis_free(p->row_start);
  memset(p, 0, sizeof *p);
}

cis_status dist_plan_build(const dist_block *blocks, int parts, cis_dist_exchange want, int64_t msg_bytes,
                           dist_plan *out) {
  cis_status st;
  cis_int *sent = NULL;
  if (!blocks || !out) return cis_error(CIS_ERR_INVALID, "dist_plan_build: NULL argument");
  memset(out, 0, sizeof *out);
  if (parts < 1) return cis_error(CIS_ERR_INVALID, "exchange plan over %d parts", parts);
  if (want != CIS_XCHG_AUTO && want != CIS_XCHG_ALLGATHER && want != CIS_XCHG_P2P && want != CIS_XCHG_GATHER)
    return cis_error(CIS_ERR_INVALID, "unknown exchange kind %d", (int)want);
  out->parts = parts;
  CIS_TRY(cis_alloc_array((void **)&out->row_start, parts + 1, sizeof(cis_int), "exchange plan"));
  CIS_TRY(cis_alloc_zeroed((void **)&out->count, (int64_t)parts * parts, sizeof(cis_int), "exchange plan"));
  CIS_TRY(cis_alloc_zeroed((void **)&out->send_idx, parts, sizeof(cis_idx *), "exchange plan"));
  CIS_TRY(cis_alloc_zeroed((void **)&sent, parts, sizeof(cis_int), "exchange plan"));
  for (int p = 0; p < parts; ++p) {
    if (blocks[p].part != p || blocks[p].parts != parts)
      CIS_TRY(cis_error(CIS_ERR_INVALID, "exchange plan: block %d is part %d of %d", p, blocks[p].part, blocks[p].parts));
    out->row_start[p] = blocks[p].row0;
    if (blocks[p].rows > out->max_rows) out->max_rows = blocks[p].rows;
    if (p > 0 && blocks[p].row0 != blocks[p - 1].row0 + blocks[p - 1].rows)
      CIS_TRY(cis_error(CIS_ERR_INVALID, "exchange plan: part %d does not follow part %d", p, p - 1));
  }
  out->row_start[parts] = blocks[parts - 1].row0 + blocks[parts - 1].rows;
  /* count[p][q]: the needed entries of p owned by q (needed is ascending, so
   * they come owner by owner) */
  for (int p = 0; p < parts; ++p) {
    int q = 0;
    for (cis_int k = 0; k < blocks[p].nneeded; ++k) {
      cis_idx j = blocks[p].needed[k];
      while (j >= out->row_start[q + 1]) ++q;
      if (q == p) CIS_TRY(cis_error(CIS_ERR_INVALID, "exchange plan: part %d needs its own column %d", p, (int)j));
      out->count[(int64_t)p * parts + q]++;
    }
    out->p2p_values += blocks[p].nneeded;
  }
  for (int q = 0; q < parts; ++q) { /* what q sends, peer by peer */
    cis_int tot = 0;
    for (int p = 0; p < parts; ++p) tot += out->count[(int64_t)p * parts + q];
    CIS_TRY(cis_alloc_array((void **)&out->send_idx[q], tot > 0 ? tot : 1, sizeof(cis_idx), "exchange plan"));
  }
  for (int p = 0; p < parts; ++p)
    for (cis_int k = 0; k < blocks[p].nneeded; ++k) {
      cis_idx j = blocks[p].needed[k];
      int q = 0;
      while (j >= out->row_start[q + 1]) ++q;
      out->send_idx[q][sent[q]++] = (cis_idx)(j - out->row_start[q]);
    }
  for (int64_t i = 0; i < (int64_t)parts * parts; ++i) out->p2p_messages += out->count[i] > 0;
  out->allgather_values = (int64_t)parts * (parts - 1) * out->max_rows;
  if (want == CIS_XCHG_AUTO) {
    int64_t mb = msg_bytes > 0 ? msg_bytes : CIS_DIST_MSG_BYTES, vb = 8; /* per value: the rule in dist.h */
    want = out->p2p_values * vb + out->p2p_messages * mb < out->allgather_values * vb ? CIS_XCHG_P2P
                                                                                        : CIS_XCHG_GATHER;
  }
  out->kind = want;
  st = CIS_OK;
cleanup:
  cis_free(sent);
  if (st != CIS_OK) dist_plan_clear(out);
  return st;
}

const char *cis_dist_exchange_name(cis_dist_exchange k) {
  switch (k) {
    case CIS_XCHG_AUTO: return "auto";
    case CIS_XCHG_ALLGATHER: return "allgather";
    case CIS_XCHG_P2P: return "p2p";
    case CIS_XCHG_GATHER: return "gather";
  }
  return "?";
}

cis_status cis_dist_exchange_parse(const char *s, cis_dist_exchange *k) {
  if (!s || !k) return cis_error(CIS_ERR_INVALID, "cis_dist_exchange_parse: NULL argument");
  for (int i = 0; i <= CIS_XCHG_GATHER; ++i)
    if (!strcmp(s, cis_dist_exchange_name((cis_dist_exchange)i))) {
      *k = (cis_dist_exchange)i;
      return CIS_OK;
    }
  return cis_error(CIS_ERR_NOT_FOUND, "unknown exchange '%s' (auto, allgather, p2p, gather)", s);
}
