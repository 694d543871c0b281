/* test_ci_api_validation.c: the public C API checks a caller's cis_fcidump
 * and cis_ci_solve_opts before using them (issue 40, item 5). From a valid
 * in-memory cis_fcidump (H2O STO-3G read from ../shared/ci), each field is
 * altered on a copy: every entry point taking a cis_fcidump returns the
 * expected status with one line naming the field, and none crashes (run
 * under ASan/UBSan: the header cases were a stack-buffer-overflow in the
 * reference search, a heap overflow in the integrals, out-of-bounds irreps
 * and NULL arrays). Every option field out of range is refused by
 * cis_ci_solve likewise. No message names a command-line flag. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"
#include "ci/ci_solve_internal.h"

/* The message of the last error names no command-line flag ("--pspace"). */
static void check_no_flag(const char *what) {
  const char *m = cis_last_error();
  CHECK(!strstr(m, "--"), "%s: the message names a command-line flag: %s", what, m);
}

/* ---- the header: every entry point taking a cis_fcidump ------------------ */

typedef struct header_case {
  const char *name;
  void (*alter)(cis_fcidump *G);
  cis_status status;
  const char *words; /* in the message */
} header_case;

static void nelec13(cis_fcidump *G) { G->nelec = 13; }
static void ms2_p100(cis_fcidump *G) { G->ms2 = 100; }
static void ms2_m100(cis_fcidump *G) { G->ms2 = -100; }
static void norb0(cis_fcidump *G) { G->norb = 0; }
static void norb_neg(cis_fcidump *G) { G->norb = -3; }
static void norb200(cis_fcidump *G) { G->norb = 200; }
static void norb8(cis_fcidump *G) { G->norb = 8, G->orbsym[7] = 1; }
static void nelec_neg(cis_fcidump *G) { G->nelec = -2; }
static void nelec16(cis_fcidump *G) { G->nelec = 16; }
static void one_spin(cis_fcidump *G) { G->ms2 = 10; }
static void uhf(cis_fcidump *G) { G->uhf = 1; }
static void isym42(cis_fcidump *G) { G->isym = 42; }
static void isym0(cis_fcidump *G) { G->isym = 0; }
static void orbsym77(cis_fcidump *G) { G->orbsym[3] = 77; }
static void orbsym0(cis_fcidump *G) { G->orbsym[0] = 0; }
static void numbering(cis_fcidump *G) { G->sym_numbering = 5; }
static void h1_null(cis_fcidump *G) { G->h1 = NULL; }
static void eri_null(cis_fcidump *G) { G->eri = NULL; }
static void npair(cis_fcidump *G) { G->npair += 1; }
static void neri(cis_fcidump *G) { G->neri -= 1; }

static const header_case header_cases[] = {
    {"nelec 13, ms2 0", nelec13, CIS_ERR_RANGE, "cis_fcidump.ms2 = 0 is inconsistent with cis_fcidump.nelec = 13"},
    {"ms2 100", ms2_p100, CIS_ERR_RANGE, "cis_fcidump.ms2 = 100"},
    {"ms2 -100", ms2_m100, CIS_ERR_RANGE, "cis_fcidump.ms2 = -100"},
    {"norb 0", norb0, CIS_ERR_RANGE, "cis_fcidump.norb must be at least 1, got 0"},
    {"norb -3", norb_neg, CIS_ERR_RANGE, "cis_fcidump.norb must be at least 1, got -3"},
    {"norb 200", norb200, CIS_ERR_UNSUPPORTED, "cis_fcidump.norb = 200 exceeds 128"},
    {"norb 8 (npair of 7)", norb8, CIS_ERR_INVALID, "cis_fcidump.npair = 28, norb = 8"},
    {"nelec -2", nelec_neg, CIS_ERR_RANGE, "cis_fcidump.nelec = -2 does not fit"},
    {"nelec 16", nelec16, CIS_ERR_RANGE, "cis_fcidump.nelec = 16 does not fit"},
    {"ms2 10", one_spin, CIS_ERR_RANGE, "electrons in one spin"},
    {"uhf 1", uhf, CIS_ERR_UNSUPPORTED, "UHF integrals are not supported"},
    {"isym 42", isym42, CIS_ERR_RANGE, "cis_fcidump.isym = 42"},
    {"isym 0", isym0, CIS_ERR_RANGE, "cis_fcidump.isym = 0"},
    {"orbsym 77", orbsym77, CIS_ERR_RANGE, "cis_fcidump.orbsym[3] = 77"},
    {"orbsym 0", orbsym0, CIS_ERR_RANGE, "cis_fcidump.orbsym[0] = 0"},
    {"sym_numbering 5", numbering, CIS_ERR_RANGE, "cis_fcidump.sym_numbering = 5"},
    {"h1 NULL", h1_null, CIS_ERR_INVALID, "cis_fcidump.h1 is NULL"},
    {"eri NULL", eri_null, CIS_ERR_INVALID, "cis_fcidump.eri is NULL"},
    {"npair + 1", npair, CIS_ERR_INVALID, "cis_fcidump.npair = 29"},
    {"neri - 1", neri, CIS_ERR_INVALID, "cis_fcidump.neri"},
};

