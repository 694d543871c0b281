/* hamiltonian.c: the CI Hamiltonian in CSR, row by row from the Slater-Condon
 * rules (slater.c). Each row's connected determinants are generated from its
 * own single and double excitations and looked up in the space (no pair
 * testing): O(connections) per row. Two passes over the rows (count, then
 * fill and sort), so memory is the CSR itself plus per-thread row buffers;
 * the same over any row range (ci_hamiltonian_rows: a distributed
 * matrix's part builds only its rows), the count pass alone giving each
 * row's nonzeros (ci_hamiltonian_row_nnz) so the fill needs no recount. */
#include <math.h>
#include <stdatomic.h>
#include <omp.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

typedef struct row_buf {
  int32_t *col;
  double *val;
  uint64_t *key;               /* sort keys: col << 32 | slot */
  int32_t bpos[CIS_CI_MAX_ORB * CIS_CI_MAX_ORB / 4]; /* beta single excitations of the row */
  uint8_t bj[CIS_CI_MAX_ORB * CIS_CI_MAX_ORB / 4], bb[CIS_CI_MAX_ORB * CIS_CI_MAX_ORB / 4];
  double bsign[CIS_CI_MAX_ORB * CIS_CI_MAX_ORB / 4];
} row_buf;

typedef struct builder {
  const cis_fcidump *F;
  const cis_ci_space *S;
  int upper;
  ci_bits all;     /* orbitals 0..norb-1 */
  ci_space_view V; /* the space's arrays, read inline */
  ci_ints ints;
} builder;

static builder builder_of(const cis_fcidump *F, const cis_ci_space *S, int upper) {
  builder B = {F, S, upper != 0, bits_first(F->norb, CIS_CI_WORDS), {0}, ci_ints_of(F)};
  ci_space_get_view(S, &B.V);
  return B;
}

static double choose2(double n) { return n * (n - 1) / 2; }

/* Upper bound on the connections of one row (diagonal + singles + doubles). */
static cis_int row_bound(const cis_fcidump *F) {
  double na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F), va = F->norb - na, vb = F->norb - nb;
  return (cis_int)(1 + na * va + nb * vb + choose2(na) * choose2(va) + choose2(nb) * choose2(vb) + na * va * nb * vb);
}

/* Append (J, v) if J exists, passes the triangle filter and v != 0. */
#define EMIT(J, expr)                                    \
  do {                                                   \
    cis_int J_ = (J);                                    \
    if (J_ >= 0 && (!B->upper || J_ >= I)) {             \
      double v_ = (expr);                                \
      if (v_ != 0.0) { R->col[n] = (int32_t)J_; R->val[n] = v_; n++; } \
    }                                                    \
  } while (0)

/* Append (J, v) for a value computed first (doubles: cheap), looking J up
 * only when v != 0: symmetry-forbidden excitations cost no lookup. */
#define EMIT_VALUE(v, J)                                 \
  do {                                                   \
    double w_ = (v);                                     \
    if (w_ != 0.0) {                                     \
      cis_int J_ = (J);                                  \
      if (J_ >= 0 && (!B->upper || J_ >= I)) { R->col[n] = (int32_t)J_; R->val[n] = w_; n++; } \
    }                                                    \
  } while (0)

/* One same-spin double i<j -> x<y of string s (the other spin fixed):
 * value s1 s2 [(ix|jy) - (iy|jx)], looked up only when nonzero. */
#define SAME_SPIN_DOUBLE(i, j, x, y)                                                                                  \
  do {                                                                                                                \
    double val = ci_ints_eri(In, i, x, j, y) - ci_ints_eri(In, i, y, j, x);                                           \
    if (val == 0.0) break;                                                                                            \
    ci_bits mid = bits_flip2(s, i, x, nw), t = bits_flip2(mid, j, y, nw);                                             \
    cis_int J = spin ? bits_find(V->bstr, V->btab, V->bmask, t, nw) : bits_find(V->astr, V->atab, V->amask, t, nw);   \
    if (J < 0) break;                                                                                                 \
    J = spin ? ci_det_find(V->aptr, V->blist, V->dlist, ia, J) : ci_det_find(V->aptr, V->blist, V->dlist, J, ib);     \
    EMIT(J, bits_sign_between(s, i, x, nw) * bits_sign_between(mid, j, y, nw) * val);                                 \
  } while (0)

/* All nonzeros of row I into R (unsorted); returns their number. One body
 * for nw-word strings (ci_bits.h), instantiated for one and two words below.
 * Excitations whose target lies beyond the space's excitation level are not
 * generated: a string's level changes by [hole in the reference] - [particle
 * in the reference] per electron moved, so truncated CI skips them before any
 * integral or lookup (they would not be found); the entries are the same. */
