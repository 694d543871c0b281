/* cmd_options.c: `cisparse options`: the library's options table
 * (cisparse/util.h, docs/options.md), one row an option: name, type,
 * default, the value now (set by -o or CISPARSE_OPTIONS), accepted values,
 * help. */
#include <string.h>
#include "cli/cli.h"

static const char *usage_line =
    "usage: cisparse [-o NAME=VALUE]... options\n"
    "  lists every option: name, type, default, value now, accepted values, help.\n"
    "  Set an option for any command with -o NAME=VALUE before the command (repeatable;\n"
    "  cisparse -o sigma=unfused ci X.FCIDUMP --device gpu) or with the environment variable\n"
    "  CISPARSE_OPTIONS=NAME=VALUE,NAME=VALUE; an option set but never read by the command\n"
    "  is reported in one warning line at exit.";

int cis_cmd_options(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("%s\n", usage_line);
      return 0;
    }
    return cli_usage("options: takes no argument, got '%s' (cisparse options --help)", argv[i]);
  }
  cis_option_desc d;
  printf("%-18s %-7s %-26s %-20s %-22s %s\n", "option", "type", "default", "value", "values", "what it tunes");
  for (int i = 0; cis_option_describe(i, &d); ++i) {
    char range[64];
    if (d.kind == CIS_OPTION_INT) snprintf(range, sizeof range, "%ld..%ld", d.lo, d.hi);
    else snprintf(range, sizeof range, "%s", d.kind == CIS_OPTION_WORD ? d.words : "text, or none");
    printf("%-18s %-7s %-26s %-20s %-22s %s\n", d.name,
           d.kind == CIS_OPTION_INT ? "integer" : d.kind == CIS_OPTION_WORD ? "word" : "text", d.def,
           d.value ? d.value : "(default)", range, d.help);
  }
  return 0;
}