/* status == want with words in the message, and no flag named. */
static void expect(cis_status st, cis_status want, const char *words, const char *entry, const char *name) {
  CHECK(st == want, "%s, %s: %s (%s), expected %s", entry, name, cis_status_name(st), cis_last_error(),
        cis_status_name(want));
  if (st == CIS_OK) return;
  CHECK(!words || strstr(cis_last_error(), words), "%s, %s: message '%s' lacks '%s'", entry, name, cis_last_error(), words);
  check_no_flag(name);
}

static void test_header(const cis_fcidump *F0, cis_ci_bits ra, cis_ci_bits rb) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  for (size_t c = 0; c < sizeof header_cases / sizeof *header_cases; ++c) {
    const header_case *hc = &header_cases[c];
    cis_fcidump G = *F0; /* a shallow copy: the arrays stay F0's */
    hc->alter(&G);
    expect(fcidump_check(&G), hc->status, hc->words, "fcidump_check", hc->name);

    cis_ci_result *R = (cis_ci_result *)1;
    expect(cis_ci_solve(&G, &o, &R), hc->status, hc->words, "cis_ci_solve", hc->name);
    CHECK(R == NULL, "cis_ci_solve, %s: *out not NULL on error", hc->name);

    cis_ci_solver *s = NULL;
    CHECK_OK(cis_ci_solver_create(&s));
    R = NULL;
    expect(cis_ci_solver_solve(s, &G, &o, &R), hc->status, hc->words, "cis_ci_solver_solve", hc->name);
    cis_int n = -1;
    expect(cis_ci_solver_dets(s, &G, &o, NULL, NULL, &n), hc->status, hc->words, "cis_ci_solver_dets", hc->name);
    cis_ci_solver_free(s);

    cis_ci_bits a, b;
    expect(ci_find_reference_bits(&G, &a, &b), hc->status, hc->words, "ci_find_reference_bits", hc->name);
    cis_ci_counts cnt;
    expect(ci_count_bits(&G, -1, &ra, &rb, &cnt), hc->status, hc->words, "ci_count_bits", hc->name);
    cis_ci_space *S = NULL;
    expect(ci_space_create_bits(&G, -1, &ra, &rb, &S), hc->status, hc->words, "ci_space_create_bits", hc->name);
    CHECK(S == NULL, "ci_space_create_bits, %s: a space made", hc->name);
    cis_ci_space_free(S);
    expect(ci_parse_occ_bits(&G, "1,2,3,4,5", &a, &b), hc->status, hc->words, "ci_parse_occ_bits", hc->name);
    /* the one-word entry points: refused (the NORB > 64 refusal may come first) */
    uint64_t ua, ub;
    CHECK(cis_ci_find_reference(&G, &ua, &ub) != CIS_OK, "cis_ci_find_reference, %s: accepted", hc->name);
    CHECK(ci_count(&G, -1, ra.w[0], rb.w[0], &cnt) != CIS_OK, "ci_count, %s: accepted", hc->name);
    cis_ci_direct *D = NULL;
    CHECK(cis_ci_direct_create(&G, NULL, &D) != CIS_OK && !D, "cis_ci_direct_create, %s: accepted", hc->name);
    cis_ci_direct_free(D);
  }
}

