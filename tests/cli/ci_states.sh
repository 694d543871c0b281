#!/usr/bin/env bash
# ci_states.sh: issue 11 end to end: the C2/STO-3G trap (default options give
# PySCF's FCI and CISD ground states), <S^2> and multiplicity per root in
# text and --json, --spin, PySCF's 0-based ORBSYM with ISYM=1 and --isym,
# full CI without a reference, an unconverged root is an error, --count for
# any size, and the refusals (sizes, memory limit, directory, device, long
# line) each within a second. Reference energies: tests/data/ci/make_fcidumps.py.
# usage: bash ci_states.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
CI=$SHARED/ci
DATA=$(cd "$(dirname "$0")/../data/ci" && pwd)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Under AddressSanitizer (make test-asan) the timings mean nothing and
# `ulimit -v` stops ASan itself: those two checks are skipped there.
asan=0
grep -qa "__asan_init" "$CIS" && asan=1 && echo "ci_states.sh: AddressSanitizer build: timings and ulimit -v checks skipped"
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < t) }'; }
# root_field FILE K KEY -> KEY of root K in a --json report
root_field() { sed 's/.*"roots": \[//' "$1" | tr '{' '\n' | sed -n "$(($2 + 2))p" | grep -o "\"$3\": *-\?[0-9.eE+-]*" | sed 's/.*: *//'; }
now() { date +%s.%N; }
# within_1s CMD...: runs it, output in $tmp/out and $tmp/err, rc in $rc, fails if it took >= 1 s
within_1s() {
  local t0 t1
  t0=$(now)
  "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  t1=$(now)
  [ $asan = 1 ] || awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 1.0) }' || fail "$* took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
}

# 1. C2/STO-3G, no ORBSYM labels, default options: the ground state
"$CIS" ci "$DATA/c2_sto3g.FCIDUMP" --json --roots 4 > "$tmp/c2.json" 2> "$tmp/err" || fail "C2 FCI exit $? ($(cat "$tmp/err"))"
close_to "$(root_field "$tmp/c2.json" 0 energy)" -74.69021095756578 1e-8 || fail "C2 FCI root 0 $(root_field "$tmp/c2.json" 0 energy)"
close_to "$(root_field "$tmp/c2.json" 0 s2)" 0 1e-6 || fail "C2 root 0 <S^2> $(root_field "$tmp/c2.json" 0 s2)"
[ "$(root_field "$tmp/c2.json" 1 multiplicity)" = 3 ] || fail "C2 root 1 multiplicity $(root_field "$tmp/c2.json" 1 multiplicity)"
close_to "$(root_field "$tmp/c2.json" 1 energy)" -74.64047773770007 1e-8 || fail "C2 root 1 $(root_field "$tmp/c2.json" 1 energy)"
"$CIS" ci "$DATA/c2_sto3g.FCIDUMP" --level 2 --json > "$tmp/c2d.json" 2> "$tmp/err" || fail "C2 CISD exit $?"
close_to "$(root_field "$tmp/c2d.json" 0 energy)" -74.637590139071 1e-8 || fail "C2 CISD $(root_field "$tmp/c2d.json" 0 energy)"

# the same through the matrix-free sigma (--method direct, and auto, which picks it for C1 full CI)
for m in direct auto; do
  "$CIS" ci "$DATA/c2_sto3g.FCIDUMP" --method $m --json > "$tmp/c2$m.json" 2> "$tmp/err" || fail "C2 --method $m exit $? ($(cat "$tmp/err"))"
  close_to "$(root_field "$tmp/c2$m.json" 0 energy)" -74.69021095756578 1e-8 || fail "C2 --method $m root 0 $(root_field "$tmp/c2$m.json" 0 energy)"
done
"$CIS" ci "$DATA/c2_sto3g_d2h_pyscf.FCIDUMP" --method direct --spin 0 --roots 2 --json > "$tmp/c2ds.json" 2> "$tmp/err" ||
  fail "C2 D2h direct --spin 0 exit $? ($(cat "$tmp/err"))"
close_to "$(root_field "$tmp/c2ds.json" 1 energy)" -74.52285737077541 1e-8 || fail "C2 D2h direct --spin 0 root 1 $(root_field "$tmp/c2ds.json" 1 energy)"

