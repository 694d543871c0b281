/* sci_space.c: the selected-CI product space of cisparse/sci.h: the checks
 * of the string sets, their sorted copies and lists (sci_links.c), the
 * integrals the sigma reads, and the memory accounting done before every
 * allocation. */
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_rules.h"
#include "ci/sci_internal.h"
#include "core/internal.h"

static double gib(double b) { return b / 1073741824.0; }

static const char *spin_name(int spin) { return spin ? "beta" : "alpha"; }

/* Every string of one input set: nel electrons, no orbital >= norb. */
static cis_status check_set(const uint64_t *s, cis_int n, int spin, int nel, const cis_fcidump *F) {
  const int norb = F->norb;
  if (!s) return cis_error(CIS_ERR_INVALID, "sci space: the %s strings are NULL", spin_name(spin));
  if (n < 1) return cis_error(CIS_ERR_INVALID, "sci space: the %s set is empty (%lld strings)", spin_name(spin), (long long)n);
  if (n > INT32_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "sci space: %lld %s strings exceed the 31-bit string positions (%d)",
                     (long long)n, spin_name(spin), INT32_MAX);
  const uint64_t outside = norb == 64 ? 0 : ~0ull << norb;
  for (cis_int i = 0; i < n; ++i) {
    if (s[i] & outside)
      return cis_error(CIS_ERR_RANGE, "sci space: %s string %lld (0x%llx) occupies orbital %d, at or beyond NORB = %d",
                       spin_name(spin), (long long)i, (unsigned long long)s[i], 63 - __builtin_clzll(s[i]), norb);
    if (ci_popcount(s[i]) != nel)
      return cis_error(CIS_ERR_INVALID, "sci space: %s string %lld (0x%llx) has %d electrons, NELEC = %d and MS2 = %d give %d",
                       spin_name(spin), (long long)i, (unsigned long long)s[i], ci_popcount(s[i]), F->nelec, F->ms2, nel);
  }
  return CIS_OK;
}

static double table_bytes(cis_int n) {
  double size = 16;
  while (size < 2.0 * (double)n) size *= 2;
  return 4.0 * size;
}

/* Sorted, deduplicated copy of one set with its table and list offsets
 * (counted, not filled). */
static cis_status set_create(sci_set *S, const uint64_t *s, cis_int n, int nel) {
  cis_status st;
  S->nel = nel;
  CIS_TRY(cis_alloc_array((void **)&S->str, n, sizeof(uint64_t), "sci string set"));
  memcpy(S->str, s, (size_t)n * sizeof(uint64_t));
  S->n = sci_sort_unique(S->str, n);
  S->duplicates = n - S->n;
  CIS_TRY(sci_set_table(S));
  CIS_TRY(cis_alloc_array((void **)&S->link_ptr, S->n + 1, sizeof(int64_t), "sci link offsets"));
  CIS_TRY(cis_alloc_array((void **)&S->same_ptr, S->n + 1, sizeof(int64_t), "sci same-spin offsets"));
  return CIS_OK;
cleanup:
  return st;
}

static cis_status set_fill(sci_set *S, int norb, const double *h1, const double *g, cis_int npair) {
  cis_status st;
  CIS_TRY(cis_alloc_array((void **)&S->link, S->link_ptr[S->n] > 0 ? S->link_ptr[S->n] : 1, sizeof(ci_link), "sci links"));
  CIS_TRY(cis_alloc_array((void **)&S->same_col, S->same_ptr[S->n], sizeof(int32_t), "sci same-spin columns"));
  CIS_TRY(cis_alloc_array((void **)&S->same_val, S->same_ptr[S->n], sizeof(double), "sci same-spin values"));
  CIS_TRY(cis_alloc_array((void **)&S->energy, S->n, sizeof(double), "sci string energies"));
  sci_set_lists(S, norb, h1, g, npair, 1);
  return CIS_OK;
cleanup:
  return st;
}

