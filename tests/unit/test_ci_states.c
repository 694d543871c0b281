/* test_ci_states.c: the right states (issue 11): the dense eigensolver of
 * the P-space, the C2/STO-3G trap (unit-vector guess -> an excited state,
 * P-space guess -> PySCF's FCI ground state), an unconverged root is an
 * error, <S^2> of known singlets, doublets and triplets, closed-form
 * determinant counts equal to the built spaces (with and without symmetry,
 * every irrep), and PySCF's 0-based ORBSYM numbering. Reference energies:
 * tests/data/ci/make_fcidumps.py (PySCF 2.14). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

#define DATA CIS_TEST_DATA "/ci/"

typedef struct op_ctx { const cis_matrix *M; } op_ctx;
static cis_status apply(void *c, const double *x, double *y) {
  return cis_matrix_spmv(((op_ctx *)c)->M, 1.0, x, 0.0, y);
}

/* A small CI problem held together. */
typedef struct prob {
  cis_fcidump *F;
  cis_ci_space *S;
  cis_csr *H;
  cis_matrix *M;
  double *diag;
  cis_int n;
} prob;

static int prob_make(prob *p, const char *path, int level) {
  uint64_t a = 0, b = 0;
  memset(p, 0, sizeof *p);
  CHECK_OK(cis_fcidump_read(path, &p->F));
  if (!p->F) return 0;
  if (cis_ci_find_reference(p->F, &a, &b) != CIS_OK) { /* full CI needs none */
    a = (1ull << cis_fcidump_nalpha(p->F)) - 1;
    b = (1ull << cis_fcidump_nbeta(p->F)) - 1;
  }
  CHECK_OK(cis_ci_space_create(p->F, level, a, b, &p->S));
  if (!p->S) return 0;
  p->n = ci_space_size(p->S);
  CHECK_OK(cis_ci_hamiltonian(p->F, p->S, 0, &p->H));
  if (p->H) CHECK_OK(cis_matrix_create(p->H, "csr", NULL, &p->M));
  p->diag = malloc((size_t)p->n * sizeof(double));
  CHECK_OK(ci_diagonal_all(p->F, p->S, p->diag));
  return p->M != NULL;
}

static void prob_free(prob *p) {
  cis_matrix_free(p->M);
  cis_csr_free(p->H);
  cis_ci_space_free(p->S);
  cis_fcidump_free(p->F);
  free(p->diag);
}

/* Lowest k roots with P-space guesses (pspace <= 0: unit-vector guesses);
 * evecs (n*k) may be NULL. Returns the status of Davidson. */
static cis_status roots(prob *p, int k, int pspace, int max_iter, double *evals, double *evecs, cis_davidson_info *inf) {
  cis_davidson_opts o = cis_davidson_opts_default();
  op_ctx ctx = {p->M};
  double *guess = NULL;
  o.roots = k;
  if (max_iter > 0) o.max_iter = max_iter;
  if (pspace > 0) {
    int nvec = k + 4 < 2 * k + 2 ? k + 4 : 2 * k + 2;
    if (nvec > p->n) nvec = (int)p->n;
    guess = malloc((size_t)nvec * (size_t)p->n * sizeof(double));
    CHECK_OK(ci_pspace_guess(p->F, p->S, p->diag, pspace, nvec, guess, NULL, NULL));
    o.guess = guess;
    o.nguess = nvec;
  }
  cis_status st = ci_davidson(p->n, p->diag, apply, &ctx, &o, evals, evecs, inf);
  free(guess);
  return st;
}

/* Dense eigensolver: A v = w v, V^T V = 1, w ascending, on a random matrix,
 * one with a degenerate pair, and 1 x 1. */
