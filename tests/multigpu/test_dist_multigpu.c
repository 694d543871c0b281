/* test_dist_multigpu.c: the distributed path on every GPU of the host
 * (G >= 2, NCCL, one process: dist_gpu_cases.h); skipped with the reason
 * when fewer than two GPUs are present. */
#include "../gpu/dist_gpu_cases.h"

int main(void) { return run_dist_gpu_cases("test_dist_multigpu", 0, 2); }