static void set_free(sci_set *S) {
  cis_free(S->str);
  cis_free(S->table);
  cis_free(S->link_ptr);
  cis_free(S->link);
  cis_free(S->same_ptr);
  cis_free(S->same_col);
  cis_free(S->same_val);
  cis_free(S->energy);
}

/* Bytes of one set's lists once counted. */
static double list_bytes(const sci_set *S) {
  return 8.0 * (double)S->link_ptr[S->n] + 12.0 * (double)S->same_ptr[S->n] + 8.0 * (double)S->n;
}

/* The sigma's workspace for one vector: per thread the signed columns of g
 * (npair x links), the linked rows of C (links x n_beta) and their product
 * (npair x n_beta); see sci_sigma.c. */
static double work_bytes(int threads, cis_int npair, double links, cis_int nb) {
  return 8.0 * threads * ((double)npair * links + (links + (double)npair) * (double)nb);
}

cis_status cis_sci_space_create(const cis_fcidump *F, const uint64_t *alpha, cis_int n_alpha, const uint64_t *beta,
                                cis_int n_beta, int64_t mem_limit, cis_sci_space **out) {
  cis_status st;
  cis_sci_space *S = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "sci space: NULL output");
  *out = NULL;
  if (!F) return cis_error(CIS_ERR_INVALID, "sci space: NULL integrals");
  st = ci_fcidump_check_header(F);
  if (st != CIS_OK) return st;
  const int norb = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  if (norb > 64) return cis_error(CIS_ERR_UNSUPPORTED, "sci space: NORB = %d (1..64 supported: uint64_t strings)", norb);
  st = check_set(alpha, n_alpha, 0, na, F);
  if (st == CIS_OK) st = check_set(beta, n_beta, 1, nb, F);
  if (st != CIS_OK) return st;
  const double mem = mem_limit > 0 ? (double)mem_limit : (double)cis_available_memory();
  const cis_int npair = (cis_int)norb * (norb + 1) / 2;
  const double ints = 8.0 * ((double)npair * npair + (double)norb * norb);
  const double sets = 8.0 * (double)(n_alpha + n_beta) + table_bytes(n_alpha) + table_bytes(n_beta) +
                      16.0 * (double)(n_alpha + n_beta + 2);
  if (sets + ints > mem)
    return cis_error(CIS_ERR_TOO_LARGE, "sci space: %lld alpha and %lld beta strings need %.3f GiB (sets %.3f GiB, "
                     "integrals %.3f GiB) > %.3f GiB of memory", (long long)n_alpha, (long long)n_beta,
                     gib(sets + ints), gib(sets), gib(ints), gib(mem));
  CIS_TRY(cis_alloc_zeroed((void **)&S, 1, sizeof *S, "sci space"));
  S->norb = norb;
  S->npair = npair;
  S->threads = cis_threads();
  CIS_TRY(set_create(&S->A, alpha, n_alpha, na));
  CIS_TRY(set_create(&S->B, beta, n_beta, nb));
  S->ndet = S->A.n * S->B.n; /* below 2^62: both below 2^31 */
  S->same = S->A.n == S->B.n && !memcmp(S->A.str, S->B.str, (size_t)S->A.n * sizeof(uint64_t));
  CIS_TRY(cis_alloc_zeroed((void **)&S->counts, 1, sizeof *S->counts, "sci product counts"));
  /* Two vectors and the workspace, with the most links a string can have. */
  const double links_max = (double)na * (norb - na + 1), vecs = 16.0 * (double)S->ndet;
  const double work1 = work_bytes(S->threads, npair, links_max, S->B.n);
  if (sets + ints + vecs + work1 > mem) {
    st = cis_error(CIS_ERR_TOO_LARGE, "sci space: %lld determinants (%lld alpha x %lld beta strings) need %.3f GiB "
                   "(two vectors %.3f GiB, sigma workspace %.3f GiB, sets and integrals %.3f GiB) > %.3f GiB of memory",
                   (long long)S->ndet, (long long)S->A.n, (long long)S->B.n, gib(sets + ints + vecs + work1), gib(vecs),
                   gib(work1), gib(sets + ints), gib(mem));
    goto cleanup;
  }
  CIS_TRY(cis_alloc_array((void **)&S->g, npair * npair, sizeof(double), "sci pair integrals"));
  CIS_TRY(cis_alloc_array((void **)&S->coul, (cis_int)norb * norb, sizeof(double), "sci Coulomb integrals"));
  for (cis_int x = 0; x < npair; ++x)
    for (cis_int y = 0; y < npair; ++y) S->g[x * npair + y] = F->eri[ci_pair(x, y)];
  for (int p = 0; p < norb; ++p)
    for (int q = 0; q < norb; ++q) S->coul[p * norb + q] = S->g[ci_pair(p, p) * npair + ci_pair(q, q)];
  sci_set_lists(&S->A, norb, F->h1, S->g, npair, 0);
  sci_set_lists(&S->B, norb, F->h1, S->g, npair, 0);
  const double lists = list_bytes(&S->A) + list_bytes(&S->B);
  if (sets + ints + vecs + work1 + lists > mem) {
    st = cis_error(CIS_ERR_TOO_LARGE, "sci space: %lld determinants (%lld alpha x %lld beta strings) need %.3f GiB "
                   "(links and same-spin matrices %.3f GiB, two vectors %.3f GiB, sigma workspace %.3f GiB) > %.3f GiB "
                   "of memory", (long long)S->ndet, (long long)S->A.n, (long long)S->B.n,
                   gib(sets + ints + vecs + work1 + lists), gib(lists), gib(vecs), gib(work1), gib(mem));
    goto cleanup;
  }
  CIS_TRY(set_fill(&S->A, norb, F->h1, S->g, npair));
  CIS_TRY(set_fill(&S->B, norb, F->h1, S->g, npair));
  S->bytes = (int64_t)(sets + ints + lists);
  S->work_bytes = (int64_t)work_bytes(S->threads, npair, S->A.max_links, S->B.n);
  *out = S;
  return CIS_OK;
