/* kry_scalars.h: the scalars of the Krylov recurrences and the small
 * programs that update them after each reduction, written once for the host
 * (C11) and the device (CUDA, __host__ __device__). A backend keeps the
 * KS_COUNT slots in its own memory (host for the host backend and cublasL,
 * device memory for the other device versions: Aliaga et al. 2015 §4,
 * "cublasN ... maintains the scalars in the GPU memory") and runs
 * kry_prog_run on them: on the host, in a one-thread kernel, or in the last
 * block of a fused macro-kernel (the dot_fin stage, §3.3).
 *
 * Every program that finishes an iteration advances KS_IT, records
 * ||r||/||b|| in hist[KS_IT] (when KS_IT < hist_len) and sets KS_FLAG != 0
 * when the solve must end: kry_flag values below. Kernels of the fused
 * versions read KS_FLAG first and do nothing once it is set, so iterations
 * queued past the end (merge_10, graph) leave x at the last iterate. */
#ifndef CISPARSE_KRY_SCALARS_H
#define CISPARSE_KRY_SCALARS_H

#include <math.h>

#if defined(__CUDACC__)
#define KRY_HD __host__ __device__ __forceinline__
#else
#define KRY_HD static inline
#endif

/* Scalar slots (doubles). */
enum kry_slot {
  KS_ONE = 0,      /* constant 1 */
  KS_ALPHA,        /* step along p */
  KS_BETA,         /* direction update */
  KS_OMEGA,        /* BiCGStab stabilisation */
  KS_BETA_OMEGA,   /* beta * omega (BiCGStab p update) */
  KS_RHO,          /* (r, z) CG; (z, r~) BiCG; (r^, r) BiCGStab */
  KS_RHO_NEW,      /* the same, this iteration */
  KS_SIGMA,        /* (p, q) CG; (p~, q) BiCG; (r^, v) BiCGStab */
  KS_TS,           /* (t, s) BiCGStab */
  KS_TT,           /* (t, t) BiCGStab */
  KS_RR,           /* (r, r) */
  KS_BB,           /* (b, b) */
  KS_TOL,          /* relative tolerance (set by the solver) */
  KS_IT,           /* iterations done */
  KS_MAXIT,        /* iteration limit (set by the solver) */
  KS_STAG_MAX,     /* iterations without a new smallest residual before ending (<= 0: never) */
  KS_BEST,         /* smallest (r, r) so far */
  KS_STAG,         /* iterations since KS_BEST decreased */
  KS_PRECOND,      /* 1 with a preconditioner, 0 without (CG: rho = rr then) */
  KS_FLAG,         /* 0 running, else a kry_flag */
  KS_COUNT
};

/* Scratch slots after the KS_COUNT named ones (every backend holds
 * KS_COUNT + KS_SCRATCH): KS_COUNT is the device backend's dot_host slot,
 * KS_SUMS .. KS_SUMS + KS_NSUMS - 1 receive the distributed backend's sums
 * of the parts' partial dots before `take_sums` moves them into their slots. */
#define KS_SCRATCH 8
#define KS_SUMS (KS_COUNT + 1)
#define KS_NSUMS 4

/* KS_FLAG values: 1 + cis_krylov_end. */
enum kry_flag {
  KF_RUNNING = 0,
  KF_CONVERGED = 1,
  KF_MAXIT = 2,
  KF_BREAK_RHO = 3,
  KF_BREAK_OMEGA = 4,
  KF_BREAK_RV = 5,
  KF_BREAK_PAP = 6,
  KF_STAGNATION = 7,
  KF_NONFINITE = 8
};

/* Scalar programs, run after the reductions of a step have landed in their
 * slots. */
enum kry_prog {
  KP_NONE = 0,
  KP_INIT,           /* after r0 (RR, BB, RHO set by the solver): IT = 0, BEST = RR,
                        record, converged if RR <= tol^2 BB, else break if RHO == 0 */
  KP_CG_ALPHA,       /* alpha = rho / sigma; sigma <= 0 -> BREAK_PAP */
  KP_CG_BETA,        /* end of CG iteration: beta = rho_new / rho, rho = rho_new */
  KP_BICG_ALPHA,     /* alpha = rho / sigma; sigma == 0 -> BREAK_RV */
  KP_BICG_BETA,      /* end of BiCG iteration; rho_new == 0 -> BREAK_RHO */
  KP_BICGSTAB_ALPHA, /* alpha = rho / (r^, v); (r^, v) == 0 -> BREAK_RV */
  KP_BICGSTAB_OMEGA, /* omega = (t, s) / (t, t), 0 when t = 0 (BREAK_OMEGA at the end of
                        the iteration unless it converged) */
  KP_BICGSTAB_BETA,  /* end of BiCGStab iteration: beta = (rho_new/rho)(alpha/omega) */
  KP_COUNT
};

