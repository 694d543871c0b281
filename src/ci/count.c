/* count.c: determinant counts in closed form, before anything is allocated.
 *
 * A string of one spin at excitation level e relative to the reference
 * string: e holes among its o occupied orbitals and e particles among its v
 * virtual ones, C(o,e) C(v,e) strings. With spatial symmetry (abelian
 * groups, irreps as 3-bit labels combined by XOR) the holes and particles
 * are counted by irrep with a dynamic program over orbitals:
 *   D[0][0] = 1;  for each orbital of irrep s:  D[k+1][g ^ s] += D[k][g].
 * Strings by (level, irrep) = holes (x) particles, shifted by the reference
 * string's irrep; determinants of level L and irrep t =
 * sum_{ea+eb=L} sum_g A[ea][g] B[eb][g ^ t]. Full CI is the same sum over all
 * levels (= C(norb, na) C(norb, nb) without symmetry). Doubles: exact below
 * 2^53, and the sizes that matter to a refusal are far from that edge. */
#include <math.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"
#include "solvers/solver_internal.h"

/* D[k][g]: ways to pick k orbitals of the set `set` with irreps XOR = g. */
static void choose_by_irrep(const cis_fcidump *F, ci_bits set, double D[CIS_CI_MAX_ORB + 1][8]) {
  memset(D, 0, sizeof(double) * (CIS_CI_MAX_ORB + 1) * 8);
  D[0][0] = 1;
  int k = 0;
  CI_FOR_BITS(p, set, CIS_CI_WORDS) {
    int irr = (F->orbsym[p] - 1) & 7;
    for (int e = k; e >= 0; --e)
      for (int g = 0; g < 8; ++g) D[e + 1][g ^ irr] += D[e][g];
    ++k;
  }
}

/* S[e][g]: strings at level e of irrep g relative to `ref`. */
static void strings_by_level(const cis_fcidump *F, ci_bits ref, double S[CIS_CI_MAX_ORB + 1][8]) {
  double Hh[CIS_CI_MAX_ORB + 1][8], Pp[CIS_CI_MAX_ORB + 1][8];
  ci_bits all = bits_first(F->norb, CIS_CI_WORDS);
  choose_by_irrep(F, ref, Hh);
  choose_by_irrep(F, bits_andnot(all, ref, CIS_CI_WORDS), Pp);
  int g0 = ci_bits_sym(F, ref, CIS_CI_WORDS);
  memset(S, 0, sizeof(double) * (CIS_CI_MAX_ORB + 1) * 8);
  for (int e = 0; e <= CIS_CI_MAX_ORB; ++e)
    for (int a = 0; a < 8; ++a)
      if (Hh[e][a] != 0)
        for (int b = 0; b < 8; ++b) S[e][g0 ^ a ^ b] += Hh[e][a] * Pp[e][b];
}

cis_status ci_count(const cis_fcidump *F, int level, uint64_t ref_alpha, uint64_t ref_beta, cis_ci_counts *out) {
  ci_bits a = cis_ci_bits_from_u64(ref_alpha), b = cis_ci_bits_from_u64(ref_beta);
  return ci_count_bits(F, level, &a, &b, out);
}

