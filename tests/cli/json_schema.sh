#!/usr/bin/env bash
# json_schema.sh: the JSON of ci (direct, stored, --count), solve, spmv and
# bench: every key of the schema below present with its type, null (never
# -1, 0.0 or "n/a") where a value does not apply (full CI's level, no spin
# filter, the CPU's sync mode and bandwidth share, no cuSPARSE row to
# compare with), and the units named (ci: energies in hartree).
# usage: bash json_schema.sh /path/to/cisparse /path/to/shared   (from the source root)
set -u
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
CIS=$1
H2O=$2/ci/h2o_sto3g.FCIDUMP
[ -e "$H2O" ] || { echo "skipped: no $H2O"; exit 77; }
command -v python3 > /dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { local out=$1; shift; "$CIS" "$@" > "$tmp/$out.json" 2> "$tmp/$out.err" || fail "$*: exit $? ($(tail -1 "$tmp/$out.err"))"; }

run ci_direct ci "$H2O" --quiet --json
run ci_stored ci "$H2O" --level 2 --roots 2 --quiet --json
run ci_spin ci "$H2O" --level 2 --spin 0 --quiet --json
run ci_count ci "$H2O" --count --json
run solve solve laplace3d:size=6 --device cpu --json -
run spmv spmv laplace3d:size=4 --format csr --out "$tmp/y.mtx" --json -
"$CIS" bench laplace3d:size=6 --runs 2 --warmup 1 --json "$tmp/bench.json" > /dev/null 2> "$tmp/bench.err" || fail "bench: exit $?"

python3 - "$tmp" << 'EOF' || fails=$((fails + 1))
import json, sys
d = sys.argv[1]
I, F, S, B, L, O, N = int, (int, float), str, bool, list, dict, type(None)
num = (int, float)
ROOT = {"energy": F, "correlation": F, "excitation": (F, N), "excitation_ev": (F, N), "s2": F, "spin": F,
        "multiplicity": I, "state": I}
UNITS = {"energies": S, "times": S, "memory": S}
CI_COMMON = {"file": S, "units": O, "norb": I, "nelec": I, "ms2": I, "level": (I, N), "method": S,
             "determinants": I, "device": S, "iterations": I, "products": I, "solve_seconds": F,
             "total_seconds": F, "e_rhf": F, "ecore": F, "memory": O, "roots": L}
SCHEMAS = {
    "ci_direct": dict(CI_COMMON, vector_length=I, alpha_strings=I, beta_strings=I, npair=I, block=I, symmetry=S,
                      gemm=S, setup_seconds=F, sigma_seconds=F, half_sigmas=I, parse_seconds=F,
                      to_solution_seconds=F, s2_seconds=F, guess_seconds=F, to_solution_runs=L, sigma_ms=(F, N),
                      isym=I, isym_name=(S, N)),
    "ci_stored": dict(CI_COMMON, nnz=I, symmetric=B, format=S, values=S, build=S, build_seconds=F, spmv_seconds=F,
                      reference=S, orbsym_numbering=S, isym=I, isym_name=(S, N), isym_assumed=B, pspace=I, spin_filter=(F, N),
                      roots_computed=I),
    "ci_count": {"file": S, "units": O, "determinants": I, "alpha_strings": I, "beta_strings": I, "level": (I, N),
                 "isym": I, "isym_name": (S, N), "orbsym_numbering": S, "by_irrep": L, "by_level": L, "nnz": I, "nnz_exact": B,
                 "nnz_estimated": B, "max_row": I, "symmetric": B, "count_seconds": (F, N), "memory": O},
    "solve": {"command": S, "matrix": S, "rows": I, "nnz": I, "device": S, "method": S, "precond": S, "version": S,
              "sync": (S, N), "precision": S, "operator": S, "tol": F, "maxit": I, "status": S, "iterations": I,
              "runs": I, "recurrence_relative_residual": F, "true_relative_residual": F, "error": (F, N),
              "ms_per_iteration": (F, N), "loop_seconds": F, "setup_seconds": F, "launches_per_iteration": (F, N)},
    "spmv": {"command": S, "matrix": S, "rows": I, "cols": I, "nnz": I, "format": S, "symmetric": B, "device": S,
             "kernel": (S, N), "precision": S, "alpha": F, "beta": F, "x": S, "y": (S, N), "out": S,
             "out_format": S, "matrix_bytes": I, "norm_y": F},
    "bench": {"command": S, "matrix": S, "rows": I, "cols": I, "nnz": I, "precision": S, "gpu": B, "device": S,
              "units": O, "bandwidth_gbs": (F, N), "runs": I, "warmup": I, "results": L},
}
BENCH_ROW = {"kernel": S, "format": S, "block": I, "cusparse": B, "ms": F, "gflops": F, "gbs": F,
             "pct_bw": (F, N), "speedup_vs_cusparse": (F, N), "rel_err": (F, N), "bytes": I, "matrix_bytes": I}
