/* test_ci_hamiltonian.c: the CI Hamiltonian and its solvers on small cases:
 * H2 in a minimal basis with hand-built integrals (Szabo & Ostlund §4.3: the
 * 4x4 Ms=0 matrix and its analytic eigenvalues, the 2x2 CI energy, symmetry
 * restriction by ORBSYM/ISYM); H == H^T exactly; the upper triangle and the
 * symmetric SpMV against the full matrix; every stored element against the
 * Slater-Condon rules; the reference finder on permuted orbitals; --occ. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* H2, R = 1.4 bohr, STO-3G, in the MO basis (Szabo & Ostlund, eq. 3.256 ff.). */
static const double h11 = -1.2528, h22 = -0.4756, J11 = 0.6746, J22 = 0.6975, J12 = 0.6636, K12 = 0.1813;
static char tmp_path[256];

static const char *write_h2(const char *orbsym, int isym) {
  snprintf(tmp_path, sizeof tmp_path, "/tmp/cis_test_h2_%d.FCIDUMP", (int)getpid());
  FILE *f = fopen(tmp_path, "w");
  if (!f) return tmp_path;
  fprintf(f, "&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=%s,ISYM=%d &END\n", orbsym, isym);
  fprintf(f, "%.4f 1 1 1 1\n%.4f 2 2 1 1\n%.4f 2 1 2 1\n%.4f 2 2 2 2\n%.4f 1 1 0 0\n%.4f 2 2 0 0\n0.7143 0 0 0 0\n",
          J11, J12, K12, J22, h11, h22);
  fclose(f);
  return tmp_path;
}

typedef struct op_ctx { const cis_csr *A; } op_ctx;
static cis_status apply_full(void *c, const double *x, double *y) {
  return cis_csr_spmv(((op_ctx *)c)->A, 1.0, x, 0.0, y);
}
static cis_status apply_nan(void *c, const double *x, double *y) {
  cis_int n = ((op_ctx *)c)->A->rows;
  for (cis_int i = 0; i < n; ++i) y[i] = NAN;
  return CIS_OK;
}

/* Lowest k eigenvalues of H (electronic) with Davidson. */
static void lowest(const cis_fcidump *F, const cis_ci_space *S, const cis_csr *H, int k, double *ev) {
  cis_int n = ci_space_size(S);
  double *diag = malloc((size_t)n * sizeof(double));
  CHECK_OK(ci_diagonal_all(F, S, diag));
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = k;
  op_ctx c = {H};
  for (int r = 0; r < k; ++r) ev[r] = NAN;
  CHECK_OK(ci_davidson(n, diag, apply_full, &c, &o, ev, NULL, NULL));
  free(diag);
}