/* ---- the integral values (fcidump_check, the solve entry points) ----- */

/* A deep copy of F0 (h1, eri its own) to alter values in. */
static cis_fcidump *deep_copy(const cis_fcidump *F0) {
  cis_fcidump *G = malloc(sizeof *G);
  *G = *F0;
  G->h1 = malloc((size_t)F0->norb * F0->norb * sizeof(double));
  G->eri = malloc((size_t)F0->neri * sizeof(double));
  memcpy(G->h1, F0->h1, (size_t)F0->norb * F0->norb * sizeof(double));
  memcpy(G->eri, F0->eri, (size_t)F0->neri * sizeof(double));
  return G;
}

static void free_copy(cis_fcidump *G) {
  free(G->h1);
  free(G->eri);
  free(G);
}

static void values_case(const cis_fcidump *F0, const char *name, int kind, const char *words) {
  cis_fcidump *G = deep_copy(F0);
  const int n = G->norb;
  switch (kind) {
    case 0: G->ecore = NAN; break;
    case 1: G->ecore = INFINITY; break;
    case 2: G->h1[1 * n + 2] = NAN; break;
    case 3: G->h1[0 * n + 1] += 1e-3; break; /* h_01 != h_10 */
    case 4: G->eri[5] = -INFINITY; break;
    case 5: /* irreps that the integrals do not respect */
      G->sym_numbering = CIS_FCIDUMP_SYM_MOLPRO;
      for (int p = 0; p < n; ++p) G->orbsym[p] = 1 + (p & 1);
      break;
  }
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  expect(fcidump_check(G), CIS_ERR_INVALID, words, "fcidump_check", name);
  expect(cis_ci_solve(G, &o, &R), CIS_ERR_INVALID, words, "cis_ci_solve", name);
  cis_ci_result_free(R);
  cis_ci_solver *s = NULL;
  cis_int nd = 0;
  CHECK_OK(cis_ci_solver_create(&s));
  expect(cis_ci_solver_dets(s, G, &o, NULL, NULL, &nd), CIS_ERR_INVALID, words, "cis_ci_solver_dets", name);
  cis_ci_solver_free(s);
  free_copy(G);
}

static void test_values(const cis_fcidump *F0) {
  values_case(F0, "ecore NaN", 0, "cis_fcidump.ecore");
  values_case(F0, "ecore Inf", 1, "cis_fcidump.ecore");
  values_case(F0, "h1 NaN", 2, "cis_fcidump.h1[1*norb+2]");
  values_case(F0, "h1 not symmetric", 3, "cis_fcidump.h1 is not symmetric");
  values_case(F0, "eri -Inf", 4, "cis_fcidump.eri[5]");
  values_case(F0, "orbsym the integrals break", 5, "ORBSYM does not fit these integrals");
}

/* ---- every option field ---------------------------------------------------- */

typedef struct opt_case {
  const char *name;
  void (*alter)(cis_ci_solve_opts *o);
  const char *words;
} opt_case;