static void test_dense_eigh(void) {
  int sizes[] = {1, 7, 60};
  for (int t = 0; t < 3; ++t) {
    int n = sizes[t];
    double *A = malloc((size_t)n * n * sizeof(double)), *V = malloc((size_t)n * n * sizeof(double)), *w = malloc((size_t)n * sizeof(double));
    test_fill_random(A, CIS_F64, (cis_int)n * n, 11 + t);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) A[i * n + j] = A[j * n + i];
    if (n == 7) { /* a degenerate pair: diag(1, 1, 2, ...) */
      memset(A, 0, (size_t)n * n * sizeof(double));
      for (int i = 0; i < n; ++i) A[i * n + i] = i < 2 ? 1 : i;
    }
    memcpy(V, A, (size_t)n * n * sizeof(double));
    CHECK_OK(ci_dense_eigh(V, n, w));
    double res = 0, orth = 0;
    for (int c = 0; c < n; ++c) {
      if (c) CHECK(w[c] >= w[c - 1], "n=%d: eigenvalues not ascending at %d", n, c);
      for (int i = 0; i < n; ++i) {
        double s = -w[c] * V[i * n + c];
        for (int j = 0; j < n; ++j) s += A[i * n + j] * V[j * n + c];
        res = fmax(res, fabs(s));
      }
      for (int d = 0; d < n; ++d) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += V[i * n + c] * V[i * n + d];
        orth = fmax(orth, fabs(s - (c == d)));
      }
    }
    CHECK(res < 1e-12 * fmax(1, n), "n=%d: residual %.2e", n, res);
    CHECK(orth < 1e-12 * fmax(1, n), "n=%d: orthonormality %.2e", n, orth);
    free(A); free(V); free(w);
  }
}

/* C2/STO-3G without symmetry labels: the lowest diagonal element is an
 * open-shell determinant of another symmetry. */
static void test_c2_trap(void) {
  prob p;
  if (!prob_make(&p, DATA "c2_sto3g.FCIDUMP", -1)) { prob_free(&p); return; }
  double e_unit = NAN, e = NAN, s2 = NAN, *vec = malloc((size_t)p.n * sizeof(double));
  cis_davidson_info inf;
  CHECK_OK(roots(&p, 1, 0, 0, &e_unit, NULL, &inf));
  CHECK_OK(roots(&p, 1, CIS_CI_PSPACE_DEFAULT, 0, &e, vec, &inf));
  CHECK(fabs(e + p.F->ecore - -74.69021095756578) < 1e-8, "C2 FCI %.10f, PySCF -74.6902109576", e + p.F->ecore);
  CHECK(e_unit > e + 0.01, "the unit-vector guess no longer shows the trap (%.8f vs %.8f): update this test",
        e_unit + p.F->ecore, e + p.F->ecore);
  CHECK_OK(ci_s2(p.F, p.S, vec, &s2));
  CHECK(fabs(s2) < 1e-6, "C2 ground state <S^2> %.3e, a singlet", s2);
  /* an unconverged root is an error, and says how many converged */
  double e2[2];
  CHECK(roots(&p, 2, CIS_CI_PSPACE_DEFAULT, 1, e2, NULL, &inf) == CIS_ERR_NOT_CONVERGED, "max_iter 1 converged");
  CHECK(inf.converged < 2, "max_iter 1: %d roots reported converged", inf.converged);
  CHECK(strstr(cis_last_error(), "root") != NULL, "message names no root: %s", cis_last_error());
  free(vec);
  prob_free(&p);
  /* CISD likewise (PySCF ci.CISD -74.637590139071) */
  if (!prob_make(&p, DATA "c2_sto3g.FCIDUMP", 2)) { prob_free(&p); return; }
  CHECK_OK(roots(&p, 1, CIS_CI_PSPACE_DEFAULT, 0, &e, NULL, &inf));
  CHECK(fabs(e + p.F->ecore - -74.637590139071) < 1e-8, "C2 CISD %.10f, PySCF -74.6375901391", e + p.F->ecore);
  prob_free(&p);
}

/* The direct (matrix-free) space: P-space guesses in its order (only
 * determinants of ISYM when the point group is projected) and <S^2>. */
