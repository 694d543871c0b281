#!/usr/bin/env bash
# parts_exact.sh CISPARSE SHARED: the stored Hamiltonian kept once over CPU
# parts (--format csr-sym / sym-seg, the upper rows over the parts) gives the
# one-process energy with every malloc'd block perturbed (MALLOC_PERTURB_=165,
# glibc fills new blocks with 0x5a: no value may come from memory nothing
# wrote), also when the rows split evenly over the parts (H4 STO-3G, 36
# determinants over 36 parts: one row each, the padded whole vectors with no
# padding; issue 40: the part's y before its rows was never zeroed there and
# the product read it, E = -3.5e127 Eh "converged"), and H2O STO-3G over 2.
set -u
CIS=$1
CI=${2:-../shared}/ci
. "$(dirname "$0")/lib/prelude.sh" # fails, tmp, fail, close_to
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
energy() { awk '$1 == "root" && $2 == 0 {print $5; exit}' "$1"; }

for spec in "h2o_sto3g 2 csr-sym" "h2o_sto3g 3 sym-seg" "h4_sto3g 36 csr-sym" "h4_sto3g 36 sym-seg" \
            "h4_sto3g 12 csr-sym"; do
  set -- $spec
  f=$CI/$1.FCIDUMP
  "$CIS" ci "$f" --method stored --tol 1e-9 > "$tmp/one.out" 2> "$tmp/one.err" || fail "$1 one process: exit $? ($(tail -1 "$tmp/one.err"))"
  e1=$(energy "$tmp/one.out")
  MALLOC_PERTURB_=165 timeout 120 "$CIS" ci "$f" --method stored --format $3 --cpu-parts $2 --tol 1e-9 > "$tmp/p.out" 2> "$tmp/p.err"
  rc=$?
  [ $rc -eq 0 ] || fail "$1 --format $3 --cpu-parts $2 (MALLOC_PERTURB_=165): exit $rc ($(tail -1 "$tmp/p.err"))"
  grep -q "dist upper $3 x$2 " "$tmp/p.out" || fail "$1 --cpu-parts $2: not the upper rows over $2 parts ($(grep '^parts' "$tmp/p.out"))"
  ep=$(energy "$tmp/p.out")
  close_to "$ep" "$e1" 1e-9 || fail "$1 --format $3 --cpu-parts $2 (MALLOC_PERTURB_=165): E = '$ep', one process $e1"
done
exit $((fails > 0))
