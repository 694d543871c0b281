#!/usr/bin/env bash
# ci_direct.sh: `cisparse ci --method direct|stored|auto`: the direct FCI
# energies (JSON and text) against reference.tsv to 1e-9, direct and stored
# roots equal, auto's choice stated, an active-space-like file with ECORE and
# MS2 = 2, point-group symmetry (blocked and projected) against stored, and the
# refusals (truncated CI, stored-matrix options, bad --method); --device gpu
# (the GPU direct sigma: energy, JSON fields, auto's choice; or the no-GPU line).
# usage: bash ci_direct.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
CI=$SHARED/ci
DATA=$(cd "$(dirname "$0")/../data/ci" && pwd)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ref() { awk -v n="$1" -v c="$2" -F'\t' '$1 == "name" { for (i = 1; i <= NF; i++) col[$i] = i; next }
                                          $1 == n { print $(col[c]) }' "$CI/reference.tsv"; }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < t) }'; }
energies() { grep -o '"energy": *-\?[0-9.]*' "$1" | sed 's/.*: *//'; }

for name in h4_sto3g lih_sto3g h2o_sto3g beh2_sto3g n2_sto3g; do
  out=$tmp/$name.json
  "$CIS" ci "$CI/$name.FCIDUMP" --method direct --json --tol 1e-9 > "$out" 2> "$tmp/err" \
    || { fail "$name direct: exit $? ($(cat "$tmp/err"))"; continue; }
  grep -q '"method": "direct"' "$out" || fail "$name: no \"method\": \"direct\" in $(cat "$out")"
  grep -q "\"determinants\": $(ref "$name" fci_dets)," "$out" || fail "$name: determinants in $(cat "$out")"
  e=$(energies "$out" | head -1)
  close_to "$e" "$(ref "$name" efci)" 1e-9 || fail "$name direct: energy $e, reference $(ref "$name" efci)"
done

# MS2 = 0 on the CPU: every Davidson product a half sigma (corrections kept
# exactly alpha <-> beta pure) for one root; for three (both parities) all but
# a few (a correction from a residual at round-off, 1e-15, is noise of no
# parity: it gets the full sigma); --repeat 2 reports two runs
for r in 1 3; do
  "$CIS" ci "$CI/n2_sto3g.FCIDUMP" --method direct --roots $r --repeat 2 --json > "$tmp/hs$r" 2> "$tmp/err" \
    || fail "n2 --roots $r --repeat 2: $(cat "$tmp/err")"
  p=$(grep -o '"products": [0-9]*' "$tmp/hs$r" | sed 's/.*: //')
  h=$(grep -o '"half_sigmas": [0-9]*' "$tmp/hs$r" | sed 's/.*: //')
  [ -n "$p" ] && [ -n "$h" ] && [ "$p" -gt 0 ] && { [ "$p" = "$h" ] || { [ $r -gt 1 ] && [ $((10 * h)) -ge $((8 * p)) ]; }; } \
    || fail "n2 --roots $r: $h of $p products by the half sigma"
  grep -q '"to_solution_runs": \[[0-9.]*, [0-9.]*\]' "$tmp/hs$r" || fail "n2 --repeat 2: runs in $(cat "$tmp/hs$r")"
done
"$CIS" ci "$CI/n2_sto3g.FCIDUMP" --method stored --repeat 2 > /dev/null 2>&1 && fail "--repeat with --method stored accepted"

# three roots: direct and stored agree (the space has triplets: degenerate roots are fine)
"$CIS" ci "$CI/beh2_sto3g.FCIDUMP" --method direct --roots 3 --json > "$tmp/d3" || fail "beh2 direct --roots 3"
"$CIS" ci "$CI/beh2_sto3g.FCIDUMP" --method stored --roots 3 --json > "$tmp/s3" || fail "beh2 stored --roots 3"
paste <(energies "$tmp/d3") <(energies "$tmp/s3") > "$tmp/pairs"
[ "$(wc -l < "$tmp/pairs")" = 3 ] || fail "beh2 --roots 3: $(cat "$tmp/pairs")"
while read -r a b; do close_to "$a" "$b" 1e-8 || fail "beh2 root: direct $a stored $b"; done < "$tmp/pairs"

