/* test_files.c: see test_files.h. */
#include "test_files.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[512];

const char *scratch_dir(void) {
  if (!dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cis_io_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      perror("mkdtemp");
      exit(1);
    }
  }
  return dir;
}

const char *scratch_path(const char *name) {
  static char buf[8][1024];
  static int next;
  char *p = buf[next++ % 8];
  snprintf(p, 1024, "%s/%s", scratch_dir(), name);
  return p;
}

const char *scratch_write(const char *name, const char *text) {
  const char *p = scratch_path(name);
  FILE *f = fopen(p, "wb");
  if (!f) {
    perror(p);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
  return p;
}

void scratch_remove(void) {
  if (!dir[0]) return;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
  rmdir(dir);
  dir[0] = '\0';
}

long long file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

int file_flip_byte(const char *path, long long offset, unsigned char mask) {
  FILE *f = fopen(path, "r+b");
  if (!f) return -1;
  int ok = fseek(f, offset, SEEK_SET) == 0;
  int c = ok ? fgetc(f) : EOF;
  ok = ok && c != EOF && fseek(f, offset, SEEK_SET) == 0 && fputc(c ^ mask, f) != EOF;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

int file_copy_prefix(const char *src, const char *dst, long long n) {
  FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
  int c, ok = a && b;
  for (long long i = 0; ok && i < n && (c = fgetc(a)) != EOF; ++i) ok = fputc(c, b) != EOF;
  if (a) fclose(a);
  if (b && fclose(b) != 0) ok = 0;
  return ok ? 0 : -1;
}
