/* ci_internal.h: integral indexing and bit-string helpers shared by src/ci/
 * (the rules that the device build shares are in ci_rules.h). */
#ifndef CISPARSE_CI_INTERNAL_H
#define CISPARSE_CI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "ci/ci_bits.h"
#include "ci/ci_rules.h"
#include "cisparse/ci.h"

/* alpha <-> beta parity tolerances (squared distance from exactly pure,
 * relative to ||c||^2), the CPU's and the GPU's alike:
 * CI_PURE_TOL   a vector this close is made exactly pure (guesses and
 *               Davidson's corrections: 1e-6 in norm; any change is exact
 *               for a direction that only expands the subspace);
 * CI_PARITY_TOL a vector this close is multiplied through its pure part by
 *               the half sigma (1e-12 in norm: Davidson's round-off; the
 *               Rayleigh quotients change in second order only, H keeping
 *               the parity). */
#define CI_PURE_TOL 1e-12
#define CI_PARITY_TOL 1e-24

/* The integrals of F as ci_rules.h takes them. */
static inline ci_ints ci_ints_of(const cis_fcidump *F) { return (ci_ints){F->norb, F->h1, F->eri}; }
/* (ij|kl) and h_ij, 0-based (ci_rules.h's indexing). */
static inline double ci_eri(const cis_fcidump *F, int i, int j, int k, int l) {
  const ci_ints I = ci_ints_of(F);
  return ci_ints_eri(&I, i, j, k, l);
}
static inline double ci_h1(const cis_fcidump *F, int i, int j) {
  const ci_ints I = ci_ints_of(F);
  return ci_ints_h1(&I, i, j);
}

