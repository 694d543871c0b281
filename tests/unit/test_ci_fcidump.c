/* test_ci_fcidump.c: the FCIDUMP reader: header variants (one line or many,
 * &END or /, lower case, trailing commas), E and D exponents, integrals in any
 * order with tolerated duplicates, and every malformed case with its one-line
 * "FILE:LINE: problem" message (integrals that ORBSYM forbids included);
 * allocation failure at every step. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

static char tmp_path[256];

/* Write text to a fresh temporary file; returns its path. */
static const char *write_tmp(const char *text) {
  snprintf(tmp_path, sizeof tmp_path, "/tmp/cis_test_fcidump_%d.txt", (int)getpid());
  FILE *f = fopen(tmp_path, "w");
  if (f) { fputs(text, f); fclose(f); }
  return tmp_path;
}

#define H2_BODY                                        \
  "  0.6746 1 1 1 1\n 0.6636 1 1 2 2\n 0.1813 1 2 1 2\n" \
  " 0.6975 2 2 2 2\n -1.2528 1 1 0 0\n -0.4756 2 2 0 0\n 0.7143 0 0 0 0\n"

static void test_header_variants(void) {
  const char *variants[] = {
      "&FCI NORB=2,NELEC=2,MS2=0,\n ORBSYM=1,1,\n ISYM=1,\n&END\n" H2_BODY,
      "&FCI NORB=2, NELEC=2, MS2=0, ORBSYM=1,1, ISYM=1 /\n" H2_BODY,
      "&fci norb = 2 ,nelec= 2,\nms2=0,uhf=.false.,\norbsym=1,\n1,\nisym=1,\n/\n" H2_BODY,
      " &FCI\n  NORB=2,\n  NELEC=2,\n &END\n" H2_BODY, /* MS2, ORBSYM, ISYM default */
  };
  for (size_t v = 0; v < sizeof variants / sizeof *variants; ++v) {
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(write_tmp(variants[v]), &F));
    if (!F) continue;
    CHECK(F->norb == 2 && F->nelec == 2 && F->ms2 == 0 && F->isym == 1 && F->orbsym[1] == 1,
          "variant %zu: header read as norb %d nelec %d ms2 %d isym %d", v, F->norb, F->nelec, F->ms2, F->isym);
    CHECK(fcidump_eri(F, 0, 1, 0, 1) == 0.1813 && fcidump_eri(F, 1, 0, 1, 0) == 0.1813 &&
              fcidump_eri(F, 1, 1, 0, 0) == 0.6636 && F->h1[3] == -0.4756 && F->ecore == 0.7143,
          "variant %zu: integrals not stored with 8-fold symmetry", v);
    cis_fcidump_free(F);
  }
}

static void test_exponents_order_duplicates(void) {
  const char *text =
      "&FCI NORB=3,NELEC=2,MS2=0,ORBSYM=1,1,1,ISYM=1 &END\n"
      "  1.5D-01 3 2 1 1\n"     /* (32|11) */
      "  0.15E+00 1 1 2 3\n"    /* the same integral, other order, E exponent */
      "  1.5d-1 2 3 1 1\n"      /* and again, lower-case d */
      " -2.0000000000000000E+00 2 1 0 0\n"
      " -2.0 1 2 0 0\n"         /* h_12 == h_21 */
      "  0.5 1 0 0 0\n"         /* orbital energy: ignored */
      "\n"
      "  1.0 0 0 0 0\n";
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(write_tmp(text), &F));
  if (!F) return;
  CHECK(fcidump_eri(F, 0, 0, 1, 2) == 0.15 && fcidump_eri(F, 2, 1, 0, 0) == 0.15, "(11|23) = %g",
        fcidump_eri(F, 0, 0, 1, 2));
  CHECK(F->h1[0 * 3 + 1] == -2.0 && F->h1[1 * 3 + 0] == -2.0, "h_12 = %g, h_21 = %g", F->h1[1], F->h1[3]);
  CHECK(F->ecore == 1.0 && F->h1[0] == 0.0, "core %g, h_11 %g", F->ecore, F->h1[0]);
  CHECK(fcidump_eri(F, 0, 0, 0, 0) == 0.0, "unlisted integral is not zero");
  cis_fcidump_free(F);
}

