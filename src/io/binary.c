/* binary.c: the cisparse binary matrix file (".cisb"), version 1.
 *
 * Layout, little-endian, no gaps:
 *   offset  0  char[8]   magic "CISPARSE"
 *           8  uint32    version (1)
 *          12  uint32    dtype of the stored values (0 double, 1 float)
 *          16  int64     rows
 *          24  int64     cols
 *          32  int64     nnz
 *          40  int32     flags (CIS_FLAG_*)
 *          44  uint32    zero padding
 *          48  int64     rowptr[rows + 1]
 *              int32     colind[nnz]
 *              dtype     val[nnz]
 *              uint64    FNV-1a 64 of every byte before it (G. Fowler, L. C. Noll,
 *                        K.-P. Vo, draft-eastlake-fnv, "FNV-1a": h ^= byte; h *= prime).
 * Arrays move in 64 MiB blocks and the checksum runs over each block as it
 * passes, so a file is read once. */
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .cisb reader and writer assume a little-endian host"
#endif

#define CISB_MAGIC "CISPARSE"
#define CISB_VERSION 1u
#define CISB_HEADER 48
#define CISB_BLOCK ((size_t)64 << 20)
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

typedef struct {
  uint32_t version, dtype;
  int64_t rows, cols, nnz;
  int32_t flags;
} cisb_header;

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * FNV_PRIME;
  return h;
}

static void header_encode(const cisb_header *h, unsigned char out[CISB_HEADER]) {
  memset(out, 0, CISB_HEADER);
  memcpy(out, CISB_MAGIC, 8);
  memcpy(out + 8, &h->version, 4);
  memcpy(out + 12, &h->dtype, 4);
  memcpy(out + 16, &h->rows, 8);
  memcpy(out + 24, &h->cols, 8);
  memcpy(out + 32, &h->nnz, 8);
  memcpy(out + 40, &h->flags, 4);
}

static void header_decode(const unsigned char in[CISB_HEADER], cisb_header *h) {
  memcpy(&h->version, in + 8, 4);
  memcpy(&h->dtype, in + 12, 4);
  memcpy(&h->rows, in + 16, 8);
  memcpy(&h->cols, in + 24, 8);
  memcpy(&h->nnz, in + 32, 8);
  memcpy(&h->flags, in + 40, 4);
}

/* ---- writing ---------------------------------------------------------- */

static void write_hashed(FILE *f, const void *p, size_t n, uint64_t *h) {
  for (size_t off = 0; off < n && !ferror(f); off += CISB_BLOCK) {
    size_t k = n - off < CISB_BLOCK ? n - off : CISB_BLOCK;
    fwrite((const char *)p + off, 1, k, f);
    *h = fnv1a(*h, (const char *)p + off, k);
  }
}

