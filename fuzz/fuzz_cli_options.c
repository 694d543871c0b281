/* fuzz_cli_options.c: libFuzzer target for the tool's option parsers.
 * The input is a command line, one argument per line ("ci\nFILE\n--roots\n3"):
 * it is handed to cli_main (src/cli/main.c) with cli_parse_only set, so every
 * command parses and checks its options and returns before any work. The
 * parser must return 0 or 2 (a usage error) and never crash, read out of
 * bounds or leave a message empty; seeds: fuzz/corpus/cli_options (the
 * command lines of README.md and docs/). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

#define FUZZ_MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1), *argv[FUZZ_MAX_ARGS + 2];
  int argc = 0;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  argv[argc++] = "cisparse";
  for (char *p = text; argc <= FUZZ_MAX_ARGS;) { /* a NUL inside a line ends that argument */
    char *nl = strchr(p, '\n');
    argv[argc++] = p;
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  argv[argc] = NULL;
  if (size == 0) argc = 1;
  cli_parse_only = 1;
  int rc = cli_main(argc, argv);
  free(text);
  if (rc != 0 && rc != 2) {
    fprintf(stderr, "fuzz_cli_options: the parser returned %d (0 or 2 expected)\n", rc);
    abort();
  }
  return 0;
}
