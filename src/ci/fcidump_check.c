/* fcidump_check.c: the checks of an FCIDUMP header and its integrals,
 * shared by the file reader (fcidump.c, "FILE:LINE: NORB = ...") and the
 * public entry points that take a caller's cis_fcidump (fcidump_check,
 * "cis_fcidump.norb = ..."): the electron counts against the orbitals, the
 * irreps, the arrays and their sizes, finite values, and the integrals that
 * ORBSYM forbids. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

const ci_fcidump_names ci_fcidump_file_names = {"NORB", "NELEC", "MS2"};
const ci_fcidump_names ci_fcidump_struct_names = {"cis_fcidump.norb", "cis_fcidump.nelec", "cis_fcidump.ms2"};

/* norb, nelec, ms2 and uhf as cis_fcidump_read requires them (see ci_internal.h). */
cis_status ci_fcidump_counts_problem(int norb, int nelec, int ms2, int uhf, const ci_fcidump_names *nm, char *msg,
                                     size_t cap) {
  if (norb < 1) {
    snprintf(msg, cap, "%s must be at least 1, got %d", nm->norb, norb);
    return CIS_ERR_RANGE;
  }
  if (norb > CIS_CI_MAX_ORB) {
    snprintf(msg, cap, "%s = %d exceeds %d (occupation strings of %d 64-bit words)", nm->norb, norb, CIS_CI_MAX_ORB,
             CIS_CI_WORDS);
    return CIS_ERR_UNSUPPORTED;
  }
  if (nelec < 0 || nelec > 2 * norb) {
    snprintf(msg, cap, "%s = %d does not fit in 2*%s = %d spin orbitals", nm->nelec, nelec, nm->norb, 2 * norb);
    return CIS_ERR_RANGE;
  }
  if (abs(ms2) > nelec || ((nelec + ms2) % 2) != 0) {
    snprintf(msg, cap, "%s = %d is inconsistent with %s = %d (needs |%s| <= %s, same parity)", nm->ms2, ms2, nm->nelec,
             nelec, nm->ms2, nm->nelec);
    return CIS_ERR_RANGE;
  }
  if ((nelec + ms2) / 2 > norb || (nelec - ms2) / 2 > norb) {
    snprintf(msg, cap, "%s = %d with %s = %d puts more than %s = %d electrons in one spin", nm->nelec, nelec, nm->ms2,
             ms2, nm->norb, norb);
    return CIS_ERR_RANGE;
  }
  if (uhf) {
    snprintf(msg, cap, "UHF integrals are not supported (restricted orbitals only)");
    return CIS_ERR_UNSUPPORTED;
  }
  return CIS_OK;
}

/* The first integral beyond CI_SYM_TOL of the largest that couples orbitals
 * whose irreps multiply to another than the totally symmetric one. */
cis_status ci_fcidump_forbidden(const cis_fcidump *F, ci_forbidden *out) {
  cis_status st = CIS_OK;
  int *pi = NULL, *pj = NULL, *pir = NULL;
  double big = 0;
  const int n = F->norb;
  memset(out, 0, sizeof *out);
  if (F->sym_numbering == CIS_FCIDUMP_SYM_NONE) return CIS_OK;
  CIS_TRY(cis_alloc_array((void **)&pi, F->npair, sizeof(int), "symmetry check"));
  CIS_TRY(cis_alloc_array((void **)&pj, F->npair, sizeof(int), "symmetry check"));
  CIS_TRY(cis_alloc_array((void **)&pir, F->npair, sizeof(int), "symmetry check"));
  for (int i = 0, ij = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j, ++ij) {
      pi[ij] = i;
      pj[ij] = j;
      pir[ij] = (F->orbsym[i] - 1) ^ (F->orbsym[j] - 1);
    }
  for (int64_t at = 0; at < F->neri; ++at) big = fmax(big, fabs(F->eri[at]));
  for (int64_t ij = 0; ij < F->npair; ++ij) big = fmax(big, fabs(F->h1[(int64_t)pi[ij] * n + pj[ij]]));
  const double tol = CI_SYM_TOL * big;
  for (int64_t ij = 0; ij < F->npair && !out->kind; ++ij) {
    const double v = F->h1[(int64_t)pi[ij] * n + pj[ij]];
    if (pir[ij] && fabs(v) > tol) *out = (ci_forbidden){1, {pi[ij], pj[ij], -1, -1}, ij, v, pir[ij]};
  }
  for (int64_t ij = 0, at = 0; ij < F->npair && !out->kind; ++ij)
    for (int64_t kl = 0; kl <= ij; ++kl, ++at)
      if (pir[ij] != pir[kl] && fabs(F->eri[at]) > tol) {
        *out = (ci_forbidden){2, {pi[ij], pj[ij], pi[kl], pj[kl]}, at, F->eri[at], pir[ij] ^ pir[kl]};
        break;
      }
cleanup:
  cis_free(pi);
  cis_free(pj);
  cis_free(pir);
  return st;
}

const char *ci_isym_text(const cis_fcidump *F, char *buf, size_t cap) {
  const char *name = cis_fcidump_irrep_name(F, F->isym);
  if (name) snprintf(buf, cap, "ISYM=%d (%s)", F->isym, name);
  else snprintf(buf, cap, "ISYM=%d", F->isym);
  return buf;
}

