#!/usr/bin/env bash
# device_run.sh OUTDIR [STEPS]: the one device runner. Run from the source
# tree on a machine with a GPU; every step appends to OUTDIR/results (logs,
# CSV, JSON, PNGs; env.txt records the date, GPU, driver and nvcc) and echoes
# the end of its table. STEPS, in the order given (default
# "build test memcheck ci32k laplace ci32kf ci512k run"):
#   build     configure and build $B (Release, CISPARSE_CUDA_ARCH, SHARED data)
#   test      the GPU tests (ctest -L gpu)
#   memcheck  compute-sanitizer memcheck of every kernel on a small CI matrix
#             and of the CI driver's direct and stored GPU paths
#   cli       the command-line tests (ctest -L cli) with their GPU branches
#   pytest    the Python tests, GPU ones included (PySCF from $SITE if needed)
#   cidriver  `cisparse ci` against FCISolver on $FCIDUMPS (ci_cli_vs_fcisolver.py)
#   tune      hyb variants through the options -o hyb_lock, hyb_g, hyb_unroll (bench/NOTES.md)
#   ci32k laplace ci32kf ci512k   `cisparse bench` on one matrix each (+ PNGs)
#   paper32k  ten CI matrices of 32,768 rows (seeds 1-10), every kernel and
#             the hyb-paper block sweep: the paper's Tables 6-10 (paper_tables.py)
#   paper1m   1,048,576-row CI matrices (seeds PAPER1M_SEEDS, default "1 2")
#   run       `cisparse run`: Tables 3-5 and Table 9 on the GPU
#   solvers   the Figure-4 sweep on laplace3d:size=64 (+ PNGs), then 160^3
#             double PCG in every solver version
#   cupy      CuPy's cg beside cisparse (solvers_peer.py; needs CuPy)
#   sell      the SELL report's slice study on SHARED/matrices (sell_study.sh,
#             then sell_study.py for the tables and the figure)
#   gpu4pyscf cisparse's direct CI beside gpu4pyscf and PySCF on the FCIDUMPs
#             in $FCIDUMPS (default SHARED/ci/h2o_631g.FCIDUMP; ci_vs_gpu4pyscf.py)
#   bigci     the Davidson that fits: C2H4/cc-pVDZ 16e in 18 orbitals, D2h Ag
#             (2.39e8 determinants; FCIDUMP made by make_c2h4_fcidump.py with
#             PySCF from $SITE), --count and the direct run on one GPU; then
#             H2O 6-31G FCI direct at subspaces 24, 12, 8 (the lean mode's cost)
#   cidist    the direct CI sigma over GPUs: C2H4 CAS(16,16) C1 on the one-GPU
#             path and with --gpus 1, 2, 4, 8 up to the count (CIDIST_BIG=1:
#             the 16e/18o C1 space, 1.91e9 determinants, over every GPU)
#   halfscatter  the half sigma's scatter over every pair against the one
#             over the pairs a pass reaches, one GPU, many passes
#             (bench/ci_half_scatter.c): C2H4 CAS(16,16) C1 at workspaces
#             HS_WORK (GiB, default "0.25 1 4 16"), and with CIDIST_BIG=1 the
#             16e/18o C1 space at 4 GiB (as each GPU of 2 x 80 GB has)
#   states    the right state every time: test_ci_random_states with the GPU
#             methods, then the parity watches' cost, this build against the
#             one before them (BASE_TAR: its source as a tar; BASE_B its build)
#   nccl      the summed operator's exchange patterns against NCCL's
#             all-gather and reduce-scatter (bench/nccl_patterns.c)
#   cistored  the stored CI Hamiltonian over GPUs (each GPU builds its rows):
#             H2O 6-31G FCI on one GPU and with --gpus 1, 2, 4, 8 up to the count
#   multigpu  every GPU of the host: weak scaling of the SpMV, strong scaling
#             of CG and of Davidson (--gpus N, N = 1, 2, 4, 8 up to the count)
#   mpi       the same CI run launched both ways: one process driving N GPUs
#             (ci --gpus N) and mpirun -np N, one GPU per process (ci --mpi
#             --device gpu), N = 2, 4, 8 up to the count, on $CIFILE (default
#             C2H4 CAS(16,16) C1, made as in cidist): time per sigma, to
#             solution and the energies of both; MPI from the offline kit
#             MPIKIT (bench/mpi_kit.sh), built in $BM (default build-mpi).
#             MPI_DEVICE=cpu: the same over CPU parts (--cpu-parts N against
#             --mpi --device cpu, N in MPI_NP, default "2 3"; no GPU needed)
# Environment: B (build folder, default build-dev), SHARED (the shared data:
# matrices/ and ci/, default $CISPARSE_SHARED_DIR or ./shared), CUDA_ARCH
# (default 90), JOBS (default 16), SITE (a folder of Python packages, e.g. PySCF
# unpacked from ../shared/tools/gpu4pyscf-site.sh's tarball). Each study's curated table is in
# bench/results/<study>.md with the command that produced it.
set -u
OUT=${1:?usage: device_run.sh OUTDIR [STEPS]}
STEPS=${2:-"build test memcheck ci32k laplace ci32kf ci512k run"}
R=$OUT/results
B=${B:-build-dev}
SHARED=${SHARED:-${CISPARSE_SHARED_DIR:-$PWD/shared}}
JOBS=${JOBS:-16}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv;
  nvcc --version | tail -2; echo "steps: $STEPS"; } > "$R/env.txt" 2>&1
