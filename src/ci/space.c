/* space.c: the determinant space (see cisparse/ci.h for the layout).
 * Strings of one spin are enumerated by excitation level relative to the
 * reference string (holes chosen from its occupied orbitals, particles from
 * its virtual ones), sorted by (level, value) and hashed; a determinant is a
 * pair of string positions. Ordering by total excitation level puts the
 * reference first, then singles, doubles, ... (Mahmoud et al. 2018, §2.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

typedef struct strings {
  cis_int n;
  int nw;           /* 64-bit words per string */
  uint64_t *s;      /* n strings of nw words, sorted by (level, value) */
  uint8_t *level, *sym;
  int32_t *table;   /* open addressing: position or -1 */
  uint64_t mask;    /* table size - 1 */
  cis_int lvl_start[CIS_CI_MAX_ORB + 2]; /* first position of each level */
} strings;

struct cis_ci_space {
  cis_int ndet;
  int maxlevel;
  strings A, B;
  int32_t *det_a, *det_b; /* string positions of each determinant */
  uint8_t *det_level;
  cis_int *aptr;          /* per alpha position: range in blist/dlist */
  int32_t *blist, *dlist; /* beta positions (sorted) and determinant indices */
};


static cis_int strings_find(const strings *S, ci_bits s) {
  return S->nw == 1 ? bits_find(S->s, S->table, S->mask, s, 1) : bits_find(S->s, S->table, S->mask, s, 2);
}

static void strings_free(strings *S) {
  cis_free(S->s); cis_free(S->level); cis_free(S->sym); cis_free(S->table);
}

/* Number of strings within `maxlevel` excitations of a string of n electrons in norb orbitals. */
static double count_strings(int norb, int n, int maxlevel) {
  double total = 0;
  for (int e = 0; e <= maxlevel && e <= n && e <= norb - n; ++e) {
    double c = 1;
    for (int k = 0; k < e; ++k) c = c * (n - k) / (k + 1) * (norb - n - k) / (k + 1);
    total += c;
  }
  return total;
}

/* Advance c[0..k-1] (increasing indices into 0..m-1) to the next
 * k-combination in lexical order; 0 after the last one. */
static int next_combination(int *c, int k, int m) {
  int i = k - 1;
  while (i >= 0 && c[i] == m - k + i) i--;
  if (i < 0) return 0;
  c[i]++;
  for (int j = i + 1; j < k; ++j) c[j] = c[j - 1] + 1;
  return 1;
}

/* qsort orders of one- and two-word strings (value order, bits_cmp). */
static int cmp_w1(const void *x, const void *y) { return bits_cmp(bits_load(x, 0, 1), bits_load(y, 0, 1), 1); }
static int cmp_w2(const void *x, const void *y) { return bits_cmp(bits_load(x, 0, 2), bits_load(y, 0, 2), 2); }

static cis_status strings_build(const cis_fcidump *F, ci_bits ref, int maxlevel, strings *S) {
  cis_status st;
  const int nw = ci_words(F->norb);
  int n = bits_popcount(ref, nw), norb = F->norb, occ[CIS_CI_MAX_ORB], vir[CIS_CI_MAX_ORB], nv = 0, no = 0;
  int hc[CIS_CI_MAX_ORB], pc[CIS_CI_MAX_ORB];
  double count = count_strings(norb, n, maxlevel);
  if (count > (double)CIS_IDX_MAX / 2)
    return cis_error(CIS_ERR_TOO_LARGE, "%.3g strings of %d electrons in %d orbitals exceed 2^30", count, n, norb);
  S->n = (cis_int)llround(count);
  S->nw = nw;
  for (int p = 0; p < norb; ++p) {
    if (bits_test(ref, p, nw)) occ[no++] = p; else vir[nv++] = p;
  }
  CIS_TRY(cis_alloc_array((void **)&S->s, S->n, (size_t)nw * sizeof(uint64_t), "CI strings"));
  CIS_TRY(cis_alloc_array((void **)&S->level, S->n, 1, "CI string levels"));
  CIS_TRY(cis_alloc_array((void **)&S->sym, S->n, 1, "CI string symmetries"));
  cis_int pos = 0;
  for (int e = 0; e <= maxlevel && e <= no && e <= nv; ++e) {
    cis_int first = pos;
    for (int k = 0; k < e; ++k) hc[k] = pc[k] = k;
    do {
      ci_bits holes = bits_zero();
      for (int k = 0; k < e; ++k) holes = bits_flip(holes, occ[hc[k]], nw);
      for (int k = 0; k < e; ++k) pc[k] = k;
      do {
        ci_bits s = bits_andnot(ref, holes, nw);
        for (int k = 0; k < e; ++k) s = bits_flip(s, vir[pc[k]], nw);
        bits_store(S->s, pos++, s, nw);
      } while (next_combination(pc, e, nv));
    } while (next_combination(hc, e, no));
    qsort(S->s + first * nw, (size_t)(pos - first), (size_t)nw * sizeof(uint64_t), nw == 1 ? cmp_w1 : cmp_w2);
    for (cis_int q = first; q < pos; ++q) {
      S->level[q] = (uint8_t)e;
      S->sym[q] = (uint8_t)ci_bits_sym(F, bits_load(S->s, q, nw), nw);
    }
    S->lvl_start[e] = first;
  }
  if (pos != S->n) return cis_error(CIS_ERR_INVALID, "internal: %lld strings enumerated, %lld expected", (long long)pos, (long long)S->n);
  for (int e = 0; e <= CIS_CI_MAX_ORB + 1; ++e)
    if (e > maxlevel || e > no || e > nv) S->lvl_start[e] = S->n;
  uint64_t size = 16;
  while (size < 2 * (uint64_t)S->n) size <<= 1;
  S->mask = size - 1;
  CIS_TRY(cis_alloc_array((void **)&S->table, (int64_t)size, sizeof(int32_t), "CI string hash table"));
  memset(S->table, 0xff, size * sizeof(int32_t));
  for (cis_int q = 0; q < S->n; ++q) {
    uint64_t h = bits_hash(bits_load(S->s, q, nw), nw) & S->mask;
    while (S->table[h] >= 0) h = (h + 1) & S->mask;
    S->table[h] = (int32_t)q;
  }
  return CIS_OK;
cleanup:
  return st;
}

