/* cli_json.c: the JSON text the commands' --json reports share. */
#include <stdio.h>
#include "cli/cli.h"

void cli_json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
    else putchar(*s);
  }
  putchar('"');
}