KRY_HD int kry_finite(double v) { return v - v == 0; } /* NaN and Inf fail */

/* End the solve with flag f. The step coefficients are zeroed so that an
 * unfused version's remaining updates of this iteration leave x as it is. */
KRY_HD void kry_stop(double *s, int f) {
  s[KS_FLAG] = f;
  s[KS_ALPHA] = 0;
  s[KS_OMEGA] = 0;
  s[KS_BETA] = 0;
  s[KS_BETA_OMEGA] = 0;
}

KRY_HD void kry_record(double *s, double *hist, int hist_len) {
  int it = (int)s[KS_IT];
  if (hist && it >= 0 && it < hist_len) hist[it] = sqrt(s[KS_RR] / s[KS_BB]);
}

/* Residual bookkeeping at the end of an iteration (or after r0): record,
 * converged / non-finite / stagnation / maxit. Returns 1 when the solve ends. */
KRY_HD int kry_end_of_iteration(double *s, double *hist, int hist_len) {
  double rr = s[KS_RR];
  kry_record(s, hist, hist_len);
  if (!kry_finite(rr)) { kry_stop(s, KF_NONFINITE); return 1; }
  if (rr <= s[KS_TOL] * s[KS_TOL] * s[KS_BB]) { kry_stop(s, KF_CONVERGED); return 1; }
  if (rr < s[KS_BEST]) { s[KS_BEST] = rr; s[KS_STAG] = 0; }
  else s[KS_STAG] += 1;
  if (s[KS_STAG_MAX] > 0 && s[KS_STAG] >= s[KS_STAG_MAX]) { kry_stop(s, KF_STAGNATION); return 1; }
  if (s[KS_IT] >= s[KS_MAXIT]) { kry_stop(s, KF_MAXIT); return 1; }
  return 0;
}

/* Run program p on the slots. Does nothing once KS_FLAG is set. */
KRY_HD void kry_prog_run(int p, double *s, double *hist, int hist_len) {
  if (s[KS_FLAG] != KF_RUNNING || p == KP_NONE) return;
  switch (p) {
    case KP_INIT:
      s[KS_IT] = 0;
      s[KS_STAG] = 0;
      s[KS_BEST] = s[KS_RR];
      if (kry_end_of_iteration(s, hist, hist_len)) return;
      if (!kry_finite(s[KS_RHO])) { kry_stop(s, KF_NONFINITE); return; }
      if (s[KS_RHO] == 0) kry_stop(s, KF_BREAK_RHO);
      return;
    case KP_CG_ALPHA:
    case KP_BICG_ALPHA:
    case KP_BICGSTAB_ALPHA: {
      double sigma = s[KS_SIGMA];
      if (!kry_finite(sigma)) { kry_stop(s, KF_NONFINITE); return; }
      if (p == KP_CG_ALPHA ? !(sigma > 0) : sigma == 0) {
        kry_stop(s, p == KP_CG_ALPHA ? KF_BREAK_PAP : KF_BREAK_RV);
        return;
      }
      s[KS_ALPHA] = s[KS_RHO] / sigma;
      return;
    }
    case KP_BICGSTAB_OMEGA: {
      /* t = A s = 0 (s = 0: the half step x + alpha p^ solves; else A is
       * singular) gives omega = 0: the iteration ends at the half step and
       * KP_BICGSTAB_BETA reports BREAK_OMEGA unless it converged. */
      double ts = s[KS_TS], tt = s[KS_TT];
      if (!kry_finite(ts) || !kry_finite(tt)) { kry_stop(s, KF_NONFINITE); return; }
      s[KS_OMEGA] = tt == 0 ? 0 : ts / tt;
      return;
    }
    case KP_CG_BETA:
    case KP_BICG_BETA:
    case KP_BICGSTAB_BETA: {
      double rho_new;
      s[KS_IT] += 1;
      if (p == KP_CG_BETA && !s[KS_PRECOND]) s[KS_RHO_NEW] = s[KS_RR];
      rho_new = s[KS_RHO_NEW];
      if (kry_end_of_iteration(s, hist, hist_len)) return;
      if (p == KP_BICGSTAB_BETA && s[KS_OMEGA] == 0) { kry_stop(s, KF_BREAK_OMEGA); return; }
      if (!kry_finite(rho_new)) { kry_stop(s, KF_NONFINITE); return; }
      if (rho_new == 0) { kry_stop(s, KF_BREAK_RHO); return; }
      s[KS_BETA] = rho_new / s[KS_RHO];
      if (p == KP_BICGSTAB_BETA) {
        s[KS_BETA] *= s[KS_ALPHA] / s[KS_OMEGA];
        s[KS_BETA_OMEGA] = s[KS_BETA] * s[KS_OMEGA];
      }
      s[KS_RHO] = rho_new;
      return;
    }
    default:
      return;
  }
}

#endif
