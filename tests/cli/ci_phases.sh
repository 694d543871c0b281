#!/usr/bin/env bash
# ci_phases.sh: `cisparse ci --verbose` accounts for its wall time: after the
# report one line a phase ("phase  NAME  SECONDS s  PCT%"), the stored path's
# (parse, space, estimate, build: rows / sort / format, diagonal, guess,
# davidson, <S^2>) and the direct path's (parse, space, operators, guess,
# davidson, <S^2>), then output, other (the total less the phases) and total:
# the named phases sum to the total within 10% + 0.05 s, i.e. "other" is
# small, and the lines add up. With --json the phases go to stderr and stdout
# stays one JSON object. Without --verbose the stored path builds no format
# but the one it runs: the JSON memory holds the host CSR and that format,
# the text's memory line gives csr/ell/ellr by formula and no other format.
# usage: bash ci_phases.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
H2O=$2/ci/h2o_sto3g.FCIDUMP
N2=$2/ci/n2_sto3g.FCIDUMP
[ -e "$H2O" ] && [ -e "$N2" ] || { echo "skipped: no $H2O or $N2"; exit 77; }
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to

# phases FILE WHAT NAME...: FILE's phase lines hold each NAME, sum to the
# total within 10% + 0.05 s without "other", and to it to rounding with it
phases() {
  local f=$1 what=$2 name sum; shift 2
  for name in "$@" output other total; do
    grep -qE "^phase +$(printf '%s' "$name" | sed 's/[][^$.*+?(){}|\\]/\\&/g') +[0-9]+\.[0-9]{4} s +[0-9.]+%" "$f" ||
      fail "$what: no phase line '$name' in: $(grep '^phase' "$f" | tr '\n' '|')"
  done
  sum=$(awk '/^phase / { for (i = 2; i <= NF; i++) if ($i == "s") { v = $(i - 1); break }
                         name = $2; for (j = 3; j < i - 1; j++) name = name " " $j
                         if (name == "total") t = v; else if (name == "other") o = v; else n += v }
             END { printf "%.4f %.4f %.4f\n", n, o, t }' "$f")
  read -r named other total <<< "$sum"
  awk -v n="$named" -v o="$other" -v t="$total" 'BEGIN { d = t - n; exit !(t > 0 && d <= 0.1 * t + 0.05 && d >= -0.001) }' ||
    fail "$what: the named phases sum to $named s of $total s in all (other $other s): more than 10% + 0.05 s apart"
  close_to "$(awk -v n="$named" -v o="$other" 'BEGIN { print n + o }')" "$total" 0.002 ||
    fail "$what: phases $named + other $other != total $total"
}

# stored (4 roots, N2 STO-3G, 14,400 determinants): build sub-phases, and with --verbose the formats compared
"$CIS" ci "$N2" --method stored --roots 4 --verbose > "$tmp/s.out" 2> "$tmp/s.err" || fail "stored --verbose: exit $?"
phases "$tmp/s.out" "stored --verbose" parse setup space estimate "build: rows" "build: sort" "build: format" \
  "formats compared" diagonal guess davidson "<S^2>"
grep -q '^memory .* sell16 [0-9.]* MiB' "$tmp/s.out" || fail "stored --verbose: the memory line lacks the formats compared"
[ "$(grep -n '^phase  *total ' "$tmp/s.out" | cut -d: -f1)" -gt "$(grep -n '^root 3' "$tmp/s.out" | cut -d: -f1)" ] ||
  fail "stored --verbose: the phases are not after the report"

# direct (auto: full CI, one root)
"$CIS" ci "$H2O" --verbose > "$tmp/d.out" 2> "$tmp/d.err" || fail "direct --verbose: exit $?"
grep -q '^method  *direct' "$tmp/d.out" || fail "h2o auto did not run direct: $(grep '^method' "$tmp/d.out")"
phases "$tmp/d.out" "direct --verbose" parse setup space operators guess davidson "<S^2>"

# --json --verbose: phases on stderr, stdout one JSON object
"$CIS" ci "$N2" --method stored --roots 2 --json --verbose > "$tmp/j.out" 2> "$tmp/j.err" || fail "--json --verbose: exit $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j.out" 2>/dev/null || fail "--json --verbose: stdout not one JSON object"
phases "$tmp/j.err" "--json --verbose (stderr)" parse "build: rows" davidson

# without --verbose: only the format that runs is built
"$CIS" ci "$N2" --method stored --roots 2 --json > "$tmp/m.json" 2> /dev/null || fail "stored --json: exit $?"
python3 - "$tmp/m.json" <<'EOF' || fail "stored --json: formats built that the run does not use"
import json, sys
r = json.load(open(sys.argv[1]))
mem = {k: v for k, v in r["memory"].items() if k not in ("host_csr", "device_csr")}
assert list(mem) == [r["format"]] and mem[r["format"]] > 0, (r["format"], r["memory"])
EOF
"$CIS" ci "$N2" --method stored --roots 2 > "$tmp/m.out" 2> /dev/null || fail "stored: exit $?"
grep -qE '^memory .*, ell [0-9.]+ MiB \(formula, not built\), ellr [0-9.]+ MiB \(formula, not built\)' "$tmp/m.out" ||
  fail "stored: the memory line lacks ell/ellr by formula: $(grep '^memory' "$tmp/m.out")"
grep -qE '^memory .*(sell|csb|hyb|csr5)' "$tmp/m.out" && fail "stored: a format not run in the memory line: $(grep '^memory' "$tmp/m.out")"
grep -q '^phase' "$tmp/m.out" && fail "stored without --verbose printed phase lines"

echo "$fails failure(s)"
exit $((fails > 0))
