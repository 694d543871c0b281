/* solver_internal.h: internal entry points behind cisparse/solver.h (not
 * exported; the library and its tests only). */
#ifndef CISPARSE_SOLVERS_SOLVER_INTERNAL_H
#define CISPARSE_SOLVERS_SOLVER_INTERNAL_H

#include "cisparse/solver.h"

/* ---- moved from cisparse/solver.h: internal, not exported -------------------------------- */

/* The subspace cis_davidson_operator keeps for k roots when asked for
 * max_sub (0: max(8 k, 24)) with nguess guess vectors (0: none): never
 * below 2 k, nor below nguess + k (before the cap at the dimension). */
int davidson_subspace(int k, int max_sub, int nguess);

/* Dimension-length vectors cis_davidson_operator allocates in the
 * operator's memory space for k roots and that subspace: V and H V
 * (max_sub each; the Ritz vectors and their residuals use their free
 * slots, the collapse being in place) and the diagonal, 2 max_sub + 1
 * whatever k (a space of at most max_sub rows: 2 k more, of its tiny
 * size); what a caller checks against free memory before the run. */
int davidson_vectors(int k, int max_sub);

#endif