/* End of the beta positions with level <= l. */
static cis_int beta_end(const cis_ci_space *S, int l) {
  return S->B.lvl_start[l + 1 > CIS_CI_MAX_ORB + 1 ? CIS_CI_MAX_ORB + 1 : l + 1];
}

/* Runs BODY with ia (alpha position), ib (beta position) and lev (total
 * level) for every determinant, in (alpha, beta position) order. Beta strings are sorted by level, so the
 * beta positions of one alpha string come out increasing. */
#define FOR_EACH_DET(S, target, L, BODY)                                                   \
  for (cis_int ia = 0; ia < (S)->A.n; ++ia) {                                              \
    int ea = (S)->A.level[ia], ga = (S)->A.sym[ia];                                        \
    for (cis_int ib = 0, ie = beta_end(S, (L) - ea); ib < ie; ++ib) {                     \
      if ((ga ^ (S)->B.sym[ib]) != (target)) continue;                                     \
      int lev = ea + (S)->B.level[ib];                                                     \
      BODY                                                                                 \
    }                                                                                      \
  }

cis_status cis_ci_space_create(const cis_fcidump *F, int level, uint64_t ref_alpha, uint64_t ref_beta,
                               cis_ci_space **out) {
  ci_bits a = cis_ci_bits_from_u64(ref_alpha), b = cis_ci_bits_from_u64(ref_beta);
  return ci_space_create_bits(F, level, &a, &b, out);
}

cis_status ci_space_create_bits(const cis_fcidump *F, int level, const cis_ci_bits *ref_alpha,
                                    const cis_ci_bits *ref_beta, cis_ci_space **out) {
  cis_status st;
  cis_ci_space *S = NULL;
  cis_int per_level[2 * CIS_CI_MAX_ORB + 2] = {0};
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_ci_space_create: NULL output");
  *out = NULL;
  if (!F || !ref_alpha || !ref_beta) return cis_error(CIS_ERR_INVALID, "cis_ci_space_create: NULL argument");
  CIS_TRY(ci_fcidump_check_header(F));
  char isym[48];
  ci_isym_text(F, isym, sizeof isym);
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F), target = F->isym - 1;
  int full = na + nb;
  if (level < 0 || level > full) level = full;
  /* sizes in closed form before anything is allocated or enumerated (this
   * also checks the reference's electron counts and orbital range) */
  cis_ci_counts cnt;
  CIS_TRY(ci_count_bits(F, level, ref_alpha, ref_beta, &cnt));
  if (cnt.determinants > (double)CIS_IDX_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "%.4g determinants (%.4g alpha x %.4g beta strings) exceed the 32-bit index range (%.4g)",
                     cnt.determinants, cnt.alpha_strings, cnt.beta_strings, (double)CIS_IDX_MAX);
  if (cnt.determinants < 1) return cis_error(CIS_ERR_INVALID, "no determinants of symmetry %s", isym);
  S = cis_calloc(1, sizeof *S);
  if (!S) return cis_error(CIS_ERR_ALLOC, "cannot allocate the determinant space");
  S->maxlevel = level;
  CIS_TRY(strings_build(F, *ref_alpha, level, &S->A));
  CIS_TRY(strings_build(F, *ref_beta, level, &S->B));
  const int L = level;
  FOR_EACH_DET(S, target, L, { per_level[lev]++; });
  cis_int n = 0;
  for (int l = 0; l <= L; ++l) n += per_level[l];
  if (n == 0) { st = cis_error(CIS_ERR_INVALID, "no determinants of symmetry %s", isym); goto cleanup; }
  if (n > CIS_IDX_MAX)
    { st = cis_error(CIS_ERR_OVERFLOW, "%lld determinants exceed the 32-bit index range", (long long)n); goto cleanup; }
  S->ndet = n;
  CIS_TRY(cis_alloc_array((void **)&S->det_a, n, sizeof(int32_t), "determinant alpha strings"));
  CIS_TRY(cis_alloc_array((void **)&S->det_b, n, sizeof(int32_t), "determinant beta strings"));
  CIS_TRY(cis_alloc_array((void **)&S->det_level, n, 1, "determinant levels"));
  CIS_TRY(cis_alloc_array((void **)&S->blist, n, sizeof(int32_t), "determinant lists"));
  CIS_TRY(cis_alloc_array((void **)&S->dlist, n, sizeof(int32_t), "determinant lists"));
  CIS_TRY(cis_alloc_zeroed((void **)&S->aptr, S->A.n + 1, sizeof(cis_int), "determinant lists"));
  cis_int next[2 * CIS_CI_MAX_ORB + 2], k = 0;
  next[0] = 0;
  for (int l = 1; l <= L; ++l) next[l] = next[l - 1] + per_level[l - 1];
  FOR_EACH_DET(S, target, L, {
    cis_int d = next[lev]++;
    S->det_a[d] = (int32_t)ia;
    S->det_b[d] = (int32_t)ib;
    S->det_level[d] = (uint8_t)lev;
    S->blist[k] = (int32_t)ib;
    S->dlist[k] = (int32_t)d;
    S->aptr[ia + 1] = ++k;
  });
  for (cis_int ia = 0; ia < S->A.n; ++ia)
    if (S->aptr[ia + 1] < S->aptr[ia]) S->aptr[ia + 1] = S->aptr[ia];
  *out = S;
  return CIS_OK;
