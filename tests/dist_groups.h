/* dist_groups.h: the CPU-part tests' runner (test_dist, test_dist_resident):
 * the G ranks of fake world w in T groups, group k a fake comm of ranks
 * G k / T .. G (k + 1) / T - 1 stored into its job (jobs[k], `size` bytes
 * each, the comm pointer at byte `comm_at`), then `run` on every job: in
 * this thread when T == 1, else a thread per group (at most 8). */
#ifndef CISPARSE_TEST_DIST_GROUPS_H
#define CISPARSE_TEST_DIST_GROUPS_H

#include <pthread.h>
#include "test_util.h"

static inline void run_fake_groups(cis_dist_world *w, int G, int T, void *jobs, size_t size, size_t comm_at,
                                   void *(*run)(void *)) {
  pthread_t th[8];
  char *job = jobs;
  CHECK(T >= 1 && T <= 8 && T <= G, "%d groups of %d ranks", T, G);
  if (T < 1 || T > 8 || T > G) return;
  for (int k = 0; k < T; ++k) {
    const int first = G * k / T, last = G * (k + 1) / T;
    CHECK_OK(cis_dist_comm_fake(w, first, last - first, (cis_dist_comm **)(job + k * size + comm_at)));
  }
  if (T == 1) run(job);
  else {
    for (int k = 0; k < T; ++k) pthread_create(&th[k], NULL, run, job + k * size);
    for (int k = 0; k < T; ++k) pthread_join(th[k], NULL);
  }
}

#endif