cis_status io_bin_write(const char *path, const cis_csr *A) {
  FILE *f = NULL;
  cis_status st;
  unsigned char head[CISB_HEADER];
  uint64_t h = FNV_OFFSET;
  if (!A || !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
    return cis_error(CIS_ERR_INVALID, "io_bin_write: no matrix given");
  if ((st = cis_io_open_write(path, &f)) != CIS_OK) return st;
  cisb_header hd = {CISB_VERSION, (uint32_t)A->dtype, A->rows, A->cols, A->nnz, A->flags};
  header_encode(&hd, head);
  write_hashed(f, head, CISB_HEADER, &h);
  write_hashed(f, A->rowptr, (size_t)(A->rows + 1) * sizeof(cis_int), &h);
  write_hashed(f, A->colind, (size_t)A->nnz * sizeof(cis_idx), &h);
  write_hashed(f, A->val, (size_t)A->nnz * cis_dtype_size(A->dtype), &h);
  fwrite(&h, sizeof h, 1, f);
  return cis_io_close_write(f, path, CIS_OK);
}

/* ---- reading ---------------------------------------------------------- */

typedef struct {
  const char *path;
  int fd;
  uint64_t hash;
} cisb_in;

/* Read n bytes into p and hash them; a short read names the section. */
static cis_status read_hashed(cisb_in *in, void *p, size_t n, const char *section) {
  for (size_t off = 0; off < n; off += CISB_BLOCK) {
    size_t k = n - off < CISB_BLOCK ? n - off : CISB_BLOCK, got;
    cis_status st = cis_file_read(in->fd, in->path, (char *)p + off, k, &got);
    if (st != CIS_OK) return st;
    if (got < k) return cis_error(CIS_ERR_PARSE, "%s: truncated file (ends inside the %s)", in->path, section);
    in->hash = fnv1a(in->hash, (const char *)p + off, k);
  }
  return CIS_OK;
}

/* Stored values of dtype `from` into A->val (dtype A->dtype), converting
 * block by block when the types differ. */
static cis_status read_values(cisb_in *in, cis_dtype from, cis_csr *A) {
  size_t vs = cis_dtype_size(from);
  if (from == A->dtype) return read_hashed(in, A->val, (size_t)A->nnz * vs, "values");
  size_t per = CISB_BLOCK / 8;
  void *buf = NULL;
  cis_status st = cis_alloc_array(&buf, (int64_t)per, vs, "binary read buffer");
  for (cis_int k0 = 0; st == CIS_OK && k0 < A->nnz; k0 += (cis_int)per) {
    cis_int n = A->nnz - k0 < (cis_int)per ? A->nnz - k0 : (cis_int)per;
    st = read_hashed(in, buf, (size_t)n * vs, "values");
    for (cis_int k = 0; st == CIS_OK && k < n; ++k) cis_set(A->val, A->dtype, k0 + k, cis_get(buf, from, k));
  }
  cis_free(buf);
  return st;
}

/* Header fields against each other, the file length and memory. */
static cis_status check_header(const char *path, const cisb_header *h, int64_t file_size, cis_dtype t) {
  int64_t rowbytes, entry = (int64_t)(sizeof(cis_idx) + (h->dtype == CIS_F32 ? 4 : 8)), entrybytes, total;
  if (h->version != CISB_VERSION)
    return cis_error(CIS_ERR_UNSUPPORTED, "%s: .cisb version %u, this build reads version %u", path, h->version,
                     CISB_VERSION);
  if (h->dtype != CIS_F64 && h->dtype != CIS_F32)
    return cis_error(CIS_ERR_PARSE, "%s: unknown value type code %u in the header", path, h->dtype);
  if (h->rows < 0 || h->cols < 0 || h->nnz < 0)
    return cis_error(CIS_ERR_PARSE, "%s: header declares a negative size %lld x %lld with %lld nonzeros", path,
                     (long long)h->rows, (long long)h->cols, (long long)h->nnz);
  if (h->rows > CIS_IDX_MAX || h->cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "%s: matrix size %lld x %lld: rows and columns must be below 2^31", path,
                     (long long)h->rows, (long long)h->cols);
  if (cis_mul_overflows(h->rows + 1, 8, &rowbytes) || cis_mul_overflows(h->nnz, entry, &entrybytes) ||
      __builtin_add_overflow(rowbytes, entrybytes, &total) || __builtin_add_overflow(total, CISB_HEADER + 8, &total))
    return cis_error(CIS_ERR_OVERFLOW, "%s: header declares %lld nonzeros, whose size overflows 64 bits", path,
                     (long long)h->nnz);
  if (file_size >= 0 && file_size != total)
    return cis_error(CIS_ERR_PARSE, "%s: %s: %lld bytes, the header declares %lld", path,
                     file_size < total ? "truncated file" : "trailing data", (long long)file_size, (long long)total);
  return cis_io_memory_check(path, h->nnz, (int64_t)(sizeof(cis_idx) + cis_dtype_size(t)), "nonzeros");
}

/* cis_csr_check with the file name in front of its message. */
static cis_status check_structure(const char *path, const cis_csr *A) {
  cis_status st = cis_csr_check(A);
  if (st == CIS_OK) return st;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", cis_last_error());
  return cis_error(st, "%s: %s", path, msg);
}

cis_status io_bin_read(const char *path, cis_dtype t, cis_csr **out) {
  int fd;
  int64_t size;
  *out = NULL;
  cis_status st = cis_file_open_read(path, &fd, &size);
  if (st != CIS_OK) return st;
  return cis_bin_read_fd(path, fd, size, NULL, 0, t, out);
}

cis_status cis_bin_read_fd(const char *path, int fd, int64_t size, const void *prefix, size_t nprefix,
                           cis_dtype t, cis_csr **out) {
  cis_status st;
  if (cis_path_is_stdin(path)) path = "<stdin>";
  cisb_in in = {path, fd, FNV_OFFSET};
  unsigned char head[CISB_HEADER];
  cisb_header h;
  cis_csr *A = NULL;
  size_t got;
  uint64_t stored;
  *out = NULL;
  if (nprefix > CISB_HEADER) nprefix = CISB_HEADER;
  if (nprefix) memcpy(head, prefix, nprefix);
  CIS_TRY(cis_file_read(in.fd, path, head + nprefix, CISB_HEADER - nprefix, &got));
  got += nprefix;
  if (got > 0 && memcmp(head, CISB_MAGIC, got < 8 ? got : 8) != 0) {
    st = cis_error(CIS_ERR_PARSE, "%s: not a cisparse binary file (no \"CISPARSE\" magic)", path);
    goto cleanup;
  }
  if (got < CISB_HEADER) {
    st = cis_error(CIS_ERR_PARSE, "%s: %s (%zu of %d header bytes)", path, got ? "truncated file" : "empty file", got,
                   CISB_HEADER);
    goto cleanup;
  }
  in.hash = fnv1a(in.hash, head, CISB_HEADER);
  header_decode(head, &h);
  CIS_TRY(check_header(path, &h, size, t));
  CIS_TRY(cis_csr_alloc(h.rows, h.cols, h.nnz, t, &A));
  CIS_TRY(read_hashed(&in, A->rowptr, (size_t)(h.rows + 1) * sizeof(cis_int), "row pointers"));
  CIS_TRY(read_hashed(&in, A->colind, (size_t)h.nnz * sizeof(cis_idx), "column indices"));
  CIS_TRY(read_values(&in, (cis_dtype)h.dtype, A));
  CIS_TRY(cis_file_read(in.fd, path, &stored, sizeof stored, &got));
  if (got < sizeof stored) {
    st = cis_error(CIS_ERR_PARSE, "%s: truncated file (ends inside the checksum)", path);
    goto cleanup;
  }
  if (stored != in.hash) {
    st = cis_error(CIS_ERR_PARSE, "%s: checksum mismatch (stored %016llx, computed %016llx)", path,
                   (unsigned long long)stored, (unsigned long long)in.hash);
    goto cleanup;
  }
  CIS_TRY(check_structure(path, A));
  A->flags = h.flags & (CIS_FLAG_SYMMETRIC | CIS_FLAG_SKEW | CIS_FLAG_PATTERN | CIS_FLAG_UPPER);
  cis_io_flag_nonfinite(A);
  *out = A;
  A = NULL;
cleanup:
  if (in.fd >= 0) close(in.fd);
  cis_csr_free(A);
  return st;
}
