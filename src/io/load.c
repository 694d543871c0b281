/* load.c: load a matrix by name (generator spec, .cisb file or Matrix
 * Market file, told apart by content) and save by extension. */
#include <string.h>
#include <unistd.h>
#include "cisparse/gen.h"
#include "cisparse/io.h"
#include "io/io_internal.h"

cis_status cis_load(const char *file_or_spec, cis_dtype t, cis_csr **out) {
  char magic[8];
  size_t got = 0;
  int fd;
  int64_t size;
  *out = NULL;
  if (!file_or_spec || !*file_or_spec) return cis_error(CIS_ERR_INVALID, "no matrix file or generator spec given");
  if (cis_gen_is_spec(file_or_spec)) return cis_generate(file_or_spec, t, out);
  cis_status st = cis_file_open_read(file_or_spec, &fd, &size);
  if (st != CIS_OK) return st;
  st = cis_file_read(fd, file_or_spec, magic, sizeof magic, &got);
  close(fd);
  if (st != CIS_OK) return st;
  if (got == sizeof magic && !memcmp(magic, "CISPARSE", sizeof magic)) return cis_bin_read(file_or_spec, t, out);
  return cis_mm_read(file_or_spec, t, out);
}

cis_status cis_save(const char *path, const cis_csr *A) {
  size_t n = path ? strlen(path) : 0;
  if (n >= 5 && !strcmp(path + n - 5, ".cisb")) return cis_bin_write(path, A);
  return cis_mm_write(path, A);
}
