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
 * "FILE:LINE:") and for a caller's struct (fcidump_check: the fields
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
/* Put back the counters of ci_direct_get_info (the sigma timed apart
 * leaves Davidson's counts and phase seconds as they were). */
void ci_direct_set_info(cis_ci_direct *D, const cis_ci_direct_info *info);
/* Strings of compact entry i (ci_direct_compress's layout; without
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
 * (compact: the layout of ci_direct_compress when D is blocked by
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

/* ---- moved from cisparse/ci.h: internal, not exported ------------------------------------ */

/* Target irrep in the file's own numbering (0..7 for a PySCF file, 1..8
 * otherwise); CIS_ERR_RANGE outside it. Clears isym_assumed. */
cis_status fcidump_set_isym(cis_fcidump *F, int isym_in_file_numbering);

/* Check a caller's integrals as cis_fcidump_read checks a file, before any
 * use: norb 1..CIS_CI_MAX_ORB, nelec and ms2 (counts, parity, each spin at
 * most norb), no uhf, isym and orbsym[0..norb-1] irreps 1..8 (1-based as
 * the reader stores them), sym_numbering a CIS_FCIDUMP_SYM_* value, npair
 * and neri the sizes norb implies, h1 and eri non-NULL, ecore, h1 and eri
 * finite, h1 symmetric, no integral that orbsym forbids. CIS_OK, or one
 * line naming the field ("cis_fcidump.ms2 = 0 is inconsistent with
 * cis_fcidump.nelec = 13 ...") with CIS_ERR_RANGE (a header value out of
 * range), CIS_ERR_UNSUPPORTED (norb above CIS_CI_MAX_ORB, uhf) or
 * CIS_ERR_INVALID (arrays, sizes, values). cis_ci_solve and the solver
 * entry points call it; the other entry points taking a cis_fcidump check
 * its header, sizes and arrays (not the values). */
cis_status fcidump_check(const cis_fcidump *F);

/* The target irrep in the file's own numbering (isym - 1 for a 0-based
 * PySCF file, isym otherwise); 0 for NULL. Messages and reports print the
 * 1-based isym (with cis_fcidump_irrep_name). */
int fcidump_isym_in_file(const cis_fcidump *F);

/* (ij|kl) in chemists' notation, 0-based orbitals. */
double fcidump_eri(const cis_fcidump *F, int i, int j, int k, int l);

/* Electronic energy <D|H|D> of the determinant (alpha, beta) (no core energy). */
double ci_diagonal(const cis_fcidump *F, uint64_t alpha, uint64_t beta);

/* <I|H|J> by the Slater-Condon rules with fermionic signs (no core energy;
 * 0 beyond double excitations). */
double ci_element(const cis_fcidump *F, uint64_t alpha_i, uint64_t beta_i, uint64_t alpha_j,
                      uint64_t beta_j);

/* The same two for strings of any NORB <= CIS_CI_MAX_ORB (equal to the
 * uint64_t ones bit for bit where both apply). */
double ci_diagonal_bits(const cis_fcidump *F, const cis_ci_bits *alpha, const cis_ci_bits *beta);
double ci_element_bits(const cis_fcidump *F, const cis_ci_bits *alpha_i, const cis_ci_bits *beta_i,
                                   const cis_ci_bits *alpha_j, const cis_ci_bits *beta_j);

/* Parse an --occ list: "1,2,3" = those orbitals doubly occupied (closed
 * shell), or "1,2,3/1,2" = alpha list / beta list (1-based). Checks the
 * counts against NELEC/MS2, ranges and repeats. */
cis_status ci_parse_occ(const cis_fcidump *F, const char *list, uint64_t *alpha, uint64_t *beta);

/* The same two for any NORB <= CIS_CI_MAX_ORB (the uint64_t ones refuse
 * NORB > 64 with CIS_ERR_UNSUPPORTED). */
cis_status ci_find_reference_bits(const cis_fcidump *F, cis_ci_bits *alpha, cis_ci_bits *beta);
cis_status ci_parse_occ_bits(const cis_fcidump *F, const char *list, cis_ci_bits *alpha, cis_ci_bits *beta);

/* Number of determinants. */
cis_int ci_space_size(const cis_ci_space *S);

