/* cli_plot.c: --plot PREFIX of `bench` and `solve --sweep`. The charts come
 * from the Python package (`python3 -m cisparse.plot KIND JSON PREFIX`, needs
 * matplotlib: pip install 'cisparse[plot]'); the tool runs it when both import,
 * and otherwise says in one line where the JSON is and the command that draws
 * it. Either way the measurement's exit status is kept. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

/* 1 when `python3` imports cisparse.plot and matplotlib (output discarded). */
static int plot_module_importable(void) {
  return system("python3 -c 'import cisparse.plot, matplotlib' >/dev/null 2>&1") == 0;
}

void cli_plot(const char *kind, const char *json, const char *prefix, FILE *out) {
  char cmd[2200];
  const int quoted = strchr(json, '\'') || strchr(prefix, '\'');
  fflush(out);
  fflush(stdout);
  if (quoted || !plot_module_importable()) {
    fprintf(out, "plot: no PNG drawn here (%s); the JSON is in %s; draw it with "
                 "`python3 -m cisparse.plot %s %s %s`\n",
            quoted ? "a path holds a quote"
                   : "python3 cannot import cisparse.plot and matplotlib: pip install 'cisparse[plot]'",
            json, kind, json, prefix);
    return;
  }
  snprintf(cmd, sizeof cmd, "python3 -m cisparse.plot %s '%s' '%s'%s", kind, json, prefix,
           out == stderr ? " 1>&2" : "");
  if (system(cmd) != 0) fprintf(out, "plot: `%s` failed; the JSON is in %s\n", cmd, json);
}