cleanup:
  cis_ci_space_free(S);
  return st;
}

void cis_ci_space_free(cis_ci_space *S) {
  if (!S) return;
  strings_free(&S->A);
  strings_free(&S->B);
  cis_free(S->det_a); cis_free(S->det_b); cis_free(S->det_level);
  cis_free(S->aptr); cis_free(S->blist); cis_free(S->dlist);
  cis_free(S);
}

cis_int ci_space_size(const cis_ci_space *S) { return S->ndet; }
cis_int ci_space_nalpha_strings(const cis_ci_space *S) { return S->A.n; }
cis_int ci_space_nbeta_strings(const cis_ci_space *S) { return S->B.n; }
int ci_space_level(const cis_ci_space *S, cis_int i) { return S->det_level[i]; }

int ci_space_words(const cis_ci_space *S) { return S->A.nw; }

void ci_space_det(const cis_ci_space *S, cis_int i, uint64_t *alpha, uint64_t *beta) {
  *alpha = S->A.s[(cis_int)S->det_a[i] * S->A.nw];
  *beta = S->B.s[(cis_int)S->det_b[i] * S->B.nw];
}

void ci_space_det_bits(const cis_ci_space *S, cis_int i, cis_ci_bits *alpha, cis_ci_bits *beta) {
  *alpha = bits_load(S->A.s, S->det_a[i], S->A.nw);
  *beta = bits_load(S->B.s, S->det_b[i], S->B.nw);
}

/* Determinant of alpha position ia and beta position ib, -1 if absent. */
cis_int ci_space_find_pos(const cis_ci_space *S, cis_int ia, cis_int ib) {
  return ci_det_find(S->aptr, S->blist, S->dlist, ia, ib);
}

cis_int ci_space_det_alpha_pos(const cis_ci_space *S, cis_int i) { return S->det_a[i]; }
cis_int ci_space_det_beta_pos(const cis_ci_space *S, cis_int i) { return S->det_b[i]; }

cis_int ci_space_find(const cis_ci_space *S, uint64_t alpha, uint64_t beta) {
  ci_bits a = cis_ci_bits_from_u64(alpha), b = cis_ci_bits_from_u64(beta);
  return ci_space_find_bits(S, &a, &b);
}

cis_int ci_space_find_bits(const cis_ci_space *S, const cis_ci_bits *alpha, const cis_ci_bits *beta) {
  cis_int ia = strings_find(&S->A, *alpha), ib = strings_find(&S->B, *beta);
  return (ia < 0 || ib < 0) ? -1 : ci_space_find_pos(S, ia, ib);
}

void ci_space_get_view(const cis_ci_space *S, ci_space_view *v) {
  *v = (ci_space_view){S->ndet, S->A.n, S->B.n, S->A.s, S->B.s, S->A.table, S->B.table, S->A.mask, S->B.mask,
                       S->aptr, S->blist, S->dlist, S->det_a, S->det_b, S->A.nw, S->A.level, S->B.level,
                       S->maxlevel};
}
