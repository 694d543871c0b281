/* test_files.h: a scratch folder for tests that write files (mkdtemp under $TMPDIR or
 * /tmp) and helpers to write and corrupt small files in it. */
#ifndef CIS_TEST_FILES_H
#define CIS_TEST_FILES_H

#include <stddef.h>

/* Create the scratch folder (once); its path. */
const char *scratch_dir(void);
/* Path of NAME inside the scratch folder (static buffer rotated over 8 calls). */
const char *scratch_path(const char *name);
/* Write text to scratch NAME; returns its path. */
const char *scratch_write(const char *name, const char *text);
/* Remove every file in the scratch folder and the folder itself. */
void scratch_remove(void);
/* Size of a file in bytes (-1 if missing). */
long long file_size(const char *path);
/* XOR byte `offset` of a file with `mask`; 0 on success. */
int file_flip_byte(const char *path, long long offset, unsigned char mask);
/* Copy the first n bytes of src to dst; 0 on success. */
int file_copy_prefix(const char *src, const char *dst, long long n);

#endif
