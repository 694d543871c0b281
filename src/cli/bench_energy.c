/* bench_energy.c: the energy windows of `cisparse solve` and of the
 * paper's sweep (`cisparse bench --solvers`): the GPU's (NVML) and the CPU
 * package's (RAPL) counters (src/tool/energy.c) read around a
 * configuration's solves, the joules per iteration and their report. */
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

double bench_wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of this process (all threads): what the host spends waiting
 * for the device, the paper's polling vs blocking difference even where no
 * CPU energy counter is readable. */
double bench_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* Joules of one counter over the window, or NaN with the reason in note. */
static double window_joules(double before, double after, const char *why, double window, char *note, size_t len) {
  double j = after - before;
  note[0] = '\0';
  if (!isfinite(j)) snprintf(note, len, "%s", *why ? why : "counter unreadable");
  else if (window < ENERGY_MIN_WINDOW)
    snprintf(note, len, "the %.0f ms window is too short for the counter (>= %.2f s: --energy-seconds)",
             window * 1e3, ENERGY_MIN_WINDOW);
  else if (!(j > 0)) snprintf(note, len, "the counter did not advance over the %.2f s window", window);
  else return j;
  return NAN;
}

void bench_energy_window(run_result *r, cis_energy_sample e0, cis_energy_sample e1) {
  r->window_s = e1.seconds - e0.seconds;
  r->gpu_j = window_joules(e0.gpu_joules, e1.gpu_joules, cis_energy_gpu_why(), r->window_s, r->gpu_note,
                           sizeof r->gpu_note);
  r->cpu_j = window_joules(e0.cpu_joules, e1.cpu_joules, cis_energy_cpu_why(), r->window_s, r->cpu_note,
                           sizeof r->cpu_note);
}

/* J per iteration of one counter over the window (NaN = n/a). */
double bench_per_it(double joules, const run_result *r) {
  return r->total_its > 0 && isfinite(joules) ? joules / (double)r->total_its : NAN;
}
/* The energy the device's counter measures: the GPU's for GPU runs, the CPU
 * package's for CPU runs. */
static double device_j(const run_result *r, int gpu) { return gpu ? r->gpu_j : r->cpu_j; }

/* --energy-seconds when not given: a 0.5 s window when the device's counter
 * (NVML on the GPU, RAPL on the CPU) can be read, else none. */
double bench_default_energy_seconds(int gpu) {
  cis_energy_sample e = cis_energy_read(0);
  return isfinite(gpu ? e.gpu_joules : e.cpu_joules) ? 0.5 : 0.0;
}

void bench_print_energy(FILE *f, const run_result *r, int gpu) {
  double g = bench_per_it(r->gpu_j, r), c = bench_per_it(r->cpu_j, r), d = bench_per_it(device_j(r, gpu), r);
  if (isfinite(g)) fprintf(f, "energy      GPU %.4g J per iteration (NVML, %.3f s window)\n", g, r->window_s);
  else fprintf(f, "energy      GPU n/a: %s\n", *r->gpu_note ? r->gpu_note : "no iterations");
  if (isfinite(c)) fprintf(f, "            CPU package %.4g J per iteration (RAPL)\n", c);
  else fprintf(f, "            CPU package n/a: %s\n", *r->cpu_note ? r->cpu_note : "no iterations");
  if (r->total_its > 0)
    fprintf(f, "host CPU    %.4f ms process CPU time per iteration (%.0f%% of one core over the window)\n",
            r->host_cpu_s * 1e3 / (double)r->total_its, r->window_s > 0 ? 100.0 * r->host_cpu_s / r->window_s : 0.0);
  if (isfinite(d) && r->window_s > 0)
    fprintf(f, "power       %.1f W average (%s, %d solve%s)\n", device_j(r, gpu) / r->window_s,
            gpu ? "GPU" : "CPU package", r->runs, r->runs == 1 ? "" : "s");
  else
    fprintf(f, "power       n/a\n");
}

void bench_json_energy(FILE *f, const run_result *r, int gpu) {
  double d = device_j(r, gpu);
  cli_json_num(f, "joules_per_iteration", bench_per_it(d, r), "%.10g", ", ");
  cli_json_num(f, "gpu_joules_per_iteration", bench_per_it(r->gpu_j, r), "%.10g", ", ");
  cli_json_num(f, "cpu_joules_per_iteration", bench_per_it(r->cpu_j, r), "%.10g", ", ");
  cli_json_num(f, "average_power_w", isfinite(d) && r->window_s > 0 ? d / r->window_s : NAN, "%.10g", ", ");
  cli_json_num(f, "energy_window_s", r->window_s, "%.10g", ", ");
  cli_json_num(f, "host_cpu_ms_per_iteration", r->total_its > 0 ? r->host_cpu_s * 1e3 / (double)r->total_its : NAN, "%.10g", ", ");
  cli_json_str(f, "gpu_energy_note", r->gpu_note, ", ");
  cli_json_str(f, "cpu_energy_note", r->cpu_note, ", ");
}


