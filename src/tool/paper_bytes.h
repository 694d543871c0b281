/* paper_bytes.h: the paper's storage equations (Mahmoud et al. 2018,
 * §4.1), in bytes, with sizeof(double) values, 4-byte indices and 4-byte
 * row pointers exactly as printed there: what `cisparse info` and the
 * benchmark reports print beside the formats' true bytes. Part of the tool
 * library (src/tool/), not of libcisparse. */
#ifndef CISPARSE_TOOL_PAPER_BYTES_H
#define CISPARSE_TOOL_PAPER_BYTES_H

#include "cisparse/types.h"

/* CSR: nnz values and column indices, rows + 1 row pointers. */
cis_int cis_paper_bytes_csr(cis_int rows, cis_int nnz);
/* ELLPACK: rows x max_row values and column indices. */
cis_int cis_paper_bytes_ell(cis_int rows, cis_int max_row);
/* The hybrid format: rows x boundary ELLPACK slots plus a CSR of csr_nnz
 * nonzeros (three row arrays). */
cis_int cis_paper_bytes_hyb(cis_int rows, cis_int boundary, cis_int csr_nnz);

#endif