static double guess_vec[4];
static void method_m7(cis_ci_solve_opts *o) { o->method = (cis_ci_method)-7; }
static void method_3(cis_ci_solve_opts *o) { o->method = (cis_ci_method)3; }
static void level1000(cis_ci_solve_opts *o) { o->level = 1000; }
static void level_m2(cis_ci_solve_opts *o) { o->level = -2; }
static void roots0(cis_ci_solve_opts *o) { o->roots = 0; }
static void roots65(cis_ci_solve_opts *o) { o->roots = 65; }
static void spin_nan(cis_ci_solve_opts *o) { o->spin = NAN; }
static void spin_03(cis_ci_solve_opts *o) { o->spin = 0.3; }
static void spin_100(cis_ci_solve_opts *o) { o->spin = 100; }
static void isym9(cis_ci_solve_opts *o) { o->isym = 9; }
static void opt_isym0(cis_ci_solve_opts *o) { o->isym = 0; } /* 1-based: 0 is no irrep (a PySCF id is id + 1) */
static void tol_nan(cis_ci_solve_opts *o) { o->tol = NAN; }
static void tol_0(cis_ci_solve_opts *o) { o->tol = 0; }
static void tol_neg(cis_ci_solve_opts *o) { o->tol = -1e-8; }
static void tol_inf(cis_ci_solve_opts *o) { o->tol = INFINITY; }
static void etol_nan(cis_ci_solve_opts *o) { o->etol = NAN; }
static void etol_neg(cis_ci_solve_opts *o) { o->etol = -1; }
static void max_iter0(cis_ci_solve_opts *o) { o->max_iter = 0; }
static void max_sub_big(cis_ci_solve_opts *o) { o->max_sub = 1 << 30; }
static void max_sub_neg(cis_ci_solve_opts *o) { o->max_sub = -1; }
static void pspace_neg(cis_ci_solve_opts *o) { o->pspace = -1000; }
static void pspace_big(cis_ci_solve_opts *o) { o->pspace = 5000; }
static void cpu_parts_neg(cis_ci_solve_opts *o) { o->cpu_parts = -1; }
static void cpu_parts_65(cis_ci_solve_opts *o) { o->cpu_parts = 65; }
static void gpus_neg(cis_ci_solve_opts *o) { o->gpus = -5; }
static void both_parts(cis_ci_solve_opts *o) { o->gpus = 2, o->cpu_parts = 2; }
static void build5(cis_ci_solve_opts *o) { o->build = 5; }
static void host_vectors3(cis_ci_solve_opts *o) { o->host_vectors = 3; }
static void exchange_bogus(cis_ci_solve_opts *o) { o->exchange = "bogus"; }
static void format_bogus(cis_ci_solve_opts *o) { o->format = "bogus"; }
static void kernel_empty(cis_ci_solve_opts *o) { o->kernel = ""; }
static void occ_empty(cis_ci_solve_opts *o) { o->occ = ""; }
static void save_empty(cis_ci_solve_opts *o) { o->save = ""; }
static void save_count(cis_ci_solve_opts *o) { o->save = "/tmp/never_written.cisb", o->count_only = 1; }
static void repeat0(cis_ci_solve_opts *o) { o->repeat = 0; }
static void repeat21(cis_ci_solve_opts *o) { o->repeat = 21; }
static void gpu2(cis_ci_solve_opts *o) { o->gpu = 2; }
static void symmetric7(cis_ci_solve_opts *o) { o->symmetric = 7; }
static void no_s2_neg(cis_ci_solve_opts *o) { o->no_s2 = -1; }
static void singlet2(cis_ci_solve_opts *o) { o->singlet = 2; }
static void penalty_nan(cis_ci_solve_opts *o) { o->spin_penalty = NAN; }
static void penalty_neg(cis_ci_solve_opts *o) { o->spin_penalty = -1; }
static void penalty_ss_inf(cis_ci_solve_opts *o) { o->spin_penalty_ss = INFINITY; }
static void nguess_no_guess(cis_ci_solve_opts *o) { o->nguess = 3; }
static void nguess_neg(cis_ci_solve_opts *o) { o->guess = guess_vec, o->nguess = -1; }
static void leave_free_neg(cis_ci_solve_opts *o) { o->gpu_leave_free = -1; }