cis_status ci_count_bits(const cis_fcidump *F, int level, const cis_ci_bits *ref_alpha,
                             const cis_ci_bits *ref_beta, cis_ci_counts *out) {
  if (!F || !out || !ref_alpha || !ref_beta) return cis_error(CIS_ERR_INVALID, "ci_count: NULL argument");
  cis_status st = ci_fcidump_check_header(F);
  if (st != CIS_OK) return st;
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F), target = (F->isym - 1) & 7;
  const int nw = CIS_CI_WORDS;
  ci_bits outside = bits_andnot(bits_or(*ref_alpha, *ref_beta, nw), bits_first(F->norb, nw), nw);
  if (bits_popcount(*ref_alpha, nw) != na || bits_popcount(*ref_beta, nw) != nb || !bits_empty(outside, nw))
    return cis_error(CIS_ERR_INVALID, "reference determinant does not have %d alpha and %d beta electrons in %d orbitals",
                     na, nb, F->norb);
  double A[CIS_CI_MAX_ORB + 1][8], B[CIS_CI_MAX_ORB + 1][8];
  memset(out, 0, sizeof *out);
  int full = na + nb;
  if (level < 0 || level > full) level = full;
  out->level = level;
  out->words = ci_words(F->norb);
  strings_by_level(F, *ref_alpha, A);
  strings_by_level(F, *ref_beta, B);
  for (int ea = 0; ea <= level && ea <= CIS_CI_MAX_ORB; ++ea)
    for (int g = 0; g < 8; ++g) {
      out->alpha_strings += A[ea][g];
      out->beta_strings += B[ea][g];
    }
  for (int ea = 0; ea <= level && ea <= CIS_CI_MAX_ORB; ++ea)
    for (int eb = 0; ea + eb <= level && eb <= CIS_CI_MAX_ORB; ++eb)
      for (int g = 0; g < 8; ++g)
        for (int t = 0; t < 8; ++t) {
          double c = A[ea][g] * B[eb][g ^ t];
          out->per_irrep[t] += c;
          if (t == target) out->per_level[ea + eb] += c;
        }
  out->determinants = out->per_irrep[target];
  /* nonzeros: each row connects to at most 1 + singles + doubles of the
   * full space (Slater-Condon), and to no more determinants than exist */
  double va = F->norb - na, vb = F->norb - nb;
  double row = 1 + na * va + nb * vb + 0.25 * na * (na - 1) * va * (va - 1) + 0.25 * nb * (nb - 1) * vb * (vb - 1) +
               na * va * nb * vb;
  out->row_bound = fmin(row, out->determinants);
  out->nnz_bound = out->determinants * out->row_bound;
  return CIS_OK;
}

void cis_ci_memory(const cis_ci_counts *c, int roots, int max_sub, double nnz, cis_ci_memory_need *m) {
  double n = c->determinants, strings = c->alpha_strings + c->beta_strings;
  const int nguess = roots + 4 < 2 * roots + 2 ? roots + 4 : 2 * roots + 2;
  /* a given subspace as given (at least 2 roots' worth); the default one
   * with room for the stored path's guesses. Raising a given one by the
   * guesses made the direct driver count 11 vectors at subspace 2 (one
   * guess a root there) and refuse the 16e/18o C1 space on 2 80-GB GPUs
   * with 107 GiB a GPU, where Davidson takes 5 (64 GiB) */
  max_sub = max_sub > 0 ? davidson_subspace(roots, max_sub, 0) : davidson_subspace(roots, 0, nguess);
  memset(m, 0, sizeof *m);
  /* strings (8 B a word + level + irrep + a 2x-sized hash table of int32) and per
   * determinant two string positions, a level, the lookup lists (4+4 B) */
  m->space = strings * (8.0 * (c->words > 1 ? c->words : 1) + 1 + 1 + 8) + n * (4 + 4 + 1 + 4 + 4) + 8.0 * c->alpha_strings;
  /* Davidson's own vectors (davidson_vectors: in the operator's memory
   * space), and on the host the diagonal, the guesses and the roots' copy */
  m->subspace = max_sub;
  m->davidson = 8.0 * n * davidson_vectors(roots, max_sub);
  m->vectors = m->davidson + 8.0 * n * (1.0 + nguess + roots);
  m->matrix = nnz * 12 + 8 * (n + 1);
  m->stored = m->space + m->vectors + m->matrix;
  /* matrix-free: the P-space guesses go to Davidson as their nonzeros
   * (ci_run_guesses), no host vectors of their own */
  m->direct = m->space + m->davidson + 8.0 * n * (1.0 + roots);
}
