/* test_dist_gpu.c: the distributed path on one GPU ("distributed with
 * G = 1": NCCL communicator of one rank, dist_gpu_cases.h). */
#include "dist_gpu_cases.h"

int main(void) { return run_dist_gpu_cases("test_dist_gpu", 1, 1); }