static const opt_case opt_cases[] = {
    {"method -7", method_m7, "cis_ci_solve_opts.method"},
    {"method 3", method_3, "cis_ci_solve_opts.method"},
    {"level 1000", level1000, "cis_ci_solve_opts.level"},
    {"level -2", level_m2, "cis_ci_solve_opts.level"},
    {"roots 0", roots0, "cis_ci_solve_opts.roots"},
    {"roots 65", roots65, "cis_ci_solve_opts.roots"},
    {"spin NaN", spin_nan, "cis_ci_solve_opts.spin"},
    {"spin 0.3", spin_03, "cis_ci_solve_opts.spin"},
    {"spin 100", spin_100, "cis_ci_solve_opts.spin"},
    {"isym 9", isym9, "cis_ci_solve_opts.isym"},
    {"isym 0", opt_isym0, "an irrep 1..8 (1-based"},
    {"tol NaN", tol_nan, "cis_ci_solve_opts.tol"},
    {"tol 0", tol_0, "cis_ci_solve_opts.tol"},
    {"tol < 0", tol_neg, "cis_ci_solve_opts.tol"},
    {"tol Inf", tol_inf, "cis_ci_solve_opts.tol"},
    {"etol NaN", etol_nan, "cis_ci_solve_opts.etol"},
    {"etol < 0", etol_neg, "cis_ci_solve_opts.etol"},
    {"max_iter 0", max_iter0, "cis_ci_solve_opts.max_iter"},
    {"max_sub 2^30", max_sub_big, "cis_ci_solve_opts.max_sub"},
    {"max_sub -1", max_sub_neg, "cis_ci_solve_opts.max_sub"},
    {"pspace -1000", pspace_neg, "cis_ci_solve_opts.pspace"},
    {"pspace 5000", pspace_big, "cis_ci_solve_opts.pspace"},
    {"cpu_parts -1", cpu_parts_neg, "cis_ci_solve_opts.cpu_parts"},
    {"cpu_parts 65", cpu_parts_65, "cis_ci_solve_opts.cpu_parts"},
    {"gpus -5", gpus_neg, "cis_ci_solve_opts.gpus"},
    {"gpus and cpu_parts", both_parts, "exclude each other"},
    {"build 5", build5, "cis_ci_solve_opts.build"},
    {"host_vectors 3", host_vectors3, "cis_ci_solve_opts.host_vectors"},
    {"exchange bogus", exchange_bogus, "cis_ci_solve_opts.exchange 'bogus'"},
    {"format bogus", format_bogus, "cis_ci_solve_opts.format 'bogus'"},
    {"kernel empty", kernel_empty, "cis_ci_solve_opts.kernel"},
    {"occ empty", occ_empty, "cis_ci_solve_opts.occ"},
    {"save empty", save_empty, "cis_ci_solve_opts.save"},
    {"save with count_only", save_count, "count_only builds none"},
    {"repeat 0", repeat0, "cis_ci_solve_opts.repeat"},
    {"repeat 21", repeat21, "cis_ci_solve_opts.repeat"},
    {"gpu 2", gpu2, "cis_ci_solve_opts.gpu"},
    {"symmetric 7", symmetric7, "cis_ci_solve_opts.symmetric"},
    {"no_s2 -1", no_s2_neg, "cis_ci_solve_opts.no_s2"},
    {"singlet 2", singlet2, "cis_ci_solve_opts.singlet"},
    {"spin_penalty NaN", penalty_nan, "cis_ci_solve_opts.spin_penalty"},
    {"spin_penalty -1", penalty_neg, "cis_ci_solve_opts.spin_penalty"},
    {"spin_penalty_ss Inf", penalty_ss_inf, "cis_ci_solve_opts.spin_penalty_ss"},
    {"nguess 3, guess NULL", nguess_no_guess, "cis_ci_solve_opts.nguess"},
    {"nguess -1", nguess_neg, "cis_ci_solve_opts.nguess"},
    {"gpu_leave_free -1", leave_free_neg, "cis_ci_solve_opts.gpu_leave_free"},
};