typedef struct bad_case {
  const char *text;
  cis_status status;
  int line;          /* expected line in "FILE:LINE:" */
  const char *words; /* expected in the message */
} bad_case;

static void test_malformed(void) {
  const bad_case cases[] = {
      {"&FCI NELEC=2,MS2=0 &END\n 1.0 1 1 1 1\n", CIS_ERR_PARSE, 1, "no NORB"},
      {"&FCI\nNORB=2,\nMS2=0,\n&END\n 1.0 1 1 1 1\n", CIS_ERR_PARSE, 4, "no NELEC"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 1 1 1\n 2.0 1 3 1 1\n", CIS_ERR_RANGE, 3, "index 3 out of range"},
      {"&FCI NORB=2,NELEC=5,MS2=1 &END\n", CIS_ERR_RANGE, 1, "NELEC = 5 does not fit"},
      {"&FCI NORB=4,NELEC=4,MS2=1 &END\n", CIS_ERR_RANGE, 1, "MS2 = 1 is inconsistent"},
      {"&FCI NORB=4,NELEC=2,MS2=4 &END\n", CIS_ERR_RANGE, 1, "MS2 = 4 is inconsistent"},
      {"&FCI NORB=2,NELEC=4,MS2=2 &END\n", CIS_ERR_RANGE, 1, "more than NORB"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 1 1 1\n abc 1 1 2 2\n", CIS_ERR_PARSE, 3, "'abc' is not a number"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0x 1 1 1 1\n", CIS_ERR_PARSE, 2, "is not a number"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 1 1 z\n", CIS_ERR_PARSE, 2, "'z' is not an integer"},
      {"&FCI NORB=2,NELEC=2,\nMS2=0,\n", CIS_ERR_PARSE, 2, "not terminated"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 1 1\n", CIS_ERR_PARSE, 2, "found 4"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 1 1 1 7\n", CIS_ERR_PARSE, 2, "found 6"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 0.5 2 1 1 1\n 0.5 1 1 1 2\n 0.6 1 1 2 1\n", CIS_ERR_PARSE, 4,
       "conflicts with line 2"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 0 0 0 0\n 1.5 0 0 0 0\n", CIS_ERR_PARSE, 3, "core energy"},
      {"NORB=2,NELEC=2 &END\n", CIS_ERR_PARSE, 1, "expected the &FCI"},
      {"&FCI NORB=2,NELEC=2,MS2=0,UHF=.TRUE. &END\n", CIS_ERR_UNSUPPORTED, 1, "UHF"},
      {"&FCI NORB=3,NELEC=2,MS2=0,ORBSYM=1,1 &END\n", CIS_ERR_PARSE, 1, "ORBSYM has 2 entries"},
      /* PySCF's linear-molecule ids (from_integrals with a D∞h orbsym): refused, D2h named */
      {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=0,12 &END\n", CIS_ERR_RANGE, 1,
       "ORBSYM entry 12 is PySCF's linear-molecule id (Dooh/Coov); FCIDUMP symmetry is D2h: write ORBSYM % 10, as "
       "pyscf.tools.fcidump.from_mo does"},
      {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=0,9 &END\n", CIS_ERR_RANGE, 1, "ORBSYM entry 9 is not an irrep"},
      {"&FCI NORB=two,NELEC=2 &END\n", CIS_ERR_PARSE, 1, "not an integer"},
      {"&FCI NORB=129,NELEC=2 &END\n", CIS_ERR_UNSUPPORTED, 1, "exceeds 128"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 1.0 1 0 1 1\n", CIS_ERR_PARSE, 2, "index pattern"},
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n nan 1 1 1 1\n", CIS_ERR_NUMERIC, 2, "not finite"},
      {"", CIS_ERR_PARSE, 0, "no &FCI"},
      /* a missing &END: named as such, not as a stray header value */
      {"&FCI NORB=2,NELEC=2,MS2=0\n" H2_BODY, CIS_ERR_PARSE, 2, "&END (or /) is missing before the integrals"},
      {"&FCI NORB=2,NELEC=2,MS2=0,\nORBSYM=1,1,\n" H2_BODY, CIS_ERR_PARSE, 3, "&END (or /) is missing"},
      /* a repeated key (which value was meant?) */
      {"&FCI NORB=2,NELEC=2,MS2=0,NORB=3 &END\n", CIS_ERR_PARSE, 1, "key NORB= given twice"},
      {"&FCI NORB=2,NELEC=2,ORBSYM=1,1,\n orbsym=1,1 &END\n", CIS_ERR_PARSE, 2, "key ORBSYM= given twice"},
      /* hexadecimal floats: decimal only */
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n 0x1p-1 1 1 1 1\n", CIS_ERR_PARSE, 2, "'0x1p-1' is not a number"},
      /* raw bytes of a bad token are escaped, never echoed */
      {"&FCI NORB=2,NELEC=2,MS2=0 &END\n \x01\x1b[2J\xff 1 1 1 1\n", CIS_ERR_PARSE, 2,
       "'\\x01\\x1B[2J\\xFF' is not a number"},
      /* integrals that ORBSYM forbids (the symmetry blocks would drop them) */
      {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2 &END\n" H2_BODY " 0.05 1 1 1 2\n", CIS_ERR_PARSE, 9,
       "integral (2 1|1 1) = 0.05 couples orbitals of ORBSYM irreps 2 1 1 1 (product irrep 2"},
      {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2 &END\n" H2_BODY " -0.1 2 1 0 0\n", CIS_ERR_PARSE, 9,
       "h(2,1) = -0.1 couples orbitals of ORBSYM irreps 2 1 (product irrep 2"},
      {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=0,3 &END\n" H2_BODY " 0.05 1 1 1 2\n", CIS_ERR_PARSE, 9,
       "irreps 3 0 0 0 (product irrep 3, not totally symmetric): ORBSYM does not fit these integrals; remove ORBSYM"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    cis_fcidump *F = NULL;
    const char *path = write_tmp(cases[c].text);
    cis_status st = cis_fcidump_read(path, &F);
    char prefix[320];
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, cases[c].line);
    const char *msg = cis_last_error();
    CHECK(st == cases[c].status, "case %zu: status %s, expected %s (%s)", c, cis_status_name(st),
          cis_status_name(cases[c].status), msg);
    CHECK(F == NULL, "case %zu: output set on failure", c);
    CHECK(!strncmp(msg, prefix, strlen(prefix)) && strstr(msg, cases[c].words) && !strchr(msg, '\n'),
          "case %zu: message '%s' lacks '%s' or '%s'", c, msg, prefix, cases[c].words);
    cis_fcidump_free(F);
  }
  cis_fcidump *F = NULL;
  CHECK(cis_fcidump_read("/nonexistent/x.FCIDUMP", &F) == CIS_ERR_IO && strstr(cis_last_error(), "cannot open"),
        "missing file: %s", cis_last_error());
}

/* Symmetry-breaking noise below 1e-10 of the largest integral is accepted,
 * and so is any coupling without ORBSYM (C1). */
static void test_symmetry_accepted(void) {
  const char *texts[] = {"&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,2 &END\n" H2_BODY " 1e-14 1 1 1 2\n",
                         "&FCI NORB=2,NELEC=2,MS2=0 &END\n" H2_BODY " 0.05 1 1 1 2\n -0.1 1 2 0 0\n"};
  for (int t = 0; t < 2; ++t) {
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(write_tmp(texts[t]), &F));
    cis_fcidump_free(F);
  }
}

typedef struct read_call { const char *path; cis_fcidump *F; } read_call;

static cis_status read_run(void *ctx) {
  read_call *c = ctx;
  const cis_status st = cis_fcidump_read(c->path, &c->F);
  CHECK(st == CIS_OK || c->F == NULL, "%s with an FCIDUMP made", cis_status_name(st));
  return st;
}

static void read_undo(void *ctx) {
  read_call *c = ctx;
  cis_fcidump_free(c->F), c->F = NULL;
}

static void test_alloc_failure(void) {
  read_call c = {write_tmp("&FCI NORB=2,NELEC=2,MS2=0 &END\n" H2_BODY), NULL};
  test_alloc_every("cis_fcidump_read", read_run, read_undo, &c);
}

int main(void) {
  test_header_variants();
  test_exponents_order_duplicates();
  test_malformed();
  test_symmetry_accepted();
  test_alloc_failure();
  unlink(tmp_path);
  return test_summary("test_ci_fcidump");
}
