#!/usr/bin/env bash
# ci.sh: `cisparse ci` end to end: --json for CISD and FCI against
# reference.tsv, the text report, --symmetric, --roots, --occ, and bad input
# (one line "cisparse: FILE:LINE: ...", exit 1; usage errors exit 2),
# integrals that contradict ORBSYM included.
# usage: bash ci.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
CI=$SHARED/ci
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# json_field FILE KEY -> the first number after "KEY":
json_field() { grep -o "\"$2\": *-\?[0-9.eE+-]*" "$1" | head -1 | sed 's/.*: *//'; }
ref() { awk -v n="$1" -v c="$2" -F'\t' '$1 == "name" { for (i = 1; i <= NF; i++) col[$i] = i; next }
                                          $1 == n { print $(col[c]) }' "$CI/reference.tsv"; }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < t) }'; }

check_json() { # name level extra-args... : determinants and energy vs reference.tsv
  local name=$1 level=$2; shift 2
  local out=$tmp/$name.$level.json dets e col_e col_d
  if [ "$level" = full ]; then col_e=efci; col_d=fci_dets; else col_e=ecisd; col_d=cisd_dets; fi
  "$CIS" ci "$CI/$name.FCIDUMP" --level "$level" --method stored --json "$@" > "$out" 2> "$tmp/err"
  local rc=$?
  if [ $rc != 0 ]; then fail "$name --level $level $*: exit $rc ($(cat "$tmp/err"))"; return; fi
  dets=$(json_field "$out" determinants)
  e=$(grep -o '"roots": \[{"energy": *-\?[0-9.]*' "$out" | sed 's/.*: *//')
  [ "$dets" = "$(ref "$name" $col_d)" ] || fail "$name $level: $dets determinants, reference $(ref "$name" $col_d)"
  close_to "$e" "$(ref "$name" $col_e)" 1e-8 || fail "$name $level: energy $e, reference $(ref "$name" $col_e)"
  grep -q '"correlation": -' "$out" || fail "$name $level: no negative correlation energy in $(cat "$out")"
  grep -q '"nnz": [1-9]' "$out" || fail "$name $level: no nnz"
}

check_json h4_sto3g full
check_json h4_sto3g 2 --format csr
check_json lih_sto3g 2 --symmetric
check_json beh2_sto3g full --format csr --roots 3
check_json h2o_sto3g full --occ 1,2,3,4,5
check_json h2o_631g 2 --symmetric --tol 1e-9

# --values float: sell16 with float values (double sums): the energy moves by
# the values' rounding only (measured 5.2e-7 Eh on this CISD), flagged in the JSON
"$CIS" ci "$CI/h2o_631g.FCIDUMP" --level 2 --values float --json > "$tmp/fv.json" 2> "$tmp/err" || fail "--values float exit $?"
e=$(grep -o '"roots": \[{"energy": *-\?[0-9.]*' "$tmp/fv.json" | sed 's/.*: *//')
close_to "$e" "$(ref h2o_631g ecisd)" 1e-5 || fail "--values float: energy $e, reference $(ref h2o_631g ecisd)"
grep -q '"format": "sell16", "values": "float"' "$tmp/fv.json" || fail "--values float: JSON $(head -c 300 "$tmp/fv.json")"
"$CIS" ci "$CI/h2o_631g.FCIDUMP" --level 2 --values float --format hyb > /dev/null 2>&1
[ $? = 2 ] || fail "--values float --format hyb is not a usage error"

# --count: the counting pass gives the nonzeros the build stores
"$CIS" ci "$CI/beh2_sto3g.FCIDUMP" --count --json > "$tmp/count.json" 2>&1 || fail "--count exit $?"
[ "$(json_field "$tmp/count.json" nnz)" = "$(json_field "$tmp/beh2_sto3g.full.json" nnz)" ] ||
  fail "--count nnz $(json_field "$tmp/count.json" nnz) != built $(json_field "$tmp/beh2_sto3g.full.json" nnz)"

# text report
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --format csr > "$tmp/h4.txt" 2>&1 || fail "text report exit $?"
for w in "orbitals      4" "36 determinants" "nonzeros" "memory" "davidson" "E = -2.16638744" "E_corr = -0.06784151"; do
  grep -q -- "$w" "$tmp/h4.txt" || fail "text report lacks '$w'"
done