static void test_h2_by_hand(void) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  uint64_t a = 0, b = 0;
  CHECK_OK(cis_fcidump_read(write_h2("1,1", 1), &F));
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK(a == 1 && b == 1, "reference alpha %llx beta %llx, expected orbital 1 doubly", (unsigned long long)a,
        (unsigned long long)b);
  CHECK_OK(cis_ci_space_create(F, -1, a, b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (!S || !H) goto done;
  CHECK(ci_space_size(S) == 4, "%lld determinants, expected 4", (long long)ci_space_size(S));
  /* the 4x4 by hand: ref |1a1b>, singles |2a1b>, |1a2b>, double |2a2b> */
  const uint64_t da[4] = {1, 2, 1, 2}, db[4] = {1, 1, 2, 2};
  const double expect[4][4] = {{2 * h11 + J11, 0, 0, K12},
                               {0, h11 + h22 + J12, K12, 0},
                               {0, K12, h11 + h22 + J12, 0},
                               {K12, 0, 0, 2 * h22 + J22}};
  double dense[4][4] = {{0}};
  cis_int idx[4];
  for (int i = 0; i < 4; ++i) idx[i] = ci_space_find(S, da[i], db[i]);
  CHECK(idx[0] == 0 && idx[3] == 3 && ci_space_level(S, 3) == 2, "ordering: reference %lld, double %lld",
        (long long)idx[0], (long long)idx[3]);
  for (int i = 0; i < 4; ++i)
    for (cis_int k = H->rowptr[idx[i]]; k < H->rowptr[idx[i] + 1]; ++k)
      for (int j = 0; j < 4; ++j)
        if (H->colind[k] == idx[j]) dense[i][j] = ((double *)H->val)[k];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      CHECK(fabs(dense[i][j] - expect[i][j]) < 1e-12, "H[%d][%d] = %.12f, by hand %.12f", i, j, dense[i][j],
            expect[i][j]);
  CHECK(H->nnz == 8, "nnz %lld, expected 8", (long long)H->nnz);
  /* eigenvalues: the 2x2 CI of |1a1b>, |2a2b> and a +- K12 of the open shells */
  double p = 2 * h11 + J11, q = 2 * h22 + J22, m = h11 + h22 + J12;
  double e2x2 = (p + q) / 2 - sqrt((q - p) * (q - p) / 4 + K12 * K12);
  double all[4] = {e2x2, m - K12, m + K12, (p + q) / 2 + sqrt((q - p) * (q - p) / 4 + K12 * K12)}, ev[4];
  lowest(F, S, H, 4, ev);
  for (int r = 0; r < 4; ++r)
    CHECK(fabs(ev[r] - all[r]) < 1e-10, "root %d: %.12f, analytic %.12f", r, ev[r], all[r]);
  CHECK(fabs(e2x2 + 0.7143 - (-1.1373)) < 2e-4, "2x2 CI energy %.5f, Szabo & Ostlund -1.1373", e2x2 + 0.7143);
done:
  cis_csr_free(H);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

/* ORBSYM 1,6 (sigma_g = Ag, sigma_u = B1u in D2h): ISYM 1 keeps the two
 * closed shells (the 2x2 CI), ISYM 6 the two open shells. */
static void test_h2_symmetry(void) {
  double p = 2 * h11 + J11, q = 2 * h22 + J22, m = h11 + h22 + J12;
  for (int isym = 1; isym <= 6; isym += 5) {
    cis_fcidump *F = NULL;
    cis_ci_space *S = NULL;
    cis_csr *H = NULL;
    uint64_t a = 0, b = 0;
    CHECK_OK(cis_fcidump_read(write_h2("1,6", isym), &F));
    if (!F) continue;
    CHECK_OK(cis_ci_find_reference(F, &a, &b));
    CHECK_OK(cis_ci_space_create(F, -1, a, b, &S));
    if (S) CHECK(ci_space_size(S) == 2, "ISYM %d: %lld determinants, expected 2", isym, (long long)ci_space_size(S));
    CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
    double ev[2] = {NAN, NAN}, e0 = isym == 1 ? (p + q) / 2 - sqrt((q - p) * (q - p) / 4 + K12 * K12) : m - K12;
    if (S && H) lowest(F, S, H, 1, ev);
    CHECK(fabs(ev[0] - e0) < 1e-10, "ISYM %d: lowest %.12f, expected %.12f", isym, ev[0], e0);
    cis_csr_free(H);
    cis_ci_space_free(S);
    cis_fcidump_free(F);
  }
}

static cis_fcidump *load(const char *name) {
  char sub[64], path[512];
  cis_fcidump *F = NULL;
  snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", name);
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
  return F;
}

/* H == H^T bit for bit, every element equals the Slater-Condon rules, the
 * upper triangle equals the full matrix's, and the symmetric SpMV agrees. */
static void test_symmetry_and_upper(const char *name, int level) {
  cis_fcidump *F = load(name);
  cis_ci_space *S = NULL;
  cis_csr *H = NULL, *T = NULL, *U = NULL, *U2 = NULL;
  uint64_t a, b;
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, level, a, b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  CHECK_OK(cis_ci_hamiltonian(F, S, 1, &U));
  if (!H || !U) goto done;
  CHECK_OK(cis_csr_check(H));
  CHECK_OK(cis_csr_transpose(H, &T));
  CHECK(T && T->nnz == H->nnz && !memcmp(T->rowptr, H->rowptr, (size_t)(H->rows + 1) * sizeof(cis_int)) &&
            !memcmp(T->colind, H->colind, (size_t)H->nnz * sizeof(cis_idx)) &&
            !memcmp(T->val, H->val, (size_t)H->nnz * sizeof(double)),
        "%s: H != H^T", name);
  int bad = 0;
  for (cis_int i = 0; i < H->rows; ++i)
    for (cis_int k = H->rowptr[i]; k < H->rowptr[i + 1]; ++k) {
      uint64_t ai, bi, aj, bj;
      ci_space_det(S, i, &ai, &bi);
      ci_space_det(S, H->colind[k], &aj, &bj);
      bad += fabs(((double *)H->val)[k] - ci_element(F, ai, bi, aj, bj)) > 1e-13;
    }
  CHECK(bad == 0, "%s: %d elements differ from the Slater-Condon rules", name, bad);
  cis_int cnt = -1, cnt_max = -1, cnt_up = -1;
  CHECK_OK(ci_hamiltonian_nnz(F, S, 0, &cnt, &cnt_max));
  CHECK_OK(ci_hamiltonian_nnz(F, S, 1, &cnt_up, NULL));
  CHECK(cnt == H->nnz && cnt_max == csr_max_row(H, NULL) && cnt_up == U->nnz,
        "%s: counted %lld/%lld (longest %lld), built %lld/%lld (longest %lld)", name, (long long)cnt,
        (long long)cnt_up, (long long)cnt_max, (long long)H->nnz, (long long)U->nnz,
        (long long)csr_max_row(H, NULL));
  CHECK_OK(csr_upper(H, &U2));
  CHECK(U2 && U2->nnz == U->nnz && !memcmp(U2->colind, U->colind, (size_t)U->nnz * sizeof(cis_idx)) &&
            !memcmp(U2->val, U->val, (size_t)U->nnz * sizeof(double)) && (U->flags & CIS_FLAG_UPPER),
        "%s: upper-triangle build differs from the full matrix's upper triangle", name);
  cis_int n = H->rows;
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double)),
         *z = malloc((size_t)n * sizeof(double));
  test_fill_random(x, CIS_F64, n, 7);
  test_fill_nan(y, CIS_F64, n);
  test_fill_nan(z, CIS_F64, n);
  CHECK_OK(cis_csr_spmv(H, 1.0, x, 0.0, y));
  CHECK_OK(csr_symv_upper(U, x, z));
  CHECK(test_rel_err(z, y, CIS_F64, n) < 1e-12, "%s: symmetric SpMV rel err %.3e", name, test_rel_err(z, y, CIS_F64, n));
  CHECK(csr_symv_upper(H, x, z) == CIS_ERR_INVALID, "symmetric SpMV accepted a full matrix");
  free(x); free(y); free(z);
done:
  cis_csr_free(H); cis_csr_free(T); cis_csr_free(U); cis_csr_free(U2);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

/* Lowest total energy of F at level with reference (a, b). */
static double energy(const cis_fcidump *F, int level, uint64_t a, uint64_t b) {
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  double e = NAN;
  CHECK_OK(cis_ci_space_create(F, level, a, b, &S));
  if (S) CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (H) lowest(F, S, H, 1, &e);
  cis_csr_free(H);
  cis_ci_space_free(S);
  return e + F->ecore;
}

/* LiH with orbitals relabelled by a permutation: the finder must locate the
 * permuted RHF occupation and give the same energies. */
static const int perm[6] = {4, 2, 6, 1, 5, 3}; /* old orbital i (1-based) -> perm[i-1] */

/* Integral lines with relabelled orbitals; header lines as they are. */
static void permute_line(const char *line, int in_header, FILE *out) {
  char v[64];
  int ix[4];
  if (in_header || sscanf(line, "%63s %d %d %d %d", v, &ix[0], &ix[1], &ix[2], &ix[3]) != 5) {
    fputs(line, out);
    return;
  }
  fprintf(out, "%s", v);
  for (int q = 0; q < 4; ++q) fprintf(out, " %d", ix[q] ? perm[ix[q] - 1] : 0);
  fputc('\n', out);
}

static void triplet_line(const char *line, int in_header, FILE *out) {
  fputs(strstr(line, "MS2=0") ? "MS2=2,\n" : line, out);
}

/* Copy shared/ci/NAME.FCIDUMP to tmp_path through edit(); 0 on failure. */
static int rewrite_fcidump(const char *name, void (*edit)(const char *line, int in_header, FILE *out)) {
  char sub[64], path[512], line[256];
  snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", name);
  FILE *in = fopen(test_shared_path(path, sizeof path, sub), "r");
  snprintf(tmp_path, sizeof tmp_path, "/tmp/cis_test_%s_%d.FCIDUMP", name, (int)getpid());
  FILE *out = fopen(tmp_path, "w");
  CHECK(in && out, "cannot open %s or %s", path, tmp_path);
  int in_header = 1;
  while (in && out && fgets(line, sizeof line, in)) {
    edit(line, in_header, out);
    if (strstr(line, "&END") || strchr(line, '/')) in_header = 0;
  }
  if (in) fclose(in);
  if (out) fclose(out);
  return in && out;
}

static void test_permuted_orbitals(void) {
  if (!rewrite_fcidump("lih_sto3g", permute_line)) return;
  cis_fcidump *F = load("lih_sto3g"), *P = NULL;
  CHECK_OK(cis_fcidump_read(tmp_path, &P));
  if (F && P) {
    uint64_t a, b, pa, pb;
    CHECK_OK(cis_ci_find_reference(F, &a, &b));
    CHECK_OK(cis_ci_find_reference(P, &pa, &pb));
    uint64_t want = (1ull << (perm[0] - 1)) | (1ull << (perm[1] - 1));
    CHECK(pa == want && pb == want, "permuted reference %llx, expected %llx", (unsigned long long)pa,
          (unsigned long long)want);
    CHECK(fabs(ci_diagonal(P, pa, pb) - ci_diagonal(F, a, b)) < 1e-12, "permuted E_RHF differs");
    CHECK(fabs(energy(P, 2, pa, pb) - (-7.8823781775)) < 1e-8, "permuted LiH CISD energy");
    CHECK(fabs(energy(P, -1, pa, pb) - (-7.8823915054)) < 1e-8, "permuted LiH FCI energy");
  }
  cis_fcidump_free(F);
  cis_fcidump_free(P);
}

/* --occ: the RHF list reproduces the finder; another reference changes
 * E_RHF and CISD but not FCI; bad lists are refused with their reason. */
static void test_occ_override(void) {
  cis_fcidump *F = load("lih_sto3g");
  uint64_t a, b, fa, fb;
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &fa, &fb));
  CHECK_OK(ci_parse_occ(F, "1,2", &a, &b));
  CHECK(a == fa && b == fb, "--occ 1,2 differs from the found reference");
  CHECK_OK(ci_parse_occ(F, "1,3/1,2", &a, &b));
  CHECK(a == 5 && b == 3, "--occ 1,3/1,2 read as %llx/%llx", (unsigned long long)a, (unsigned long long)b);
  CHECK_OK(ci_parse_occ(F, "1,3", &a, &b));
  CHECK(ci_diagonal(F, a, b) > ci_diagonal(F, fa, fb), "1,3 is not above the RHF determinant");
  CHECK(fabs(energy(F, -1, a, b) - (-7.8823915054)) < 1e-8, "FCI from another reference differs");
  CHECK(fabs(energy(F, 2, a, b) - (-7.8823781775)) > 1e-6, "CISD from another reference equals the RHF one");
  const struct { const char *list; const char *words; } bad[] = {
      {"1", "1 doubly occupied orbitals given"}, {"1,7", "out of range"}, {"1,1", "listed twice"},
      {"1,x", "not a list"}, {"1,2,3/1", "3 alpha orbitals"}, {"0,1", "out of range"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cis_status st = ci_parse_occ(F, bad[i].list, &a, &b);
    CHECK(st != CIS_OK && strstr(cis_last_error(), bad[i].words), "--occ %s: '%s'", bad[i].list, cis_last_error());
  }
  cis_fcidump_free(F);
}