/* Number of orbitals occupied in a but not in b (excitation level of a spin). */
static inline int ci_excitation(uint64_t a, uint64_t b) { return ci_popcount(a & ~b); }
/* All-ones string of the first n orbitals. */
static inline uint64_t ci_first(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
/* Symmetry label (XOR of 0-based irreps) of a string. */
static inline int ci_string_sym(const cis_fcidump *F, uint64_t s) {
  int g = 0;
  for (; s; s &= s - 1) g ^= F->orbsym[ci_lowest(s)] - 1;
  return g;
}

/* Symmetry label of an nw-word string. */
static inline int ci_bits_sym(const cis_fcidump *F, ci_bits s, int nw) {
  int g = 0;
  CI_FOR_BITS(p, s, nw) g ^= F->orbsym[p] - 1;
  return g;
}

/* ci_rule_single on F's integrals (ci_rules.h). */
double ci_single_value(const cis_fcidump *F, int i, int a, uint64_t common, uint64_t other);

/* <I|H|J> by the nw-word instantiation (nw = 1 or 2; slater.c), so tests can
 * compare the two on strings both hold. */
double ci_element_nw(const cis_fcidump *F, ci_bits ai, ci_bits bi, ci_bits aj, ci_bits bj, int nw);

/* ---- the checks of a header and its integrals (fcidump_check.c) ----------
 * One set of checks for a file (fcidump.c: the keys NORB, NELEC, MS2 and
 * "FILE:LINE:") and for a caller's struct (cis_fcidump_check: the fields
 * cis_fcidump.norb, ...). */
typedef struct ci_fcidump_names {
  const char *norb, *nelec, *ms2;
} ci_fcidump_names;
extern const ci_fcidump_names ci_fcidump_file_names, ci_fcidump_struct_names;
/* NORB 1..CIS_CI_MAX_ORB (CIS_ERR_UNSUPPORTED above), NELEC in 0..2 NORB,
 * |MS2| <= NELEC of NELEC's parity, at most NORB electrons of each spin
 * (CIS_ERR_RANGE), no UHF (CIS_ERR_UNSUPPORTED): CIS_OK, else that status
 * with the problem in msg (one line naming the fields by nm; no
 * cis_error recorded: the caller prefixes it). */
cis_status ci_fcidump_counts_problem(int norb, int nelec, int ms2, int uhf, const ci_fcidump_names *nm, char *msg,
                                     size_t cap);
/* An integral beyond CI_SYM_TOL of the largest one (h1 and eri) that couples
 * orbitals whose ORBSYM irreps multiply to another irrep than the totally
 * symmetric one: ORBSYM does not describe the orbitals, and the CI blocked
 * by irreps would drop its couplings. */
#define CI_SYM_TOL 1e-10
typedef struct ci_forbidden {
  int kind;    /* 0 none, 1 h_(o0,o1), 2 (o0 o1|o2 o3) (0-based, o0 >= o1, pair o0o1 >= pair o2o3) */
  int o[4];
  int64_t at;  /* packed index: ci_pair(o0, o1) for h, the eri index for (o0 o1|o2 o3) */
  double v;
  int prod;    /* 0-based product irrep */
} ci_forbidden;
/* The first such integral of F (h1 full, eri packed) into *out (kind 0:
 * none; F without ORBSYM: none). CIS_ERR_ALLOC only. */
cis_status ci_fcidump_forbidden(const cis_fcidump *F, ci_forbidden *out);
/* F's header, irreps, sizes and arrays, no integral value read (O(NORB)):
 * what every public entry taking a cis_fcidump checks first. CIS_OK, or
 * CIS_ERR_INVALID / _RANGE / _UNSUPPORTED naming the field. */
cis_status ci_fcidump_check_header(const cis_fcidump *F);
/* F's target irrep as messages name it, 1-based whatever the file's
 * numbering, with its D2h name where known: "ISYM=3", "ISYM=6 (B1u)".
 * Returns buf. */
const char *ci_isym_text(const cis_fcidump *F, char *buf, size_t cap);

/* Space internals (space.c): string positions and determinant lookup by position. */
cis_int ci_space_find_pos(const cis_ci_space *S, cis_int ia, cis_int ib);
cis_int ci_space_det_alpha_pos(const cis_ci_space *S, cis_int i);
cis_int ci_space_det_beta_pos(const cis_ci_space *S, cis_int i);

/* The space's arrays as they are (read-only view, owned by the space): what
 * the GPU build (src/ci/gpu/ci_build_dev.c) uploads to look determinants up on
 * the device exactly as ci_space_find_pos and the string hash tables do. */
typedef struct ci_space_view {
  cis_int ndet, na, nb;            /* determinants, alpha strings, beta strings */
  const uint64_t *astr, *bstr;     /* strings (nw words each), sorted by (level, value) */
  const int32_t *atab, *btab;      /* open-addressing tables: position or -1 */
  uint64_t amask, bmask;           /* table sizes - 1 */
  const cis_int *aptr;             /* na + 1: range of each alpha string in blist/dlist */
  const int32_t *blist, *dlist;    /* ndet: beta positions (sorted), determinant indices */
  const int32_t *det_a, *det_b;    /* ndet: string positions of each determinant */
  int nw;                          /* 64-bit words per string (astr, bstr: nw each) */
  const uint8_t *alevel, *blevel;  /* excitation level of each string (string 0: the reference) */
  int maxlevel;                    /* determinants have alevel + blevel <= maxlevel */
} ci_space_view;
void ci_space_get_view(const cis_ci_space *S, ci_space_view *v);

/* The direct sigma's arrays as they are (read-only view, owned by the
 * cis_ci_direct): what the GPU direct sigma (src/ci/gpu/ci_sigma_dev.c)
 * uploads. Links: struct ci_link of strings.h (8 bytes each). */
typedef struct ci_direct_view {
  int norb, na, nb, nelec;
  cis_int npair, nsa, nsb, ndet;
  int nla, nlb;                    /* links per alpha / beta string */
  const void *alink, *blink;       /* ci_link[nsa*nla], ci_link[nsb*nlb] (blink == alink when na == nb) */
  const double *g;                 /* npair x npair: 1/2 g_pq,rs (h1 absorbed) */
  int project, target;             /* point-group projection onto irrep target (0-based) */
  const uint8_t *syma, *symb;      /* string irreps (project only, else NULL) */
  int one_set;                     /* alpha and beta strings are one set (na == nb) */
  int no_time_reversal;            /* opts.no_time_reversal: never the half sigma */
  const void *irrep;               /* the sigma blocked by irreps (ci_irrep_sigma of sigma_irrep.h), else NULL */
  const int *orbsym;               /* F's ORBSYM at create (1-based), whatever the options */
} ci_direct_view;
void ci_direct_get_view(const cis_ci_direct *D, ci_direct_view *v);
/* Put back the counters of cis_ci_direct_get_info (the sigma timed apart
 * leaves Davidson's counts and phase seconds as they were). */
void ci_direct_set_info(cis_ci_direct *D, const cis_ci_direct_info *info);
/* Strings of compact entry i (cis_ci_direct_compress's layout; without
 * blocking the direct order), for the compact P-space (pspace.c). */
void ci_direct_compact_det(const cis_ci_direct *D, cis_int i, uint64_t *alpha, uint64_t *beta);
/* D's guesses (C1, or compact when compact and D is blocked by irreps)
 * made alpha <-> beta pure whatever D's time-reversal option: each within
 * CI_PURE_TOL of one parity made exactly so, each other replaced by its
 * symmetric part with its antisymmetric part appended (while room is left
 * in cap, unless numerically zero); *nout the vectors after; sector (NULL:
 * not wanted) of each: 0 symmetric, 1 antisymmetric. CIS_ERR_INVALID for
 * NULL, cap < nin, or two string sets (MS != 0). */
/* +1 or -1 when the n x n matrix x is within tol (squared distance from
 * x = t x^T relative to ||x||^2) of parity t, else 0 (NaN: 0); *exact (may
 * be NULL) when exactly so (bitwise). OpenMP on threads (0: the default
 * count) above 4096 entries. */
int ci_transpose_parity(const double *x, cis_int n, double tol, int threads, int *exact);
/* Davidson's correct hook on D's host vectors (C1, or compact when
 * compact) kept in one parity: every correction projected onto want (1
 * symmetric, -1 antisymmetric). */
typedef struct ci_direct_parity_ctx { const cis_ci_direct *D; int compact, want; } ci_direct_parity_ctx;
cis_status ci_direct_parity_correct(void *ctx, void *t, cis_stream s);
cis_status ci_direct_split_guesses(const cis_ci_direct *D, int compact, double *guess, int nin, int cap, int *nout,
                                   int *sector);
/* <S^2> of a vector of some CI space (any norm): fn(ctx, x, &s2). */
typedef struct ci_s2_eval {
  cis_status (*fn)(void *ctx, const double *x, double *s2);
  void *ctx;
} ci_s2_eval;
/* 1 when s2 is S(S+1) for some S = 0, 1/2, 1, ... (to 1e-3). */
int ci_s2_is_spin(double s2);
/* s2[k] = <S^2> of the nr orthonormal vectors X (len each, vector k at
 * X + k len) with eigenvalues E (ascending); then within each level of
 * roots closer than degen (Eh) to the next, S^2 is diagonalised in the
 * level's basis and its vectors rotated onto S^2's eigenvectors (E the
 * rotated vectors' energies, s2 S^2's eigenvalues, ascending within the
 * level). *top_mixed: the level holding the last root has a root whose
 * <S^2> is no spin's (that level reaches past the roots). At most 64
 * roots; spin_levels.c. */
cis_status ci_spin_adapt_levels(const ci_s2_eval *ev, int nr, cis_int len, double *X, double *E, double *s2,
                                double degen, int *top_mixed);
/* *map (cis_alloc'd, one index a determinant) the position of each
 * determinant's mirror (b, a) in S, or NULL when S is not closed under the
 * mirror (MS != 0, or a truncation around an open-shell reference);
 * space_mirror.c. */
cis_status ci_space_mirror(const cis_ci_space *S, cis_int **map);
/* Davidson's correct hook (cis_davidson_opts.correct) on host vectors of a
 * stored space: with want = 1 or -1 every correction projected onto that
 * parity (one sector kept: a correction that is round-off noise, once its
 * sector is spanned, must not bring the other in); with want = 0 one within
 * CI_PURE_TOL of a parity made exactly so, else left. */
typedef struct ci_space_mirror_ctx { const cis_int *map; cis_int n; int want; } ci_space_mirror_ctx;
cis_status ci_space_mirror_correct(void *ctx, void *t, cis_stream s);
/* ci_direct_split_guesses on vectors of a stored space of n determinants
 * with the mirror map of ci_space_mirror (sector required). */
cis_status ci_space_split_guesses(const cis_int *map, cis_int n, double *guess, int nin, int cap, int *nout,
                                  int *sector);

/* What a host build of H reports (ci_hamiltonian_build). hook (NULL: none)
 * is called from one thread, at each further tenth of a pass's rows or
 * CI_BUILD_REPORT_SECONDS, and at the pass's end: pass 1 counts the rows'
 * nonzeros, 2 fills and sorts them; done of rows, nnz their nonzeros, the
 * pass's seconds so far. Out: the wall seconds of the two passes split into
 * the rows' generation (both passes) and the fill pass's sorting of each
 * row by column (its share of the threads' time), summing to the build's. */
#define CI_BUILD_REPORT_SECONDS 5.0
typedef struct ci_build_watch {
  void (*hook)(void *ctx, int pass, cis_int done, cis_int rows, cis_int nnz, double seconds);
  void *ctx;
  double rows_seconds, sort_seconds;
} ci_build_watch;
/* cis_ci_hamiltonian watched by w (NULL: as cis_ci_hamiltonian). */
cis_status ci_hamiltonian_build(const cis_fcidump *F, const cis_ci_space *S, int upper, ci_build_watch *w,
                                cis_csr **out);

/* x[0 .. n) = a fixed pseudo-random vector (xorshift), uniform in [-1, 1):
 * the vectors the sigma timings multiply (sigma.c). */
void ci_fill_random(double *x, cis_int n);

/* ---- the direct sigma split by alpha strings (sigma.c; the distributed
 * direct path, ci_solve_dist_direct.c) ---- */
/* y = the contributions of the alpha strings lo .. hi-1 to H x, one vector
 * (compact: the layout of cis_ci_direct_compress when D is blocked by
 * irreps, else C1): their gathers, products and scatters, and the half
 * sigma's mirror and the projection (both linear). The parts of any split of
 * 0 .. nsa-1 sum to cis_ci_direct_sigma (up to the order of the sums); x is
 * read whole, every entry of y written. The product is counted by the part
 * with lo = 0. */
cis_status ci_direct_sigma_part(cis_ci_direct *D, int compact, const double *x, double *y, cis_int lo, cis_int hi);
/* off[A] .. off[A+1]-1: the entries of alpha string A in a vector (nsa + 1
 * offsets; compact as above). */
void ci_direct_alpha_rows(const cis_ci_direct *D, int compact, cis_int *off);
/* The relative sigma work of alpha string A (its columns; the half sigma's
 * lower triangle when time reversal applies), for balancing a split. */
double ci_direct_alpha_work(const cis_ci_direct *D, int compact, cis_int A);
/* alo[0..parts]: the nsa strings split into `parts` contiguous ranges of
 * about equal sum of w, each with at least one string (parts <= nsa); a
 * string goes to the range its weight's midpoint falls in (parts_split.c). */
void ci_split_weights(const double *w, cis_int nsa, int parts, cis_int *alo);
/* The split alo re-made from the parts' measured seconds[p]: w[A] (the
 * model's work, overwritten) scaled by its part's seconds per unit of w
 * (a part with no time or no work: the mean rate), then split evenly into
 * out[0..parts]. Returns the new split's slowest part predicted by the
 * scaled weights, over the measured slowest part's seconds (< 1: faster;
 * 1 when nothing was measured). */
double ci_split_rescaled(double *w, cis_int nsa, int parts, const cis_int *alo, const double *seconds,
                         cis_int *out);
/* The GPU direct sigma (cis_ci_direct_gpu_create) whose products are the
 * contributions of the alpha strings lo .. hi-1 only, on the current device
 * (hi < 0: nsa, the whole sigma); compact vectors when D is blocked by
 * irreps. o->vectors may be CI_GPU_VECTORS_HELD: the caller's vectors are
 * already allocated (none set aside; a part made again, its workspace
 * o->work_bytes). CIS_ERR_INVALID on a range outside 0 .. nsa. */
#define CI_GPU_VECTORS_HELD (-1)
cis_status ci_direct_gpu_create_part(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, cis_int lo, cis_int hi,
                                     cis_ci_direct_gpu **out);
/* G's sigma may overwrite its input vector (a nearly pure one made pure in
 * place instead of in a vector of its own): for callers whose input is a
 * scratch copy (the distributed sigma's gathered vector). */
void ci_direct_gpu_input_scratch(cis_ci_direct_gpu *G);

#endif
