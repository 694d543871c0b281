/* fuzz_file.c: one temporary file per fuzzing process (fuzz_file.h). */
#include "fuzz_file.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path[4096];

static void fuzz_file_remove(void) { unlink(fuzz_path); }

const char *fuzz_file_path(const uint8_t *data, size_t size) {
  if (!fuzz_path[0]) {
    const char *dir = getenv("TMPDIR");
    snprintf(fuzz_path, sizeof fuzz_path, "%s/cisparse_fuzz_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(fuzz_path);
    if (fd < 0) { fuzz_path[0] = '\0'; return NULL; }
    close(fd);
    atexit(fuzz_file_remove);
  }
  FILE *f = fopen(fuzz_path, "wb");
  if (!f) return NULL;
  size_t written = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || written != size) return NULL;
  return fuzz_path;
}
