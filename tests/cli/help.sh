#!/usr/bin/env bash
# help.sh: every option a command's parser accepts appears in that command's
# --help (the options are read from the parser's source: each "--name"
# string of src/cli/cmd_NAME.c and of its option table NAME_options.c where
# it has one (ci); the shared format options of cli_matrix.c
# for the commands that call cli_format_option; the distributed options of
# cmd_dist.c in the help of ci, solve or bench), --help exits 0 on stdout,
# and `ci --help` describes --json, --verbose, --quiet, --progress and the
# energy unit.
# usage: bash help.sh /path/to/cisparse /path/to/shared   (run from the source root)
set -u
CIS=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
options() { grep -o '"--[a-z0-9-]*"' "$@" | sed 's/.*"\(--[a-z0-9-]*\)"/\1/' | sort -u | grep -v -e '^--help$' -e '^--version$'; }
has() { grep -qE -- "(^|[^a-z0-9-])$1([^a-z0-9-]|$)"; }

for c in run info gen spmv bench ci solve; do
  src=src/cli/cmd_$c.c
  [ -e "$src" ] || { fail "no $src"; continue; }
  help=$("$CIS" "$c" --help 2> /dev/null) || fail "$c --help: exit $?"
  [ -n "$help" ] || fail "$c --help printed nothing on stdout"
  files=("$src")
  [ -e "src/cli/${c}_options.c" ] && files+=("src/cli/${c}_options.c")
  grep -q 'cli_format_option' "$src" && files+=(src/cli/cli_matrix.c)
  n=0
  for o in $(options "${files[@]}"); do
    n=$((n + 1))
    echo "$help" | has "$o" || fail "$c: the parser takes $o, $c --help does not mention it"
  done
  echo "ok   $c: $n options in --help"
done
dist_help=$(for c in ci solve bench; do "$CIS" "$c" --help; done 2> /dev/null)
for o in $(options src/cli/cmd_dist.c); do
  echo "$dist_help" | has "$o" || fail "distributed path takes $o, no help of ci/solve/bench mentions it"
done

# ci --help describes (not only lists) these
ci_help=$("$CIS" ci --help)
for o in --json --verbose --quiet --progress; do
  echo "$ci_help" | grep -qE -- "^  $o  " || fail "ci --help has no description line for $o"
done
echo "$ci_help" | grep -q 'hartree (Eh)' || fail "ci --help does not name the energy unit"
echo "$fails failure(s)"
exit $((fails > 0))
