/* parts_split.c: the alpha strings of a direct sigma split over parts by
 * their work (ci_solve_dist_direct.c): by a model of each string's work,
 * and again by the parts' measured times, as a distributed code balances
 * its load from what it measured (the model's cost per string scaled by
 * its part's measured seconds per unit of model; cf. Zoltan's and
 * PETSc's repartitioning from measured weights). */
#include "ci/ci_internal.h"

void ci_split_weights(const double *w, cis_int nsa, int parts, cis_int *alo) {
  double total = 0, run = 0;
  for (cis_int A = 0; A < nsa; ++A) total += w[A];
  alo[0] = 0;
  cis_int A = 0;
  for (int p = 1; p < parts; ++p) {
    const double goal = total * p / parts;
    while (A < nsa - (parts - p) && (A < alo[p - 1] + 1 || run + 0.5 * w[A] < goal)) run += w[A++];
    alo[p] = A;
  }
  alo[parts] = nsa;
}

double ci_split_rescaled(double *w, cis_int nsa, int parts, const cis_int *alo, const double *seconds,
                         cis_int *out) {
  double most = 0, rate_sum = 0;
  int rated = 0;
  for (int p = 0; p < parts; ++p) {
    double W = 0;
    for (cis_int A = alo[p]; A < alo[p + 1]; ++A) W += w[A];
    if (W > 0 && seconds[p] > 0) rate_sum += seconds[p] / W, ++rated;
  }
  const double fallback = rated ? rate_sum / rated : 1.0; /* a part without a time or work: the mean rate */
  for (int p = 0; p < parts; ++p) {
    double W = 0;
    for (cis_int A = alo[p]; A < alo[p + 1]; ++A) W += w[A];
    const double rate = W > 0 && seconds[p] > 0 ? seconds[p] / W : fallback;
    for (cis_int A = alo[p]; A < alo[p + 1]; ++A) w[A] *= rate;
    if (seconds[p] > most) most = seconds[p];
  }
  ci_split_weights(w, nsa, parts, out);
  double next = 0; /* the new split's slowest part, predicted */
  for (int p = 0; p < parts; ++p) {
    double s = 0;
    for (cis_int A = out[p]; A < out[p + 1]; ++A) s += w[A];
    if (s > next) next = s;
  }
  return most > 0 ? next / most : 1.0;
}
