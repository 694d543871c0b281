/* cisparse/io.h: Matrix Market and the cisparse binary format.
 *
 * Errors on malformed input are one line "FILE:LINE: problem" (line omitted
 * where it has no meaning), recorded for cis_last_error(). */
#ifndef CISPARSE_IO_H
#define CISPARSE_IO_H

#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write a dense vector as Matrix Market `array real general` (n x 1),
 * digits as io_mm_write. */
CIS_API cis_status cis_mm_write_vector(const char *path, const void *x, cis_dtype t, cis_int n);
/* Write a dense vector as plain text, one value per line, digits as io_mm_write. */
CIS_API cis_status cis_text_write_vector(const char *path, const void *x, cis_dtype t, cis_int n);
/* Read a vector: Matrix Market array (n x 1 or 1 x n) or plain text, one
 * value per line ('#' or '%' lines are comments). *out (release with cis_free()) has
 * exactly n values of dtype t, else an error naming the expected and found counts.
 * NaN/Inf are refused (CIS_ERR_NUMERIC naming the line). */
CIS_API cis_status cis_vector_read(const char *path, cis_dtype t, cis_int n, void **out);

/* Load a matrix named by a file path (Matrix Market by content, or .cisb by
 * magic) or by a generator spec "kind:key=value,..." (see cisparse/gen.h). */
CIS_API cis_status cis_load(const char *file_or_spec, cis_dtype t, cis_csr **out);
/* Save by extension: ".cisb" binary, anything else Matrix Market. */
CIS_API cis_status cis_save(const char *path, const cis_csr *A);

#ifdef __cplusplus
}
#endif
#endif
