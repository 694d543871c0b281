/* cli_plot.c: --plot PREFIX of `bench` and `solve --sweep`. The charts come
 * from the Python package (`python3 -m cisparse.plot KIND JSON PREFIX`, needs
 * matplotlib: pip install '.[plot]' from the source tree); the tool runs it
 * when both import, and otherwise says in one "plot: not run" line why, where
 * the JSON is and the command that draws it. Either way the measurement's exit
 * status is kept. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

/* 1 when `python3 -c CODE` exits 0 (output discarded). */
static int python_ok(const char *code) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "python3 -c '%s' >/dev/null 2>&1", code);
  return system(cmd) == 0;
}

/* Why python3 cannot draw here (NULL: it can). */
static const char *cannot_draw(void) {
  if (!python_ok("import sys")) return "no python3 on the PATH";
  if (!python_ok("import cisparse.plot"))
    return "python3 cannot import cisparse.plot, the package that draws with matplotlib: pip install '.[plot]' in "
           "the cisparse source tree, or PYTHONPATH=SOURCE/python CISPARSE_LIBRARY=BUILD/libcisparse.so";
  if (!python_ok("import matplotlib")) return "python3 has no matplotlib: pip install matplotlib (or '.[plot]')";
  return NULL;
}

void cli_plot(const char *kind, const char *json, const char *prefix, FILE *out) {
  char cmd[2200];
  const int quoted = strchr(json, '\'') || strchr(prefix, '\'');
  fflush(out);
  fflush(stdout);
  const char *why = quoted ? "a path holds a quote" : cannot_draw();
  if (why) {
    fprintf(out, "plot: not run (%s); the JSON is in %s; draw it with `python3 -m cisparse.plot %s %s %s`\n", why,
            json, kind, json, prefix);
    return;
  }
  snprintf(cmd, sizeof cmd, "python3 -m cisparse.plot %s '%s' '%s'%s", kind, json, prefix,
           out == stderr ? " 1>&2" : "");
  if (system(cmd) != 0) fprintf(out, "plot: `%s` failed; the JSON is in %s\n", cmd, json);
}