# 2. spin in the text report; --spin keeps only roots of that spin
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --roots 3 > "$tmp/h2o.txt" 2>&1 || fail "H2O roots exit $?"
grep -q "root 0 .*<S^2> = 0.000000  S = 0.00  singlet" "$tmp/h2o.txt" || fail "H2O root 0 not a singlet: $(grep 'root 0' "$tmp/h2o.txt")"
grep -q "root 1 .*<S^2> = 2.000000  S = 1.00  triplet" "$tmp/h2o.txt" || fail "H2O root 1 not a triplet: $(grep 'root 1' "$tmp/h2o.txt")"
"$CIS" ci "$DATA/c2_sto3g.FCIDUMP" --spin 0 --roots 2 --json > "$tmp/s0.json" 2> "$tmp/err" || fail "--spin 0 exit $? ($(cat "$tmp/err"))"
close_to "$(root_field "$tmp/s0.json" 1 energy)" -74.58182646132589 1e-8 || fail "--spin 0 root 1 $(root_field "$tmp/s0.json" 1 energy)"
for k in 0 1; do close_to "$(root_field "$tmp/s0.json" $k s2)" 0 1e-6 || fail "--spin 0 root $k has <S^2> $(root_field "$tmp/s0.json" $k s2)"; done
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --spin 1 --roots 2 --json > "$tmp/s1.json" 2> "$tmp/err" || fail "--spin 1 exit $?"
for k in 0 1; do close_to "$(root_field "$tmp/s1.json" $k s2)" 2 1e-6 || fail "--spin 1 root $k has <S^2> $(root_field "$tmp/s1.json" $k s2)"; done
"$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --spin 0.5 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "spin 0.5 is impossible with MS2=0" "$tmp/err" || fail "--spin 0.5 on MS2=0: exit $rc $(cat "$tmp/err")"
# a spin above what the electrons allow: refused at once with the largest S (issue 26)
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --spin 3 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "spin 3 is above the largest spin S = 2 that 4 electrons in 4 orbitals allow" "$tmp/err" ||
  fail "--spin 3 in H4: exit $rc $(cat "$tmp/err")"
# within the electrons' largest spin but more roots than the space has states of that spin:
# refused at once from the closed-form counts (more in ci_impossible.sh)
"$CIS" ci "$CI/h4_sto3g.FCIDUMP" --spin 2 --roots 2 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "holds only 1 state(s) of spin S = 2" "$tmp/err" || fail "--spin 2 --roots 2 in H4: exit $rc $(cat "$tmp/err")"

# 3. PySCF numbering: the shared H2O header rewritten to 0-based ids gives the same energy
sed 's/ORBSYM=[0-9,]*/ORBSYM=0,0,0,0,0,0,0,/' "$CI/h2o_sto3g.FCIDUMP" > "$tmp/h2o_pyscf.FCIDUMP"
grep -q "ORBSYM=0,0,0" "$tmp/h2o_pyscf.FCIDUMP" || fail "could not rewrite the ORBSYM of h2o_sto3g"
"$CIS" ci "$tmp/h2o_pyscf.FCIDUMP" > "$tmp/h2o_pyscf.txt" 2>&1 || fail "0-based ORBSYM exit $? ($(cat "$tmp/h2o_pyscf.txt"))"
grep -q "ORBSYM numbering 0-based (PySCF), irreps shown 1-based (id + 1); ISYM=1 read as the totally symmetric irrep" "$tmp/h2o_pyscf.txt" || fail "numbering not announced"
[ "$(grep '^root 0' "$tmp/h2o_pyscf.txt" | awk '{print $4}')" = "$(grep '^root 0' "$tmp/h2o.txt" | awk '{print $4}')" ] ||
  fail "0-based file: $(grep '^root 0' "$tmp/h2o_pyscf.txt") vs $(grep '^root 0' "$tmp/h2o.txt")"
grep -q "ORBSYM numbering 1-based (Molpro)" "$tmp/h2o.txt" || fail "Molpro numbering not announced"
"$CIS" ci "$DATA/c2_sto3g_d2h_pyscf.FCIDUMP" --json > "$tmp/c2s.json" 2> "$tmp/err" || fail "C2 D2h PySCF exit $? ($(cat "$tmp/err"))"
close_to "$(root_field "$tmp/c2s.json" 0 energy)" -74.69021095756585 1e-8 || fail "C2 D2h A1g $(root_field "$tmp/c2s.json" 0 energy)"
grep -q '"orbsym_numbering": "pyscf", "isym": 1, "isym_assumed": true' "$tmp/c2s.json" && grep -q '"isym_name": "Ag"' "$tmp/c2s.json" ||
  fail "C2 D2h json numbering"
