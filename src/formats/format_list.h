/* format_list.h: THE list of storage formats, read by every registry:
 *   - the host registry (src/formats/registry.c: cis_matrix_create by name,
 *     cis_format_count/cis_format_name, hence `cisparse info`, `bench` on the
 *     CPU, the CI command's memory table and Python's cisparse.formats());
 *   - the host tables' declarations (src/formats/format_types.h);
 *   - the device plans (src/gpu/plan.c: a format's device table by name,
 *     gpu_plan_is_symmetric) and the device tables' declarations
 *     (src/gpu/gpu_format.h; compiled only with CUDA, the nogpu/ stubs name
 *     no table).
 * X-macro (PETSc's MatRegister / Ginkgo's type lists written once):
 *   X(id, storage)
 *     id       the C name: host table `cis_format_<id>` (a cis_format_ops,
 *              format_types.h), device table `cis_gpu_format_<id>` (a
 *              cis_gpu_format_ops, gpu/gpu_format.h); the --format name is
 *              the tables' own .name / .format;
 *     storage  CIS_STORE_FULL: all entries of any matrix, listed by
 *              cis_format_count/cis_format_name in this order;
 *              CIS_STORE_UPPER: a symmetric matrix as its upper triangle
 *              (built by name from a symmetric matrix, refused otherwise;
 *              not in cis_format_count, so the lists of formats every
 *              matrix is shown in stay those of any matrix).
 *
 * Adding a format "foo" (host build + CPU product + GPU kernel):
 *   1. src/formats/foo.c   `const cis_format_ops cis_format_foo = {.name =
 *                          "foo", build, bytes, spmv, dump, destroy}`; its
 *                          struct starts with cis_fmt_head (own header
 *                          foo.h, as csr5.h, or in format_types.h);
 *   2. src/gpu/foo_gpu.c   `const cis_gpu_format_ops cis_gpu_format_foo =
 *                          {.format = "foo", .kernels = {...}, upload, spmv,
 *                          release}` (a format with no GPU kernel:
 *                          an upload that returns CIS_ERR_UNSUPPORTED);
 *   3. src/kernels/foo.cu  the kernel, its extern "C" launcher declared in
 *                          its own header (as csr5_kernels.h) or launchers.h;
 *   4. this file           one line X(foo, CIS_STORE_FULL) below.
 * That is 4 files: the format's 3 and this table (before this table: 7, the
 * format's 3 and the four lists registry.c, format_types.h's extern,
 * gpu/plan.c's find_table, gpu/gpu_format.h's extern). The build globs the
 * source folders; cisparse info, bench on the CPU, the CI command's memory
 * table, Python's formats() and the tests that loop over cis_format_count
 * then include it. Optional, before as now: the list in the comment of
 * include/cisparse/format.h, a rule in --format auto (auto.c), and the GPU
 * kernels `cisparse bench` times (src/cli/cmd_bench.c, entries()). */
#ifndef CISPARSE_FORMAT_LIST_H
#define CISPARSE_FORMAT_LIST_H

enum cis_format_storage {
  CIS_STORE_FULL = 0, /* all entries of any matrix */
  CIS_STORE_UPPER = 1 /* the upper triangle of a symmetric matrix */
};

#define CIS_FORMAT_LIST(X)         \
  X(csr, CIS_STORE_FULL)           \
  X(ell, CIS_STORE_FULL)           \
  X(ellr, CIS_STORE_FULL)          \
  X(sell, CIS_STORE_FULL)          \
  X(sellr, CIS_STORE_FULL)         \
  X(sellcs, CIS_STORE_FULL)        \
  X(csb, CIS_STORE_FULL)           \
  X(hyb, CIS_STORE_FULL)           \
  X(csr5, CIS_STORE_FULL)          \
  X(sell16, CIS_STORE_FULL)        \
  X(csr_sym, CIS_STORE_UPPER)      \
  X(sym_seg, CIS_STORE_UPPER)

#endif
