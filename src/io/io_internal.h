/* io_internal.h: helpers shared by the readers and writers in src/io/.
 *
 *  - cis_file_open_read: open a file for reading with the errors every reader
 *    gives (missing file, directory, permission: CIS_ERR_IO with strerror);
 *  - cis_reader: a large-buffer line reader that counts lines, for text
 *    formats of many GB (one read(2) per 4 MiB, lines split in place);
 *  - cis_token / cis_parse_int / cis_parse_real: whitespace tokens and exact
 *    number parsing without locale or allocation;
 *  - cis_io_memory_check: refuse declared sizes beyond 64 bits or memory. */
#ifndef CISPARSE_IO_INTERNAL_H
#define CISPARSE_IO_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include "core/internal.h"

/* 1 for "-", the name of standard input. */
int cis_path_is_stdin(const char *path);

/* Open path read-only ("-": a duplicate of standard input); *size = the
 * bytes left to read for regular files (-1 for pipes and devices).
 * Directories and unreadable files give CIS_ERR_IO "PATH: reason". */
cis_status cis_file_open_read(const char *path, int *fd, int64_t *size);

/* Read exactly n bytes (fewer only at end of file; *got says how many). */
cis_status cis_file_read(int fd, const char *path, void *buf, size_t n, size_t *got);

typedef struct cis_reader {
  const char *path;
  int fd;
  int eof;            /* read(2) has returned 0 */
  char *buf;          /* cap + 1 bytes (room for a final NUL) */
  size_t cap, pos, len;
  int64_t line;       /* number of the line last returned (1-based) */
  int64_t size;       /* bytes of the input (regular files; -1 for pipes) */
  int64_t consumed;   /* bytes taken into the buffer so far (prefix + reads) */
} cis_reader;

/* Open path for line reading. On failure nothing needs closing. */
cis_status cis_reader_open(cis_reader *r, const char *path);
/* Read lines from an open descriptor fd (owned by the reader from now on,
 * also on failure), whose first nprefix bytes were already read into
 * prefix: the input is read once, from a pipe as well as from a file. size:
 * as cis_file_open_read. */
cis_status cis_reader_from_fd(cis_reader *r, const char *path, int fd, int64_t size, const void *prefix,
                              size_t nprefix);
/* Bytes of the input not yet returned as lines (-1 when the size is unknown). */
int64_t cis_reader_bytes_left(const cis_reader *r);
/* Release the reader (safe on a zeroed or already closed reader). */
void cis_reader_close(cis_reader *r);
/* Next line, NUL-terminated without its "\n" or "\r\n", writable in place;
 * *line = NULL at end of file. A line longer than the buffer is an error. */
cis_status cis_reader_next(cis_reader *r, char **line);

/* Next block of whole lines [*begin, *end) from the current position, at
 * most the buffer size; the last line of the file may lack its "\n", and
 * *end is writable (room for a NUL). *begin == *end at end of file. Does not
 * count lines (r->line is left to the caller). */
cis_status cis_reader_block(cis_reader *r, char **begin, char **end);

/* Next whitespace-separated token of *p, NUL-terminated in place; NULL at
 * the end of the line. Advances *p past the token. */
char *cis_token(char **p);
/* Whole token as a decimal int64: 0 ok, 1 not an integer, 2 beyond 64 bits. */
int cis_parse_int(const char *tok, int64_t *v);
/* Whole token as a double (decimal, "nan", "inf"; correctly rounded):
 * 0 ok, 1 not a number. */
int cis_parse_real(const char *tok, double *v);

/* Refuse `count` items of `bytes_each` bytes: CIS_ERR_OVERFLOW if the product
 * overflows 64 bits, CIS_ERR_TOO_LARGE (both sizes in GiB) if it exceeds the
 * machine's physical memory. `where` prefixes the message ("FILE:LINE"). */
cis_status cis_io_memory_check(const char *where, int64_t count, int64_t bytes_each, const char *what);

/* Matrix Market from an open reader (io_mm_read reads a path; cis_load
 * one descriptor it has already started to read). Closes the reader. */
cis_status cis_mm_read_reader(cis_reader *r, cis_dtype t, cis_csr **out);
/* .cisb from an open descriptor fd (closed here) whose first nprefix bytes
 * were already read into prefix. */
cis_status cis_bin_read_fd(const char *path, int fd, int64_t size, const void *prefix, size_t nprefix,
                           cis_dtype t, cis_csr **out);

/* Set CIS_FLAG_NONFINITE on A when any value is NaN or Inf, clear it otherwise. */
void cis_io_flag_nonfinite(cis_csr *A);

/* fclose f and turn any write or close failure into CIS_ERR_IO naming path;
 * st (an earlier failure) wins over a close error. f may be NULL. */
cis_status cis_io_close_write(FILE *f, const char *path, cis_status st);
/* fopen(path, "wb") with a large buffer; CIS_ERR_IO "PATH: cannot create: reason". */
cis_status cis_io_open_write(const char *path, FILE **f);

/* ---- moved from cisparse/io.h: internal, not exported ------------------------------------ */

/* Read a Matrix Market file: `coordinate` with field real, integer or pattern
 * (pattern values are 1.0) and symmetry general, symmetric or skew-symmetric
 * (stored triangles are expanded; CIS_FLAG_SYMMETRIC/SKEW/PATTERN set).
 * `array` and `complex`/`hermitian` are refused (CIS_ERR_UNSUPPORTED).
 * Duplicates are summed; explicit zeros are kept. NaN/Inf values are
 * accepted and flagged (CIS_FLAG_NONFINITE). Values converted to dtype t. */
cis_status io_mm_read(const char *path, cis_dtype t, cis_csr **out);

/* Write A as `coordinate real general`, 17 significant digits for double
 * values and 9 for float (each reads back bit-identical). */
cis_status io_mm_write(const char *path, const cis_csr *A);

/* cisparse binary format (".cisb"): versioned header (magic "CISPARSE",
 * version, dtype, rows, cols, nnz, flags), the three CSR arrays, and a
 * 64-bit FNV-1a checksum of everything before it. */
cis_status io_bin_write(const char *path, const cis_csr *A);

/* Read a .cisb file: checks magic, version, sizes against the file length
 * and available memory, index ranges and the checksum. Values converted to t. */
cis_status io_bin_read(const char *path, cis_dtype t, cis_csr **out);

#endif
