/* load.c: load a matrix by name (generator spec, .cisb file or Matrix
 * Market file, told apart by content) and save by extension. */
#include <string.h>
#include <unistd.h>
#include "cisparse/gen.h"
#include "cisparse/io.h"
#include "io/io_internal.h"

/* The file (or "-", standard input) is opened once and read once: the first
 * bytes tell the format and are handed to its reader, so a pipe works. */
cis_status cis_load(const char *file_or_spec, cis_dtype t, cis_csr **out) {
  char magic[8];
  size_t got = 0;
  int fd;
  int64_t size;
  cis_reader r;
  *out = NULL;
  if (!file_or_spec || !*file_or_spec) return cis_error(CIS_ERR_INVALID, "no matrix file or generator spec given");
  if (cis_gen_is_spec(file_or_spec)) return cis_generate(file_or_spec, t, out);
  cis_status st = cis_file_open_read(file_or_spec, &fd, &size);
  if (st != CIS_OK) return st;
  st = cis_file_read(fd, cis_path_is_stdin(file_or_spec) ? "<stdin>" : file_or_spec, magic, sizeof magic, &got);
  if (st != CIS_OK) {
    close(fd);
    return st;
  }
  if (got == sizeof magic && !memcmp(magic, "CISPARSE", sizeof magic))
    return cis_bin_read_fd(file_or_spec, fd, size, magic, got, t, out);
  if ((st = cis_reader_from_fd(&r, file_or_spec, fd, size, magic, got)) != CIS_OK) return st;
  return cis_mm_read_reader(&r, t, out);
}

cis_status cis_save(const char *path, const cis_csr *A) {
  size_t n = path ? strlen(path) : 0;
  if (n >= 5 && !strcmp(path + n - 5, ".cisb")) return io_bin_write(path, A);
  return io_mm_write(path, A);
}
