/* rdm.c: 1- and 2-particle (transition) reduced density matrices of CI
 * vectors on the direct space, on the host: the CPU reference of the GPU
 * RDMs (src/ci/gpu/ci_rdm_dev.c). String-driven as the direct sigma
 * (Knowles & Handy, Chem. Phys. Lett. 111, 315 (1984); Olsen et al., J. Chem.
 * Phys. 89, 2185 (1988), §II.B): each OpenMP thread takes blocks of alpha
 * strings (about 1024 determinants: D stays near its caches, as PySCF's
 * FCIrdm12_drv takes one alpha string at a time) and keeps its own sums,
 *   D[pq, I] = <I|E_pq|c>            gather through the links
 *   raw2   += D_bra D_ket^T          one GEMM over the block's determinants (dsyrk for bra = ket)
 *   raw1   += D_ket bra              (<bra|E_pq|ket>; without a 2-RDM asked, from the links directly)
 * added up in thread order at the end (the same result for the same thread
 * count); then PySCF's conventions (fci/rdm.py make_rdm12_spin1 + reorder_rdm,
 * fci/direct_spin1.py make_rdm12s, trans_rdm12s): ci_rdm_finish. Equations
 * in ci_rdm.h, contract in cisparse/ci.h. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_gemm.h"
#include "ci/ci_rdm.h"
#include "core/internal.h"

/* Below this many determinants one thread (the fork costs more than the work). */
#define CI_RDM_PARALLEL_MIN 4096

/* Row q*n + p of D for the link a^+_p a_q |I> = s |J> with packed pair
 * max(max+1)/2 + min: q is the orbital of the pair occupied in I (p == q on
 * the diagonal). */
static int16_t rdm_row(uint64_t str, int pair, int n) {
  int x = 0;
  while ((x + 1) * (x + 2) / 2 <= pair) ++x;
  const int y = pair - x * (x + 1) / 2;
  int p = x, q = x;
  if (x != y) {
    if ((str >> x) & 1ull) q = x, p = y;
    else q = y, p = x;
  }
  return (int16_t)(q * n + p);
}