/* The same space from references of any NORB <= CIS_CI_MAX_ORB. */
cis_status ci_space_create_bits(const cis_fcidump *F, int level, const cis_ci_bits *ref_alpha,
                                            const cis_ci_bits *ref_beta, cis_ci_space **out);

/* Strings of determinant i (the first 64 orbitals: all of them for NORB <=
 * 64; ci_space_det_bits beyond). */
void ci_space_det(const cis_ci_space *S, cis_int i, uint64_t *alpha, uint64_t *beta);
void ci_space_det_bits(const cis_ci_space *S, cis_int i, cis_ci_bits *alpha, cis_ci_bits *beta);

/* 64-bit words per string in S: ceil(NORB/64). */
int ci_space_words(const cis_ci_space *S);

/* The strings of every determinant, in order (alpha and beta: size(S) each);
 * NORB <= 64 only (CIS_ERR_UNSUPPORTED beyond: ci_space_det_bits). */
cis_status ci_space_dets(const cis_ci_space *S, uint64_t *alpha, uint64_t *beta);

/* Excitation level of determinant i relative to the reference. */
int ci_space_level(const cis_ci_space *S, cis_int i);

/* Index of determinant (alpha, beta), -1 if it is not in the space. */
cis_int ci_space_find(const cis_ci_space *S, uint64_t alpha, uint64_t beta);
cis_int ci_space_find_bits(const cis_ci_space *S, const cis_ci_bits *alpha, const cis_ci_bits *beta);

/* Number of distinct alpha / beta strings in the space. */
cis_int ci_space_nalpha_strings(const cis_ci_space *S);
cis_int ci_space_nbeta_strings(const cis_ci_space *S);

/* Rows r0..r1-1 of that Hamiltonian (0 <= r0 <= r1 <= size(S)) as a double
 * CSR of r1-r0 rows and size(S) columns, global column indices: equal, bit
 * for bit, to those rows of cis_ci_hamiltonian(F, S, upper) (flags 0: a
 * slab, not a square matrix). row_nnz: NULL (the rows are counted first, a
 * second generation pass), or the counts of ci_hamiltonian_row_nnz
 * with the same upper (entries r0..r1-1 are read; a row whose entries
 * differ is CIS_ERR_INVALID).
 * For building a distributed matrix part by part (dist_matrix_create_rows):
 * memory is these rows alone. */
cis_status ci_hamiltonian_rows(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1,
                                           int upper, const cis_int *row_nnz, cis_csr **out);

/* The nonzeros of every row of that Hamiltonian (row_nnz: size(S) entries)
 * without storing it: the counting pass alone (about half a build's time). */
cis_status ci_hamiltonian_row_nnz(const cis_fcidump *F, const cis_ci_space *S, int upper,
                                              cis_int *row_nnz);

/* Nonzeros of that Hamiltonian (and its longest row) without storing it:
 * the counting pass alone, to size memory before building. */
cis_status ci_hamiltonian_nnz(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int *nnz,
                                  cis_int *max_row);

/* Nonzeros estimated from `samples` (<= 0: 4096) rows spread evenly over
 * the space (every level), counted as the build does and scaled to all
 * rows: milliseconds, to refuse a build that cannot fit before its counting
 * pass. *sampled (may be NULL): rows counted. */
cis_status ci_hamiltonian_nnz_estimate(const cis_fcidump *F, const cis_ci_space *S, int upper, cis_int samples,
                                           double *nnz, cis_int *sampled);

/* The same Hamiltonian (full matrix, double, columns sorted, exact zeros
 * dropped: equal to cis_ci_hamiltonian bit for bit) built in device memory
 * and returned as a csr plan (kernel csr-vector, 64-bit row pointers), *nnz
 * its nonzeros (nnz may be NULL). One thread per row counts, a prefix sum
 * sizes the CSR, a second pass fills it in chunks whose rows are then sorted
 * by column (src/ci/gpu/ci_build.cu). Any space (full or truncated CI) of
 * NORB <= CIS_CI_DIRECT_MAX_ORB (one-word strings; CIS_ERR_UNSUPPORTED
 * beyond). CIS_ERR_NO_GPU without a device or CUDA, CIS_ERR_DEVICE_OOM naming the
 * array when the CSR does not fit. */
