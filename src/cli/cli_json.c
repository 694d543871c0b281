/* cli_json.c: what the commands' --json share: the option (--json [FILE]),
 * its stream, and JSON string literals. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

int cli_json_option(int argc, char **argv, int *i, cli_json *j) {
  if (strcmp(argv[*i], "--json")) return -1;
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  const int joined = v && cli_split_value(v);
  if (joined && !v[0]) return cli_usage("--json= needs a file name (--json alone: stdout)");
  j->path = "-";
  j->guessed = 0;
  if (joined || (v && (v[0] != '-' || !strcmp(v, "-")))) {
    j->path = v;
    j->guessed = !joined && strcmp(v, "-");
    ++*i;
  }
  return 0;
}

void cli_json_settle(cli_json *j, const char **input) {
  if (!j->guessed || *input) return;
  *input = j->path; /* `--json X.FCIDUMP`: X is the input, the JSON goes to stdout */
  j->path = "-";
  j->guessed = 0;
}

int cli_json_stdout(const cli_json *j) { return j->path && !strcmp(j->path, "-"); }

FILE *cli_json_open(const cli_json *j, int report_aside) {
  FILE *f = NULL;
  if (!cli_json_stdout(j)) f = fopen(j->path, "w");
  else if (!report_aside) f = stdout;
  else { /* the JSON keeps stdout's file; stdout's descriptor becomes stderr's */
    int fd;
    fflush(stdout);
    if ((fd = dup(1)) >= 0 && dup2(2, 1) >= 0) f = fdopen(fd, "w");
  }
  if (!f) cis_error(CIS_ERR_IO, "%s: cannot open for writing", cli_json_stdout(j) ? "standard output" : j->path);
  return f;
}

cis_status cli_json_close(const cli_json *j, FILE *f) {
  int bad = ferror(f);
  bad |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
  return bad ? cis_error(CIS_ERR_IO, "%s: write failed", cli_json_stdout(j) ? "standard output" : j->path) : CIS_OK;
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fputc('"', f);
}
