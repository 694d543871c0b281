/* cli_json.c: the tool's one JSON writer, shared by every command's --json:
 * the option (--json [FILE]), its stream, string literals (escaped), keyed
 * numbers (null where not finite: JSON has no NaN or infinity) and keyed
 * strings. */
#include <math.h>
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
  if (!s) { fputs("null", f); return; }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void cli_json_num(FILE *f, const char *key, double v, const char *fmt, const char *after) {
  fprintf(f, "\"%s\": ", key);
  if (isfinite(v)) fprintf(f, fmt, v);
  else fputs("null", f);
  if (after) fputs(after, f);
}

void cli_json_str(FILE *f, const char *key, const char *s, const char *after) {
  fprintf(f, "\"%s\": ", key);
  cli_json_string(f, s);
  if (after) fputs(after, f);
}
