/* tool.h: the tool library (`cisparse_tool`, src/tool/ and src/util/):
 * the helpers a benchmark program needs that are plumbing rather than
 * product, so libcisparse does not export them. The cisparse tool and the
 * tests link it; it uses the library's public headers only (the layers
 * point one way: tool -> libcisparse's API, and both -> src/util).
 *   util/host.h         monotonic clock, median, host memory limits
 *                       (the same source is compiled into the library)
 *   tool/energy.h       GPU (NVML) and CPU (RAPL) energy counters
 *   tool/paper_bytes.h  the paper's storage equations (§4.1)
 *   bench/gpu_bench.h   device timings (the bench library, src/bench:
 *                       linked beside this one) */
#ifndef CISPARSE_TOOL_H
#define CISPARSE_TOOL_H

#include "bench/gpu_bench.h"
#include "tool/energy.h"
#include "tool/paper_bytes.h"
#include "util/host.h"

#endif