cat "$R/env.txt"

bench() { # bench NAME ARGS...: one `cisparse bench` with its command and device at the top
  local name=$1; shift
  { echo "# $(date -u) | $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# cisparse bench $*"
    timeout 400 $B/cisparse bench "$@" --csv "$R/$name.csv" --json "$R/$name.json"; } > "$R/$name.txt" 2>&1
  grep -v "^  " "$R/$name.txt" | tail -32
}
logged() { # logged NAME CMD...: CMD's output to $R/NAME.log with the command on top
  local name=$1; shift
  { echo "# $(date -u) | $*"; "$@"; } > "$R/$name.log" 2>&1
  echo "== $name: exit $?"
}

for step in $STEPS; do
  case $step in
  build)
    cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=${CUDA_ARCH:-90} \
      -DCISPARSE_SHARED_DIR="$SHARED" > "$R/build.log" 2>&1 && cmake --build $B -j$JOBS >> "$R/build.log" 2>&1 ||
      { tail -40 "$R/build.log"; exit 1; }
    grep -i "warning" "$R/build.log" | head -5 ;;
  test)
    (cd $B && ctest -L gpu -V --timeout 300) > "$R/gpu_tests.log" 2>&1
    grep -E "FAIL|tests passed|checks,|Failed|SKIPPED|message|device:" "$R/gpu_tests.log" | head -40 ;;
  memcheck)
    compute-sanitizer --tool memcheck --leak-check full $B/cisparse bench ci:rows=1024,seed=1 --runs 1 --warmup 0 \
      > "$R/memcheck.log" 2>&1
    for m in direct stored; do # the CI driver's two GPU paths (direct: the sigma timing's too)
      compute-sanitizer --tool memcheck --leak-check full $B/cisparse ci "$SHARED/ci/n2_sto3g.FCIDUMP" --device gpu \
        --method $m --roots 2 $([ $m = direct ] && echo --time-sigma) >> "$R/memcheck.log" 2>&1
    done
    grep -E "ERROR SUMMARY|LEAK SUMMARY|Invalid" "$R/memcheck.log" | head -8 ;;
  cli) # the command-line tests, their GPU branches taken
    (cd $B && ctest -L cli --timeout 300 -j "$JOBS" --output-on-failure) > "$R/cli_tests.log" 2>&1
    grep -E "tests passed|Failed|Timeout|\*\*\*" "$R/cli_tests.log" | head -20 ;;
  pytest) # the Python tests, GPU ones included; PySCF (and pytest) from $SITE when the machine has none
    CISPARSE_LIBRARY=$B/libcisparse.so CISPARSE_CLI=$B/cisparse PYTHONPATH=python${SITE:+:$SITE} \
      python3 -m pytest -p no:cacheprovider -q -rs python/tests > "$R/pytest.log" 2>&1
    tail -15 "$R/pytest.log" ;;
  cidriver) # the same FCIDUMPs through `cisparse ci` and FCISolver (both one call of the CI driver)
    # shellcheck disable=SC2086 # FCIDUMPS is a list
    for f in ${FCIDUMPS:-$SHARED/ci/h2o_631g.FCIDUMP}; do
      for k in 1 3; do
        CISPARSE_LIBRARY=$B/libcisparse.so PYTHONPATH=python${SITE:+:$SITE} python3 bench/ci_cli_vs_fcisolver.py "$f" \
          --roots $k --device gpu --cli $B/cisparse --runs 3
      done
    done 2>&1 | tee "$R/cidriver.txt" ;;
  tune) # "matrix LOCK G UNROLL"
    while read -r m l g u; do
      echo "L:G:U=$l:$g:$u ${m%%,*} $(timeout 100 $B/cisparse -o hyb_lock=$l -o hyb_g=$g -o hyb_unroll=$u \
        bench $m --kernels hyb --runs 30 --warmup 3 2>/dev/null | grep -E '^hyb ')"
    done <<'LIST' | tee "$R/tune.txt"
