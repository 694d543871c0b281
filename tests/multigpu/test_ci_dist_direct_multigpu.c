/* test_ci_dist_direct_multigpu.c: the direct CI sigma over every GPU of the
 * host (G >= 2, NCCL, one process; ../gpu/ci_dist_direct_cases.h); skipped
 * with the reason when fewer than two GPUs are present. */
#include "../gpu/ci_dist_direct_cases.h"

int main(void) { return run_ci_dist_direct_cases("test_ci_dist_direct_multigpu", 2); }