static cis_status links_of(const ci_link *L, cis_int count, int nl, int nel, int n, const char *what, ci_link **out) {
  cis_status st;
  ci_link *r = NULL;
  CIS_TRY(cis_alloc_array((void **)&r, count * nl > 0 ? count * nl : 1, sizeof(ci_link), what));
#pragma omp parallel for schedule(static) if (count * nl >= CI_RDM_PARALLEL_MIN)
  for (cis_int I = 0; I < count; ++I) {
    const uint64_t s = ci_string_of_addr(I, nel);
    for (int l = 0; l < nl; ++l) {
      ci_link k = L[I * nl + l];
      k.pair = rdm_row(s, k.pair, n);
      r[I * nl + l] = k;
    }
  }
  *out = r;
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_rdm_links(const cis_ci_direct *D, ci_direct_view *v, ci_link **alink, ci_link **blink) {
  cis_status st;
  *alink = *blink = NULL;
  ci_direct_get_view(D, v);
  CIS_TRY(links_of(v->alink, v->nsa, v->nla, v->na, v->norb, "RDM alpha links", alink));
  CIS_TRY(links_of(v->blink, v->nsb, v->nlb, v->nb, v->norb, "RDM beta links", blink));
  return CIS_OK;
cleanup:
  cis_free(*alink);
  *alink = NULL;
  return st;
}

cis_status ci_rdm_plan_of(const cis_ci_rdm12 *o, const double *bra, const double *ket, ci_rdm_plan *p) {
  memset(p, 0, sizeof *p);
  const int sep = o->rdm1a || o->rdm1b || o->rdm2aa || o->rdm2ab || o->rdm2ba || o->rdm2bb;
  if (!sep && !o->rdm1 && !o->rdm2) return cis_error(CIS_ERR_INVALID, "RDMs: no output asked");
  p->traced = !sep;
  p->same = !bra || bra == ket;
  if (p->traced) {
    p->raw2_traced = o->rdm2 != NULL;
  } else {
    p->raw2[0] = o->rdm2aa || o->rdm2;
    p->raw2[1] = o->rdm2ab || o->rdm2;
    p->raw2[2] = o->rdm2ba || o->rdm2;
    p->raw2[3] = o->rdm2bb || o->rdm2;
  }
  return CIS_OK;
}

/* out[p,q,r,s] = R[(r n + s) n2 + q n + p] - [q == r] r1[p n + s] (r1 may be
 * NULL), then with sym the average with out[r,s,p,q] (PySCF reorder_rdm). */
static void finish2(int n, const double *R, const double *r1, int sym, double *out) {
  const cis_int n2 = (cis_int)n * n;
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      for (int r = 0; r < n; ++r)
        for (int s = 0; s < n; ++s) {
          double x = R[(cis_int)(r * n + s) * n2 + q * n + p];
          if (q == r && r1) x -= r1[p * n + s];
          out[(cis_int)(p * n + q) * n2 + r * n + s] = x;
        }
  if (!sym) return;
  for (cis_int i = 0; i < n2; ++i)
    for (cis_int j = 0; j <= i; ++j) {
      const double a = (out[i * n2 + j] + out[j * n2 + i]) * .5;
      out[i * n2 + j] = out[j * n2 + i] = a;
    }
}

void ci_rdm_finish(int n, const ci_rdm_plan *p, const double *raw1a, const double *raw1b, double *const raw2[4],
                   const cis_ci_rdm12 *o) {
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2;
  double r1[CIS_CI_DIRECT_MAX_ORB * CIS_CI_DIRECT_MAX_ORB];
  for (cis_int i = 0; i < n2; ++i) r1[i] = p->traced ? raw1a[i] : raw1a[i] + raw1b[i];
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (o->rdm1) o->rdm1[a * n + b] = r1[b * n + a];
      if (o->rdm1a) o->rdm1a[a * n + b] = raw1a[b * n + a];
      if (o->rdm1b) o->rdm1b[a * n + b] = raw1b[b * n + a];
    }
  if (p->traced) {
    if (o->rdm2) finish2(n, raw2[0], r1, 1, o->rdm2);
    return;
  }
  if (o->rdm2aa) finish2(n, raw2[0], raw1a, 1, o->rdm2aa);
  if (o->rdm2ab) finish2(n, raw2[1], NULL, 0, o->rdm2ab);
  if (o->rdm2ba) finish2(n, raw2[2], NULL, 0, o->rdm2ba);
  if (o->rdm2bb) finish2(n, raw2[3], raw1b, 1, o->rdm2bb);
  if (o->rdm2) {
    for (cis_int i = 0; i < n4; ++i) raw2[0][i] = raw2[0][i] + raw2[1][i] + raw2[2][i] + raw2[3][i];
    finish2(n, raw2[0], r1, 1, o->rdm2);
  }
}

/* D (n2 x m, row-major, m = nr nsb) of the alpha strings a0 .. a0+nr-1 of c:
 * mode 0 E^a, 1 E^b, 2 E^a + E^b (one thread; the rows of one string's
 * links are distinct, so every element gets at most one alpha and one beta
 * term, in that order: what the GPU gather, ci_rdm.cu, does). */
static void gather(const ci_direct_view *v, const ci_link *La, const ci_link *Lb, const double *c, cis_int a0,
                   cis_int nr, int mode, double *Dm) {
  const cis_int nsb = v->nsb, m = nr * nsb, n2 = (cis_int)v->norb * v->norb;
  const int nla = v->nla, nlb = v->nlb;
  for (cis_int row = 0; row < n2; ++row) memset(Dm + row * m, 0, (size_t)m * sizeof(double));
  for (cis_int ia = 0; ia < nr; ++ia) {
    const cis_int A = a0 + ia, off = ia * nsb;
    if (mode != 1)
      for (int l = 0; l < nla; ++l) { /* D[pq, (A,B)] += s c(J, B) */
        const ci_link k = La[A * nla + l];
        const double s = k.sign, *cj = c + (cis_int)k.str * nsb;
        double *d = Dm + (cis_int)k.pair * m + off;
        for (cis_int B = 0; B < nsb; ++B) d[B] += s * cj[B];
      }
    if (mode != 0) {
      const double *crow = c + A * nsb;
      for (cis_int B = 0; B < nsb; ++B) { /* D[pq, (A,B)] += s c(A, J) */
        const ci_link *L = Lb + B * nlb;
        double *d = Dm + off + B;
        for (int l = 0; l < nlb; ++l) d[(cis_int)L[l].pair * m] += L[l].sign * crow[L[l].str];
      }
    }
  }
}

