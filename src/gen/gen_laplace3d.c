/* gen_laplace3d.c: the standard finite-difference 3D Laplacian on an
 * N x N x N grid with Dirichlet boundaries, natural (lexicographic)
 * ordering: row i = x + N*(y + N*z).
 *   7-point:  6 on the diagonal, -1 for the 6 face neighbours
 *             (nnz = 7N^3 - 6N^2);
 *   27-point: 26 on the diagonal, -1 for the 26 face, edge and corner
 *             neighbours (nnz = (3N - 2)^3).
 * Symmetric, deterministic (no seed). */
#include "gen/gen_internal.h"

typedef struct lap_gen { cis_int n; int points; } lap_gen;

/* Neighbours of row i (itself included) in ascending column order: dz, dy,
 * dx from -1 to 1 is exactly natural order. Writes up to 27 when col is set. */
static int64_t stencil(const lap_gen *g, cis_int i, cis_idx *col, double *val) {
  const cis_int n = g->n, x = i % n, y = (i / n) % n, z = i / (n * n);
  int64_t len = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int far = (dx != 0) + (dy != 0) + (dz != 0);
        if ((g->points == 7 && far > 1) || x + dx < 0 || x + dx >= n || y + dy < 0 ||
            y + dy >= n || z + dz < 0 || z + dz >= n)
          continue;
        if (col) {
          col[len] = (cis_idx)(i + dx + n * (dy + n * dz));
          val[len] = far ? -1.0 : (double)(g->points - 1);
        }
        len++;
      }
  return len;
}

static int64_t lap_row_len(const void *g, cis_int i, gen_rng *r) { return stencil(g, i, NULL, NULL); }

static void lap_fill_row(const void *g, cis_int i, int64_t len, gen_rng *r, cis_idx *col,
                         double *val, gen_ws *ws) {
  stencil(g, i, col, val);
}

cis_status gen_laplace3d(const gen_spec *sp, cis_dtype t, cis_csr **out) {
  cis_status st;
  int64_t n, points;
  CIS_TRY(gen_spec_int(sp, "size", 1, 0, 1, CIS_IDX_MAX, &n));
  if (n > 1290) /* 1290^3 < 2^31 <= 1291^3 */
    return cis_error(CIS_ERR_OVERFLOW, "generator spec '%s': size^3 = %.4g rows, must be below 2^31 "
                     "(size <= 1290)", sp->text, (double)n * (double)n * (double)n);
  CIS_TRY(gen_spec_int(sp, "points", 0, 7, 7, 27, &points));
  if (points != 7 && points != 27)
    return cis_error(CIS_ERR_INVALID, "generator spec '%s': points=%lld, expected 7 or 27",
                     sp->text, (long long)points);
  lap_gen g = {n, (int)points};
  gen_def d = {"laplace3d", n * n * n, n * n * n, (double)points * (double)(n * n * n), 0,
               lap_row_len, lap_fill_row, &g};
  return gen_build(&d, t, out);
cleanup:
  return st;
}