/* Open shell: H4 with MS2=2 (3 alpha, 1 beta). Its lowest Ms=1 state is a
 * triplet, which the Ms=0 space also contains: it must be one of the Ms=0
 * roots. */
static void test_open_shell(void) {
  if (!rewrite_fcidump("h4_sto3g", triplet_line)) return;
  cis_fcidump *F = load("h4_sto3g"), *T = NULL;
  CHECK_OK(cis_fcidump_read(tmp_path, &T));
  if (!F || !T) { cis_fcidump_free(F); cis_fcidump_free(T); return; }
  uint64_t a, b;
  CHECK_OK(cis_ci_find_reference(T, &a, &b));
  CHECK(__builtin_popcountll(a) == 3 && __builtin_popcountll(b) == 1, "open-shell reference %llx/%llx",
        (unsigned long long)a, (unsigned long long)b);
  cis_ci_space *S = NULL, *S0 = NULL;
  cis_csr *H = NULL, *H0 = NULL;
  double et = NAN, e0[8];
  CHECK_OK(cis_ci_space_create(T, -1, a, b, &S));
  if (S) CHECK(ci_space_size(S) == 16, "%lld Ms=1 determinants, expected C(4,3)*C(4,1) = 16",
               (long long)ci_space_size(S));
  CHECK_OK(cis_ci_hamiltonian(T, S, 0, &H));
  if (H) lowest(T, S, H, 1, &et);
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, -1, a, b, &S0));
  CHECK_OK(cis_ci_hamiltonian(F, S0, 0, &H0));
  if (H0) lowest(F, S0, H0, 8, e0);
  int found = 0;
  for (int r = 0; r < 8; ++r) found |= fabs(e0[r] - et) < 1e-8;
  CHECK(found, "lowest Ms=1 energy %.10f is not among the lowest 8 Ms=0 roots", et);
  CHECK(et > e0[0], "triplet %.10f below the singlet ground state %.10f", et, e0[0]);
  cis_csr_free(H); cis_csr_free(H0);
  cis_ci_space_free(S); cis_ci_space_free(S0);
  cis_fcidump_free(F); cis_fcidump_free(T);
}