cis_status ci_hamiltonian_gpu(const cis_fcidump *F, const cis_ci_space *S, cis_gpu_plan **out, cis_int *nnz);

/* The same built as its upper triangle (J >= I, diagonal included; about
 * half the device memory) into a symmetric plan (cis_gpu_plan_create_symmetric's
 * kernels: "csr-sym" (NULL) or "csr-sym-det"); *nnz the stored nonzeros. */
cis_status ci_hamiltonian_gpu_upper(const cis_fcidump *F, const cis_ci_space *S, const char *kernel,
                                                cis_gpu_plan **out, cis_int *nnz);

/* Rows r0..r1-1 (0 <= r0 <= r1 <= size(S)) of cis_ci_hamiltonian(F, S,
 * upper) built on the current GPU, the same kernels as ci_hamiltonian_gpu
 * (bit for bit the rows of ci_hamiltonian_rows): *out a device CSR of
 * r1-r0 rows and size(S) columns, global column indices ascending in each
 * row, double values; its arrays are the caller's (cis_gpu_free each).
 * row_nnz: NULL (counted on the device first), or the counts of
 * ci_hamiltonian_gpu_row_nnz / ci_hamiltonian_row_nnz with the same
 * upper (entries r0..r1-1 read; a row whose entries differ from its count is
 * CIS_ERR_INVALID, and nothing is written past its room). For a distributed
 * matrix whose parts build their own rows on their GPUs
 * (dist_matrix_create_rows_gpu). Errors as ci_hamiltonian_gpu. */
cis_status ci_hamiltonian_gpu_rows(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1,
                                               int upper, const cis_int *row_nnz, cis_gpu_csr *out);

/* The nonzeros of rows r0..r1-1 counted on the current GPU (the build's
 * counting pass alone) into row_nnz[r0..r1-1] (row_nnz: size(S) entries;
 * the others untouched): equal to ci_hamiltonian_row_nnz's. */
cis_status ci_hamiltonian_gpu_row_nnz(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1,
                                                  int upper, cis_int *row_nnz);

/* Diagonal of H (electronic), n = space size. */
cis_status ci_diagonal_all(const cis_fcidump *F, const cis_ci_space *S, double *diag);

/* Counts of the space cis_ci_space_create(F, level, ref_alpha, ref_beta)
 * would build, in microseconds for any size. */
cis_status ci_count(const cis_fcidump *F, int level, uint64_t ref_alpha, uint64_t ref_beta, cis_ci_counts *out);
cis_status ci_count_bits(const cis_fcidump *F, int level, const cis_ci_bits *ref_alpha,
                                     const cis_ci_bits *ref_beta, cis_ci_counts *out);

/* Davidson guesses from a P-space: the np (<= 0: CIS_CI_PSPACE_DEFAULT)
 * determinants with the lowest diagonal elements, extended by every one
 * within CIS_CI_PSPACE_DEGEN of the last so (near-)degenerate determinants
 * enter together (at most 2 np: the lowest by (diagonal, index) when more;
 * the same at any thread count); H among them by the Slater-Condon rules,
 * diagonalised exactly; its nvec lowest eigenvectors, zero outside the
 * P-space, into guess (n*nvec, vector v at guess + v*n) for
 * cis_davidson_opts.guess. *np_used (may be NULL): the P-space size;
 * pvals (may be NULL): the nvec lowest P-space eigenvalues (electronic). */
cis_status ci_pspace_guess(const cis_fcidump *F, const cis_ci_space *S, const double *diag, int np, int nvec,
                               double *guess, int *np_used, double *pvals);

/* Eigenvalues (ascending, into w) and eigenvectors (column j of a, row-major
 * n x n, overwritten) of a dense symmetric matrix: Householder + QL. */
cis_status ci_dense_eigh(double *a, int n, double *w);

/* <S^2> of the CI vector c (n = space size, any norm): S- S+ + Sz^2 + Sz
 * evaluated in the determinant space (diagonal counts of beta-only orbitals
 * plus alpha<->beta swaps of two open shells with their fermionic signs). */
