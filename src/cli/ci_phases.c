/* ci_phases.c: `cisparse ci --verbose`'s account of its wall time: one line
 * a phase, from the file's read to the report's printing, and what no phase
 * covers as "other", so that the lines sum to the total. */
#include <stdio.h>
#include "cli/cli.h"

/* One phase's line: seconds and share of the total. */
static void phase_line(FILE *f, const char *name, double s, double total, const char *note) {
  fprintf(f, "phase         %-18s %9.4f s %5.1f%%%s\n", name, s, total > 0 ? 100 * s / total : 0.0, note);
}

void cli_ci_phases(FILE *f, const cis_ci_result *R, double output, double total) {
  double sum = output;
  for (int k = 0; k < R->nphases; ++k) {
    phase_line(f, R->phases[k].name, R->phases[k].seconds, total, "");
    sum += R->phases[k].seconds;
  }
  phase_line(f, "output", output, total, "  (the report printed)");
  phase_line(f, "other", total - sum, total, "  (the total less the phases above)");
  phase_line(f, "total", total, total, "  (the command's wall time)");
  fflush(f);
}
