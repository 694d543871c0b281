/* entry.c: the tool's main (everything else in main.c's cli_main, so that
 * the option parser's fuzz target can link the commands without it). */
#include "cli/cli.h"

int main(int argc, char **argv) {
  cli_passive_waits(argv); /* may run the tool again with OMP_WAIT_POLICY=passive (main.c) */
  return cli_main(argc, argv);
}
