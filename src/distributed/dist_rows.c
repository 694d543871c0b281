/* dist_rows.c: a distributed matrix built part by part from a row builder
 * (dist_matrix_create_rows, dist.h), so that no host or GPU ever holds
 * the whole matrix: each local part builds its own rows, splits them into
 * its local and remote blocks and frees them; the needed lists of parts
 * driven elsewhere, and diag(A), are then summed over the communicator
 * (PETSc MatCreateMPIAIJ's fill by local rows, with the needed-column map of
 * MatSetUpMultiply_MPIAIJ gathered afterwards). The rows come from a host
 * builder (split on the host: partition.c) or, on GPU parts, from a device
 * builder on the part's own GPU (dist_matrix_create_rows_gpu: split on
 * that GPU, dist_split_rows_dev; the nonzeros never reach the host); the
 * rest is one code path. Every comm of the world calls it together: a part
 * whose build fails returns its error, and the others may then wait in the
 * gathers (as in any collective whose partner stops). */
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_matrix.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_internal.h"

/* diag[i] for the rows of R (rows r0.. of the matrix; 0 where absent). */
static void rows_diagonal(const cis_csr *R, cis_int r0, double *diag) {
  for (cis_int i = 0; i < R->rows; ++i)
    for (cis_int k = R->rowptr[i]; k < R->rowptr[i + 1]; ++k)
      if (R->colind[k] == r0 + i) {
        diag[r0 + i] = cis_get(R->val, R->dtype, k); /* as cis_csr_diagonal */
        break;
      }
}

/* Values per host all-reduce of the gathers (512 KB: the NCCL comm keeps a
 * device scratch of the largest count it has reduced). */
#define GATHER_CHUNK ((cis_int)1 << 16)

cis_status dist_share_values(cis_dist_comm *c, int owner, const double *src, const cis_idx *isrc, cis_int m,
                             double *dst, cis_idx *idst) {
  cis_status st;
  double *buf = NULL;
  int nl = c->nlocal;
  cis_int chunk = m < GATHER_CHUNK ? m : GATHER_CHUNK;
  CIS_TRY(cis_alloc_array((void **)&buf, (int64_t)nl * (chunk > 0 ? chunk : 1), sizeof(double), "gather buffer"));
  for (cis_int off = 0; off < m; off += chunk) {
    cis_int len = m - off < chunk ? m - off : chunk;
    memset(buf, 0, (size_t)nl * (size_t)len * sizeof(double));
    if (owner >= 0)
      for (cis_int k = 0; k < len; ++k) buf[(int64_t)owner * len + k] = src ? src[off + k] : (double)isrc[off + k];
    CIS_TRY(dist_allreduce_host(c, buf, (int)len));
    for (cis_int k = 0; k < len; ++k)
      if (dst) dst[off + k] = buf[k];
      else if (idst) idst[off + k] = (cis_idx)buf[k];
  }
  st = CIS_OK;
cleanup:
  cis_free(buf);
  return st;
}

/* Every part's needed list on every process: local parts have theirs; the
 * others arrive one part at a time (sizes first, then each list). */
static cis_status gather_needed(cis_dist_comm *c, dist_block *blocks, int G) {
  cis_status st;
  double *sizes = NULL;
  int nl = c->nlocal, first = c->first;
  CIS_TRY(cis_alloc_zeroed((void **)&sizes, (int64_t)nl * G, sizeof(double), "needed-list sizes"));
  for (int l = 0; l < nl; ++l) sizes[(int64_t)l * G + first + l] = (double)blocks[first + l].nneeded;
  CIS_TRY(dist_allreduce_host(c, sizes, G));
  for (int p = 0; p < G; ++p) {
    int mine = p >= first && p < first + nl;
    cis_int m = (cis_int)sizes[p];
    if (!mine) blocks[p].nneeded = m;
    if (m == 0) continue; /* every process knows it: the same rounds everywhere */
    if (!mine) CIS_TRY(cis_alloc_array((void **)&blocks[p].needed, m, sizeof(cis_idx), "needed columns"));
    CIS_TRY(dist_share_values(c, mine ? p - first : -1, NULL, mine ? blocks[p].needed : NULL, m, NULL,
                         mine ? NULL : blocks[p].needed));
  }
  st = CIS_OK;
cleanup:
  cis_free(sizes);
  return st;
}

/* Where the rows come from: a host builder or a device builder (one set). */
typedef struct rows_source {
  cis_dist_rows_fn host;
  cis_dist_rows_gpu_fn dev;
  void *ctx;
} rows_source;

/* Local part l's rows built, split and stored (the rows freed); *Dp made
 * at the first part if NULL (values: o->dtype, else the rows'). */
static cis_status part_from_rows(cis_dist_comm *c, cis_int n, int l, const rows_source *src, const cis_int *rs,
                                 const cis_dist_opts *o, dist_block *b, cis_dist_matrix **Dp) {
  cis_status st;
  const int p = c->first + l;
  cis_csr *R = NULL;
  if (src->dev) { /* on the part's GPU; the rows are double */
    cis_gpu_csr Rd;
    memset(&Rd, 0, sizeof Rd);
    if (!*Dp) CIS_TRY(dist_matrix_new(c, n, CIS_F64, o, Dp));
    CIS_TRY(dist_set_dev(*Dp, l));
    st = src->dev(src->ctx, l, rs[p], rs[p + 1], &Rd);
    if (st == CIS_OK) return dist_part_store_dev(*Dp, l, b, &Rd, o); /* frees Rd's arrays */
    cis_gpu_free(Rd.rowptr); /* whatever the failed build left */
    cis_gpu_free(Rd.colind);
    cis_gpu_free(Rd.val);
    return st;
  }
  CIS_TRY(src->host(src->ctx, rs[p], rs[p + 1], &R));
  if (!*Dp) CIS_TRY(dist_matrix_new(c, n, R ? R->dtype : CIS_F64, o, Dp));
  cis_dist_matrix *D = *Dp;
  double t0 = cis_wtime();
  CIS_TRY(dist_block_from_rows(R, n, rs, c->ranks, p, b));
  rows_diagonal(R, rs[p], D->diag);
  D->t_split += cis_wtime() - t0;
  cis_csr_free(R);
  R = NULL;
  CIS_TRY(dist_part_store(D, l, b, o));
  st = CIS_OK;
cleanup:
  cis_csr_free(R);
  return st;
}