static void test_direct(void) {
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  cis_operator *op = NULL;
  CHECK_OK(cis_fcidump_read(DATA "c2_sto3g_d2h_pyscf.FCIDUMP", &F));
  if (F) CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (D) CHECK_OK(ci_direct_operator(D, &op));
  if (op) {
    cis_int n = cis_ci_direct_size(D);
    const double *diag = cis_operator_diagonal(op);
    double *g = malloc((size_t)n * 6 * sizeof(double)), *v = malloc((size_t)n * 2 * sizeof(double)), e[2], s2 = NAN;
    CHECK_OK(ci_pspace_guess_direct(F, D, diag, 0, 6, g, NULL, NULL));
    for (cis_int i = 0; i < n; ++i) { /* only A1g determinants carry weight */
      uint64_t a, b;
      cis_ci_direct_det(D, i, &a, &b);
      int sym = 0;
      for (uint64_t t = a; t; t &= t - 1) sym ^= F->orbsym[__builtin_ctzll(t)] - 1;
      for (uint64_t t = b; t; t &= t - 1) sym ^= F->orbsym[__builtin_ctzll(t)] - 1;
      if (sym != 0 && g[i] != 0) { CHECK(0, "P-space guess has weight on determinant %lld of irrep %d", (long long)i, sym + 1); break; }
    }
    cis_davidson_opts o = cis_davidson_opts_default();
    o.roots = 2;
    o.guess = g;
    o.nguess = 6;
    CHECK_OK(cis_davidson_operator(op, diag, &o, e, v, NULL));
    CHECK(fabs(e[0] + F->ecore - -74.69021095756585) < 1e-8 && fabs(e[1] + F->ecore - -74.52285737077541) < 1e-8,
          "C2 D2h direct A1g roots %.10f %.10f", e[0] + F->ecore, e[1] + F->ecore);
    CHECK_OK(ci_s2_direct(F, D, v, &s2));
    CHECK(fabs(s2) < 1e-6, "C2 direct <S^2> %.3e", s2);
    free(g);
    free(v);
  }
  cis_operator_free(op);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

/* A P-space as large as the space is exact: H4 FCI (36 determinants). */
static void test_pspace_exact(void) {
  prob p;
  char path[512];
  if (!prob_make(&p, test_shared_path(path, sizeof path, "ci/h4_sto3g.FCIDUMP"), -1)) { prob_free(&p); return; }
  double *g = malloc((size_t)p.n * 2 * sizeof(double)), pv[2];
  int used = 0;
  CHECK_OK(ci_pspace_guess(p.F, p.S, p.diag, 1000, 2, g, &used, pv));
  CHECK(used == p.n, "P-space %d of %lld", used, (long long)p.n);
  CHECK(fabs(pv[0] + p.F->ecore - -2.166387449) < 1e-8, "H4 P-space = FCI: %.10f", pv[0] + p.F->ecore);
  CHECK(ci_pspace_guess(p.F, p.S, p.diag, 10, 11, g, NULL, NULL) == CIS_ERR_INVALID, "more vectors than P-space accepted");
  free(g);
  prob_free(&p);
}

/* Write `src` with its header's MS2 and NELEC replaced (keeps the integrals). */
static void rewrite_header(const char *src, const char *dst, int nelec, int ms2) {
  FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
  char line[4096];
  int in_header = 1;
  CHECK(in && out, "cannot copy %s to %s", src, dst);
  if (!in || !out) { if (in) fclose(in); if (out) fclose(out); return; }
  fprintf(out, "&FCI NORB=%s", "");
  int norb = 0;
  while (fgets(line, sizeof line, in)) {
    if (in_header) {
      char *p = strstr(line, "NORB=");
      if (p) norb = atoi(p + 5);
      if (strstr(line, "&END") || strchr(line, '/')) {
        in_header = 0;
        fprintf(out, "%d, NELEC=%d, MS2=%d &END\n", norb, nelec, ms2);
      }
      continue;
    }
    fputs(line, out);
  }
  fclose(in);
  fclose(out);
}

/* <S^2>: H2O singlets and triplets (Ms = 0), a triplet-only space (H4 with
 * MS2 = 2), a doublet (LiH+ with MS2 = 1). */
static void test_spin(void) {
  char path[512];
  prob p;
  double e[6], *v = NULL, s2;
  cis_davidson_info inf;
  if (prob_make(&p, test_shared_path(path, sizeof path, "ci/h2o_sto3g.FCIDUMP"), -1)) {
    v = malloc((size_t)p.n * 6 * sizeof(double));
    CHECK_OK(roots(&p, 6, CIS_CI_PSPACE_DEFAULT, 0, e, v, &inf));
    const double want[6] = {0, 2, 0, 2, 2, 0}; /* PySCF's spin_square on these roots: singlet, triplet, ... */
    for (int k = 0; k < 6; ++k) {
      CHECK_OK(ci_s2(p.F, p.S, v + (size_t)k * p.n, &s2));
      CHECK(fabs(s2 - want[k]) < 1e-6, "H2O root %d <S^2> %.8f, expected %g", k, s2, want[k]);
    }
    CHECK(fabs(cis_ci_spin_from_s2(2.0) - 1) < 1e-12 && fabs(cis_ci_spin_from_s2(0.75) - 0.5) < 1e-12, "S from <S^2>");
    free(v);
  }
  prob_free(&p);
  /* H4, MS2 = 2: no singlet exists; the lowest is a triplet */
  rewrite_header(test_shared_path(path, sizeof path, "ci/h4_sto3g.FCIDUMP"), "/tmp/test_ci_states_h4_ms2.FCIDUMP", 4, 2);
  if (prob_make(&p, "/tmp/test_ci_states_h4_ms2.FCIDUMP", -1)) {
    v = malloc((size_t)p.n * 2 * sizeof(double));
    CHECK_OK(roots(&p, 2, CIS_CI_PSPACE_DEFAULT, 0, e, v, &inf));
    CHECK_OK(ci_s2(p.F, p.S, v, &s2));
    CHECK(fabs(s2 - 2) < 1e-6, "H4 MS2=2 lowest <S^2> %.8f, a triplet", s2);
    free(v);
  }
  prob_free(&p);
  /* LiH+, NELEC = 3, MS2 = 1: doublets (3/4) */
  rewrite_header(test_shared_path(path, sizeof path, "ci/lih_sto3g.FCIDUMP"), "/tmp/test_ci_states_lih_cation.FCIDUMP", 3, 1);
  if (prob_make(&p, "/tmp/test_ci_states_lih_cation.FCIDUMP", -1)) {
    v = malloc((size_t)p.n * sizeof(double));
    CHECK_OK(roots(&p, 1, CIS_CI_PSPACE_DEFAULT, 0, e, v, &inf));
    CHECK_OK(ci_s2(p.F, p.S, v, &s2));
    CHECK(fabs(s2 - 0.75) < 1e-6, "LiH+ lowest <S^2> %.8f, a doublet", s2);
    free(v);
  }
  prob_free(&p);
  remove("/tmp/test_ci_states_h4_ms2.FCIDUMP");
  remove("/tmp/test_ci_states_lih_cation.FCIDUMP");
}

/* Closed-form counts = the built spaces: shared molecules (FCI, CISD, CISDT)
 * and PySCF-numbered D2h files in every irrep. */
static void test_counts(void) {
  const char *files[] = {"ci/h4_sto3g.FCIDUMP", "ci/lih_sto3g.FCIDUMP", "ci/h2o_sto3g.FCIDUMP", "ci/n2_sto3g.FCIDUMP",
                         DATA "c2_sto3g_d2h_pyscf.FCIDUMP", DATA "o2_sto3g_triplet_pyscf.FCIDUMP"};
  for (int f = 0; f < 6; ++f) {
    char path[512];
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(files[f][0] == '/' ? files[f] : test_shared_path(path, sizeof path, files[f]), &F));
    if (!F) continue;
    int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
    uint64_t a = (1ull << na) - 1, b = (1ull << nb) - 1;
    for (int irr = 1; irr <= (F->sym_numbering ? 8 : 1); ++irr) {
      F->isym = irr;
      for (int level = -1; level <= 3; ++level) {
        if (level == 0 || level == 1) continue;
        cis_ci_counts c;
        cis_ci_space *S = NULL;
        CHECK_OK(ci_count(F, level, a, b, &c));
        cis_status st = cis_ci_space_create(F, level, a, b, &S);
        cis_int built = st == CIS_OK ? ci_space_size(S) : 0;
        CHECK((double)built == c.determinants, "%s irrep %d level %d: closed form %.0f, built %lld", files[f], irr, level,
              c.determinants, (long long)built);
        if (S) CHECK(c.alpha_strings == (double)ci_space_nalpha_strings(S), "%s: alpha strings", files[f]);
        cis_ci_space_free(S);
        if (level < 0) {
          double all = 0, binom = 1;
          for (int g = 0; g < 8; ++g) all += c.per_irrep[g];
          for (int k = 0; k < na; ++k) binom = binom * (F->norb - k) / (k + 1);
          double bb = 1;
          for (int k = 0; k < nb; ++k) bb = bb * (F->norb - k) / (k + 1);
          CHECK(fabs(all - binom * bb) < 0.5, "%s: irreps sum to %.0f, C(n,na)C(n,nb) = %.0f", files[f], all, binom * bb);
        }
      }
    }
    cis_fcidump_free(F);
  }
  /* nonzeros from sampled rows near the counted ones */
  for (int f = 2; f < 4; ++f) {
    char path[512];
    cis_fcidump *G = NULL;
    cis_ci_space *S = NULL;
    CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, files[f]), &G));
    if (!G) continue;
    uint64_t a = (1ull << cis_fcidump_nalpha(G)) - 1, b = (1ull << cis_fcidump_nbeta(G)) - 1;
    CHECK_OK(cis_ci_space_create(G, -1, a, b, &S));
    cis_int exact = 0, maxrow = 0, sampled = 0;
    double est = 0;
    if (S) {
      CHECK_OK(ci_hamiltonian_nnz(G, S, 0, &exact, &maxrow));
      CHECK_OK(ci_hamiltonian_nnz_estimate(G, S, 0, 1000, &est, &sampled));
      CHECK(sampled >= 400 && fabs(est - (double)exact) < 0.1 * (double)exact, "%s: estimate %.0f from %lld rows, exact %lld",
            files[f], est, (long long)sampled, (long long)exact);
    }
    cis_ci_space_free(S);
    cis_fcidump_free(G);
  }
  /* NORB 40, NELEC 20: counted at once, refused before anything is built */
  FILE *h = fopen("/tmp/test_ci_states_n40.FCIDUMP", "w");
  if (h) { fprintf(h, "&FCI NORB=40,NELEC=20,MS2=0 &END\n"); fclose(h); }
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read("/tmp/test_ci_states_n40.FCIDUMP", &F));
  if (F) {
    cis_ci_counts c;
    cis_ci_space *S = NULL;
    double t0 = cis_wtime();
    CHECK_OK(ci_count(F, -1, (1ull << 10) - 1, (1ull << 10) - 1, &c));
    CHECK(fabs(c.determinants - 847660528.0 * 847660528.0) < 1e3, "NORB 40 NELEC 20: %.6e", c.determinants);
    CHECK(cis_ci_space_create(F, -1, (1ull << 10) - 1, (1ull << 10) - 1, &S) == CIS_ERR_TOO_LARGE, "7e17 determinants accepted");
    CHECK(cis_wtime() - t0 < 1.0, "refusal took %.2f s", cis_wtime() - t0);
    cis_ci_space_free(S);
    cis_fcidump_free(F);
  }
  remove("/tmp/test_ci_states_n40.FCIDUMP");
}

