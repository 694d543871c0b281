/* ci.c: the lowest CI states of an FCIDUMP in one call of the CI driver
 * (cis_ci_solve_file: the same call `cisparse ci` and Python's
 * cisparse.fci.FCISolver make).
 *
 *   cc ci.c $(pkg-config --cflags --libs cisparse) -o ci   # or find_package(cisparse)
 *   ./ci FILE.FCIDUMP [ROOTS] [cpu|gpu]
 *
 * Prints each root's total energy and <S^2>, the method the driver chose and
 * Davidson's work; exit status 0 when every root converged. */
#include <stdio.h>
#include <stdlib.h>
#include <cisparse/cisparse.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.FCIDUMP [ROOTS] [cpu|gpu]\n", argv[0]);
    return 2;
  }
  cis_ci_solve_opts o = cis_ci_solve_opts_default(); /* full CI, method auto, tol 1e-8 */
  o.roots = argc > 2 ? atoi(argv[2]) : 1;
  o.gpu = argc > 3 && argv[3][0] == 'g';
  cis_ci_result *r = NULL;
  cis_status st = cis_ci_solve_file(argv[1], &o, &r);
  if (st != CIS_OK) {
    fprintf(stderr, "error: %s: %s\n", cis_status_name(st), cis_last_error());
    return 1;
  }
  printf("%lld determinants, method %s (%s), %d iterations, %lld products\n", (long long)r->determinants,
         r->method == CIS_CI_METHOD_DIRECT ? "direct" : "stored", r->why, r->davidson.iterations,
         (long long)r->davidson.products);
  for (int k = 0; k < r->roots; ++k) printf("root %d  E = %.10f  <S^2> = %.4f\n", k, r->energies[k], r->s2[k]);
  int ok = r->converged;
  cis_ci_result_free(r);
  return ok ? 0 : 1;
}