bad = []

def check(name, obj, schema):
    for k, t in schema.items():
        if k not in obj:
            bad.append(f"{name}: no key {k}")
        elif not isinstance(obj[k], t) or (t in (I, F) and isinstance(obj[k], bool)):
            bad.append(f"{name}: {k} = {obj[k]!r}, expected {t}")
    for k, v in obj.items():  # the sentinels that meant "not applicable"
        if v == "n/a":
            bad.append(f"{name}: {k} = 'n/a' (null expected)")

runs = {}
for name in ("ci_direct", "ci_stored", "ci_spin", "ci_count", "solve", "spmv", "bench"):
    try:
        runs[name] = json.load(open(f"{d}/{name}.json"))
    except Exception as e:
        bad.append(f"{name}: not JSON ({e})")
for name, obj in runs.items():
    check(name, obj, SCHEMAS["ci_stored" if name == "ci_spin" else name])
    if "units" in obj:
        check(name + ".units", obj["units"], UNITS if name.startswith("ci") else {})
    for k, root in enumerate(obj.get("roots", [])):
        check(f"{name}.roots[{k}]", root, ROOT)
for k, row in enumerate(runs.get("bench", {}).get("results", [])):
    check(f"bench.results[{k}]", row, BENCH_ROW)
r = runs
expect = [
    ("ci_direct level null (full CI)", r.get("ci_direct", {}).get("level", 0) is None),
    ("ci_direct sigma_ms null (no --time-sigma)", r.get("ci_direct", {}).get("sigma_ms", 0) is None),
    ("ci_stored root 0 excitation null, root 1 E1 - E0",
     [x.get("excitation", 0) for x in r.get("ci_stored", {}).get("roots", [{}, {}])][0] is None and
     abs(r.get("ci_stored", {}).get("roots", [{}, {}])[1].get("excitation", 0) - (r["ci_stored"]["roots"][1]["energy"] -
         r["ci_stored"]["roots"][0]["energy"])) < 1e-11 if len(r.get("ci_stored", {}).get("roots", [])) == 2 else False),
    ("ci_stored level 2", r.get("ci_stored", {}).get("level") == 2),
    ("ci_stored spin_filter null without --spin", r.get("ci_stored", {}).get("spin_filter", 0) is None),
    ("ci_spin spin_filter 0 with --spin 0", r.get("ci_spin", {}).get("spin_filter") == 0),
    ("ci_count level null", r.get("ci_count", {}).get("level", 0) is None),
    ("ci units: energy in hartree", r.get("ci_direct", {}).get("units", {}).get("energies") == "hartree"),
    ("ci energy total (core included)", abs(r.get("ci_direct", {}).get("roots", [{}])[0].get("energy", 0) + 75.0125782412) < 1e-8),
    ("solve sync null on the CPU", r.get("solve", {}).get("device") != "cpu" or r["solve"].get("sync", 0) is None),
    ("spmv kernel null on the CPU", r.get("spmv", {}).get("kernel", 0) is None),
]
bench = r.get("bench", {})
if bench and not bench.get("gpu"):
    expect.append(("bench bandwidth_gbs null on the CPU", bench.get("bandwidth_gbs", 0) is None))
    expect.append(("bench pct_bw and speedup_vs_cusparse null on the CPU",
                   all(x.get("pct_bw", 0) is None and x.get("speedup_vs_cusparse", 0) is None
                       for x in bench.get("results", []) if "ms" in x)))
bad += [f"expected: {what}" for what, ok in expect if not ok]
for b in bad:
    print("FAIL:", b)
print(f"json schema: {len(runs)} outputs, {len(bad)} problem(s)")
sys.exit(1 if bad else 0)
EOF
echo "$fails failure(s)"
exit $((fails > 0))