cis_status ci_s2(const cis_fcidump *F, const cis_ci_space *S, const double *c, double *s2);

/* y = H x: the operator Davidson iterates with. */
typedef cis_status (*ci_linop)(void *ctx, const double *x, double *y);

/* cis_davidson_operator (cisparse/solver.h) on the host callback op
 * (dimension n, called with host vectors): lowest o->roots eigenpairs with
 * the diagonal (Davidson) preconditioner t = r / (e - diag), subspace collapse
 * to the current Ritz vectors, convergence on residual norms and energy
 * changes. evals: roots values; evecs: n*roots (column i at evecs + i*n) or
 * NULL. Guesses: o->guess (e.g. ci_pspace_guess), else unit vectors on
 * the lowest diagonal elements, which can converge to an excited state (see
 * ci_pspace_guess). CIS_ERR_NOT_CONVERGED after max_iter: the values
 * written are then not results. */
cis_status ci_davidson(cis_int n, const double *diag, ci_linop op, void *ctx,
                        const cis_davidson_opts *o, double *evals, double *evecs,
                        cis_davidson_info *info);

/* The defaults of cis_ci_direct_opts (see its fields). */
cis_ci_direct_opts ci_direct_opts_default(void);

/* Number of determinants C(norb, na) C(norb, nb) (the vector length, also
 * with point-group projection). */
void ci_direct_get_info(const cis_ci_direct *D, cis_ci_direct_info *info);

/* Index of (alpha, beta) in direct order, -1 when the electron counts differ. */
cis_int ci_direct_find(const cis_ci_direct *D, uint64_t alpha, uint64_t beta);

/* diag(H) (electronic) in direct order from the integrals (Slater-Condon),
 * OpenMP; no Hamiltonian. */
cis_status ci_direct_diagonal(const cis_ci_direct *D, double *diag);

/* D as a host double operator (y = alpha H x + beta y) with the diagonal
 * recorded, for the solvers; D must outlive it. */
cis_status ci_direct_operator(cis_ci_direct *D, cis_operator **out);

/* For one string set (MS2 = 0): make c exactly symmetric or antisymmetric
 * under alpha <-> beta, c <- (c + t c^T) / 2, with t = +1 or -1 whichever c
 * is within 1e-6 (relative, in norm) of, so that the half sigma applies (a
 * P-space guess is (anti)symmetric only to rounding). Returns t, or 0 with c
 * unchanged: two string sets, opts.no_time_reversal, or c near neither. */
int ci_direct_time_reversal(const cis_ci_direct *D, double *c);

/* Compact vectors (point-group symmetry blocked by irreps): only the
 * cis_ci_direct_info.symmetry_determinants determinants of irrep ISYM, alpha
 * string address major, in each row the beta strings of the one irrep that
 * pairs with it in address order. Without blocking (C1, projection) the
 * compact vectors are the ordinary ones (size cis_ci_direct_size, copies).
 * compress: cc <- the ISYM entries of c (direct order); expand: c <- cc with
 * zeros elsewhere (all of c written). The compact operator is H on compact
 * vectors (Davidson on it does its vector work on the ISYM determinants
 * only; the diagonal recorded; MS2 = 0 (anti)symmetric vectors take the half
 * sigma); D must outlive it, and it shares D's workspace (one apply at a
 * time per D). */
cis_int ci_direct_compact_size(const cis_ci_direct *D);
void ci_direct_compress(const cis_ci_direct *D, const double *c, double *cc);
void ci_direct_expand(const cis_ci_direct *D, const double *cc, double *c);
cis_status ci_direct_compact_operator(cis_ci_direct *D, cis_operator **out);

/* Davidson's start on compact vectors without any C1-length vector (what
 * the CLI uses when blocked; each equals its C1 counterpart compressed):
 * the diagonal of the ISYM determinants (ci_direct_diagonal's values;
 * dc: ci_direct_compact_size doubles); P-space guesses from that
 * diagonal (ci_pspace_guess_direct's P-space, guess: nvec compact
 * vectors). Without blocking they are the C1 functions. */
cis_status ci_direct_compact_diagonal(const cis_ci_direct *D, double *dc);
cis_status ci_pspace_guess_compact(const cis_fcidump *F, const cis_ci_direct *D, const double *diag, int np,
                                               int nvec, double *guess, int *np_used, double *pvals);

