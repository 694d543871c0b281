# ci_words_summary.awk: median over rounds of the "build cpu median" and
# "wall median" of bench/ci_words_cpu.sh's log, per threads/case/side.
/^threads/ {
  t = $2; side = $5; sub(":", "", side)
  match($0, /level -?[0-9]+/); lev = substr($0, RSTART, RLENGTH)
  match($0, /build cpu best [0-9.]+ median [0-9.]+/); split(substr($0, RSTART, RLENGTH), c, " ")
  match($0, /wall best [0-9.]+ median [0-9.]+/); split(substr($0, RSTART, RLENGTH), w, " ")
  k = "threads " t ", " lev
  cpu[k, side] = cpu[k, side] " " c[6]; wall[k, side] = wall[k, side] " " w[5]; keys[k] = 1
}
function med(s,   a, n, i, j, x) {
  n = split(s, a, " ")
  for (i = 2; i <= n; ++i) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; --j) a[j + 1] = a[j]; a[j + 1] = x }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
  for (k in keys) {
    cb = med(cpu[k, "before"]); ca = med(cpu[k, "after"]); wb = med(wall[k, "before"]); wa = med(wall[k, "after"])
    printf "%s: build CPU time before %.4f s, after %.4f s (%+.1f%%); wall before %.4f s, after %.4f s (%+.1f%%)\n", k, cb, ca, 100 * (ca - cb) / cb, wb, wa, 100 * (wa - wb) / wb
  }
}
