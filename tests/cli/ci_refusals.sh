#!/usr/bin/env bash
# ci_refusals.sh: the small refusals of `cisparse ci` (issue 40, item 7):
# binary input on standard input refused at once (NUL bytes, "FILE:LINE:"),
# a Molpro UHF file (IUHF=1) refused as UHF, a 0-based (PySCF) file's
# --isym taken and reported 1-based as FCIDUMP's ISYM (the file's id + 1),
# --count with --save and --save -
# refused as usage errors, --format checked before any work (one process and
# over parts), and files past 64 orbitals over CPU parts solved or refused in
# plain words (no C function named).
# usage: bash ci_refusals.sh /path/to/cisparse /path/to/shared
set -u
CIS=$1
SHARED=$2
case $CIS in /*) ;; *) CIS=$PWD/$CIS ;; esac
CI=$SHARED/ci
. "$(dirname "$0")/lib/prelude.sh"

# refused CODE PATTERN NAME CMD...: exit CODE, one stderr line "cisparse: ..." matching PATTERN
refused() {
  local code=$1 pat=$2 name=$3; shift 3
  "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  local rc=$?
  [ $rc = "$code" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^cisparse: ' "$tmp/err" && grep -qE -- "$pat" "$tmp/err" ||
    fail "$name: exit $rc (expected $code), stderr: $(cat "$tmp/err")"
}

# binary data on standard input: refused at line 1, not read for ever
timeout 10 "$CIS" ci - < /dev/zero > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q '^cisparse: <stdin>:1: NUL byte' "$tmp/err" || fail "ci - < /dev/zero: exit $rc (124: hung), $(cat "$tmp/err")"
head -c 100000 /dev/urandom > "$tmp/random.bin"
printf '\0' >> "$tmp/random.bin"
timeout 10 "$CIS" ci - < "$tmp/random.bin" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -qE '^cisparse: <stdin>:[0-9]+: ' "$tmp/err" || fail "ci - < random bytes: exit $rc, $(cat "$tmp/err")"
# a NUL byte inside an integral line of a file
{ printf '&FCI NORB=2,NELEC=2,MS2=0 &END\n 0.5 1 1 1 1\n 0.1'; printf '\0'; printf ' 1 1 0 0\n'; } > "$tmp/nul.FCIDUMP"
refused 1 "nul.FCIDUMP:3: NUL byte at column 5" "NUL in an integral line" "$CIS" ci "$tmp/nul.FCIDUMP"

# Molpro's UHF flag: refused as UHF, not as conflicting integrals
printf '&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=1,1,ISYM=1,IUHF=1 &END\n 0.5 1 1 1 1\n 0.6 1 1 1 1\n 0.0 0 0 0 0\n' > "$tmp/uhf.FCIDUMP"
refused 1 "UHF integrals are not supported" "IUHF=1" "$CIS" ci "$tmp/uhf.FCIDUMP"
grep -q conflicts "$tmp/err" && fail "IUHF=1 still reported as conflicting integrals"
sed 's/IUHF=1/IUHF=0/' "$tmp/uhf.FCIDUMP" | head -2 > "$tmp/rhf.FCIDUMP"
"$CIS" ci "$tmp/rhf.FCIDUMP" > /dev/null 2> "$tmp/err" || fail "IUHF=0: $(cat "$tmp/err")"

# a 0-based (PySCF) file: --isym 1-based (id + 1), in refusals and reports the same number
printf '&FCI NORB=2,NELEC=2,MS2=0,ORBSYM=0,0,ISYM=1 &END\n 0.5 1 1 1 1\n -1.0 1 1 0 0\n -0.5 2 2 0 0\n' > "$tmp/p0.FCIDUMP"
for m in stored direct; do
  refused 1 "symmetry ISYM=5" "PySCF --isym 5 ($m)" "$CIS" ci "$tmp/p0.FCIDUMP" --isym 5 --method $m
  grep -qE 'ISYM=4|0-based' "$tmp/err" && fail "PySCF --isym 5 ($m) reported in another numbering: $(cat "$tmp/err")"
done
refused 1 "has symmetry ISYM=5" "PySCF --isym 5 --level 2" "$CIS" ci "$tmp/p0.FCIDUMP" --isym 5 --level 2
O2=tests/data/ci/o2_sto3g_triplet_pyscf.FCIDUMP
"$CIS" ci "$O2" --isym 2 > "$tmp/out" 2> "$tmp/err" || fail "O2 --isym 2: $(cat "$tmp/err")"
grep -q '^orbitals .* ISYM 2 (B1g),' "$tmp/out" || fail "O2 --isym 2 report: $(grep '^orbitals' "$tmp/out")"
"$CIS" ci "$O2" --isym 5 --count > "$tmp/out" 2> "$tmp/err" || fail "O2 --isym 5 --count: $(cat "$tmp/err")"
grep -q '5 (Au): 136, .*; ISYM 5 (Au)$' "$tmp/out" || fail "O2 --isym 5 --count: $(grep ISYM "$tmp/out")"

# --save with --count, or to standard output: usage errors, nothing written
H4=$CI/h4_sto3g.FCIDUMP
refused 2 "--count builds no Hamiltonian" "--count --save" "$CIS" ci "$H4" --count --save "$tmp/h.cisb"
[ -e "$tmp/h.cisb" ] && fail "--count --save wrote $tmp/h.cisb"
(cd "$tmp" && "$CIS" ci "$H4" --save - > out 2> err; echo $? > rc)
[ "$(cat "$tmp/rc")" = 2 ] && grep -q -- "--save needs a file name" "$tmp/err" || fail "--save -: exit $(cat "$tmp/rc"), $(cat "$tmp/err")"
[ -e "$tmp/-" ] && fail "--save - wrote a file named '-'"

# --format: a usage error before the file is read (a missing file would be exit 1)
refused 2 "--format must be auto, csr .*got 'bogus'" "--format bogus" "$CIS" ci "$tmp/missing.FCIDUMP" --format bogus
refused 2 "--format must be auto, csr .*got 'bogus'" "--format bogus --cpu-parts 2" \
  "$CIS" ci "$tmp/missing.FCIDUMP" --cpu-parts 2 --format bogus
"$CIS" ci "$H4" --cpu-parts 2 --format sym-seg > /dev/null 2> "$tmp/err" || fail "--cpu-parts --format sym-seg: $(cat "$tmp/err")"

# 100 orbitals over CPU parts: the stored path runs it (NORB <= 128) as one process does
printf '&FCI NORB=100,NELEC=2,MS2=0,ISYM=1 &END\n 0.5 1 1 1 1\n -1.0 1 1 0 0\n 0.25 2 2 2 2\n -0.5 2 2 0 0\n' > "$tmp/n100.FCIDUMP"
"$CIS" ci "$tmp/n100.FCIDUMP" --method stored --json > "$tmp/one.json" 2> "$tmp/err" || fail "NORB 100 one process: $(cat "$tmp/err")"
"$CIS" ci "$tmp/n100.FCIDUMP" --cpu-parts 2 > "$tmp/parts.txt" 2> "$tmp/err" || fail "NORB 100 --cpu-parts 2: $(cat "$tmp/err")"
grep -q 'cis_ci_' "$tmp/err" && fail "NORB 100 --cpu-parts 2 names a C function: $(cat "$tmp/err")"
e1=$(grep -o '"energy": [-0-9.e]*' "$tmp/one.json" | head -1 | awk '{print $2}')
e2=$(grep -o 'root 0  E = [-0-9.]*' "$tmp/parts.txt" | awk '{print $5}')
close_to "$e1" "$e2" 1e-8 || fail "NORB 100: one process $e1, 2 CPU parts $e2"
refused 1 "direct method .* NORB <= 64" "NORB 100 --method direct --cpu-parts 2" \
  "$CIS" ci "$tmp/n100.FCIDUMP" --cpu-parts 2 --method direct
grep -q 'cis_ci_' "$tmp/err" && fail "NORB 100 direct over parts names a C function: $(cat "$tmp/err")"

echo "ci_refusals: $fails failure(s)"
exit $((fails > 0))