const char *cis_fcidump_irrep_name(const cis_fcidump *F, int irrep) {
  /* D2h's irreps by 1-based id: PySCF's ids + 1, and Molpro's numbering */
  static const char *const pyscf[8] = {"Ag", "B1g", "B2g", "B3g", "Au", "B1u", "B2u", "B3u"};
  static const char *const molpro[8] = {"Ag", "B3u", "B2u", "B1g", "B1u", "B2g", "B3g", "Au"};
  int d2h = 0; /* only D2h has irreps past the fourth (its subgroups have at most 4) */
  if (!F || irrep < 1 || irrep > 8 || F->sym_numbering == CIS_FCIDUMP_SYM_NONE) return NULL;
  for (int i = 0; i < F->norb && i < CIS_CI_MAX_ORB; ++i) d2h |= F->orbsym[i] > 4;
  if (!d2h) return NULL;
  return F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF ? pyscf[irrep - 1] : molpro[irrep - 1];
}

int fcidump_isym_in_file(const cis_fcidump *F) {
  return F ? F->isym - (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF) : 0;
}

cis_status ci_fcidump_check_header(const cis_fcidump *F) {
  char msg[240];
  cis_status st;
  if (!F) return cis_error(CIS_ERR_INVALID, "cis_fcidump: NULL integrals");
  if ((st = ci_fcidump_counts_problem(F->norb, F->nelec, F->ms2, F->uhf, &ci_fcidump_struct_names, msg, sizeof msg)))
    return cis_error(st, "%s", msg);
  if (F->sym_numbering < CIS_FCIDUMP_SYM_NONE || F->sym_numbering > CIS_FCIDUMP_SYM_PYSCF)
    return cis_error(CIS_ERR_RANGE, "cis_fcidump.sym_numbering = %d is not CIS_FCIDUMP_SYM_NONE, _MOLPRO or _PYSCF",
                     F->sym_numbering);
  if (F->isym < 1 || F->isym > 8)
    return cis_error(CIS_ERR_RANGE, "cis_fcidump.isym = %d is not an irrep 1..8 (stored 1-based)", F->isym);
  for (int i = 0; i < F->norb; ++i)
    if (F->orbsym[i] < 1 || F->orbsym[i] > 8)
      return cis_error(CIS_ERR_RANGE, "cis_fcidump.orbsym[%d] = %d is not an irrep 1..8 (stored 1-based)", i,
                       F->orbsym[i]);
  const cis_int npair = (cis_int)F->norb * (F->norb + 1) / 2;
  if (F->npair != npair)
    return cis_error(CIS_ERR_INVALID, "cis_fcidump.npair = %lld, norb = %d needs norb(norb+1)/2 = %lld",
                     (long long)F->npair, F->norb, (long long)npair);
  if (F->neri != npair * (npair + 1) / 2)
    return cis_error(CIS_ERR_INVALID, "cis_fcidump.neri = %lld, npair = %lld needs npair(npair+1)/2 = %lld",
                     (long long)F->neri, (long long)npair, (long long)(npair * (npair + 1) / 2));
  if (!F->h1) return cis_error(CIS_ERR_INVALID, "cis_fcidump.h1 is NULL (norb*norb one-electron integrals needed)");
  if (!F->eri) return cis_error(CIS_ERR_INVALID, "cis_fcidump.eri is NULL (neri packed two-electron integrals needed)");
  return CIS_OK;
}

/* |h_ij - h_ji| allowed, relative to max(1, |h_ij|): rounding of a caller's
 * symmetric matrix, not a different matrix. */
#define CI_H1_SYM_TOL 1e-10

cis_status fcidump_check(const cis_fcidump *F) {
  cis_status st;
  ci_forbidden bad;
  if ((st = ci_fcidump_check_header(F)) != CIS_OK) return st;
  const int n = F->norb;
  if (!isfinite(F->ecore)) return cis_error(CIS_ERR_INVALID, "cis_fcidump.ecore = %g is not finite", F->ecore);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double v = F->h1[(int64_t)i * n + j], w = F->h1[(int64_t)j * n + i];
      if (!isfinite(v)) return cis_error(CIS_ERR_INVALID, "cis_fcidump.h1[%d*norb+%d] = %g is not finite", i, j, v);
      if (j < i && fabs(v - w) > CI_H1_SYM_TOL * fmax(1.0, fabs(v)))
        return cis_error(CIS_ERR_INVALID, "cis_fcidump.h1 is not symmetric: h1[%d*norb+%d] = %.15g, h1[%d*norb+%d] = %.15g",
                         i, j, v, j, i, w);
    }
  for (int64_t at = 0; at < F->neri; ++at)
    if (!isfinite(F->eri[at]))
      return cis_error(CIS_ERR_INVALID, "cis_fcidump.eri[%lld] = %g is not finite", (long long)at, F->eri[at]);
  if ((st = ci_fcidump_forbidden(F, &bad)) != CIS_OK) return st;
  if (bad.kind == 1)
    return cis_error(CIS_ERR_INVALID,
                     "cis_fcidump.h1[%d*norb+%d] = %.6g couples orbitals of irreps %d and %d (cis_fcidump.orbsym): "
                     "ORBSYM does not fit these integrals",
                     bad.o[0], bad.o[1], bad.v, F->orbsym[bad.o[0]], F->orbsym[bad.o[1]]);
  if (bad.kind == 2)
    return cis_error(CIS_ERR_INVALID,
                     "cis_fcidump.eri (%d %d|%d %d) (0-based) = %.6g couples orbitals of irreps %d %d %d %d "
                     "(cis_fcidump.orbsym; product irrep %d): ORBSYM does not fit these integrals",
                     bad.o[0], bad.o[1], bad.o[2], bad.o[3], bad.v, F->orbsym[bad.o[0]], F->orbsym[bad.o[1]],
                     F->orbsym[bad.o[2]], F->orbsym[bad.o[3]], bad.prod + 1);
  return CIS_OK;
}
