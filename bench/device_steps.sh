# device_steps.sh: the deadline-bounded steps every device script runs by
# (sourced, not run). Before sourcing set OUT and BUDGET_S (seconds after
# the start); after it: $L (logs folder), $S (summary file), and
#   say TEXT...          print and append to the summary
#   elapsed              seconds since the start
#   step NAME CAP CMD... run CMD with a cap of min(CAP, time left), log to
#                        $L/NAME.log, one summary line; on failure the last
#                        5 lines too, unless NAME starts with $STEP_QUIET
#                        (a prefix; empty = never quiet). A step that
#                        would start with under 15 s left is skipped.
#   prelude NAME         the summary's header (script, host, date, GPU);
#                        sets SH (shared data: $CISPARSE_SHARED_DIR or
#                        ./.shared) and H2O (its H2O 6-31G FCIDUMP)
#   step_build CAP [T]   configure and build build/ for sm_90 with SH as the
#                        shared data: the whole tree, or target T
mkdir -p "$OUT/logs"
L=$OUT/logs
S=$OUT/summary.txt
T0=$(date +%s)
: >"$S"

say() { echo "$*" | tee -a "$S"; }
elapsed() { echo $(($(date +%s) - T0)); }

step() {
  local name=$1 cap=$2 left rc t
  shift 2
  left=$((BUDGET_S - $(elapsed)))
  if [ "$left" -lt 15 ]; then
    say "== $name: SKIPPED (deadline: $(elapsed) s of $BUDGET_S used)"
    return 99
  fi
  [ "$cap" -gt "$left" ] && cap=$left
  t=$(date +%s)
  timeout --signal=INT --kill-after=10 "$cap" "$@" >"$L/$name.log" 2>&1
  rc=$?
  say "== $name: exit $rc in $(($(date +%s) - t)) s (cap $cap s)$([ $rc -eq 124 ] && echo ' TIMED OUT')"
  if [ $rc -ne 0 ] && { [ -z "${STEP_QUIET:-}" ] || [ "${name#"$STEP_QUIET"}" = "$name" ]; }; then
    tail -n 5 "$L/$name.log" | sed 's/^/   | /' >>"$S"
  fi
  return $rc
}

prelude() {
  say "$1 on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >>"$S" 2>&1
  SH=${CISPARSE_SHARED_DIR:-$PWD/.shared}
  H2O=$SH/ci/h2o_631g.FCIDUMP
}

step_build() {
  step build "$1" bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=90 \
    -DCISPARSE_SHARED_DIR=$SH && cmake --build build -j16 ${2:+--target $2}"
}
