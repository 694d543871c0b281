/* paper_bytes.c: the storage equations of Mahmoud et al. 2018, §4.1
 * (tool/paper_bytes.h). */
#include "tool/paper_bytes.h"

/* §4.1's three equations with the types printed there. */
cis_int cis_paper_bytes_csr(cis_int rows, cis_int nnz) {
  return nnz * (cis_int)(sizeof(double) + sizeof(unsigned int)) + (rows + 1) * (cis_int)sizeof(unsigned int);
}
cis_int cis_paper_bytes_ell(cis_int rows, cis_int max_row) {
  return rows * max_row * (cis_int)(sizeof(double) + sizeof(int));
}
cis_int cis_paper_bytes_hyb(cis_int rows, cis_int boundary, cis_int csr_nnz) {
  return 3 * rows * (cis_int)sizeof(unsigned int) + rows * boundary * (cis_int)(sizeof(double) + sizeof(int)) +
         csr_nnz * (cis_int)(sizeof(double) + sizeof(unsigned int));
}