# an integral that ORBSYM forbids: refused in one line naming it (never a
# symmetry-blocked energy printed as full CI); without ORBSYM the same
# integrals run in C1
D2H=$(dirname "$0")/../data/ci/n2_sto3g_d2h.FCIDUMP
{ cat "$D2H"; echo ' 0.03 2 1 1 1'; } > "$tmp/sym.FCIDUMP"
"$CIS" ci "$tmp/sym.FCIDUMP" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ! grep -qi "energy" "$tmp/out" &&
  grep -q "^cisparse: $tmp/sym.FCIDUMP:[0-9]*: integral (2 1|1 1) = 0.03 couples orbitals of ORBSYM irreps 5 1 1 1.*remove ORBSYM" "$tmp/err" ||
  fail "symmetry-breaking integral: exit $rc, $(cat "$tmp/err") $(head -3 "$tmp/out")"
grep -v ORBSYM "$tmp/sym.FCIDUMP" > "$tmp/c1.FCIDUMP"
"$CIS" ci "$tmp/c1.FCIDUMP" > "$tmp/out" 2> "$tmp/err" || fail "the same integrals without ORBSYM: $(cat "$tmp/err")"

# bad input: one line naming the problem, exit 1; usage errors exit 2
printf '&FCI NORB=2,NELEC=2,MS2=0 &END\n 0.5 1 1 1 1\n 0.5 1 3 1 1\n' > "$tmp/bad.FCIDUMP"
"$CIS" ci "$tmp/bad.FCIDUMP" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] || fail "bad index: exit $rc"
grep -q "^cisparse: $tmp/bad.FCIDUMP:3: orbital index 3 out of range" "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 1 ] ||
  fail "bad index message: $(cat "$tmp/err")"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --occ 1,9 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "out of range" "$tmp/err" || fail "--occ 1,9: exit $rc, $(cat "$tmp/err")"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --roots 0 > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--roots 0: exit $rc"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --level two > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--level two: exit $rc"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --format nosuch > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--format must be auto, csr .*got 'nosuch'" "$tmp/err" || fail "--format nosuch: exit $rc, $(cat "$tmp/err")"
"$CIS" ci /nonexistent.FCIDUMP > /dev/null 2>&1; rc=$?
[ $rc = 1 ] || fail "missing file: exit $rc"

# --save: the Hamiltonian written by ci is the matrix info reads back (h4 FCI: 36 x 36, 524 nonzeros)
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --save "$tmp/h4.cisb" > /dev/null 2>&1 || fail "--save exited nonzero"
"$CIS" info "$tmp/h4.cisb" --json > "$tmp/h4.json" 2>&1 &&
  python3 -c "import json,sys; d=json.load(open('$tmp/h4.json')); sys.exit(0 if (d['rows'],d['nnz'])==(36,524) else 1)" ||
  fail "--save: info of the saved Hamiltonian: $(head -c 300 "$tmp/h4.json")"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --save /nonexistent-dir/h.cisb > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] || fail "--save to a bad path: exit $rc, $(cat "$tmp/err")"
# --build: where the Hamiltonian is built (gpu is the default with --device gpu)
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --build gpu > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--build gpu needs --device gpu" "$tmp/err" || fail "--build gpu on cpu: exit $rc, $(cat "$tmp/err")"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --build fpga > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--build fpga: exit $rc"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --device gpu --format ell > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--format ell needs --build cpu" "$tmp/err" || fail "gpu build --format ell: exit $rc, $(cat "$tmp/err")"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --device gpu --kernel hyb > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--kernel needs --build cpu" "$tmp/err" || fail "gpu build --kernel: exit $rc, $(cat "$tmp/err")"
"$CIS" ci "$CI/n2_sto3g.FCIDUMP" --method stored --device gpu --json > "$tmp/gpu.json" 2> "$tmp/err"; rc=$?
if [ $rc = 0 ]; then
  grep -q '"build": "gpu"' "$tmp/gpu.json" || fail "--device gpu did not build on the GPU: $(cat "$tmp/gpu.json")"
  check_json n2_sto3g full --device gpu
  check_json n2_sto3g full --device gpu --build cpu
  check_json h2o_631g 2 --device gpu --build gpu
else # no device here: one line saying so, exit 1
  [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE "^cisparse: .*(CUDA|NVIDIA GPU)" "$tmp/err" ||
    fail "--device gpu without a GPU: exit $rc, $(cat "$tmp/err")"
fi
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --device gpu --build gpu --save "$tmp/x.cisb" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--save needs --build cpu" "$tmp/err" || fail "gpu build --save: exit $rc, $(cat "$tmp/err")"

# the stored path's default format is --format auto (cis_format_auto): named on stderr and in the output
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --level 2 > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc = 0 ] && grep -q "^--format auto: " "$tmp/err" && grep -q "^format        csr" "$tmp/out" &&
  grep -q "E = -75.0118731697" "$tmp/out" || fail "default --format auto: exit $rc, $(cat "$tmp/err")"

[ $fails = 0 ] && echo "cli ci: ok" || echo "cli ci: $fails failures"
exit $((fails > 0))
