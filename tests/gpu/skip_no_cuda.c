/* skip_no_cuda.c: stands in for a GPU test that calls the CUDA runtime
 * directly when cisparse is built without CUDA (tests/CMakeLists.txt). */
#include <stdio.h>

int main(void) {
  printf("skipped: built without CUDA\n");
  return 77;
}
