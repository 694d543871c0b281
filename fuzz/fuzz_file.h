/* fuzz_file.h: the readers' fuzz targets read paths, so each input is
 * written to one temporary file per process (fuzz_file_path). */
#ifndef CISPARSE_FUZZ_FILE_H
#define CISPARSE_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Write data[0..size) to this process's temporary file (made in $TMPDIR or
 * /tmp on the first call, removed at exit) and return its path; NULL when it
 * cannot be written (the input is then skipped). */
const char *fuzz_file_path(const uint8_t *data, size_t size);

#endif
