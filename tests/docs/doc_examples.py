#!/usr/bin/env python3
"""doc_examples.py: the shell examples of README.md and docs/*.md, run as printed.

The convention (docs/install.md, "Examples in these pages"): a fenced block
holds shell examples when it is a ```sh block or when its lines start with
"$ " (a command, its shown output below it). Every such block names in its
info string, after the language, where it runs:

  cpu      run by this test (CTest cli_doc_examples) on any machine, from a
           scratch copy of the source root (build/cisparse = the built tool,
           ../shared = the shared data): exit status 0 (or, where the shown
           output holds a line "cisparse: ...", an error with that line), every
           shown "E = <energy>" equal to 1e-8, every shown labelled line
           ("label   value") present with its label; no command shown twice
  install  needs the installed prefix (cmake --install): run by the install
           test (tests/install/install.sh, through --print install)
  gpu      needs an NVIDIA GPU (or several): not run here
  slow     longer than this test may take (minutes on 2 cores): not run
  manual   needs what the test cannot make (a program built by hand, MPI, a
           file of your own): not run

A block with shell examples and none of these words fails the test, so a
new example is classified when it is written.

usage: doc_examples.py SOURCE_DIR CISPARSE SHARED_DIR        run the cpu blocks
       doc_examples.py SOURCE_DIR --print MARKER             print MARKER's commands
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MARKERS = ("cpu", "install", "gpu", "slow", "manual")
PAGES = ["README.md"] + [os.path.join("docs", f) for f in sorted(os.listdir("docs")) if f.endswith(".md")] \
    if os.path.isdir("docs") else ["README.md"]


def blocks(src):
    """(page, line, language, marker, lines) of every fenced block holding shell examples."""
    out = []
    for page in PAGES:
        path = os.path.join(src, page)
        if not os.path.exists(path):
            continue
        lines = open(path, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^```(\S*)\s*(.*)$", lines[i])
            if not m:
                i += 1
                continue
            start, lang, words = i + 1, m.group(1), m.group(2).split()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if lang == "sh" or any(l.startswith("$ ") for l in body):
                marker = next((w for w in words if w in MARKERS), None)
                out.append((page, start, lang, marker, body))
            i = j + 1
    return out


def commands(lang, body):
    """[(command, shown output lines)] of a block."""
    if lang == "sh":
        return [(l, []) for l in body if l.strip() and not l.lstrip().startswith("#")]
    cmds = []
    for l in body:
        if l.startswith("$ "):
            cmds.append((l[2:], []))
        elif cmds:
            cmds[-1][1].append(l)
    return cmds


ENERGY = re.compile(r"\bE = (-?\d+\.\d+)")
LABEL = re.compile(r"^([a-zA-Z][\w.+-]*(?: [\w.+-]+)?)  +\S")


def check_output(cmd, shown, rc, out, err):
    """Problems of one run against its shown output."""
    bad = []
    error = next((l for l in shown if l.startswith("cisparse: ")), None)
    if error:
        want = error[:40]
        if rc == 0 or want not in err:
            bad.append(f"expected the error '{want}...', got exit {rc}: {err.strip()[-300:]}")
        return bad
    if rc != 0:
        return [f"exit {rc}: {err.strip()[-300:]}"]
    e_shown = [float(x) for l in shown for x in ENERGY.findall(l)]
    e_run = [float(x) for x in ENERGY.findall(out)]
    if e_shown and (len(e_run) < len(e_shown) or any(abs(a - b) > 1e-8 for a, b in zip(e_shown, e_run))):
        bad.append(f"energies shown {e_shown}, this run {e_run}")
    labels = {m.group(1) for l in out.split("\n") if (m := LABEL.match(l))}
    for l in shown:
        m = LABEL.match(l)
        if m and "..." not in l and m.group(1) not in labels:
            bad.append(f"shown line '{l[:60]}' has no '{m.group(1)}' line in this run's output")
    return bad


def scratch(src, cli, shared):
    """A directory laid out as the source root beside ../shared, build/cisparse the tool: the
    examples' files (r.json, y.mtx, ...) are written there, and it is removed after the run."""
    top = tempfile.mkdtemp(prefix="doc-examples-")
    root = os.path.join(top, "src")
    os.makedirs(os.path.join(root, "build"))
    os.symlink(os.path.abspath(shared), os.path.join(top, "shared"))
    os.symlink(os.path.abspath(cli), os.path.join(root, "build", "cisparse"))
    for d in ("tests", "examples", "python"):
        os.symlink(os.path.join(os.path.abspath(src), d), os.path.join(root, d))
    return root


def sanitized(cli):
    """1 when the tool is built with AddressSanitizer, which reserves terabytes
    of address space and so cannot start under `ulimit -v`."""
    try:
        return "__asan_init" in subprocess.run(["nm", "-D", cli], capture_output=True, text=True).stdout
    except OSError:
        return False


def main():
    src = sys.argv[1]
    os.chdir(src)
    found = blocks(".")
    if len(sys.argv) == 4 and sys.argv[2] == "--print":
        for page, line, lang, marker, body in found:
            if marker == sys.argv[3]:
                for cmd, _ in commands(lang, body):
                    print(cmd)
        return 0
    cli, shared = sys.argv[2], sys.argv[3]
    fails = 0
    for page, line, lang, marker, body in found:
        cmds = [c for c, _ in commands(lang, body)]
        dup = sorted({c for c in cmds if cmds.count(c) > 1})
        if dup:
            print(f"FAIL {page}:{line}: the same command shown twice: {dup[0]}")
            fails += 1
        if marker is None:
            print(f"FAIL {page}:{line}: shell examples without a marker ({', '.join(MARKERS)}) after ```{lang}")
            fails += 1
    root = scratch(src, cli, shared)
    try:
        fails += run_cpu_blocks(found, root, cli)
    finally:
        shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    return 1 if fails else 0


def run_cpu_blocks(found, root, cli):
    """Run the cpu blocks' commands in root; the number of failures."""
    fails = 0
    # cpu blocks show a machine without a GPU: on one with a GPU they run with
    # the devices hidden, so that they print what the page shows
    env = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"), CUDA_VISIBLE_DEVICES="")
    ran = 0
    asan = sanitized(cli)
    t_all = time.time()
    for page, line, lang, marker, body in found:
        if marker != "cpu":
            continue
        for cmd, shown in commands(lang, body):
            if asan and "ulimit -v" in cmd:
                print(f"skip {page}:{line}: {cmd} (ulimit -v under AddressSanitizer)")
                continue
            t0 = time.time()
            p = subprocess.run(["bash", "-c", cmd], cwd=root, env=env, capture_output=True, text=True, timeout=300)
            ran += 1
            bad = check_output(cmd, shown, p.returncode, p.stdout + p.stderr, p.stderr)
            for b in bad:
                print(f"FAIL {page}:{line}: `{cmd}`: {b}")
            fails += len(bad)
            print(f"{'ok  ' if not bad else 'FAIL'} {page}:{line} ({time.time() - t0:.1f} s) {cmd}")
    counts = {m: sum(1 for b in found if b[3] == m) for m in MARKERS}
    print(f"{ran} commands run in {time.time() - t_all:.1f} s; blocks: " +
          ", ".join(f"{counts[m]} {m}" for m in MARKERS) + f"; {fails} failure(s)")
    return fails


if __name__ == "__main__":
    sys.exit(main())