CI_ALWAYS_INLINE cis_int gen_row_nw(const builder *B, cis_int I, row_buf *R, const int nw) {
  const ci_space_view *V = &B->V;
  const ci_ints *In = &B->ints;
  const int maxl = V->maxlevel;
  cis_int ia = V->det_a[I], ib = V->det_b[I], n = 0;
  ci_bits a = bits_load(V->astr, ia, nw), b = bits_load(V->bstr, ib, nw);
  ci_bits va = bits_andnot(B->all, a, nw), vb = bits_andnot(B->all, b, nw);
  ci_bits refa = bits_load(V->astr, 0, nw), refb = bits_load(V->bstr, 0, nw); /* level-0 strings */
  const int la = V->alevel[ia], lb = V->blevel[ib];
  int nbs = 0, nb_end[3]; /* beta singles by level change -1, 0, +1: [0, nb_end[0]), ... */
  EMIT(I, bits_rule_diagonal(In, a, b, nw));
  /* beta singles j -> c of the row, looked up once, grouped by level change */
  for (int d = -1; d <= 1; ++d) {
    if (lb + d + (la > 0 ? la - 1 : 0) <= maxl) /* else no alpha single brings the total within the space */
      CI_FOR_BITS(j, b, nw) CI_FOR_BITS(c, vb, nw) {
        if (bits_test(refb, j, nw) - bits_test(refb, c, nw) != d) continue;
        R->bpos[nbs] = (int32_t)bits_find(V->bstr, V->btab, V->bmask, bits_flip2(b, j, c, nw), nw);
        R->bj[nbs] = (uint8_t)j;
        R->bb[nbs] = (uint8_t)c;
        R->bsign[nbs++] = bits_sign_between(b, j, c, nw);
      }
    nb_end[d + 1] = nbs;
  }
  for (int q = 0; q < nb_end[maxl - la - lb >= 1 ? 2 : maxl - la - lb + 1]; ++q)
    if (R->bpos[q] >= 0)
      EMIT(ci_det_find(V->aptr, V->blist, V->dlist, ia, R->bpos[q]),
           R->bsign[q] * bits_rule_single(In, R->bj[q], R->bb[q], bits_flip(b, R->bj[q], nw), a, nw));
  /* alpha singles i -> x, and with them the alpha-beta doubles */
  CI_FOR_BITS(i, a, nw) CI_FOR_BITS(x, va, nw) {
    int la2 = la + bits_test(refa, i, nw) - bits_test(refa, x, nw);
    if (la2 + (lb > 0 ? lb - 1 : 0) > maxl) continue; /* beyond the space with any beta single */
    cis_int ja = bits_find(V->astr, V->atab, V->amask, bits_flip2(a, i, x, nw), nw);
    if (ja < 0) continue;
    double sa = bits_sign_between(a, i, x, nw);
    if (la2 + lb <= maxl)
      EMIT(ci_det_find(V->aptr, V->blist, V->dlist, ja, ib), sa * bits_rule_single(In, i, x, bits_flip(a, i, nw), b, nw));
    int room = maxl - la2 - lb; /* beta level change allowed: <= room */
    for (int q = 0, qe = nb_end[room >= 1 ? 2 : room + 1]; q < qe; ++q)
      if (R->bpos[q] >= 0)
        EMIT_VALUE(sa * R->bsign[q] * ci_ints_eri(In, i, x, R->bj[q], R->bb[q]),
                   ci_det_find(V->aptr, V->blist, V->dlist, ja, R->bpos[q]));
  }
  /* same-spin doubles i<j -> x<y: the level changes by (holes in the
   * reference) - (particles in the reference), at most `room` */
  for (int spin = 0; spin < 2; ++spin) {
    ci_bits s = spin ? b : a, v = spin ? vb : va, ref = spin ? refb : refa;
    ci_bits p1 = bits_and(v, ref, nw); /* particles that refill the reference */
    const int room = maxl - la - lb;
    CI_FOR_BITS(i, s, nw) {
      ci_bits s2 = bits_above(s, i, nw);
      CI_FOR_BITS(j, s2, nw) {
        int need = bits_test(ref, i, nw) + bits_test(ref, j, nw) - room; /* particles in the reference needed */
        if (need <= 0) {
          CI_FOR_BITS(x, v, nw) {
            ci_bits v2 = bits_above(v, x, nw);
            CI_FOR_BITS(y, v2, nw) SAME_SPIN_DOUBLE(i, j, x, y);
          }
        } else if (need == 1) { /* x < y, at least one in the reference */
          CI_FOR_BITS(x, v, nw) {
            ci_bits v2 = bits_above(bits_test(ref, x, nw) ? v : p1, x, nw);
            CI_FOR_BITS(y, v2, nw) SAME_SPIN_DOUBLE(i, j, x, y);
          }
        } else if (need == 2) {
          CI_FOR_BITS(x, p1, nw) {
            ci_bits v2 = bits_above(p1, x, nw);
            CI_FOR_BITS(y, v2, nw) SAME_SPIN_DOUBLE(i, j, x, y);
          }
        }
      }
    }
  }
  return n;
}