/* PySCF's numbering: 0-based ORBSYM, ISYM=1 = totally symmetric. */
static void test_numbering(void) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(DATA "c2_sto3g_d2h_pyscf.FCIDUMP", &F));
  if (!F) return;
  CHECK(F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF, "numbering %d", F->sym_numbering);
  CHECK(F->isym == 1 && F->isym_assumed && F->isym_file == 1, "ISYM %d assumed %d", F->isym, F->isym_assumed);
  CHECK(F->orbsym[0] == 1 && F->orbsym[1] == 6, "ORBSYM 0,5 stored as %d,%d", F->orbsym[0], F->orbsym[1]);
  CHECK(fcidump_set_isym(F, 8) == CIS_ERR_RANGE, "PySCF id 8 accepted");
  CHECK_OK(fcidump_set_isym(F, 0));
  CHECK(F->isym == 1 && !F->isym_assumed, "--isym 0 -> %d", F->isym);
  CHECK_OK(fcidump_set_isym(F, 7));
  CHECK(F->isym == 8, "--isym 7 -> %d", F->isym);
  /* a D2h file (an orbital in id 5, B1u): PySCF's names by 1-based irrep (id + 1) */
  CHECK(cis_fcidump_irrep_name(F, 1) && !strcmp(cis_fcidump_irrep_name(F, 1), "Ag"), "irrep 1 not Ag");
  CHECK(cis_fcidump_irrep_name(F, 2) && !strcmp(cis_fcidump_irrep_name(F, 2), "B1g"), "irrep 2 not B1g");
  CHECK(cis_fcidump_irrep_name(F, 6) && !strcmp(cis_fcidump_irrep_name(F, 6), "B1u"), "irrep 6 not B1u");
  CHECK(!cis_fcidump_irrep_name(F, 0) && !cis_fcidump_irrep_name(F, 9), "irreps 0 or 9 named");
  cis_fcidump_free(F);
  { /* opts.isym is 1-based in a PySCF file too: 2 is id 1 (B1g), as F->isym */
    cis_ci_solve_opts o = cis_ci_solve_opts_default();
    cis_ci_result *R = NULL;
    o.isym = 2;
    o.count_only = 1;
    CHECK_OK(cis_ci_solve_file(DATA "c2_sto3g_d2h_pyscf.FCIDUMP", &o, &R));
    if (R) CHECK(R->fcidump->isym == 2 && !R->fcidump->isym_assumed, "opts.isym 2 -> ISYM %d", R->fcidump->isym);
    cis_ci_result_free(R);
  }
  char path[512];
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_sto3g.FCIDUMP"), &F));
  if (F) CHECK(F->sym_numbering == CIS_FCIDUMP_SYM_MOLPRO && !F->isym_assumed, "Psi4 file numbering %d", F->sym_numbering);
  if (F) CHECK(fcidump_set_isym(F, 0) == CIS_ERR_RANGE, "Molpro irrep 0 accepted");
  if (F) {
    CHECK(!cis_fcidump_irrep_name(F, 1), "a file of irrep 1 only named D2h's"); /* the group is not known */
    F->orbsym[0] = 2, F->orbsym[1] = 5; /* Molpro's D2h numbering: 2 is B3u, 5 B1u */
    CHECK(cis_fcidump_irrep_name(F, 2) && !strcmp(cis_fcidump_irrep_name(F, 2), "B3u"), "Molpro irrep 2 not B3u");
    CHECK(cis_fcidump_irrep_name(F, 4) && !strcmp(cis_fcidump_irrep_name(F, 4), "B1g"), "Molpro irrep 4 not B1g");
  }
  cis_fcidump_free(F);
}