static void test_davidson_errors(void) {
  cis_fcidump *F = load("h4_sto3g");
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  uint64_t a, b;
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, -1, a, b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (!S || !H) goto done;
  cis_int n = H->rows;
  double *diag = malloc((size_t)n * sizeof(double)), ev[2];
  CHECK_OK(ci_diagonal_all(F, S, diag));
  op_ctx c = {H};
  cis_davidson_opts o = cis_davidson_opts_default();
  o.max_iter = 2;
  CHECK(ci_davidson(n, diag, apply_full, &c, &o, ev, NULL, NULL) == CIS_ERR_NOT_CONVERGED, "2 iterations converged");
  o = cis_davidson_opts_default();
  CHECK(ci_davidson(n, diag, apply_nan, &c, &o, ev, NULL, NULL) == CIS_ERR_NUMERIC, "NaN operator accepted");
  o.roots = (int)n + 1;
  CHECK(ci_davidson(n, diag, apply_full, &c, &o, ev, NULL, NULL) == CIS_ERR_INVALID, "more roots than dimension");
  free(diag);
done:
  cis_csr_free(H);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

/* Rows r0..r1-1 of H equal the slab R bit for bit (R: global columns). */
static int slab_equal(const cis_csr *H, cis_int r0, cis_int r1, const cis_csr *R) {
  if (!R || R->rows != r1 - r0 || R->cols != H->cols || R->dtype != CIS_F64 || R->flags != 0) return 0;
  cis_int o = H->rowptr[r0], m = H->rowptr[r1] - o;
  if (R->nnz != m) return 0;
  for (cis_int i = 0; i <= r1 - r0; ++i)
    if (R->rowptr[i] != H->rowptr[r0 + i] - o) return 0;
  return !memcmp(R->colind, H->colind + o, (size_t)m * sizeof(cis_idx)) &&
         !memcmp(R->val, (const double *)H->val + o, (size_t)m * sizeof(double));
}

/* ci_hamiltonian_rows and _row_nnz: every range (whole, empty, uneven
 * thirds, one row) equal to the whole build's rows, bit for bit, counted
 * here or from the counts, full and upper; bad ranges and wrong counts
 * refused. */
static void test_row_ranges(const char *name, int level) {
  cis_fcidump *F = load(name);
  cis_ci_space *S = NULL;
  uint64_t a, b;
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, level, a, b, &S));
  cis_int n = ci_space_size(S);
  cis_int *cnt = malloc((size_t)n * sizeof *cnt);
  for (int upper = 0; upper < 2 && cnt; ++upper) {
    cis_csr *H = NULL, *R = NULL;
    CHECK_OK(cis_ci_hamiltonian(F, S, upper, &H));
    CHECK_OK(ci_hamiltonian_row_nnz(F, S, upper, cnt));
    if (!H) break;
    int counts_ok = 1;
    for (cis_int i = 0; i < n; ++i) counts_ok &= cnt[i] == H->rowptr[i + 1] - H->rowptr[i];
    CHECK(counts_ok, "%s upper=%d: row counts differ from the build's rows", name, upper);
    cis_int cuts[][2] = {{0, n}, {0, 0}, {n / 2, n / 2}, {0, n / 3}, {n / 3, n / 2}, {n / 2, n}, {n - 1, n}, {1, 2}};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; ++c)
      for (int given = 0; given < 2; ++given) {
        R = NULL;
        CHECK_OK(ci_hamiltonian_rows(F, S, cuts[c][0], cuts[c][1], upper, given ? cnt : NULL, &R));
        CHECK(slab_equal(H, cuts[c][0], cuts[c][1], R), "%s upper=%d rows [%lld, %lld) %s: not the build's rows", name,
              upper, (long long)cuts[c][0], (long long)cuts[c][1], given ? "from counts" : "counted");
        cis_csr_free(R);
      }
    /* refusals: ranges outside the space, a wrong count, no output */
    cis_int bad[][2] = {{-1, 2}, {0, n + 1}, {3, 2}};
    for (size_t c = 0; c < sizeof bad / sizeof *bad; ++c) {
      R = H; /* must come back NULL */
      CHECK(ci_hamiltonian_rows(F, S, bad[c][0], bad[c][1], upper, NULL, &R) == CIS_ERR_INVALID && !R,
            "rows [%lld, %lld) accepted", (long long)bad[c][0], (long long)bad[c][1]);
    }
    cnt[n / 2] += 1;
    R = NULL;
    CHECK(ci_hamiltonian_rows(F, S, 0, n, upper, cnt, &R) == CIS_ERR_INVALID && !R, "a wrong row count accepted");
    cnt[n / 2] = -1;
    CHECK(ci_hamiltonian_rows(F, S, n / 2, n, upper, cnt, &R) == CIS_ERR_INVALID && !R, "a negative row count accepted");
    CHECK(ci_hamiltonian_rows(F, S, 0, n, upper, NULL, NULL) == CIS_ERR_INVALID, "NULL output accepted");
    CHECK(ci_hamiltonian_rows(NULL, S, 0, n, upper, NULL, &R) == CIS_ERR_INVALID && !R, "NULL integrals accepted");
    CHECK(ci_hamiltonian_row_nnz(F, S, upper, NULL) == CIS_ERR_INVALID, "NULL counts accepted");
    cis_csr_free(H);
  }
  free(cnt);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

