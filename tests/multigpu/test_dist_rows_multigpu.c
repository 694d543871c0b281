/* test_dist_rows_multigpu.c: the distributed CI Hamiltonian built and split
 * on every GPU of the host (G >= 2, NCCL, one process:
 * dist_rows_gpu_cases.h); skipped with the reason when fewer than two GPUs
 * are present. */
#include "../gpu/dist_rows_gpu_cases.h"

int main(void) { return run_dist_rows_gpu_cases("test_dist_rows_multigpu", 0, 2); }
