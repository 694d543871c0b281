/* test_dist_gpu_rows.c: the distributed CI Hamiltonian built and split on
 * the GPU on one GPU ("distributed with G = 1": an NCCL communicator of one
 * rank; dist_rows_gpu_cases.h). */
#include "dist_rows_gpu_cases.h"

int main(void) { return run_dist_rows_gpu_cases("test_dist_gpu_rows", 1, 1); }
