/* test_ci_energies.c: every molecule in shared/ci: determinant counts, E_RHF
 * (reference diagonal + core = E_SCF), CISD and FCI lowest energies against
 * reference.tsv (Psi4 detci) to 1e-8 Hartree; H2O 6-31G FCI (1.66M
 * determinants) is left to the GPU run. Full and upper-triangle storage. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"
#include "core/internal.h"

typedef struct ref_row {
  char name[24];
  double escf, ecisd, efci;
  long cisd_dets, fci_dets;
} ref_row;

/* Parse reference.tsv (header line names the columns). */
static int read_reference(ref_row *rows, int max) {
  char path[512], line[1024];
  FILE *f = fopen(test_shared_path(path, sizeof path, "ci/reference.tsv"), "r");
  int n = 0;
  CHECK(f != NULL, "cannot open %s", path);
  if (!f) return 0;
  while (fgets(line, sizeof line, f) && n < max) {
    if (line[0] == '#' || !strncmp(line, "name", 4)) continue;
    ref_row *r = &rows[n];
    char basis[32];
    int norb, nelec, ms2, na, nb;
    double enuc;
    if (sscanf(line, "%23s %31s %d %d %d %d %d %lf %lf %lf %lf %ld %ld", r->name, basis, &norb, &nelec, &ms2, &na,
               &nb, &enuc, &r->escf, &r->ecisd, &r->efci, &r->cisd_dets, &r->fci_dets) == 13)
      n++;
  }
  fclose(f);
  return n;
}

typedef struct op_ctx { const cis_matrix *M; const cis_csr *U; } op_ctx;
static cis_status apply(void *c, const double *x, double *y) {
  op_ctx *o = c;
  return o->U ? csr_symv_upper(o->U, x, y) : cis_matrix_spmv(o->M, 1.0, x, 0.0, y);
}

/* Lowest energy (total) of the space at `level` (-1 full); nnz reported. */
static double solve(const cis_fcidump *F, int level, int upper, long *ndet) {
  uint64_t a = 0, b = 0;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  cis_matrix *M = NULL;
  double *diag = NULL, e = NAN;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, level, a, b, &S));
  if (!S) return NAN;
  cis_int n = ci_space_size(S);
  *ndet = (long)n;
  CHECK_OK(cis_ci_hamiltonian(F, S, upper, &H));
  if (H && !upper) CHECK_OK(cis_matrix_create(H, "csr", NULL, &M));
  diag = malloc((size_t)n * sizeof(double));
  CHECK_OK(ci_diagonal_all(F, S, diag));
  op_ctx ctx = {M, upper ? H : NULL};
  cis_davidson_opts o = cis_davidson_opts_default();
  double ev = NAN;
  if (H && (M || upper)) {
    CHECK_OK(ci_davidson(n, diag, apply, &ctx, &o, &ev, NULL, NULL));
    e = ev + F->ecore;
  }
  free(diag);
  cis_matrix_free(M);
  cis_csr_free(H);
  cis_ci_space_free(S);
  return e;
}

int main(void) {
  ref_row rows[16];
  int n = read_reference(rows, 16);
  CHECK(n == 6, "reference.tsv: %d molecules, expected 6", n);
  for (int m = 0; m < n; ++m) {
    char sub[64], path[512];
    snprintf(sub, sizeof sub, "ci/%.23s.FCIDUMP", rows[m].name);
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
    if (!F) continue;
    uint64_t a = 0, b = 0;
    CHECK_OK(cis_ci_find_reference(F, &a, &b));
    double erhf = ci_diagonal(F, a, b) + F->ecore;
    CHECK(fabs(erhf - rows[m].escf) < 1e-8, "%s: E_RHF %.10f, reference %.10f", rows[m].name, erhf, rows[m].escf);
    CHECK(a == b && a == (1ull << F->nelec / 2) - 1, "%s: reference is not orbitals 1..%d", rows[m].name, F->nelec / 2);
    long nd = 0;
    double ecisd = solve(F, 2, 0, &nd);
    CHECK(nd == rows[m].cisd_dets, "%s: %ld CISD determinants, reference %ld", rows[m].name, nd, rows[m].cisd_dets);
    CHECK(fabs(ecisd - rows[m].ecisd) < 1e-8, "%s: E_CISD %.10f, reference %.10f", rows[m].name, ecisd, rows[m].ecisd);
    double ecisd_u = solve(F, 2, 1, &nd);
    CHECK(fabs(ecisd_u - rows[m].ecisd) < 1e-8, "%s: E_CISD (upper) %.10f, reference %.10f", rows[m].name, ecisd_u, rows[m].ecisd);
    if (rows[m].fci_dets <= 20000) {
      double efci = solve(F, -1, m % 2, &nd);
      CHECK(nd == rows[m].fci_dets, "%s: %ld FCI determinants, reference %ld", rows[m].name, nd, rows[m].fci_dets);
      CHECK(fabs(efci - rows[m].efci) < 1e-8, "%s: E_FCI %.10f, reference %.10f", rows[m].name, efci, rows[m].efci);
      printf("%-12s CISD %.10f (%+.1e)  FCI %.10f (%+.1e)\n", rows[m].name, ecisd, ecisd - rows[m].ecisd, efci,
             efci - rows[m].efci);
    } else {
      /* FCI space size only (the Hamiltonian is GPU-sized) */
      cis_ci_space *S = NULL;
      CHECK_OK(cis_ci_space_create(F, -1, a, b, &S));
      if (S) CHECK(ci_space_size(S) == rows[m].fci_dets, "%s: %lld FCI determinants, reference %ld",
                   rows[m].name, (long long)ci_space_size(S), rows[m].fci_dets);
      cis_ci_space_free(S);
      printf("%-12s CISD %.10f (%+.1e)  FCI space %ld determinants\n", rows[m].name, ecisd, ecisd - rows[m].ecisd,
             rows[m].fci_dets);
    }
    cis_fcidump_free(F);
  }
  return test_summary("test_ci_energies");
}
