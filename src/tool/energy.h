/* energy.h: the GPU's and the CPU package's cumulative energy counters
 * (energy.c), for the tool's benchmark reports (`cisparse solve`); part of
 * the tool library (src/tool/), not of libcisparse. */
#ifndef CISPARSE_TOOL_ENERGY_H
#define CISPARSE_TOOL_ENERGY_H

#include <stdint.h>

/* Cumulative energy counters: the GPU's through NVML
 * (nvmlDeviceGetTotalEnergyConsumption, libnvidia-ml.so.1 loaded with dlopen)
 * and the CPU package's through RAPL (/sys/class/powercap/intel-rapl:*).
 * A counter that cannot be read is reported as unavailable (NaN joules),
 * never as an error. */
typedef struct cis_energy_sample {
  double gpu_joules; /* NaN if unavailable */
  double cpu_joules; /* NaN if unavailable */
  double seconds;
} cis_energy_sample;
/* Read both counters now (device `device` for NVML). */
cis_energy_sample cis_energy_read(int device);
/* Why the GPU / CPU counter is unavailable ("" when it is available). */
const char *cis_energy_gpu_why(void);
const char *cis_energy_cpu_why(void);

/* Energy in microjoules between two raw readings of one RAPL counter that
 * wraps to 0 after max_range_uj (the domain's max_energy_range_uj):
 * after - before, or after + (max_range_uj - before) + 1 when the counter
 * wrapped once (after < before). A reading past the range (max_range_uj of 0
 * = unknown, or before > max_range_uj) gives after - before when
 * after >= before and 0 otherwise, never a huge unsigned difference. */
uint64_t energy_rapl_delta_uj(uint64_t before, uint64_t after, uint64_t max_range_uj);

/* Overrides read once, at the first cis_energy_read (for tests and for
 * machines with unusual layouts), from the library's options table
 * (cisparse/util.h, docs/options.md):
 *   energy_nvml   the NVML library dlopen()s (default libnvidia-ml.so.1;
 *                 "none" disables the GPU counter)
 *   energy_rapl   the powercap directory (default /sys/class/powercap;
 *                 "none" disables the CPU counter) */

#endif