static cis_int gen_row_w1(const builder *B, cis_int I, row_buf *R) { return gen_row_nw(B, I, R, 1); }
static cis_int gen_row_w2(const builder *B, cis_int I, row_buf *R) { return gen_row_nw(B, I, R, 2); }
static cis_int gen_row(const builder *B, cis_int I, row_buf *R) {
  return B->V.nw == 1 ? gen_row_w1(B, I, R) : gen_row_w2(B, I, R);
}

/* w's hook at each further tenth of the pass's rows or
 * CI_BUILD_REPORT_SECONDS since the last report, and always at the end. */
typedef struct pass_clock { double t0, last; cis_int next; } pass_clock;
static void report(ci_build_watch *w, int pass, cis_int done, cis_int rows, cis_int nnz, pass_clock *c, int end) {
  const double now = cis_wtime();
  if (!end && done < c->next && now - c->last < CI_BUILD_REPORT_SECONDS) return;
  c->last = now;
  c->next = done + (rows + 9) / 10;
  w->hook(w->ctx, pass, done, rows, nnz, now - c->t0);
}

/* One pass over rows r0..r1-1 (row I stored at I - r0): pass 1 counts into
 * rowptr[I-r0+1], pass 2 fills A, whose rowptr holds the prefix sums; a row
 * whose entries differ from its count is an internal error (counts given by
 * the caller from another pass must match). w (may be NULL): reports and
 * the pass's seconds split into rows and sorting (ci_build_watch). */
static cis_status run_pass(const builder *B, int pass, cis_csr *A, cis_int bound, cis_int r0, cis_int r1,
                           ci_build_watch *w) {
  cis_int rows = r1 - r0;
  const int hook = w && w->hook;
  int failed = 0, mismatch = 0;
  _Atomic cis_int done = 0, nnz = 0;
  double sort_s = 0, loop_s = 0; /* the threads' seconds sorting rows, and in the loop */
  pass_clock clk = {cis_wtime(), cis_wtime(), (rows + 9) / 10};
#pragma omp parallel reduction(+ : sort_s, loop_s)
  {
    row_buf *R = cis_calloc(1, sizeof *R);
    int ok = R != NULL;
    if (ok) {
      R->col = cis_malloc((size_t)bound * sizeof(int32_t));
      R->val = cis_malloc((size_t)bound * sizeof(double));
      R->key = pass == 2 ? cis_malloc((size_t)bound * sizeof(uint64_t)) : NULL;
      ok = R->col && R->val && (pass == 1 || R->key);
    }
    if (!ok) {
#pragma omp atomic write
      failed = 1;
    }
    const double tl = cis_wtime();
#pragma omp for schedule(dynamic, 64) nowait
    for (cis_int I = r0; I < r1; ++I) {
      if (!ok) continue;
      cis_int n = gen_row(B, I, R), i = I - r0;
      if (pass == 1) {
        A->rowptr[i + 1] = n;
      } else if (n != A->rowptr[i + 1] - A->rowptr[i]) {
#pragma omp atomic write
        mismatch = 1;
      } else {
        const double ts = w ? cis_wtime() : 0;
        for (cis_int k = 0; k < n; ++k) R->key[k] = (uint64_t)R->col[k] << 32 | (uint64_t)k;
        cis_sort_u64(R->key, n);
        cis_int o = A->rowptr[i];
        for (cis_int k = 0; k < n; ++k) {
          uint32_t slot = (uint32_t)R->key[k];
          A->colind[o + k] = R->col[slot];
          ((double *)A->val)[o + k] = R->val[slot];
        }
        if (w) sort_s += cis_wtime() - ts;
      }
      const cis_int d = atomic_fetch_add(&done, 1) + 1, z = atomic_fetch_add(&nnz, n) + n;
      if (hook && omp_get_thread_num() == 0) report(w, pass, d, rows, z, &clk, 0);
    }
    loop_s += cis_wtime() - tl;
    if (R) { cis_free(R->col); cis_free(R->val); cis_free(R->key); }
    cis_free(R);
  }
  if (failed) return cis_error(CIS_ERR_ALLOC, "cannot allocate Hamiltonian row buffers (%lld entries per thread)", (long long)bound);
  if (mismatch) return cis_error(CIS_ERR_INVALID, "Hamiltonian rows %lld..%lld: a row's entries differ from its given count",
                                 (long long)r0, (long long)(r1 - 1));
  if (!w) return CIS_OK;
  const double wall = cis_wtime() - clk.t0, sort = loop_s > 0 ? wall * sort_s / loop_s : 0;
  w->sort_seconds += sort;
  w->rows_seconds += wall - sort;
  if (hook) report(w, pass, rows, rows, nnz, &clk, 1);
  return CIS_OK;
}

