/* dist_counts.h: the all-reduces a converged distributed Krylov solve makes
 * (src/distributed/backend_dist.c), checked against the communicator's
 * counters by the CPU-part test (test_dist_resident) and the GPU cases
 * (gpu/dist_gpu_cases.h). Set-up: two host all-reduces (||b|| and (b, b),
 * Davidson-style dots brought to the host), then the two dots of the start
 * (rho, (r, r)) and one all-reduce per step with dots: 2 per CG or BiCG
 * iteration, 3 per BiCGStab iteration.
 *   host scalars (cublasL, cublasN): every one of them on the host, the flag
 *     read every iteration: 4 + k * iterations host all-reduces, no slot sums;
 *   device-resident (merge, merge_10, graph): 2 host all-reduces and every
 *     other sum in stream order, over every iteration enqueued: merge_10 and
 *     graph read KS_FLAG every 10 iterations, so the iterations after the
 *     converged one up to the next multiple of 10 are enqueued too (and
 *     leave x alone). With one rank in all a step's partial dots are the
 *     sums, already in their slots: only the products' dots are summed, 1
 *     per CG or BiCG iteration, 2 per BiCGStab iteration. */
#ifndef CISPARSE_TEST_DIST_COUNTS_H
#define CISPARSE_TEST_DIST_COUNTS_H

#include "distributed/dist_internal.h"
#include "test_util.h"

/* The all-reduces one comm made between two snapshots. */
typedef struct dist_counts {
  int64_t host, slots;
} dist_counts;

static inline dist_counts dist_counts_now(const cis_dist_comm *c) {
  dist_counts k = {c->allreduces_host, c->allreduces_slots};
  return k;
}

/* Check a converged solve of `it` iterations (method m, version v) over
 * `ranks` ranks made the all-reduces of the header's rule between snapshots
 * a and b. */
static inline void check_dist_counts(const char *what, cis_krylov_method m, cis_solver_version v, int ranks, int it,
                                     dist_counts a, dist_counts b) {
  const int64_t k = m == CIS_BICGSTAB ? 3 : 2;
  const int64_t dh = b.host - a.host, ds = b.slots - a.slots;
  if (v == CIS_VER_CUBLAS_L || v == CIS_VER_CUBLAS_N) {
    CHECK(dh == 4 + k * it && ds == 0, "%s: %lld host all-reduces and %lld slot sums for %d iterations (expected %lld, 0)",
          what, (long long)dh, (long long)ds, it, (long long)(4 + k * it));
    return;
  }
  const int64_t every = v == CIS_VER_MERGE_10 || v == CIS_VER_GRAPH ? 10 : 1;
  const int64_t enqueued = (it + every - 1) / every * every, summed = ranks == 1 ? k - 1 : k;
  CHECK(dh == 2 && ds == 2 + summed * enqueued,
        "%s: %lld host all-reduces and %lld slot sums for %d iterations (expected 2, %lld)", what, (long long)dh,
        (long long)ds, it, (long long)(2 + summed * enqueued));
}

#endif
