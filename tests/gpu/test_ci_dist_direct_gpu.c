/* test_ci_dist_direct_gpu.c: the direct CI sigma over GPUs on one GPU (the
 * NCCL path with G = 1, parts taken in turn; ci_dist_direct_cases.h). */
#include "ci_dist_direct_cases.h"

int main(void) { return run_ci_dist_direct_cases("test_ci_dist_direct_gpu", 1); }