/* Rows r0..r1-1 (global columns) into a new CSR of r1-r0 rows and `cols`
 * columns; counts (NULL: counted here) are the rows' entries, counts[I] for
 * row I; w (may be NULL) watches the passes. */
static cis_status build_range(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                              const cis_int *counts, ci_build_watch *w, cis_csr **out) {
  cis_status st;
  cis_csr *A = NULL;
  cis_int rows = r1 - r0, cols = ci_space_size(S), nnz = 0, bound = row_bound(F);
  if (bound > cols) bound = cols;
  builder B = builder_of(F, S, upper);
  CIS_TRY(cis_csr_alloc(rows, cols, 0, CIS_F64, &A));
  if (counts) {
    A->rowptr[0] = 0;
    for (cis_int I = r0; I < r1; ++I) {
      if (counts[I] < 0 || counts[I] > bound)
        CIS_TRY(cis_error(CIS_ERR_INVALID, "Hamiltonian row %lld: count %lld outside 0..%lld", (long long)I,
                          (long long)counts[I], (long long)bound));
      A->rowptr[I - r0 + 1] = counts[I];
    }
  } else {
    CIS_TRY(run_pass(&B, 1, A, bound, r0, r1, w));
  }
  for (cis_int i = 0; i < rows; ++i) A->rowptr[i + 1] += A->rowptr[i];
  nnz = A->rowptr[rows];
  int64_t bytes;
  if (cis_mul_overflows(nnz, (int64_t)(sizeof(double) + sizeof(cis_idx)), &bytes))
    { st = cis_error(CIS_ERR_OVERFLOW, "Hamiltonian with %lld nonzeros overflows", (long long)nnz); goto cleanup; }
  char why[64];
  int64_t phys = cis_host_memory_limit(why, sizeof why);
  if (phys > 0 && bytes > phys)
    { st = cis_error(CIS_ERR_TOO_LARGE, "Hamiltonian needs %.1f GiB for %lld nonzeros, this process may use %.1f GiB (%s)",
                     bytes / 1073741824.0, (long long)nnz, phys / 1073741824.0, why); goto cleanup; }
  cis_free(A->colind);
  cis_free(A->val);
  A->colind = NULL;
  A->val = NULL;
  CIS_TRY(cis_alloc_array((void **)&A->colind, nnz, sizeof(cis_idx), "Hamiltonian columns"));
  CIS_TRY(cis_alloc_array(&A->val, nnz, sizeof(double), "Hamiltonian values"));
  A->nnz = nnz;
  CIS_TRY(run_pass(&B, 2, A, bound, r0, r1, w));
  *out = A;
  return CIS_OK;
cleanup:
  cis_csr_free(A);
  return st;
}

cis_status cis_ci_hamiltonian(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_csr **out) {
  return ci_hamiltonian_build(F, S, upper, NULL, out);
}

cis_status ci_hamiltonian_build(const cis_fcidump *F, const cis_ci_space *S, int upper, ci_build_watch *w,
                                cis_csr **out) {
  cis_status st;
  cis_csr *A = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_ci_hamiltonian: NULL output");
  *out = NULL;
  if (!F || !S) return cis_error(CIS_ERR_INVALID, "cis_ci_hamiltonian: NULL integrals or space");
  CIS_TRY(build_range(F, S, 0, ci_space_size(S), upper, NULL, w, &A));
  A->flags = upper ? CIS_FLAG_UPPER : CIS_FLAG_SYMMETRIC;
  *out = A;
  st = CIS_OK;
cleanup:
  return st;
}

