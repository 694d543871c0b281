#!/usr/bin/env bash
# threads_load.sh: the small runs of issue 27 item 3 (OpenMP threads that
# fight on a shared machine), with the tool's default threads and with one
# thread, and the machine's load average beside each.
# usage: bash bench/threads_load.sh CISPARSE [SHARED]   (SHARED default ../shared)
# Prints per case: the CI solve seconds or the solver's ms per iteration.
set -u
CIS=$1
SHARED=${2:-../shared}
load() { cut -d' ' -f1 /proc/loadavg; }
ci_time() { "$CIS" ci "$SHARED/ci/h2o_sto3g.FCIDUMP" "$@" | sed -n 's/^time *solve \([0-9.]*\) s.*/\1 s solve/p'; }
it_time() { "$CIS" solve "$@" 2>&1 | sed -n 's/^time *\([0-9.]*\) ms per iteration.*/\1 ms per iteration/p'; }
for threads in default 1; do
  if [ "$threads" = 1 ]; then export OMP_NUM_THREADS=1; else unset OMP_NUM_THREADS; fi
  echo "== threads $threads (load $(load))"
  echo "ci h2o_sto3g:            $(ci_time)"
  echo "solve cage8 (cg):        $(it_time "$SHARED/matrices/cage8.mtx")"
  echo "solve bcsstk09 (pcg):    $(it_time "$SHARED/matrices/bcsstk09.mtx" --method cg --precond jacobi)"
done