/* P-space guesses and <S^2> on the direct space (see ci_pspace_guess, ci_s2). */
cis_status ci_pspace_guess_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *diag, int np,
                                      int nvec, double *guess, int *np_used, double *pvals);
cis_status ci_s2_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *s2);

/* <S^2> of a compact vector cc (ci_direct_compact_size doubles, the
 * layout of ci_direct_compress): the same value as ci_s2_direct of
 * its expansion, read from the compact entries alone. */
cis_status ci_s2_direct_compact(const cis_fcidump *F, const cis_ci_direct *D, const double *cc, double *s2);

/* out = S^2 c on the direct space (host vectors of cis_ci_direct_size(D),
 * distinct): S- S+ + Sz^2 + Sz, S+ and S- applied as gathers through the
 * (na+1, nb-1) determinants (PySCF fci.spin_op.contract_ss); one temporary
 * vector of that space. src/ci/spin_penalty.c. */
cis_status ci_s2_apply_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *out);

/* The defaults of cis_ci_direct_gpu_opts (see its fields). */
cis_ci_direct_gpu_opts ci_direct_gpu_opts_default(void);

/* After cis_ci_direct_set_integrals on G's host D: the new pair matrix (or
 * its irrep blocks) uploaded; waits for the device's work under way first.
 * Links, workspace and G's vectors are kept. CIS_ERR_CUDA on a failed copy. */
void ci_direct_gpu_get_info(const cis_ci_direct_gpu *G, cis_ci_direct_gpu_info *info);

/* G as a device double operator (y = alpha H x + beta y) for the solvers
 * (cis_davidson_operator keeps every vector on the device); diag (host, n,
 * may be NULL) is recorded. G must outlive it. */
cis_status ci_direct_gpu_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out);

/* S = H C for k compact device vectors (ci_direct_compact_size(D)
 * doubles each, the layout of ci_direct_compress; column v at
 * d_C + v*nc), the electronic H on the ISYM determinants, enqueued on stream
 * s; k == 1 with an (anti)symmetric MS2 = 0 vector takes the half sigma.
 * Without blocking the compact vectors are the ordinary ones
 * (cis_ci_direct_gpu_sigma). One call at a time per G. */
cis_status ci_direct_gpu_compact_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S,
                                                   cis_stream s);

/* G as a device double operator on compact vectors (y = alpha H x + beta
 * y), for Davidson on the ISYM determinants only (cis_davidson_operator);
 * its diagonal is diag (host, compact: ci_direct_compact_size doubles),
 * or when diag is NULL ci_direct_compact_diagonal. Without blocking it
 * is ci_direct_gpu_operator. G must outlive it. */
cis_status ci_direct_gpu_compact_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out);

/* Davidson on the GPU: M (double) is uploaded once into a plan with
 * `kernel` (NULL = the format's default) and solved by cis_davidson_operator
 * on that plan's operator (cis_operator_from_gpu_plan): every vector
 * (subspace, H*subspace, Ritz vectors, residual) lives on the device, H x is
 * cis_gpu_spmv, dots, axpys and Ritz combinations are the device backend's
 * (cuBLAS), the preconditioner a kernel; only subspace-sized matrices and
 * scalars cross the bus. evecs (host) may be NULL. stats->spmv_seconds is
 * info->op_seconds (every product synchronized). CIS_ERR_NO_GPU without a
 * device or CUDA. */
cis_status ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats);

/* The same on a plan already on the device (square, double), e.g. from
 * ci_hamiltonian_gpu; the plan is not freed. */
cis_status ci_davidson_gpu_plan(cis_gpu_plan *plan, const double *diag, const cis_davidson_opts *o,
                                    double *evals, double *evecs, cis_davidson_info *info,
                                    cis_ci_gpu_stats *stats);

/* Determinant blocks the last cis_ci_direct_gpu_rdm12 took (alpha strings per
 * block, blocks), for tests and reports. */
void ci_direct_gpu_rdm_blocks(const cis_ci_direct_gpu_rdm *R, cis_int *rows, cis_int *blocks);

#endif
