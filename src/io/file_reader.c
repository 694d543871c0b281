/* file_reader.c: opening files for reading and the large-buffer line reader. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/io_internal.h"

#define READER_BUFFER ((size_t)4 << 20) /* 4 MiB: also the longest line accepted */

int cis_path_is_stdin(const char *path) { return path && !strcmp(path, "-"); }

cis_status cis_file_open_read(const char *path, int *fd, int64_t *size) {
  struct stat sb;
  *fd = -1;
  if (!path || !*path) return cis_error(CIS_ERR_INVALID, "no file name given");
  /* "-": standard input (a copy of the descriptor, so that closing it is the
   * same as for a file). */
  int f = cis_path_is_stdin(path) ? dup(STDIN_FILENO) : open(path, O_RDONLY);
  if (f < 0) return cis_error(CIS_ERR_IO, "%s: cannot open: %s", cis_path_is_stdin(path) ? "standard input" : path, strerror(errno));
  if (fstat(f, &sb) != 0) {
    int e = errno;
    close(f);
    return cis_error(CIS_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (S_ISDIR(sb.st_mode)) {
    close(f);
    return cis_error(CIS_ERR_IO, "%s: cannot read: %s", path, strerror(EISDIR));
  }
  *size = S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
  if (*size >= 0) { /* a regular file as standard input may be read from an offset */
    off_t at = lseek(f, 0, SEEK_CUR);
    if (at > 0) *size -= (int64_t)at;
  }
  *fd = f;
  return CIS_OK;
}

cis_status cis_file_read(int fd, const char *path, void *buf, size_t n, size_t *got) {
  size_t done = 0;
  *got = 0;
  while (done < n) {
    ssize_t k = read(fd, (char *)buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return cis_error(CIS_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (k == 0) break;
    done += (size_t)k;
  }
  *got = done;
  return CIS_OK;
}

cis_status cis_reader_open(cis_reader *r, const char *path) {
  int fd;
  int64_t size;
  memset(r, 0, sizeof *r);
  r->fd = -1;
  cis_status st = cis_file_open_read(path, &fd, &size);
  if (st != CIS_OK) return st;
  return cis_reader_from_fd(r, path, fd, size, NULL, 0);
}

cis_status cis_reader_from_fd(cis_reader *r, const char *path, int fd, int64_t size, const void *prefix,
                              size_t nprefix) {
  memset(r, 0, sizeof *r);
  r->fd = fd;
  r->path = cis_path_is_stdin(path) ? "<stdin>" : path;
  r->size = size;
  r->cap = READER_BUFFER;
  r->buf = cis_malloc(r->cap + 1);
  if (!r->buf) {
    cis_reader_close(r);
    return cis_error(CIS_ERR_ALLOC, "%s: cannot allocate a %zu MiB read buffer", path, READER_BUFFER >> 20);
  }
  if (nprefix > r->cap) nprefix = r->cap;
  if (nprefix) memcpy(r->buf, prefix, nprefix);
  r->len = nprefix;
  r->consumed = (int64_t)nprefix;
  return CIS_OK;
}

int64_t cis_reader_bytes_left(const cis_reader *r) {
  if (r->size < 0) return -1;
  int64_t left = r->size - r->consumed + (int64_t)(r->len - r->pos);
  return left < 0 ? 0 : left;
}

void cis_reader_close(cis_reader *r) {
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
  cis_free(r->buf);
  r->buf = NULL;
}

/* Move the unread tail to the front and fill the rest of the buffer. */
static cis_status refill(cis_reader *r) {
  size_t keep = r->len - r->pos, got;
  memmove(r->buf, r->buf + r->pos, keep);
  r->pos = 0;
  r->len = keep;
  cis_status st = cis_file_read(r->fd, r->path, r->buf + keep, r->cap - keep, &got);
  if (st != CIS_OK) return st;
  if (got < r->cap - keep) r->eof = 1;
  r->len += got;
  r->consumed += (int64_t)got;
  return CIS_OK;
}

cis_status cis_reader_next(cis_reader *r, char **line) {
  *line = NULL;
  for (;;) {
    char *start = r->buf + r->pos;
    char *nl = r->len > r->pos ? memchr(start, '\n', r->len - r->pos) : NULL;
    if (nl || (r->eof && r->pos < r->len)) {
      char *end = nl ? nl : r->buf + r->len; /* last line may lack "\n" */
      r->pos = nl ? (size_t)(nl - r->buf) + 1 : r->len;
      if (end > start && end[-1] == '\r') end--;
      *end = '\0';
      r->line++;
      *line = start;
      return CIS_OK;
    }
    if (r->eof) return CIS_OK;
    if (r->pos == 0 && r->len == r->cap)
      return cis_error(CIS_ERR_PARSE, "%s:%lld: line longer than %zu MiB", r->path,
                       (long long)r->line + 1, r->cap >> 20);
    cis_status st = refill(r);
    if (st != CIS_OK) return st;
  }
}

static char *last_newline(char *s, size_t n) {
  while (n > 0)
    if (s[--n] == '\n') return s + n;
  return NULL;
}

cis_status cis_reader_block(cis_reader *r, char **begin, char **end) {
  for (;;) {
    char *start = r->buf + r->pos;
    char *nl = r->len > r->pos ? last_newline(start, r->len - r->pos) : NULL;
    if (nl || (r->eof && r->pos < r->len)) {
      r->pos = nl ? (size_t)(nl - r->buf) + 1 : r->len;
      *begin = start;
      *end = r->buf + r->pos;
      return CIS_OK;
    }
    if (r->eof) {
      *begin = *end = start;
      return CIS_OK;
    }
    if (r->pos == 0 && r->len == r->cap)
      return cis_error(CIS_ERR_PARSE, "%s:%lld: line longer than %zu MiB", r->path, (long long)r->line + 1,
                       r->cap >> 20);
    cis_status st = refill(r);
    if (st != CIS_OK) return st;
  }
}