# O2 triplet (MS2=2): full CI needs no reference; ISYM=1 -> lowest A1g (a quintet), --isym 2 (PySCF id 1) -> B1g triplet ground state
"$CIS" ci "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP" --json > "$tmp/o2.json" 2> "$tmp/err" || fail "O2 full CI exit $? ($(cat "$tmp/err"))"
close_to "$(root_field "$tmp/o2.json" 0 energy)" -146.9161772545188 1e-8 || fail "O2 A1g $(root_field "$tmp/o2.json" 0 energy)"
[ "$(root_field "$tmp/o2.json" 0 multiplicity)" = 5 ] || fail "O2 A1g multiplicity $(root_field "$tmp/o2.json" 0 multiplicity)"
"$CIS" ci "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP" --isym 2 --json > "$tmp/o2b.json" 2> "$tmp/err" || fail "O2 --isym 2 exit $?"
close_to "$(root_field "$tmp/o2b.json" 0 energy)" -147.74403543362763 1e-8 || fail "O2 B1g $(root_field "$tmp/o2b.json" 0 energy)"
[ "$(root_field "$tmp/o2b.json" 0 multiplicity)" = 3 ] || fail "O2 B1g multiplicity"
"$CIS" ci "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP" --isym 9 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "isym must be an irrep 1..8" "$tmp/err" || fail "--isym 9 on a PySCF file: exit $rc $(cat "$tmp/err")"
"$CIS" ci "$DATA/o2_sto3g_triplet_pyscf.FCIDUMP" --isym 0 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "isym must be an irrep 1..8, 1-based" "$tmp/err" || fail "--isym 0 (a PySCF id) on a PySCF file: exit $rc $(cat "$tmp/err")"

# an unconverged root is an error, not a result
"$CIS" ci "$DATA/c2_sto3g.FCIDUMP" --max-iter 2 > "$tmp/nc.txt" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] || fail "--max-iter 2: exit $rc"
grep -q "^root" "$tmp/nc.txt" && fail "--max-iter 2 printed a root: $(grep '^root' "$tmp/nc.txt")"
grep -q "did not converge.*root 0 residual" "$tmp/err" || fail "--max-iter 2 message: $(cat "$tmp/err")"

# 4. sizes at once; refusals with their numbers, each within a second
printf '&FCI NORB=30,NELEC=14,MS2=0,ISYM=1 &END\n' > "$tmp/n30.FCIDUMP"
printf '&FCI NORB=40,NELEC=20,MS2=0 &END\n' > "$tmp/n40.FCIDUMP"
printf '&FCI NORB=20,NELEC=10,MS2=0 &END\n' > "$tmp/n20.FCIDUMP"
within_1s "$CIS" ci "$tmp/n30.FCIDUMP" --count
[ $rc = 0 ] && grep -q "^determinants  4144481640000 " "$tmp/out" || fail "--count NORB 30: exit $rc $(cat "$tmp/out" "$tmp/err")"
grep -q "matrix-free" "$tmp/out" && grep -q "stored Hamiltonian" "$tmp/out" || fail "--count lacks the memory per method"
within_1s "$CIS" ci "$tmp/n40.FCIDUMP" --count --json
[ $rc = 0 ] && grep -q '"alpha_strings": 847660528' "$tmp/out" || fail "--count NORB 40: exit $rc $(cat "$tmp/out" "$tmp/err")"
within_1s "$CIS" ci "$tmp/n30.FCIDUMP"
[ $rc = 1 ] && grep -q "4.144e+12 determinants exceed the 32-bit index range" "$tmp/err" || fail "NORB 30 run: exit $rc $(cat "$tmp/err")"
within_1s "$CIS" ci "$tmp/n40.FCIDUMP" --level 2 --count
[ $rc = 0 ] && grep -q "^by level      0: 1 1: 600 2: 129150" "$tmp/out" || fail "NORB 40 CISD count: exit $rc $(cat "$tmp/out" "$tmp/err")"
# 2.4e8 determinants under a 4 GiB address-space limit: refused, naming the limit
[ $asan = 1 ] || (ulimit -v 4194304 2> /dev/null && within_1s "$CIS" ci "$tmp/n20.FCIDUMP"
 [ $rc = 1 ] && grep -q "2.404e+08 determinants need .* GiB before the Hamiltonian.*may use 4.0 GiB (RLIMIT_AS)" "$tmp/err" ||
   { echo "FAIL: NORB 20 under ulimit -v: exit $rc $(cat "$tmp/err")"; exit 1; }) || fails=$((fails + 1))