/* The lower part from the upper (i <= j) that accumulate2 fills for Db == Dk. */
static void symmetric_fill(cis_int n2, double *R) {
  for (cis_int j = 0; j < n2; ++j)
    for (cis_int i = 0; i < j; ++i) R[i * n2 + j] = R[j * n2 + i];
}

/* r1[pq] += sum_c D[pq m + c] w[c]. */
static void accumulate1(cis_int n2, cis_int m, const double *Dm, const double *w, double *r1) {
  for (cis_int i = 0; i < n2; ++i) {
    const double *d = Dm + i * m;
    double s = 0.0;
    for (cis_int c = 0; c < m; ++c) s += d[c] * w[c];
    r1[i] += s;
  }
}

/* 1-RDM sums without D (no 2-RDM asked): for the alpha strings a0..a0+nr-1,
 *   r1a[row] += s sum_B bra(A,B) ket(J,B)   (alpha links of A)
 *   r1b[row] += s bra(A,B) ket(A,J)         (beta links of B)
 * (traced: both into r1a). */
static void accumulate1_direct(const ci_direct_view *v, const ci_link *La, const ci_link *Lb, const double *bra,
                               const double *ket, cis_int a0, cis_int nr, int traced, double *r1a, double *r1b) {
  const cis_int nsb = v->nsb;
  double *rb = traced ? r1a : r1b;
  for (cis_int A = a0; A < a0 + nr; ++A) {
    const double *b = bra + A * nsb, *k = ket + A * nsb;
    for (int l = 0; l < v->nla; ++l) {
      const ci_link L = La[A * v->nla + l];
      const double *kj = ket + (cis_int)L.str * nsb;
      double s = 0.0;
      for (cis_int B = 0; B < nsb; ++B) s += b[B] * kj[B];
      r1a[L.pair] += L.sign * s;
    }
    for (cis_int B = 0; B < nsb; ++B) {
      const ci_link *L = Lb + B * v->nlb;
      for (int l = 0; l < v->nlb; ++l) rb[L[l].pair] += L[l].sign * b[B] * k[L[l].str];
    }
  }
}

/* One block of alpha strings a0 .. a0+nr-1 with D blocked by irreps
 * (rdm_irrep.c): the 1-RDM sums from the links, the 2-RDM products per
 * irrep into Rh (nraw packed blocks of s->rsq[8]). Buffers as the C1 path's. */
static void irrep_block(const ci_direct_view *v, const ci_rdm_irreps *s, const ci_rdm_plan *p, const ci_link *La,
                        const ci_link *Lb, const double *bra, const double *ket, cis_int a0, cis_int nr, double *Kt,
                        double *Ka, double *Kb, double *Bt, double *Ba, double *Bb, double *r1, double *Rh) {
  const cis_int n2 = (cis_int)v->norb * v->norb;
  ci_rdm_block b;
  ci_rdm_irreps_layout(s, a0, nr, &b);
  accumulate1_direct(v, La, Lb, bra, ket, a0, nr, p->traced, r1, r1 + n2);
  if (p->traced) {
    ci_rdm_irreps_gather(v, s, La, Lb, ket, a0, nr, 2, &b, Kt);
    if (!p->same) ci_rdm_irreps_gather(v, s, La, Lb, bra, a0, nr, 2, &b, Bt);
    ci_rdm_irreps_accumulate(s, &b, Bt, Kt, Rh);
    return;
  }
  ci_rdm_irreps_gather(v, s, La, Lb, ket, a0, nr, 0, &b, Ka);
  ci_rdm_irreps_gather(v, s, La, Lb, ket, a0, nr, 1, &b, Kb);
  if (!p->same) {
    ci_rdm_irreps_gather(v, s, La, Lb, bra, a0, nr, 0, &b, Ba);
    ci_rdm_irreps_gather(v, s, La, Lb, bra, a0, nr, 1, &b, Bb);
  }
  const double *bs[4] = {Ba, Ba, Bb, Bb}, *ks[4] = {Ka, Kb, Ka, Kb};
  for (int k = 0; k < 4; ++k)
    if (p->raw2[k]) ci_rdm_irreps_accumulate(s, &b, bs[k], ks[k], Rh + k * s->rsq[8]);
}

