/* cisparse/cisparse.h: the whole public C API.
 * status.h  status codes, last error message
 * types.h   host CSR / COO, 64-bit counts, conversions
 * format.h  storage formats (csr ell ellr sell sellr sellcs csb hyb csr5)
 * io.h      Matrix Market, binary format, load-by-name
 * gen.h     generators (ci, laplace3d, powerlaw, random)
 * gpu.h     device plans: upload once, SpMV many times, cuSPARSE baselines
 * operator.h linear operators over any format, GPU plan or callback
 * solver.h  CG, BiCG, BiCGStab (fused GPU versions), mixed precision, Davidson
 * dist.h    rows over several GPUs (NCCL): distributed SpMV, solvers on top
 * ci.h      CI from FCIDUMP: determinants, Slater-Condon Hamiltonian
 * sci.h     selected CI in a product of alpha and beta string sets (CPU sigma)
 * ci_solve.h the CI driver: integrals in, lowest states out (CLI and Python)
 * util.h    cis_version(), CUDA or not, public struct sizes (bindings)
 * version.h the version of these headers (generated)
 * export.h  CIS_API, the mark of an exported function
 * (device timings for benchmark programs: the bench library, src/bench, not
 *  part of the library) */
#ifndef CISPARSE_H
#define CISPARSE_H
#include "cisparse/status.h"
#include "cisparse/types.h"
#include "cisparse/format.h"
#include "cisparse/io.h"
#include "cisparse/gen.h"
#include "cisparse/gpu.h"
#include "cisparse/operator.h"
#include "cisparse/solver.h"
#include "cisparse/dist.h"
#include "cisparse/ci.h"
#include "cisparse/sci.h"
#include "cisparse/ci_solve.h"
#include "cisparse/util.h"
#include "cisparse/version.h"
#endif