# H2O 6-31G full CI stored (about 1.1e9 nonzeros, 12 GiB) under a 4 GiB limit: refused from sampled rows
[ $asan = 1 ] || (ulimit -v 4194304 2> /dev/null && within_1s "$CIS" ci "$CI/h2o_631g.FCIDUMP" --method stored
 [ $rc = 1 ] && grep -q "stored Hamiltonian of 1656369 determinants, about .* nonzeros (from [0-9]* sampled rows).*may use 4.0 GiB (RLIMIT_AS)" "$tmp/err" ||
   { echo "FAIL: H2O 6-31G under ulimit -v: exit $rc $(cat "$tmp/err")"; exit 1; }) || fails=$((fails + 1))
within_1s "$CIS" ci "$CI/h2o_sto3g.FCIDUMP" --spin 3
[ $rc = 1 ] && grep -q "above the largest spin S = 2 that 10 electrons in 7 orbitals allow" "$tmp/err" ||
  fail "H2O --spin 3: exit $rc $(cat "$tmp/err")"
within_1s "$CIS" ci "$tmp"
[ $rc = 1 ] && grep -q "^cisparse: $tmp: is a directory" "$tmp/err" || fail "directory: exit $rc $(cat "$tmp/err")"
within_1s "$CIS" ci /dev/zero
[ $rc = 1 ] && grep -q "^cisparse: /dev/zero: is not a regular file (a character device)" "$tmp/err" || fail "/dev/zero: exit $rc $(cat "$tmp/err")"
head -c 200000 /dev/zero | tr '\0' 'x' > "$tmp/long.FCIDUMP"
within_1s "$CIS" ci "$tmp/long.FCIDUMP"
[ $rc = 1 ] && grep -q "long.FCIDUMP:1: line longer than 65536 characters" "$tmp/err" || fail "long line: exit $rc $(cat "$tmp/err")"

# A degenerate level of mixed spin (issue 40): four sites 1 orbital each, no
# hopping and no exchange (h_ii = -1, (ii|ii) = 2, (ii|jj) = 0.25), four
# electrons: the six MS = 0 states of four open shells, 2 singlets, 3 triplets
# and a quintet, all at -2.5 Eh (the doubly occupied arrangements lie higher).
# --spin S finds S's state there and each root has a spin's <S^2>; before,
# --spin 0 printed -0.75 (a singlet of another level) and roots were mixtures.
{ echo "&FCI NORB=4,NELEC=4,MS2=0,ORBSYM=1,1,1,1,ISYM=1,"; echo "&END"
  for i in 1 2 3 4; do for j in 1 2 3 4; do [ $j -le $i ] || continue
    [ $i = $j ] && v=2.0 || v=0.25; echo "$v $i $i $j $j"; done; echo "-1.0 $i $i 0 0"; done
  echo "0.0 0 0 0 0"; } > "$tmp/sites4.FCIDUMP"
for s in 0 1 2; do
  "$CIS" ci "$tmp/sites4.FCIDUMP" --spin $s --json > "$tmp/out" 2> "$tmp/err" || fail "sites --spin $s: $(cat "$tmp/err")"
  e=$(root_field "$tmp/out" 0 energy); s2=$(root_field "$tmp/out" 0 s2)
  close_to "$e" -2.5 1e-8 && close_to "$s2" "$((s * (s + 1)))" 1e-6 || fail "sites --spin $s: E $e <S^2> $s2 (want -2.5, $((s * (s + 1))))"
done
"$CIS" ci "$tmp/sites4.FCIDUMP" --roots 6 --json > "$tmp/out" 2> "$tmp/err" || fail "sites --roots 6: $(cat "$tmp/err")"
spins=$(for k in 0 1 2 3 4 5; do printf '%.0f ' "$(root_field "$tmp/out" $k s2)"; done)
[ "$spins" = "0 0 2 2 2 6 " ] || fail "sites --roots 6: <S^2> $spins (want 0 0 2 2 2 6)"

[ $fails = 0 ] && echo "ci_states.sh: all passed" || echo "ci_states.sh: $fails failure(s)"
[ $fails = 0 ]
