/* test_options.c: the library's tuning options (cisparse/util.h): set by
 * name and checked (integers in range, words of their list), NULL back to
 * the default, unknown names refused naming the known ones, the table
 * listed, and the environment read only by cis_options_from_env (a variable
 * set after it changes nothing until it is called again; a bad value is
 * refused naming the variable). The internal readers (core/options.h)
 * return what was set. */
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
  const char *name, *help;
  while (cis_option_list(n, &name, &help)) {
    CHECK(name && help && *help, "option %d without name or help", n);
    ++n;
  }
  CHECK(n == CIS_OPT_COUNT, "%d options listed, %d in the table", n, (int)CIS_OPT_COUNT);
  CHECK(!cis_option_list(-1, &name, &help), "option -1 listed");

  /* the environment: read by cis_options_from_env alone */
  CHECK_OK(cis_option_set("hyb_g", NULL));
  setenv("CISPARSE_HALF_SCATTER", "reached", 1);
  setenv("CISPARSE_HYB_G", "8", 1);
  CHECK(cis_option_get("half_scatter") == NULL, "the environment read before cis_options_from_env");
  CHECK_OK(cis_options_from_env());
  CHECK(cis_opt_is(CIS_OPT_HALF_SCATTER, "reached") && cis_opt_int(CIS_OPT_HYB_G, 0) == 8, "environment not read");
  setenv("CISPARSE_HYB_G", "64", 1);
  CHECK(cis_options_from_env() == CIS_ERR_INVALID && strstr(cis_last_error(), "CISPARSE_HYB_G"),
        "a bad variable: %s", cis_last_error());
  unsetenv("CISPARSE_HYB_G");
  unsetenv("CISPARSE_HALF_SCATTER");
  return test_summary("test_options");
}