# the text report names the method and the GEMM
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method direct > "$tmp/text" || fail "h2o direct text"
grep -q '^method        direct (--method direct): matrix-free sigma' "$tmp/text" || fail "text: method line in $(cat "$tmp/text")"
grep -q '^gemm          ' "$tmp/text" || fail "text: gemm line"
grep -q 'per sigma' "$tmp/text" || fail "text: sigma timing"
grep -q '^root 0        E = -75.01257824' "$tmp/text" || fail "text: energy"
# auto (docs/ci.md's rule): full CI goes direct whatever the roots, the
# point group or the spin penalty; truncated CI and the stored-matrix
# options stored; each says why
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method auto > "$tmp/auto" || fail "auto"
grep -q '^method        direct (auto: full CI: direct' "$tmp/auto" || fail "auto 1 root: $(head -6 "$tmp/auto")"
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method auto --roots 8 > "$tmp/auto" || fail "auto --roots 8"
grep -q '^method        direct (auto: full CI: direct' "$tmp/auto" || fail "auto 8 roots: $(head -6 "$tmp/auto")"
# a D2h file, three roots (tests/data/ci: PySCF's N2 STO-3G in D2h)
"$CIS" ci "$DATA/n2_sto3g_d2h.FCIDUMP" --roots 3 > "$tmp/auto" || fail "auto D2h --roots 3: $(cat "$tmp/auto")"
grep -q '^method        direct (auto: full CI, blocked by irreps: direct' "$tmp/auto" || fail "auto D2h: $(head -8 "$tmp/auto")"
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --spin 1 --roots 2 > "$tmp/auto" || fail "auto --spin 1"
grep -q '^method        direct (auto: ' "$tmp/auto" || fail "auto --spin: $(head -6 "$tmp/auto")"
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method auto --format csr > "$tmp/auto" || fail "auto --format csr"
grep -q '^method        stored (a stored-matrix option)' "$tmp/auto" || fail "auto --format csr: $(head -6 "$tmp/auto")"
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method auto --level 2 > "$tmp/auto" || fail "auto --level 2"
grep -q '^method        stored (--level: truncated CI needs the stored H)' "$tmp/auto" ||
  fail "auto --level 2 should be stored, for --level: $(head -6 "$tmp/auto")"

# an active-space file: MS2 = 2 and a core energy (the H2O STO-3G integrals, header edited)
sed -e 's/MS2=0/MS2=2/' -e 's/MS2= *0/MS2=2/' "$CI/h2o_sto3g.FCIDUMP" > "$tmp/ms2.FCIDUMP"
grep -q 'MS2=2' "$tmp/ms2.FCIDUMP" || fail "could not edit MS2 in $(head -2 "$CI/h2o_sto3g.FCIDUMP")"
"$CIS" ci "$tmp/ms2.FCIDUMP" --method direct --json > "$tmp/md" || fail "MS2=2 direct"
"$CIS" ci "$tmp/ms2.FCIDUMP" --method stored --json > "$tmp/ms" || fail "MS2=2 stored"
close_to "$(energies "$tmp/md")" "$(energies "$tmp/ms")" 1e-9 || fail "MS2=2: direct $(energies "$tmp/md") stored $(energies "$tmp/ms")"
grep -q '"determinants": 245,' "$tmp/md" || fail "MS2=2: 245 determinants expected in $(cat "$tmp/md")"

# refusals: usage errors exit 2 with one line naming the conflict
expect_usage() { # message-fragment args...
  local msg=$1; shift
  "$CIS" ci "$CI/h4_sto3g.FCIDUMP" "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  [ $rc = 2 ] || fail "$*: exit $rc, expected 2"
  grep -q -- "$msg" "$tmp/err" || fail "$*: message $(cat "$tmp/err")"
}
expect_usage "full CI only" --method direct --level 2
expect_usage "stores no matrix" --method direct --device gpu --build gpu
# --device gpu: the direct sigma on the GPU (energy = reference; auto picks direct for full
# CI there), or without a device one line saying so and exit 1
"$CIS" ci "$CI/n2_sto3g.FCIDUMP" --method direct --device gpu --json --tol 1e-9 > "$tmp/g" 2> "$tmp/err"; rc=$?
if [ $rc = 0 ]; then
  grep -q '"device": "gpu"' "$tmp/g" && grep -q '"sigma_ms": ' "$tmp/g" && grep -q '"to_solution_seconds": ' "$tmp/g" \
    || fail "direct gpu json: $(cat "$tmp/g")"
  close_to "$(energies "$tmp/g" | head -1)" "$(ref n2_sto3g efci)" 1e-9 || fail "direct gpu: energy $(energies "$tmp/g")"
  "$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --method auto --device gpu > "$tmp/auto" || fail "auto --device gpu"
  grep -q '^method        direct (auto: full CI on the GPU' "$tmp/auto" || fail "auto gpu: $(head -6 "$tmp/auto")"
  grep -q '^gpu           ' "$tmp/auto" || fail "auto gpu: no gpu line in $(cat "$tmp/auto")"