cleanup:
  cis_sci_space_free(S);
  return st;
}

void cis_sci_space_free(cis_sci_space *S) {
  if (!S) return;
  set_free(&S->A);
  set_free(&S->B);
  cis_free(S->g);
  cis_free(S->coul);
  cis_free(S->counts);
  cis_free(S);
}

cis_int cis_sci_space_size(const cis_sci_space *S) { return S ? S->ndet : 0; }

const uint64_t *cis_sci_space_strings(const cis_sci_space *S, int spin, cis_int *count) {
  const sci_set *T = !S ? NULL : spin == 0 ? &S->A : spin == 1 ? &S->B : NULL;
  if (count) *count = T ? T->n : 0;
  return T ? T->str : NULL;
}

void cis_sci_space_get_info(const cis_sci_space *S, cis_sci_info *info) {
  if (!info) return;
  memset(info, 0, sizeof *info);
  if (!S) return;
  info->alpha_strings = S->A.n;
  info->beta_strings = S->B.n;
  info->determinants = S->ndet;
  info->alpha_duplicates = S->A.duplicates;
  info->beta_duplicates = S->B.duplicates;
  info->alpha_links = S->A.link_ptr[S->A.n];
  info->beta_links = S->B.link_ptr[S->B.n];
  info->alpha_pairs = S->A.same_ptr[S->A.n];
  info->beta_pairs = S->B.same_ptr[S->B.n];
  info->norb = S->norb;
  info->nalpha = S->A.nel;
  info->nbeta = S->B.nel;
  info->threads = S->threads;
  info->bytes = S->bytes;
  info->work_bytes = S->work_bytes;
}