/* Columns (determinants) per block of one thread: D stays near the caches
 * (PySCF's FCIrdm12_drv takes one alpha string at a time). */
#define CI_RDM_BLOCK_COLS 1024

cis_status ci_rdm12_blocked(const cis_ci_direct *D, const double *bra, const double *ket, const cis_ci_rdm12 *o,
                            int64_t block_bytes, cis_int *blocks) {
  cis_status st;
  ci_direct_view v;
  ci_rdm_plan p;
  ci_link *La = NULL, *Lb = NULL;
  double *work = NULL, *sums = NULL, *packed = NULL;
  ci_rdm_irreps sy = {0};
  if (blocks) *blocks = 0;
  if (!D || !ket || !o) return cis_error(CIS_ERR_INVALID, "RDMs: NULL argument");
  CIS_TRY(ci_rdm_plan_of(o, bra, ket, &p));
  if (!bra) bra = ket;
  CIS_TRY(ci_rdm_links(D, &v, &La, &Lb));
  const int n = v.norb;
  const cis_int n2 = (cis_int)n * n, n4 = n2 * n2, nsb = v.nsb, nsa = v.nsa;
  const int need2 = p.traced ? p.raw2_traced : (p.raw2[0] || p.raw2[1] || p.raw2[2] || p.raw2[3]);
  /* D buffers: traced (ket[, bra]); separated (ket a, ket b[, bra a, bra b]) */
  const int nket = p.traced ? 1 : 2, nbuf = need2 ? (p.same ? nket : 2 * nket) : 0, nraw = p.traced ? 1 : 4;
  if (need2) CIS_TRY(ci_rdm_irreps_of(&v, p.same ? NULL : bra, ket, &sy)); /* D blocked by irreps where it can be */
  double rows = ceil((double)CI_RDM_BLOCK_COLS / (double)nsb);
  if (block_bytes > 0 && nbuf > 0) {
    const double r = floor((double)block_bytes / ((double)nbuf * (double)n2 * (double)nsb * sizeof(double)));
    rows = r < rows ? r : rows;
  }
  if (rows > (double)nsa) rows = (double)nsa;
  if (rows * (double)nsb > (double)INT32_MAX) rows = floor((double)INT32_MAX / (double)nsb); /* BLAS int */
  if (rows < 1) rows = 1;
  const cis_int nr = (cis_int)rows, nblk = (nsa + nr - 1) / nr;
  /* per thread: its D buffers and its sums (2 n2 + nraw n4), reduced in thread order after;
   * threads while the private sums stay under 1 GiB */
  const cis_int per_sums = 2 * n2 + (need2 ? nraw * n4 : 0), per_work = (cis_int)nbuf * n2 * nr * nsb;
  int T = nblk * nsb >= CI_RDM_PARALLEL_MIN ? omp_get_max_threads() : 1;
  while (T > 1 && (double)T * (double)per_sums * sizeof(double) > 1073741824.0) --T;
  CIS_TRY(cis_alloc_zeroed((void **)&sums, (cis_int)T * per_sums, sizeof(double), "RDM sums"));
  if (per_work) CIS_TRY(cis_alloc_array((void **)&work, (cis_int)T * per_work, sizeof(double), "RDM intermediate D"));
  const cis_int per_packed = sy.on ? nraw * sy.rsq[8] : 0; /* each thread's raw2 blocks by irrep */
  if (per_packed) CIS_TRY(cis_alloc_zeroed((void **)&packed, (cis_int)T * per_packed, sizeof(double), "RDM blocks"));
#pragma omp parallel num_threads(T)
  {
    const int me = omp_get_thread_num();
    double *r1 = sums + (cis_int)me * per_sums, *r2 = r1 + 2 * n2, *buf = work + (cis_int)me * per_work;
    double *Kt = buf, *Ka = buf, *Kb = buf + (cis_int)(nbuf > 1) * n2 * nr * nsb;
    double *Bt = p.same ? Kt : buf + n2 * nr * nsb;
    double *Ba = p.same ? Ka : buf + 2 * n2 * nr * nsb, *Bb = p.same ? Kb : buf + 3 * n2 * nr * nsb;
#pragma omp for schedule(static)
    for (cis_int blk = 0; blk < nblk; ++blk) {
      const cis_int a0 = blk * nr, r = nsa - a0 < nr ? nsa - a0 : nr, m = r * nsb;
      const double *w = bra + a0 * nsb;
      if (sy.on) {
        irrep_block(&v, &sy, &p, La, Lb, bra, ket, a0, r, Kt, Ka, Kb, Bt, Ba, Bb, r1, packed + (cis_int)me * per_packed);
      } else if (!need2) {
        accumulate1_direct(&v, La, Lb, bra, ket, a0, r, p.traced, r1, r1 + n2);
      } else if (p.traced) {
        gather(&v, La, Lb, ket, a0, r, 2, Kt);
        if (!p.same) gather(&v, La, Lb, bra, a0, r, 2, Bt);
        accumulate1(n2, m, Kt, w, r1);
        ci_rdm_accumulate2(n2, m, Bt, Kt, r2);
      } else {
        gather(&v, La, Lb, ket, a0, r, 0, Ka);
        gather(&v, La, Lb, ket, a0, r, 1, Kb);
        if (!p.same) {
          gather(&v, La, Lb, bra, a0, r, 0, Ba);
          gather(&v, La, Lb, bra, a0, r, 1, Bb);
        }
        accumulate1(n2, m, Ka, w, r1);
        accumulate1(n2, m, Kb, w, r1 + n2);
        const double *bs[4] = {Ba, Ba, Bb, Bb}, *ks[4] = {Ka, Kb, Ka, Kb};
        for (int k = 0; k < 4; ++k)
          if (p.raw2[k]) ci_rdm_accumulate2(n2, m, bs[k], ks[k], r2 + k * n4);
      }
    }
    for (int k = 0; sy.on && k < nraw; ++k) ci_rdm_irreps_scatter(&sy, n2, packed + (cis_int)me * per_packed + k * sy.rsq[8],
                                                                  r2 + k * n4);
  }
  for (int t = 1; t < T; ++t) /* fixed order: the same sums for the same thread count */
    for (cis_int i = 0; i < per_sums; ++i) sums[i] += sums[(cis_int)t * per_sums + i];
  double *raw2[4] = {NULL, NULL, NULL, NULL};
  if (need2)
    for (int k = 0; k < nraw; ++k) {
      raw2[k] = sums + 2 * n2 + k * n4;
      if (p.same && (p.traced || k == 0 || k == 3)) symmetric_fill(n2, raw2[k]); /* dsyrk's half */
    }
  ci_rdm_finish(n, &p, sums, sums + n2, raw2, o);
  if (blocks) *blocks = nblk;
  st = CIS_OK;
cleanup:
  ci_rdm_irreps_free(&sy);
  cis_free(packed);
  cis_free(work);
  cis_free(sums);
  cis_free(La);
  cis_free(Lb);
  return st;
}

cis_status cis_ci_direct_rdm12(const cis_ci_direct *D, const double *bra, const double *ket, const cis_ci_rdm12 *out) {
  return ci_rdm12_blocked(D, bra, ket, out, 0, NULL);
}