cis_status ci_hamiltonian_rows(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                                   const cis_int *row_nnz, cis_csr **out) {
  if (!out) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_rows: NULL output");
  *out = NULL;
  if (!F || !S) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_rows: NULL integrals or space");
  cis_int n = ci_space_size(S);
  if (r0 < 0 || r1 < r0 || r1 > n)
    return cis_error(CIS_ERR_INVALID, "Hamiltonian rows [%lld, %lld) outside the space's 0..%lld", (long long)r0,
                     (long long)r1, (long long)n);
  return build_range(F, S, r0, r1, upper, row_nnz, NULL, out);
}

cis_status ci_hamiltonian_row_nnz(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int *row_nnz) {
  cis_status st;
  cis_csr A;
  if (!F || !S || !row_nnz) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_row_nnz: NULL argument");
  cis_int rows = ci_space_size(S), bound = row_bound(F);
  if (bound > rows) bound = rows;
  memset(&A, 0, sizeof A);
  builder B = builder_of(F, S, upper);
  CIS_TRY(cis_alloc_zeroed((void **)&A.rowptr, rows + 1, sizeof(cis_int), "Hamiltonian row counts"));
  CIS_TRY(run_pass(&B, 1, &A, bound, 0, rows, NULL));
  memcpy(row_nnz, A.rowptr + 1, (size_t)rows * sizeof(cis_int));
  st = CIS_OK;
cleanup:
  cis_free(A.rowptr);
  return st;
}

cis_status ci_hamiltonian_nnz(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int *nnz,
                                  cis_int *max_row) {
  cis_status st;
  cis_csr A;
  cis_int bound = row_bound(F), rows;
  if (!F || !S || !nnz) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_nnz: NULL argument");
  rows = ci_space_size(S);
  if (bound > rows) bound = rows;
  memset(&A, 0, sizeof A);
  builder B = builder_of(F, S, upper);
  CIS_TRY(cis_alloc_zeroed((void **)&A.rowptr, rows + 1, sizeof(cis_int), "Hamiltonian row counts"));
  CIS_TRY(run_pass(&B, 1, &A, bound, 0, rows, NULL));
  *nnz = 0;
  if (max_row) *max_row = 0;
  for (cis_int i = 0; i < rows; ++i) {
    *nnz += A.rowptr[i + 1];
    if (max_row && A.rowptr[i + 1] > *max_row) *max_row = A.rowptr[i + 1];
  }
  st = CIS_OK;
cleanup:
  cis_free(A.rowptr);
  return st;
}

cis_status ci_hamiltonian_nnz_estimate(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int samples,
                                           double *nnz, cis_int *sampled) {
  cis_status st;
  row_buf *R = NULL;
  if (!F || !S || !nnz) return cis_error(CIS_ERR_INVALID, "ci_hamiltonian_nnz_estimate: NULL argument");
  cis_int rows = ci_space_size(S), bound = row_bound(F), step, count = 0;
  double total = 0;
  if (bound > rows) bound = rows;
  if (samples < 1) samples = 4096;
  step = rows / samples > 1 ? rows / samples : 1;
  builder B = builder_of(F, S, upper);
  CIS_TRY(cis_alloc_zeroed((void **)&R, 1, sizeof *R, "Hamiltonian row buffer"));
  CIS_TRY(cis_alloc_array((void **)&R->col, bound, sizeof(int32_t), "Hamiltonian row buffer"));
  CIS_TRY(cis_alloc_array((void **)&R->val, bound, sizeof(double), "Hamiltonian row buffer"));
  for (cis_int I = step / 2; I < rows; I += step, ++count) total += (double)gen_row(&B, I, R); /* evenly spread rows */
  *nnz = count ? total / (double)count * (double)rows : 0;
  if (sampled) *sampled = count;
  st = CIS_OK;
cleanup:
  if (R) { cis_free(R->col); cis_free(R->val); }
  cis_free(R);
  return st;
}

CI_ALWAYS_INLINE void diagonal_range(const ci_ints *I, const ci_space_view *V, double *diag, cis_int n, const int nw) {
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i)
    diag[i] = bits_rule_diagonal(I, bits_load(V->astr, V->det_a[i], nw), bits_load(V->bstr, V->det_b[i], nw), nw);
}

cis_status ci_diagonal_all(const cis_fcidump *F, const cis_ci_space *S, double *diag) {
  cis_int n = ci_space_size(S);
  if (!diag) return cis_error(CIS_ERR_INVALID, "ci_diagonal_all: NULL output");
  ci_space_view V;
  ci_ints I = ci_ints_of(F);
  ci_space_get_view(S, &V);
  if (V.nw == 1) diagonal_range(&I, &V, diag, n, 1);
  else diagonal_range(&I, &V, diag, n, 2);
  return CIS_OK;
}