static void test_options(const cis_fcidump *F0) {
  for (size_t c = 0; c < sizeof opt_cases / sizeof *opt_cases; ++c) {
    const opt_case *oc = &opt_cases[c];
    cis_ci_solve_opts o = cis_ci_solve_opts_default();
    oc->alter(&o);
    cis_ci_result *R = NULL;
    expect(ci_solve_opts_check(&o), CIS_ERR_INVALID, oc->words, "ci_solve_opts_check", oc->name);
    expect(cis_ci_solve(F0, &o, &R), CIS_ERR_INVALID, oc->words, "cis_ci_solve", oc->name);
    CHECK(R == NULL, "cis_ci_solve, %s: a result on error", oc->name);
    cis_ci_result_free(R);
    cis_ci_solver *s = NULL;
    cis_int n = 0;
    CHECK_OK(cis_ci_solver_create(&s));
    expect(cis_ci_solver_dets(s, F0, &o, NULL, NULL, &n), CIS_ERR_INVALID, oc->words, "cis_ci_solver_dets", oc->name);
    cis_ci_solver_free(s);
    char path[512];
    expect(cis_ci_solve_file(test_shared_path(path, sizeof path, "ci/h2o_sto3g.FCIDUMP"), &o, &R), CIS_ERR_INVALID,
           oc->words, "cis_ci_solve_file", oc->name);
    cis_ci_result_free(R);
  }
  /* NULL arguments */
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  CHECK(cis_ci_solve(NULL, &o, &R) == CIS_ERR_INVALID && !R, "NULL integrals accepted");
  CHECK(cis_ci_solve(F0, NULL, &R) == CIS_ERR_INVALID && !R, "NULL options accepted");
  CHECK(fcidump_check(NULL) == CIS_ERR_INVALID, "fcidump_check(NULL) accepted");
  CHECK(ci_solve_opts_check(NULL) == CIS_ERR_INVALID, "ci_solve_opts_check(NULL) accepted");
  /* library refusals worded without flags: more roots of a spin than the space holds */
  o.spin = 2, o.roots = 64;
  CHECK(cis_ci_solve(F0, &o, &R) == CIS_ERR_INVALID && !R, "64 quintets of H2O STO-3G accepted");
  CHECK(strstr(cis_last_error(), "roots 64 with spin 2"), "message: %s", cis_last_error());
  check_no_flag("roots 64, spin 2");
  o = cis_ci_solve_opts_default();
  o.occ = "1,2,3,4,99";
  CHECK(cis_ci_solve(F0, &o, &R) == CIS_ERR_RANGE && !R, "occ orbital 99 accepted");
  check_no_flag("occ 99");
}

/* H2O STO-3G full CI (../shared/ci/reference.tsv, psi4). */
#define H2O_FCI (-75.0125782412)

/* The valid struct and default options still solve, the copy of each case
 * having been made and refused before. */
static void test_valid(const cis_fcidump *F0) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  CHECK_OK(fcidump_check(F0));
  CHECK_OK(ci_solve_opts_check(&o));
  CHECK_OK(cis_ci_solve(F0, &o, &R));
  CHECK(R && isfinite(R->energies[0]) && fabs(R->energies[0] - H2O_FCI) < 1e-8, "H2O STO-3G E = %.10f",
        R ? R->energies[0] : NAN);
  cis_ci_result_free(R);
  /* a deep copy (the caller's own arrays) solves the same */
  cis_fcidump *G = deep_copy(F0);
  R = NULL;
  o.method = CIS_CI_METHOD_STORED;
  CHECK_OK(cis_ci_solve(G, &o, &R));
  CHECK(R && fabs(R->energies[0] - H2O_FCI) < 1e-8, "copy: E = %.10f", R ? R->energies[0] : NAN);
  cis_ci_result_free(R);
  free_copy(G);
}

int main(void) {
  char path[512];
  cis_fcidump *F0 = NULL;
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_sto3g.FCIDUMP"), &F0));
  if (!F0) return test_summary("test_ci_api_validation");
  cis_ci_bits ra, rb;
  CHECK_OK(ci_find_reference_bits(F0, &ra, &rb));
  test_valid(F0);
  test_header(F0, ra, rb);
  test_values(F0);
  test_options(F0);
  cis_fcidump_free(F0);
  return test_summary("test_ci_api_validation");
}
