#!/usr/bin/env bash
# run.sh: `cisparse run` (what `make run` calls) prints Tables 3-5 for the
# embedded ci:rows=32768,seed=1 beside the paper's figures, and exits 0.
# Usage: bash run.sh CISPARSE SHARED_DIR
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! "$1" run > "$T/out" 2> "$T/err"; then
  echo "FAIL: cisparse run exited nonzero: $(cat "$T/err")"
  exit 1
fi
cat "$T/out"
python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
bad = []
def row(label):
    m = re.search(r"^\s+" + re.escape(label) + r"\s+(\S+)\s+(\S+)\s+(\S+)\s*$", text, re.M)
    return m.groups() if m else None
r = row("Reference nonzeros")
if not r or r[0] != "21463040" or r[1] != "21463040": bad.append(f"Table 3 Reference row {r}")
for label, paper in (("CSR", 356.44), ("proposed hybrid (hyb)", 356.76), ("ELL", 402.41)):
    r = row(label)
    if not r or r[0] == "n/a" or abs(float(r[0]) - paper) > 0.005 * paper:
        bad.append(f"Table 5 {label}: {r}, paper {paper}")
    elif float(r[1]) != {"CSR": 356.44, "ELL": 407.25}.get(label, 356.76):
        bad.append(f"Table 5 {label}: paper column {r[1]}")
r = row("Reference region")
if not r or abs(float(r[0]) - 0.80011) > 1e-4: bad.append(f"Table 4 Reference row {r}")
if "Table 9" not in text: bad.append("no Table 9 section")
for b in bad: print("FAIL:", b)
print("run.sh:", len(bad), "failures")
sys.exit(1 if bad else 0)
PY
