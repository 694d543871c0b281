#!/usr/bin/env bash
# options.sh: the library's tuning options reach the tool through the one
# environment variable CISPARSE_OPTIONS="name=value,..." (read once at
# start by cis_options_from_env) and through -o name=value before the
# command: a bad value, a value out of range or a misspelt name is refused
# in one line naming the variable (exit 1) or -o (exit 2, a usage error) and
# the option, before any work; a good one runs; the per-option variables of old are not read;
# `cisparse options` lists every option with its default and value; an
# option set but not read by the command is reported in one warning line.
# usage: bash options.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail
H2O=$SHARED/ci/h2o_sto3g.FCIDUMP
for bad in "sigma=fast" "hyb_g=64" "half_scater=all" "sigma=unfused,sigmaa=fused" "dist_resplit=" ; do
  opt=${bad##*,}
  opt=${opt%%=*}
  env CISPARSE_OPTIONS="$bad" "$CIS" ci "$H2O" > "$tmp/out" 2> "$tmp/err"; rc=$?
  if [ -z "${bad#*=}" ]; then # name=: the default, as unset
    [ $rc = 0 ] || fail "CISPARSE_OPTIONS=$bad (empty) refused: $(cat "$tmp/err")"
    continue
  fi
  [ $rc = 1 ] || fail "CISPARSE_OPTIONS=$bad: exit $rc, want 1"
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "CISPARSE_OPTIONS" "$tmp/err" && grep -q "$opt" "$tmp/err" ||
    fail "CISPARSE_OPTIONS=$bad: message $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && fail "CISPARSE_OPTIONS=$bad: output before the refusal: $(head -2 "$tmp/out")"
  "$CIS" -o "$bad" ci "$H2O" > "$tmp/out" 2> "$tmp/err"; rc=$?
  [ $rc = 2 ] || fail "-o $bad: exit $rc, want 2 (a usage error)"
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q -- "-o" "$tmp/err" && grep -q "$opt" "$tmp/err" ||
    fail "-o $bad: message $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && fail "-o $bad: output before the refusal: $(head -2 "$tmp/out")"
done
"$CIS" -o > /dev/null 2> "$tmp/err" && fail "-o without NAME=VALUE accepted"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "-o alone: message $(cat "$tmp/err")"
CISPARSE_OPTIONS=sigma=unfused,half_scatter=all "$CIS" ci "$H2O" > "$tmp/out" 2> "$tmp/err" || fail "good options: $(cat "$tmp/err")"
grep -q "^root 0 .*E = -75.01257824" "$tmp/out" || fail "good options: $(grep root "$tmp/out")"
"$CIS" -o sigma=unfused -o half_scatter=all ci "$H2O" > "$tmp/out" 2> "$tmp/err" || fail "good -o: $(cat "$tmp/err")"
grep -q "^root 0 .*E = -75.01257824" "$tmp/out" || fail "good -o: $(grep root "$tmp/out")"
CISPARSE_SIGMA=fast "$CIS" ci "$H2O" > /dev/null 2> "$tmp/err" || fail "CISPARSE_SIGMA (no longer read) refused: $(cat "$tmp/err")"

# the listing: every option of the table, its default and the value set (-o over CISPARSE_OPTIONS)
CISPARSE_OPTIONS=sigma=fused,hyb_g=8 "$CIS" -o sigma=unfused options > "$tmp/out" 2> "$tmp/err" || fail "options: exit $?"
[ -s "$tmp/err" ] && fail "options printed on stderr: $(cat "$tmp/err")"
[ "$(grep -cE '^(hyb_g|hyb_unroll|hyb_lock|fused_ell_lb|sell_p|sell_u|sell_bpsm|sym_seg_r|sym_seg_chunks|sym_seg_layout|sigma|half_scatter|dist_sum|dist_resplit|host_vectors_pin|exchange_priority|dist_trace|energy_nvml|energy_rapl) ' "$tmp/out")" = 19 ] ||
  fail "options does not list the 19 options: $(cat "$tmp/out")"
grep -qE '^sigma +word +auto +unfused +auto fused unfused ' "$tmp/out" || fail "options: sigma row $(grep '^sigma ' "$tmp/out")"
grep -qE '^hyb_g +integer .* 8 +1\.\.32 ' "$tmp/out" || fail "options: hyb_g row $(grep '^hyb_g ' "$tmp/out")"
grep -qE '^hyb_unroll +integer +4 +\(default\) +1\.\.8 ' "$tmp/out" || fail "options: hyb_unroll row $(grep '^hyb_unroll ' "$tmp/out")"

# set but not used: one warning line naming it (the GPU sigma on a CPU run); used: none
"$CIS" -o sigma=unfused ci "$H2O" > /dev/null 2> "$tmp/err" || fail "unused option: exit $?"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "warning: option set but not used by this command: sigma$" "$tmp/err" ||
  fail "unused sigma: stderr $(cat "$tmp/err")"
"$CIS" -o sym_seg_r=64 ci "$H2O" --method stored --format sym-seg > /dev/null 2> "$tmp/err" || fail "sym_seg_r: exit $?"
[ -s "$tmp/err" ] && fail "sym_seg_r is read by the sym-seg build, yet: $(cat "$tmp/err")"
echo "options.sh: $fails failure(s)"
exit $((fails > 0))