/* The calls test_alloc_failure makes fail at every allocation. */
typedef struct guess_call { prob *p; double *g; cis_ci_space *S; } guess_call;

static cis_status pspace_run(void *ctx) {
  guess_call *c = ctx;
  return ci_pspace_guess(c->p->F, c->p->S, c->p->diag, 20, 3, c->g, NULL, NULL);
}

static cis_status space_run(void *ctx) {
  guess_call *c = ctx;
  const cis_status st = cis_ci_space_create(c->p->F, 2, 3, 3, &c->S);
  CHECK(st == CIS_OK || !c->S, "space: %s with a space made", cis_status_name(st));
  return st;
}

static void space_undo(void *ctx) {
  guess_call *c = ctx;
  cis_ci_space_free(c->S), c->S = NULL;
}

/* Every allocation of the P-space guess, the dense eigensolver and the
 * counts-then-space path made to fail in turn: CIS_ERR_ALLOC, nothing leaked
 * (ASan), and OK once the failure is past the last allocation. */
static void test_alloc_failure(void) {
  prob p;
  char path[512];
  if (!prob_make(&p, test_shared_path(path, sizeof path, "ci/h4_sto3g.FCIDUMP"), -1)) { prob_free(&p); return; }
  guess_call c = {&p, malloc((size_t)p.n * 3 * sizeof(double)), NULL};
  CHECK(c.g != NULL, "no room for the guesses");
  if (c.g) test_alloc_every("P-space guess", pspace_run, NULL, &c);
  test_alloc_every("space by counts", space_run, space_undo, &c);
  free(c.g);
  prob_free(&p);
}

int main(void) {
  test_alloc_failure();
  test_dense_eigh();
  test_c2_trap();
  test_pspace_exact();
  test_direct();
  test_spin();
  test_counts();
  test_numbering();
  return test_summary("test_ci_states");
}
