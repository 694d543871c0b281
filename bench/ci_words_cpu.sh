#!/usr/bin/env bash
# ci_words_cpu.sh: the Hamiltonian build before and after, by CPU time in one
# process (bench/ci_build_cpu_time.c linked against each build's static
# library, compiled with that tree's own headers), interleaved round by round.
# usage: bash bench/ci_words_cpu.sh BEFORE_SRC BEFORE_BUILD AFTER_SRC AFTER_BUILD ROUNDS REPS [FILE:LEVEL ...]
set -eu
SA=$1 BA=$2 SB=$3 BB=$4 ROUNDS=$5 REPS=$6
shift 6
CASES=${*:-../shared/ci/h2o_631g.FCIDUMP:2 ../shared/ci/h2o_631g.FCIDUMP:3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in a b; do
  src=$SA bld=$BA; [ $s = b ] && src=$SB bld=$BB
  gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -I"$src/include" -I"$bld/include" "$here/ci_build_cpu_time.c" \
    "$bld/libcisparse.a" -lm -o "$tmp/t_$s"
done
for threads in 1 2; do
  for c in $CASES; do
    for r in $(seq "$ROUNDS"); do
      for s in a b; do
        echo "threads $threads round $r $([ $s = a ] && echo before || echo after): $(OMP_NUM_THREADS=$threads "$tmp/t_$s" "${c%:*}" "${c##*:}" "$REPS")"
      done
    done
  done
done