static cis_status create_rows(cis_int n, const cis_int *row_nnz, const rows_source *src, cis_dist_comm *c,
                              const cis_dist_opts *o_in, cis_dist_matrix **out) {
  cis_status st;
  cis_dist_matrix *D = NULL;
  dist_block *blocks = NULL;
  cis_int *rs = NULL;
  cis_dist_opts o = o_in ? *o_in : cis_dist_opts_default();
  if (!(src->host || src->dev) || !c || !out) return cis_error(CIS_ERR_INVALID, "dist_matrix_create_rows: NULL argument");
  if (o.exchange == CIS_XCHG_GATHER)
    return cis_error(CIS_ERR_UNSUPPORTED, "the gather exchange (whole rows on the gathered x) needs the whole matrix "
                     "(cis_dist_matrix_create); rows built part by part keep their two blocks: allgather, p2p or auto");
  *out = NULL;
  int G = c->ranks;
  if (n < G) return cis_error(CIS_ERR_INVALID, "%lld rows cannot be spread over %d parts", (long long)n, G);
  if (n > CIS_IDX_MAX) return cis_error(CIS_ERR_OVERFLOW, "%lld rows exceed 32-bit column indices", (long long)n);
  if (src->dev && c->where != CIS_MEM_DEVICE)
    return cis_error(CIS_ERR_INVALID, "rows built on a GPU need GPU parts (a device communicator, not %s)",
                     cis_dist_comm_name(c));
  CIS_TRY(cis_alloc_array((void **)&rs, G + 1, sizeof(cis_int), "row split"));
  CIS_TRY(dist_partition_counts(n, row_nnz, G, rs));
  CIS_TRY(cis_alloc_zeroed((void **)&blocks, G, sizeof *blocks, "distributed blocks"));
  for (int p = 0; p < G; ++p) {
    blocks[p].part = p;
    blocks[p].parts = G;
    blocks[p].row0 = rs[p];
    blocks[p].rows = rs[p + 1] - rs[p];
  }
  if (src->dev && c->nlocal > 1 && dist_part_store_dev_on_device(&o)) {
    /* the local parts' GPUs at once, a host thread each (the rows, split and
     * stores stay on each GPU; its errors are thread-local, carried out) */
    cis_status pst[DIST_MAX_LOCAL];
    char msg[DIST_MAX_LOCAL][256];
    CIS_TRY(dist_matrix_new(c, n, CIS_F64, &o, &D));
    CIS_PRAGMA(omp parallel for num_threads(c->nlocal) schedule(static, 1))
    for (int l = 0; l < c->nlocal; ++l) {
      pst[l] = part_from_rows(c, n, l, src, rs, &o, &blocks[c->first + l], &D);
      if (pst[l] != CIS_OK) snprintf(msg[l], sizeof msg[l], "%s", cis_last_error());
    }
    for (int l = 0; l < c->nlocal; ++l)
      if (pst[l] != CIS_OK) CIS_TRY(cis_error(pst[l], "%s", msg[l]));
  } else {
    for (int l = 0; l < c->nlocal; ++l) /* this part's rows only: built, split, freed, its blocks stored */
      CIS_TRY(part_from_rows(c, n, l, src, rs, &o, &blocks[c->first + l], &D));
  }
  if (!D) CIS_TRY(dist_matrix_new(c, n, CIS_F64, &o, &D)); /* no local parts */
  if (c->nlocal < G) { /* parts held by other processes (or threads) */
    CIS_TRY(gather_needed(c, blocks, G));
    /* diag(A): this process's rows (zeros elsewhere) on its first local rank */
    CIS_TRY(dist_share_values(c, 0, D->diag, NULL, n, D->diag, NULL));
  }
  CIS_TRY(dist_plan_build(blocks, G, o.exchange, o.msg_bytes, &D->plan));
  if (D->plan.kind == CIS_XCHG_GATHER) D->plan.kind = CIS_XCHG_ALLGATHER; /* the rule's all-gather: the blocks are stored */
  for (int l = 0; l < c->nlocal; ++l) CIS_TRY(dist_part_finish(D, l, &blocks[c->first + l]));
  CIS_TRY(dist_exchange_warm(D));
  *out = D;
  D = NULL;
  st = CIS_OK;
cleanup:
  if (blocks)
    for (int p = 0; p < G; ++p) dist_block_clear(&blocks[p]);
  cis_free(blocks);
  cis_free(rs);
  cis_dist_matrix_free(D);
  return st;
}

cis_status dist_matrix_create_rows(cis_int n, const cis_int *row_nnz, cis_dist_rows_fn build, void *ctx,
                                       cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out) {
  const rows_source src = {build, NULL, ctx};
  return create_rows(n, row_nnz, &src, c, o, out);
}

cis_status dist_matrix_create_rows_gpu(cis_int n, const cis_int *row_nnz, cis_dist_rows_gpu_fn build, void *ctx,
                                           cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out) {
  const rows_source src = {NULL, build, ctx};
  return create_rows(n, row_nnz, &src, c, o, out);
}
