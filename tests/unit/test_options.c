/* test_options.c: the library's tuning options (cisparse/util.h): set by
 * name and checked (integers in range, words of their list), NULL back to
 * the default, unknown names refused naming the known ones, the table
 * listed and described, name=value lists, the options set and not read
 * since, and the environment read only by cis_options_from_env from its one
 * variable CISPARSE_OPTIONS (a variable set after it changes nothing until
 * it is called again; a bad value or a misspelt name is refused naming the
 * variable). The internal readers (core/options.h) return what was set. */
#include <stdlib.h>
#include <string.h>
#include "core/options.h"
#include "test_util.h"

int main(void) {
  CHECK(cis_option_get("sigma") == NULL, "sigma set before anything set it");
  CHECK_OK(cis_option_set("sigma", "unfused"));
  CHECK(cis_option_get("sigma") && !strcmp(cis_option_get("sigma"), "unfused"), "sigma not unfused");
  CHECK(cis_opt_is(CIS_OPT_SIGMA, "unfused") && !cis_opt_is(CIS_OPT_SIGMA, "fused"), "cis_opt_is");
  CHECK(cis_option_set("sigma", "fast") == CIS_ERR_INVALID && strstr(cis_last_error(), "auto fused unfused"),
        "a word outside the list: %s", cis_last_error());
  CHECK(cis_option_set("sigma", "fuse") == CIS_ERR_INVALID, "a prefix of a word accepted");
  CHECK(cis_opt_is(CIS_OPT_SIGMA, "unfused"), "a refused value changed the option");
  CHECK_OK(cis_option_set("sigma", NULL));
  CHECK(cis_option_get("sigma") == NULL && !cis_opt_is(CIS_OPT_SIGMA, "unfused"), "NULL did not restore the default");

  CHECK(cis_opt_int(CIS_OPT_HYB_G, -7) == -7, "an unset integer is not the default");
  CHECK_OK(cis_option_set("hyb_g", "16"));
  CHECK(cis_opt_int(CIS_OPT_HYB_G, -7) == 16, "hyb_g 16 read as %ld", cis_opt_int(CIS_OPT_HYB_G, -7));
  static const char *bad[] = {"0", "33", "1x", "", "-4", "99999999999999999999"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k)
    CHECK(cis_option_set("hyb_g", bad[k]) == CIS_ERR_INVALID && strstr(cis_last_error(), "1..32"),
          "hyb_g '%s' accepted (%s)", bad[k], cis_last_error());
  CHECK(cis_opt_int(CIS_OPT_HYB_G, -7) == 16, "a refused integer changed hyb_g");

  CHECK(cis_option_set("hyb_gg", "4") == CIS_ERR_INVALID && strstr(cis_last_error(), "unknown option 'hyb_gg'") &&
            strstr(cis_last_error(), "hyb_g"),
        "unknown name: %s", cis_last_error());
  CHECK(cis_option_set(NULL, "4") == CIS_ERR_INVALID, "NULL name accepted");
  CHECK(cis_option_get("nope") == NULL, "an unknown name has a value");

  int n = 0;
  cis_option_desc d0;
  while (cis_option_describe(n, &d0)) {
    CHECK(d0.name && d0.help && *d0.help, "option %d without name or help", n);
    ++n;
  }
  CHECK(n == CIS_OPT_COUNT, "%d options listed, %d in the table", n, (int)CIS_OPT_COUNT);
  CHECK(!cis_option_describe(-1, &d0), "option -1 listed");

  /* every row described: a kind, its values, a default and help */
  for (int r = 0; r < n; ++r) {
    cis_option_desc d;
    CHECK(cis_option_describe(r, &d) && d.name && d.def && *d.def && d.help && *d.help, "option %d undescribed", r);
    CHECK(d.kind != CIS_OPTION_WORD || (d.words && *d.words), "%s: a word option without words", d.name);
    CHECK(d.kind != CIS_OPTION_INT || d.lo <= d.hi, "%s: range %ld..%ld", d.name, d.lo, d.hi);
  }
  CHECK(!cis_option_describe(n, &(cis_option_desc){0}) && !cis_option_describe(0, NULL), "past the end described");

  /* pairs: in order, name= the default, the first bad one named */
  CHECK_OK(cis_option_set_pairs("hyb_g=4,sigma=fused,,energy_rapl=/tmp/x y"));
  CHECK(cis_opt_int(CIS_OPT_HYB_G, 0) == 4 && cis_opt_is(CIS_OPT_SIGMA, "fused") &&
            cis_opt_is(CIS_OPT_ENERGY_RAPL, "/tmp/x y"), "pairs not set");
  CHECK_OK(cis_option_set_pairs("hyb_g=,energy_rapl="));
  CHECK_OK(cis_option_set_pairs("sigma=fused"));
  CHECK(cis_option_get("hyb_g") == NULL && cis_option_get("energy_rapl") == NULL, "name= kept a value");
  CHECK(cis_option_set_pairs("sigma=unfused,sigmaa=fused") == CIS_ERR_INVALID &&
            strstr(cis_last_error(), "unknown option 'sigmaa'"), "a misspelt name in pairs: %s", cis_last_error());
  CHECK(cis_option_get("sigma") && !strcmp(cis_option_get("sigma"), "fused"), "a refused list set its first pair");
  CHECK(cis_option_set_pairs("sigma") == CIS_ERR_INVALID && strstr(cis_last_error(), "'sigma' is not name=value"),
        "a pair without a value: %s", cis_last_error());
  CHECK(cis_option_set_pairs("hyb_g=40") == CIS_ERR_INVALID && strstr(cis_last_error(), "hyb_g"), "hyb_g=40: %s",
        cis_last_error());

  /* set but not read: reported until a reader reads it; reset by a new value */
  char unused[256];
  cis_option_set("sigma", NULL);
  cis_option_set("hyb_g", NULL);
  CHECK_OK(cis_option_set("sigma", "unfused"));
  CHECK_OK(cis_option_set("hyb_unroll", "2"));
  CHECK(cis_options_unused(unused, sizeof unused) == 2 && !strcmp(unused, "hyb_unroll, sigma"), "unused: %s", unused);
  CHECK(cis_opt_is(CIS_OPT_SIGMA, "unfused"), "sigma");
  CHECK(cis_options_unused(unused, sizeof unused) == 1 && !strcmp(unused, "hyb_unroll"), "unused after a read: %s",
        unused);
  CHECK(cis_option_get("hyb_unroll") != NULL && cis_options_unused(NULL, 0) == 0, "cis_option_get is a read");
  CHECK_OK(cis_option_set("sigma", "fused"));
  CHECK(cis_options_unused(unused, 8) == 1 && !strcmp(unused, "sigma"), "a new value is unread: %s", unused);
  cis_option_set("sigma", NULL);
  cis_option_set("hyb_unroll", NULL);
  CHECK(cis_options_unused(unused, sizeof unused) == 0, "defaults reported: %s", unused);

  /* the environment: the one variable, read by cis_options_from_env alone */
  setenv("CISPARSE_OPTIONS", "half_scatter=reached,hyb_g=8", 1);
  CHECK(cis_option_get("half_scatter") == NULL, "the environment read before cis_options_from_env");
  CHECK_OK(cis_options_from_env());
  CHECK(cis_opt_is(CIS_OPT_HALF_SCATTER, "reached") && cis_opt_int(CIS_OPT_HYB_G, 0) == 8, "environment not read");
  setenv("CISPARSE_OPTIONS", "hyb_g=64", 1);
  CHECK(cis_options_from_env() == CIS_ERR_INVALID && strstr(cis_last_error(), "CISPARSE_OPTIONS: hyb_g = '64'"),
        "a bad value: %s", cis_last_error());
  setenv("CISPARSE_OPTIONS", "hyb_g=4,half_scater=all", 1);
  CHECK(cis_options_from_env() == CIS_ERR_INVALID &&
            strstr(cis_last_error(), "CISPARSE_OPTIONS: unknown option 'half_scater'") && !strchr(cis_last_error(), '\n'),
        "a misspelt name: %s", cis_last_error());
  setenv("CISPARSE_HYB_G", "16", 1); /* a per-option variable is no longer read */
  setenv("CISPARSE_OPTIONS", "", 1);
  CHECK_OK(cis_options_from_env());
  CHECK(cis_opt_int(CIS_OPT_HYB_G, 0) == 8, "hyb_g %ld: a refused list or an old variable changed it",
        cis_opt_int(CIS_OPT_HYB_G, 0));
  unsetenv("CISPARSE_HYB_G");
  unsetenv("CISPARSE_OPTIONS");
  return test_summary("test_options");
}