else
  [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE "^cisparse: .*(CUDA|NVIDIA GPU)" "$tmp/err" ||
    fail "--method direct --device gpu without a GPU: exit $rc, $(cat "$tmp/err")"
fi
expect_usage "stores no matrix" --method direct --format csr
expect_usage "stores no matrix" --method direct --symmetric
expect_usage "must be direct, stored or auto" --method fast
# point-group symmetry (vectors of all C1 determinants, ISYM entries only), the
# sigma blocked by irreps (default) and by projection (--symmetry-projection):
# determinant count and energy equal the stored path's, for two irreps
for isym in 1 2; do
  sed -e 's/ORBSYM=1,1,1,1,/ORBSYM=1,2,1,2,/' -e "s/ISYM=1,/ISYM=$isym,/" "$CI/h4_sto3g.FCIDUMP" > "$tmp/sym.FCIDUMP"
  grep -q 'ORBSYM=1,2,1,2,' "$tmp/sym.FCIDUMP" || fail "could not edit ORBSYM in $(head -3 "$CI/h4_sto3g.FCIDUMP")"
  "$CIS" ci "$tmp/sym.FCIDUMP" --method direct --json > "$tmp/sd" 2> "$tmp/err" || fail "symmetry direct: $(cat "$tmp/err")"
  "$CIS" ci "$tmp/sym.FCIDUMP" --method stored --json > "$tmp/ss" 2> "$tmp/err" || fail "symmetry stored: $(cat "$tmp/err")"
  close_to "$(energies "$tmp/sd")" "$(energies "$tmp/ss")" 1e-9 || fail "ISYM $isym: direct $(energies "$tmp/sd") stored $(energies "$tmp/ss")"
  [ "$(grep -o '"determinants": [0-9]*' "$tmp/sd")" = "$(grep -o '"determinants": [0-9]*' "$tmp/ss")" ] \
    || fail "ISYM $isym: determinants $(grep -o '"determinants": [0-9]*' "$tmp/sd") vs $(grep -o '"determinants": [0-9]*' "$tmp/ss")"
  grep -q '"symmetry": "blocked"' "$tmp/sd" || fail "ISYM $isym: not blocked by irreps: $(cat "$tmp/sd")"
  "$CIS" ci "$tmp/sym.FCIDUMP" --method direct --symmetry-projection --json > "$tmp/sp" 2> "$tmp/err" \
    || fail "symmetry projection: $(cat "$tmp/err")"
  grep -q '"symmetry": "projected"' "$tmp/sp" || fail "ISYM $isym: --symmetry-projection not projected"
  close_to "$(energies "$tmp/sp")" "$(energies "$tmp/sd")" 1e-10 || fail "ISYM $isym: projected $(energies "$tmp/sp") blocked $(energies "$tmp/sd")"
done
"$CIS" ci "$tmp/sym.FCIDUMP" --method direct | grep -q 'of symmetry ISYM 2, in vectors of all 36.*blocked by irreps' \
  || fail "symmetry text line"
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --method direct --json | grep -q '"symmetry": "c1"' || fail "C1 json symmetry"
# --no-s2: the same energy, <S^2> reported as not computed (text) and null (JSON); not with --spin
"$CIS" ci "$tmp/sym.FCIDUMP" --method direct --no-s2 --json > "$tmp/n2" 2> "$tmp/err" || fail "--no-s2: $(cat "$tmp/err")"
close_to "$(energies "$tmp/n2")" "$(energies "$tmp/sd")" 1e-10 || fail "--no-s2 energy $(energies "$tmp/n2") vs $(energies "$tmp/sd")"
grep -q '"s2": null' "$tmp/n2" || fail "--no-s2 json: $(cat "$tmp/n2")"
"$CIS" ci "$tmp/sym.FCIDUMP" --method direct --no-s2 | grep -q '<S^2> not computed (--no-s2)' || fail "--no-s2 text"
expect_usage "cannot be combined with --spin" --method direct --no-s2 --spin 0

[ $fails = 0 ] && echo "ci_direct.sh: ok" || echo "ci_direct.sh: $fails failures"
[ $fails = 0 ]