ci:rows=32768,seed=1 0 32 4
ci:rows=32768,seed=1 0 32 8
ci:rows=524288,seed=1 0 32 4
ci:rows=524288,seed=1 1024 16 4
LIST
    ;;
  ci32k) bench ci32k ci:rows=32768,seed=1 --sweep-block --sweep-slice --plot "$R/ci32k" ;;
  laplace) bench laplace laplace3d:size=160,points=7 --sweep-slice --plot "$R/laplace" ;;
  ci32kf) bench ci32k_float ci:rows=32768,seed=1 --precision float ;;
  ci512k)
    bench ci512k ci:rows=524288,seed=1 --runs 20 --warmup 3 \
      --kernels csr-vector,ell,sell,sellcs,csr5,hyb-paper,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-coo-alg1,cusparse-sell-alg1 ;;
  paper32k)
    for seed in 1 2 3 4 5 6 7 8 9 10; do bench ci32k_s$seed ci:rows=32768,seed=$seed --sweep-block > /dev/null; done
    python3 bench/paper_tables.py "$R"/ci32k_s*.json > "$R/paper32k.md"; tail -30 "$R/paper32k.md" ;;
  paper1m)
    for seed in ${PAPER1M_SEEDS:-1 2}; do
      bench ci1m_s$seed ci:rows=1048576,seed=$seed --runs 20 --warmup 3 \
        --kernels csr-vector,sell,sellcs,csr5,hyb-paper,hyb,cusparse-csr-alg1,cusparse-csr-alg2,cusparse-sell-alg1 > /dev/null
    done
    python3 bench/paper_tables.py "$R"/ci1m_s*.json > "$R/paper1m.md"; cat "$R/paper1m.md" ;;
  run) $B/cisparse run > "$R/run.txt" 2>&1; tail -25 "$R/run.txt" ;;
  solvers)
    logged sweep64 $B/cisparse bench laplace3d:size=64 --solvers --device gpu --format ell --repeat 3 \
      --energy-seconds 0.3 --json "$R/sweep64.json" --plot "$R/sweep64"
    sed -n '/^solver /,/^(energy/p' "$R/sweep64.log"
    for v in cublasL cublasN cuda merge merge_10 graph; do
      logged pcg160_$v $B/cisparse solve laplace3d:size=160 --device gpu --format ell --method cg --precond jacobi \
        --version $v --repeat 3 --json "$R/pcg160_$v.json"
      grep -E "^(iterations|time|energy)" "$R/pcg160_$v.log" | sed "s/^/   $v: /"
    done ;;
  cupy)
    logged cupy python3 bench/solvers_peer.py --bin $B/cisparse --sizes 64,128,160 --json "$R/cupy.json"
    sed -n '/^ grid/,$p' "$R/cupy.log" ;;
  sell)
    RUNS=20 bash bench/sell_study.sh "$R" $B/cisparse "$SHARED/matrices" &&
      python3 bench/sell_study.py "$R/study"; tail -30 "$R/study/sell-study-tables.md" ;;
  gpu4pyscf)
    # shellcheck disable=SC2086 # FCIDUMPS is a list
    logged gpu4pyscf python3 -u bench/ci_vs_gpu4pyscf.py --cisparse $B/cisparse --solves 2 --repeats 7 \
      --json "$R/gpu4pyscf.json" ${FCIDUMPS:-$SHARED/ci/h2o_631g.FCIDUMP}
    tail -12 "$R/gpu4pyscf.log" ;;
  bigci)
    big=$R/c2h4_16e18o_ag.FCIDUMP
    [ -s "$big" ] || PYTHONPATH=${SITE:-} logged make_16e18o python3 bench/make_c2h4_fcidump.py 18 "$big" --symmetry --nelec 16
    logged bigci_count $B/cisparse ci "$big" --device gpu --method direct --count
    logged bigci_run $B/cisparse ci "$big" --device gpu --method direct --progress --json
    grep -hE "subspace|Davidson:|energy|to_solution|\"iterations|error" "$R/bigci_count.log" "$R/bigci_run.log" | cut -c1-300 | head -12
    for s in 24 12 8; do
      logged lean_$s $B/cisparse ci "$SHARED/ci/h2o_631g.FCIDUMP" --device gpu --method direct --subspace $s --repeat 2
      grep -hE "^davidson|^time|E = " "$R/lean_$s.log" | sed "s/^/   subspace $s: /"
    done
    rm -f "$big" ;;
  cidist)
    # the direct sigma over GPUs (ci --gpus N, split by alpha strings): C2H4
    # CAS(16,16) C1 (1.66e8 determinants) on the one-GPU path and over
    # N = 1, 2, 4, 8 GPUs up to the count; CIDIST_BIG=1 adds the 16e/18o C1
    # space (1.91e9 determinants) over every GPU of the host and over 2, and
    # its D2h Ag block on one GPU (the energies must agree). FCIDUMPs: CAS16,
    # BIG_C1, BIG_AG when given (made here with PySCF from $SITE otherwise);
    # CIDIST_SUB: the big runs' --subspace (default: fitted to memory);
    # CIDIST_CAS=0 skips the CAS(16,16) runs, CIDIST_AG=0 the Ag run
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    cas=${CAS16:-$R/c2h4_cas16.FCIDUMP}
    [ -s "$cas" ] || PYTHONPATH=${SITE:-} logged make_cas16 python3 bench/make_c2h4_fcidump.py 16 "$cas"
    keys="^(root|davidson:|davidson phases|direct|parts|ci |time[ :])|rror|the diagonal"
    [ "${CIDIST_CAS:-1}" = 1 ] &&
      logged cidist_single $B/cisparse ci "$cas" --device gpu --method direct --no-s2 --tol ${CIDIST_TOL:-1e-6} --verbose --time-sigma &&
      grep -hE "$keys|sigma" "$R/cidist_single.log" | cut -c1-260 | sed "s/^/   one-GPU path: /"
    for n in 1 2 4 8; do
      [ "$n" -le "$ngpu" ] && [ "${CIDIST_CAS:-1}" = 1 ] || break
      logged cidist_$n $B/cisparse ci "$cas" --gpus $n --method direct --tol ${CIDIST_TOL:-1e-6} --verbose
      grep -hE "$keys" "$R/cidist_$n.log" | cut -c1-260 | sed "s/^/   N=$n: /"
    done
    if [ "${CIDIST_BIG:-0}" = 1 ]; then
      big=${BIG_C1:-$R/c2h4_16e18o_c1.FCIDUMP} ag=${BIG_AG:-$R/c2h4_16e18o_ag.FCIDUMP}
      [ -s "$big" ] || PYTHONPATH=${SITE:-} logged make_16e18o_c1 python3 bench/make_c2h4_fcidump.py 18 "$big" --nelec 16
      [ -s "$ag" ] || PYTHONPATH=${SITE:-} logged make_16e18o_ag python3 bench/make_c2h4_fcidump.py 18 "$ag" --nelec 16 --symmetry
      [ "${CIDIST_AG:-1}" = 1 ] &&
        logged cidist_big_ag $B/cisparse ci "$ag" --device gpu --method direct --no-s2 --tol ${CIDIST_TOL:-1e-6} --verbose &&
        grep -hE "$keys" "$R/cidist_big_ag.log" | cut -c1-260 | sed "s/^/   Ag one GPU: /"
      for n in $ngpu 2; do
        [ "$n" -le "$ngpu" ] || continue
        logged cidist_big_count_$n $B/cisparse ci "$big" --gpus $n --method direct --count ${CIDIST_SUB:+--subspace $CIDIST_SUB}
        grep -h "per part" "$R/cidist_big_count_$n.log" | cut -c1-250
        logged cidist_big_$n timeout ${CIDIST_BIG_LIMIT:-240} $B/cisparse ci "$big" --gpus $n --method direct \
          --tol ${CIDIST_TOL:-1e-6} --verbose ${CIDIST_SUB:+--subspace $CIDIST_SUB}
        grep -hE "$keys" "$R/cidist_big_$n.log" | cut -c1-260 | sed "s/^/   C1 16e18o N=$n: /"
        grep -E "^davidson +[0-9]" "$R/cidist_big_$n.log" | tail -2
        [ "$n" = 2 ] && break
      done
    fi ;;
  nccl)
    # the summed operator's exchange patterns (grouped broadcasts, point-to-
    # point sends) against ncclAllGather / ncclReduceScatter on the same
    # buffers: NCCL_N doubles (default CAS(16,16) C1's 165,636,900) over 2
    # GPUs and over every GPU of the host (bench/nccl_patterns.c)
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    for n in 2 $ngpu; do
      [ "$n" -le "$ngpu" ] || continue
      logged nccl_$n $B/cisparse_nccl_patterns ${NCCL_N:-165636900} $n 7
      grep -E "GB/s|needs" "$R/nccl_$n.log"
      [ "$n" = "$ngpu" ] && break
    done ;;
  halfscatter)
    cas=${CAS16:-$R/c2h4_cas16.FCIDUMP}
    [ -s "$cas" ] || PYTHONPATH=${SITE:-} logged make_cas16 python3 bench/make_c2h4_fcidump.py 16 "$cas"
    # shellcheck disable=SC2086 # HS_WORK is a list
    logged halfscatter_cas16 $B/cisparse_half_scatter "$cas" 5 ${HS_WORK:-0.25 1 4 16}
    grep -v '^#' "$R/halfscatter_cas16.log"
    if [ "${CIDIST_BIG:-0}" = 1 ]; then
      big=${BIG_C1:-$R/c2h4_16e18o_c1.FCIDUMP}
      [ -s "$big" ] || PYTHONPATH=${SITE:-} logged make_16e18o_c1 python3 bench/make_c2h4_fcidump.py 18 "$big" --nelec 16
      logged halfscatter_big $B/cisparse_half_scatter "$big" 2 4
      grep -v '^#' "$R/halfscatter_big.log"
    fi ;;
  cistored)
    # the stored CI Hamiltonian over GPUs (ci --gpus N --method stored: each
    # GPU builds and splits its own rows): H2O 6-31G FCI, the one-GPU path
    # (--device gpu, plain and --symmetric) and N = 1, 2, 4, 8 GPUs up to the
    # count with the default local block (sym-seg) and with csr
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    h2o=$SHARED/ci/h2o_631g.FCIDUMP
    for sym in "" --symmetric; do
      logged cistored_single$sym $B/cisparse ci "$h2o" --device gpu --method stored $sym --verbose
      grep -hE "^(build|format|davidson |time|root 0)" "$R/cistored_single$sym.log" | cut -c1-220 | sed "s/^/   one GPU$sym: /"
    done
    for n in 1 2 4 8; do
      [ "$n" -le "$ngpu" ] || break
      for f in "" csr; do
        logged cistored_${n}$f $B/cisparse ci "$h2o" --gpus $n --method stored ${f:+--format $f} --verbose
        grep -hE "^(stored|root 0|davidson:|ci )|rror" "$R/cistored_${n}$f.log" | cut -c1-240 | sed "s/^/   N=$n ${f:-sym-seg}: /"
      done
    done ;;
  multigpu)
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    for n in 1 2 4 8; do
      [ "$n" -le "$ngpu" ] || break
      for x in allgather p2p; do
        logged weak_${x}_$n $B/cisparse bench "ci:rows=$((65536 * n)),seed=1" --gpus $n --runs 50 --exchange $x
        grep '^spmv:' "$R/weak_${x}_$n.log" | sed "s/^/   $x N=$n: /"
      done
      logged cg_$n $B/cisparse solve laplace3d:size=160,points=7 --gpus $n --method cg --precond jacobi --tol 1e-8
      logged dav_$n $B/cisparse ci "$SHARED/ci/h2o_631g.FCIDUMP" --level 4 --gpus $n --roots 1 --tol 1e-6
      grep -hE "^(cg|solve|ci |davidson)" "$R/cg_$n.log" "$R/dav_$n.log" | sed "s/^/   N=$n: /"
    done ;;
  mpi)
    # the machine's own MPI when it has one (mpicc and mpirun: Open MPI on
    # the lent GPU hosts), else the offline kit $MPIKIT (bench/mpi_kit.sh)
    MPICH_KIT_CMAKE=()
    if [ -s "${MPIKIT:-}" ]; then
      kit=$R/mpikit
      rm -rf "$kit" && mkdir -p "$kit" && tar -xJf "$MPIKIT" -C "$kit" || { echo "mpi: cannot unpack $MPIKIT" >&2; exit 1; }
      . "$kit/mpich/env.sh"
    elif ! command -v mpicc > /dev/null || ! command -v mpirun > /dev/null; then
      echo "mpi: no MPI on this machine: MPIKIT=path/to/mpich-kit.tar.xz (bench/mpi_kit.sh makes it)" >&2; exit 1
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # Open MPI refuses root otherwise
    # Open MPI binds each process to one core at -np 2 (to a socket above):
    # the host's threaded work (diagonal, guess) then runs on one core
    bind=()
    mpirun --version 2>&1 | grep -q "Open MPI" && bind=(--bind-to none)
    echo "   MPI: $(mpirun --version 2>&1 | head -1) ($(command -v mpirun))"
    BM=${BM:-build-mpi}
    dev=${MPI_DEVICE:-gpu}
    cuda=()
    [ "$dev" = gpu ] || cuda=(-DCISPARSE_CUDA=OFF)
    cmake -S . -B $BM -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=${CUDA_ARCH:-90} -DCISPARSE_SHARED_DIR="$SHARED" \
      -DCISPARSE_MPI=ON "${MPICH_KIT_CMAKE[@]}" "${cuda[@]}" > "$R/build_mpi.log" 2>&1 &&
      cmake --build $BM -j$JOBS >> "$R/build_mpi.log" 2>&1 || { tail -40 "$R/build_mpi.log"; exit 1; }
    grep "cisparse: MPI" "$R/build_mpi.log" | sed "s/^/   /"
    f=${CIFILE:-$R/c2h4_cas16.FCIDUMP}
    made=
    if [ ! -s "$f" ]; then
      PYTHONPATH=${SITE:-} logged make_cas16 python3 bench/make_c2h4_fcidump.py 16 "$f"
      made=1
    fi
    if [ "$dev" = gpu ]; then
      ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
      counts=""
      for n in 2 4 8; do [ "$n" -le "$ngpu" ] && counts="$counts $n"; done
    else
      counts=${MPI_NP:-"2 3"}
    fi
    for n in $counts; do
      if [ "$dev" = gpu ]; then one=(--gpus $n); else one=(--cpu-parts $n); fi
      logged mpi_one_$n $BM/cisparse ci "$f" "${one[@]}" --method direct --tol ${CIDIST_TOL:-1e-6}
      logged mpi_np_$n mpirun "${bind[@]}" -np $n $BM/cisparse ci "$f" --mpi --device $dev --method direct \
        --tol ${CIDIST_TOL:-1e-6}
      for run in one np; do
        grep -hE "^(root|davidson:|direct:|parts|time:)|rror" "$R/mpi_${run}_$n.log" | cut -c1-200 |
          sed "s/^/   N=$n $([ $run = one ] && echo "one process:" || echo "mpirun -np:")  /"
      done
    done
    [ -z "$made" ] || rm -f "$f" ;;
  states) # the right state every time (issue 40): the random-integral and
    # separated-site cases with the GPU methods, then what the parity watches
    # cost: `ci --device gpu` direct on $SHARED/ci's files, this tree's build
    # against $BASE_B (the tree before them, built from $BASE_TAR when given)
    # in one run, roots 1 and 3, three repeats each (medians of to_solution)
    logged states_random env OMP_NUM_THREADS=1 $B/tests/test_ci_random_states 240
    tail -3 "$R/states_random.log"
    BASE_B=${BASE_B:-build-base}
    if [ -n "${BASE_TAR:-}" ] && [ ! -x "$BASE_B/cisparse" ]; then
      rm -rf base-src && mkdir base-src && tar -xf "$BASE_TAR" -C base-src &&
        cmake -S base-src -B "$BASE_B" -DCMAKE_BUILD_TYPE=Release -DCISPARSE_CUDA_ARCH=${CUDA_ARCH:-90} \
          > "$R/base_build.log" 2>&1 && cmake --build "$BASE_B" -j$JOBS --target cisparse_cli >> "$R/base_build.log" 2>&1 ||
        tail -5 "$R/base_build.log"
    fi
    { echo "file,roots,build,energies,products,iterations,to_solution_median_s"
      for f in ${STATES_FILES:-h2o_631g n2_sto3g beh2_sto3g lih_sto3g}; do
        for k in 1 3; do
          for b in "$BASE_B" "$B"; do
            [ -x "$b/cisparse" ] || continue
            $b/cisparse ci "$SHARED/ci/$f.FCIDUMP" --device gpu --method direct --roots $k --repeat 3 --json --quiet \
              2> /dev/null | python3 -c "
import json, statistics, sys
d = json.load(sys.stdin)
e = ' '.join('%.10f' % r['energy'] for r in d['roots'])
t = d.get('to_solution_runs') or [d.get('to_solution_seconds')]
print('$f,$k,$b,%s,%s,%s,%.4f' % (e, d.get('products'), d.get('iterations'), statistics.median(t)))" || echo "$f,$k,$b,failed"
          done
        done
      done; } > "$R/states_cost.csv" 2>&1
    cat "$R/states_cost.csv" ;;
  *) echo "device_run.sh: unknown step '$step'" >&2; exit 2 ;;
  esac
done