/* A space and its Hamiltonian (whole, or rows 1..size-2), sorted or not. */
typedef struct ham_call { cis_fcidump *F; uint64_t a, b; int rows, sorted; cis_ci_space *S; cis_csr *H; } ham_call;

static cis_status ham_run(void *ctx) {
  ham_call *c = ctx;
  cis_status st = cis_ci_space_create(c->F, 2, c->a, c->b, &c->S);
  if (st == CIS_OK && !c->rows) st = cis_ci_hamiltonian(c->F, c->S, c->sorted, &c->H);
  if (st == CIS_OK && c->rows)
    st = ci_hamiltonian_rows(c->F, c->S, 1, ci_space_size(c->S) - 1, c->sorted, NULL, &c->H);
  CHECK(st == CIS_OK || !c->H, "%s with a Hamiltonian made", cis_status_name(st));
  return st;
}

static void ham_undo(void *ctx) {
  ham_call *c = ctx;
  cis_csr_free(c->H), cis_ci_space_free(c->S), c->H = NULL, c->S = NULL;
}

static void test_alloc_failure(void) {
  cis_fcidump *F = load("h4_sto3g");
  ham_call c = {F, 0, 0, 0, 0, NULL, NULL};
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &c.a, &c.b));
  for (c.rows = 0; c.rows < 2; ++c.rows)
    for (c.sorted = 0; c.sorted < 2; ++c.sorted)
      test_alloc_every(c.rows ? "space + hamiltonian rows" : "space + hamiltonian", ham_run, ham_undo, &c);
  cis_fcidump_free(F);
}

int main(void) {
  test_h2_by_hand();
  test_h2_symmetry();
  test_symmetry_and_upper("h4_sto3g", -1);
  test_symmetry_and_upper("lih_sto3g", 2);
  test_symmetry_and_upper("beh2_sto3g", -1);
  test_row_ranges("h4_sto3g", -1);
  test_row_ranges("lih_sto3g", 2);
  test_row_ranges("h2o_sto3g", 3);
  test_permuted_orbitals();
  test_occ_override();
  test_open_shell();
  test_davidson_errors();
  test_alloc_failure();
  unlink(tmp_path);
  return test_summary("test_ci_hamiltonian");
}
