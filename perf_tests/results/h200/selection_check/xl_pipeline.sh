#!/usr/bin/env bash
# Issue 15's full run on one machine, resumable: the tuning zoo and the six xl matrices
# benched (compound-bench, tuning/sm_90.json), then a rerun of every bench, then Nsight
# Compute on each xl pair's tuned variant (compound-bench --variants) beside cuSPARSE.
# Every step leaves /tmp/res/done.<step> when it succeeds and is skipped on a later start,
# so a pipeline cut off (the device call ended, the process was killed) resumes at the step
# it was in. Started in the background by xl_run.sh; its log is /tmp/res/pipeline.log.
#   STEPS: which parts to run, in order (default "run rerun ncu"): run (the zoo unless
#   SKIP_ZOO, then each xl pair not in .carry/prof/run1/), rerun (each xl pair's run variants
#   again, with the baselines), rerun-zoo, ncu, examples (the three solver examples at the
#   README's GPU sizes), check (compound-tune --check-selection: TunedSpmv's choices timed against
#   the exhaustive best, leave-one-out on the tuning zoo, and on the unseen set after tuning it);
#   sanitize (compute-sanitizer on the segmented sum) right after the build.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
exec >> "$R/pipeline.log" 2>&1
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit)
bounds="128:4;128:16;256:1;256:2;256:4;256:8;512:4"
# XL, XL_SCALE, TUNE_SCALE, TIMING: a dry run at toy size on a host build (build-cuda a link to it).
read -r -a xl <<< "${XL:-circuit-10m helmholtz-box-xl dirac-torus-xl connection-hubs-8m elasticity-box-xl elasticity-rigid-xl}"
xl_scale=${XL_SCALE:-xl} tune_scale=${TUNE_SCALE:-tune} timing=${TIMING:-queued}
steps=${STEPS:-run rerun ncu}
bench=build-cuda/perf_tests/bench/compound-bench
echo "=== pipeline start $(date +%T) (pid $$, steps: $steps)"

# step NAME CMD...: runs CMD unless done.NAME exists; marks it done on success.
step() {
  local name=$1
  shift
  [ -e "$R/done.$name" ] && return 0
  local start=$SECONDS
  echo "=== $name ($(date +%T))"
  "$@"
  local rc=$?
  echo "=== $name rc=$rc in $((SECONDS - start)) s ($(date +%T))"
  [ $rc -eq 0 ] && touch "$R/done.$name"
  return $rc
}

build_kokkos() {
  scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
    --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; return 1; }
  { nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader; nvcc --version | tail -2
    echo "commit $COMPOUND_SPARSE_COMMIT"; echo "launch bounds $bounds"; nproc; free -g | head -2; } > "$R/device.txt"
}

build_zoo() {
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$R/build.log" 2>&1 &&
    ninja -C build-cuda compound-zoo >> "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; return 1; }
}

# Generation in the background, one process per matrix (restarted if a previous start was cut off).
generate() {
  local zoo=build-cuda/perf_tests/zoo/compound-zoo
  if [ ! -e /tmp/compound_zoo_tune/index.json ] && ! pgrep -f "compound-zoo --out /tmp/compound_zoo_tune" > /dev/null; then
    setsid nohup "$zoo" --out /tmp/compound_zoo_tune --scale $tune_scale --meshes .carry/meshes \
      --mhd1280b third_party_src/testmatrices/mhd1280b.cua > "$R/zoo_tune.log" 2>&1 < /dev/null &
  fi
  if [[ " $steps " == *" check "* ]] && [ ! -e /tmp/compound_zoo_unseen/index.json ] &&
    ! pgrep -f "compound-zoo --out /tmp/compound_zoo_unseen" > /dev/null; then
    setsid nohup "$zoo" --out /tmp/compound_zoo_unseen --scale unseen --meshes .carry/meshes \
      > "$R/zoo_unseen.log" 2>&1 < /dev/null &
  fi
  for m in "${xl[@]}"; do
    if [ ! -e /tmp/xl_$m/index.json ] && ! pgrep -f "compound-zoo --out /tmp/xl_$m " > /dev/null; then
      setsid nohup "$zoo" --out /tmp/xl_$m --scale $xl_scale --only $m > "$R/zoo_$m.log" 2>&1 < /dev/null &
    fi
  done
  return 0
}

build_bench() {
  ninja -C build-cuda compound-bench compound-tune example_dirac_inverse_iteration example_elasticity_cg example_helmholtz_cocg \
    >> "$R/build.log" 2>&1 || { grep -a error -A3 "$R/build.log" | head -40; return 1; }
}

# compute-sanitizer memcheck on the segmented sum's kernels, on tuning-zoo matrices with rows
# of several chunks (hubs) and a rigid cap's master node, one precision each.
sanitize() {
  wait_for /tmp/compound_zoo_tune/index.json "$R/zoo_tune.log" || return 1
  local rc=0
  for mp in connection-hubs-256k:float elasticity-rigid-44:double; do
    timeout 150 compute-sanitizer --tool memcheck --kernel-name kns=segmented_sum --print-limit 20 $bench \
      --zoo /tmp/compound_zoo_tune/index.json --out /tmp/san_${mp%%:*} --matrices ${mp%%:*} --precision ${mp##*:} \
      --variants csr.aos.aos.segmented_sum.t128.b4.l1,csr.soa.aos.segmented_sum.t128.b4.l1 --samples 1 --batch 1 \
      --timing wall > "$R/sanitizer_${mp%%:*}.log" 2>&1 || rc=1
    echo "sanitizer ${mp}: $(grep -a -E 'ERROR SUMMARY' "$R/sanitizer_${mp%%:*}.log" | tail -1)"
  done
  return $rc
}

# Selection measured on the device (issue 16): the tuning zoo leave-one-out against
# tuning/sm_90.json; the unseen set tuned exhaustively (its own database), then checked.
check() {
  local tune=build-cuda/tuning/compound-tune out=$R/check
  mkdir -p "$out"
  wait_for /tmp/compound_zoo_tune/index.json "$R/zoo_tune.log" || return 1
  $tune --check-selection tuning/sm_90.json --zoo /tmp/compound_zoo_tune/index.json --out "$out/tuning_zoo" \
    2>&1 | tr '\r' '\n' | grep -v '%' > "$out/tuning_zoo.log" || { tail -5 "$out/tuning_zoo.log"; return 1; }
  tail -1 "$out/tuning_zoo.log"
  wait_for /tmp/compound_zoo_unseen/index.json "$R/zoo_unseen.log" || return 1
  $tune --zoo /tmp/compound_zoo_unseen/index.json --db-dir "$out/unseen_db" 2>&1 | tr '\r' '\n' | grep -v '%' \
    > "$out/unseen_tune.log" || { tail -5 "$out/unseen_tune.log"; return 1; }
  tail -1 "$out/unseen_tune.log"
  $tune --check-selection tuning/sm_90.json --best-from "$out/unseen_db/sm_90.json" \
    --zoo /tmp/compound_zoo_unseen/index.json --out "$out/unseen" 2>&1 | tr '\r' '\n' | grep -v '%' \
    > "$out/unseen.log" || { tail -5 "$out/unseen.log"; return 1; }
  tail -1 "$out/unseen.log"
}

# The three examples at the README's GPU sizes.
examples() {
  mkdir -p "$R/examples"
  local rc=0
  for run in "dirac_inverse_iteration 300" "dirac_inverse_iteration 700" "elasticity_cg 40" "helmholtz_cocg 100 8"; do
    local log=$R/examples/example_$(echo "$run" | tr ' ' '_').txt
    echo "\$ build-cuda/examples/example_$run" > "$log"
    timeout 240 build-cuda/examples/example_$run >> "$log" 2>&1 || rc=1
    echo "example $run: $(tail -1 "$log")"
  done
  return $rc
}

wait_for() {  # wait_for INDEX LOG: until the generator wrote INDEX (fails if it stopped without it)
  local index=$1 log=$2
  until [ -e "$index" ]; do
    if ! pgrep -f "compound-zoo --out $(dirname "$index")( |$)" > /dev/null && [ ! -e "$index" ]; then
      sleep 2
      [ -e "$index" ] && break
      echo "generation of $index stopped without it:"; tail -5 "$log"; return 1
    fi
    sleep 5
  done
}

bench_zoo() {  # bench_zoo DIR
  rm -rf "$1" && mkdir -p "$1"
  wait_for /tmp/compound_zoo_tune/index.json "$R/zoo_tune.log" || return 1
  $bench --zoo /tmp/compound_zoo_tune/index.json --db tuning/sm_90.json --out "$1" --precision both \
    --heatmap elasticity-box-large --timing $timing 2>&1 | tr '\r' '\n' | grep -v '%' > "$1/bench.log"
  local rc=${PIPESTATUS[0]}
  tail -2 "$1/bench.log"
  return $rc
}

bench_pair() {  # bench_pair DIR MATRIX PRECISION
  local dir=$1 m=$2 p=$3
  rm -rf "$dir" && mkdir -p "$dir"
  wait_for /tmp/xl_$m/index.json "$R/zoo_$m.log" || return 1
  $bench --zoo /tmp/xl_$m/index.json --db tuning/sm_90.json --out "$dir" --precision $p --timing $timing 2>&1 |
    tr '\r' '\n' | grep -v '%' > "$dir/bench.log"
  local rc=${PIPESTATUS[0]}
  tail -2 "$dir/bench.log"
  return $rc
}

# The run's bench.json of a pair: this machine's, or the first machine's (carried in run1/).
run_bench() {
  local pair=$1
  if [ -e "$R/run/$pair/bench.json" ]; then echo "$R/run/$pair/bench.json"; else echo "$root/.carry/prof/run1/$pair/bench.json"; fi
}

rerun_pair() {  # rerun_pair DIR MATRIX PRECISION: the run's tuned and default variants again, and the baselines
  local dir=$1 m=$2 p=$3
  local b
  b=$(run_bench "$m-$p")
  [ -e "$b" ] || { echo "no run of $m $p to rerun"; return 1; }
  local variants
  variants=$(python3 -c "import json,sys; b=json.load(open(sys.argv[1])); r={x['method']: x['variant'] for x in b['matrices'][0]['results']}; print(r['ours_tuned'] + ',' + r['ours_default'] if r['ours_default'] != r['ours_tuned'] else r['ours_tuned'])" "$b") || return 1
  rm -rf "$dir" && mkdir -p "$dir"
  wait_for /tmp/xl_$m/index.json "$R/zoo_$m.log" || return 1
  $bench --zoo /tmp/xl_$m/index.json --out "$dir" --precision $p --timing $timing --variants "$variants" 2>&1 |
    tr '\r' '\n' | grep -v '%' > "$dir/bench.log"
  local rc=${PIPESTATUS[0]}
  tail -2 "$dir/bench.log"
  return $rc
}

ncu_pair() {  # ncu_pair MATRIX PRECISION: the run's tuned variant, one timed launch, under Nsight Compute
  local m=$1 p=$2 out=$R/ncu
  mkdir -p "$out"
  local variant
  variant=$(python3 -c "import json,sys; b=json.load(open(sys.argv[1])); print([r for r in b['matrices'][0]['results'] if r['method']=='ours_tuned'][0]['variant'])" "$(run_bench "$m-$p")") || return 1
  local metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  metrics+=,lts__t_sector_hit_rate.pct,launch__registers_per_thread,launch__grid_size,launch__block_size
  metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
  metrics+=,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
  # NCU_KERNELS, NCU_COUNT: which kernels, and how many launches of them (default: ours and the baselines', all).
  local kernels=${NCU_KERNELS:-'regex:row_kernel|segmented|SpmvFunctor|SPMV|[Ss]pmv|csrmv|bsrmv|bsr_|csr_|ELL|[Ss]ell|ell_'}
  timeout 300 ncu --clock-control none --metrics "$metrics" --kernel-name-base demangled -k "$kernels" ${NCU_COUNT:+-c $NCU_COUNT} -o "$out/$m-$p" -f \
    $bench --zoo /tmp/xl_$m/index.json --out "$out/bench-$m-$p" --precision $p --variants "$variant" \
    --samples 1 --batch 1 --timing wall > "$out/$m-$p.log" 2>&1 || { tail -5 "$out/$m-$p.log"; return 1; }
  ncu --import "$out/$m-$p.ncu-rep" --csv --page raw --print-units base > "$out/$m-$p.csv" 2>> "$out/$m-$p.log"
}

[ -d third_party_src ] || tar xJf .carry/src.tar.xz
[ -d .carry/deps ] || tar xJf .carry/packed/deps.tar.xz -C .carry
[ -d .carry/meshes ] || tar xJf .carry/packed/meshes.tar.xz -C .carry
step kokkos build_kokkos || exit 1
step zoo_tool build_zoo || exit 1
generate
step bench_tool build_bench || exit 1
[[ " $steps " == *" sanitize "* ]] && step sanitize sanitize
pairs=()
for m in "${xl[@]}"; do pairs+=("$m:float" "$m:double"); done
for s in $steps; do
  case $s in
    run)
      # The tuning zoo (step rerun-zoo benches it again).
      [ -n "${SKIP_ZOO:-}" ] || step run-zoo bench_zoo "$R/run/zoo"
      for pair in "${pairs[@]}"; do
        [ -e "$root/.carry/prof/run1/${pair/:/-}/bench.json" ] && continue  # run on the first machine
        step "run-${pair/:/-}" bench_pair "$R/run/${pair/:/-}" "${pair%%:*}" "${pair##*:}"
      done
      ;;
    rerun)
      for pair in "${pairs[@]}"; do
        [ -e "$root/.carry/prof/rerun1/${pair/:/-}/bench.json" ] && continue  # rerun on an earlier machine
        step "rerun-${pair/:/-}" rerun_pair "$R/rerun/${pair/:/-}" "${pair%%:*}" "${pair##*:}"
      done
      ;;
    rerun-zoo) step rerun-zoo bench_zoo "$R/rerun/zoo" ;;
    examples) step examples examples ;;
    check) step check check ;;
    ncu)
      # Only the pairs under 80% of copy (compulsory bytes over the run's copy bandwidth).
      for pair in "${pairs[@]}"; do
        b=$(run_bench "${pair/:/-}")
        [ -e "$b" ] || continue
        fraction=$(python3 -c "import json,sys; b=json.load(open(sys.argv[1])); m=b['matrices'][0]; t=[r for r in m['results'] if r['method']=='ours_tuned'][0]['seconds']; print(m['compulsory_bytes']/t/b['copy_bandwidth_bytes_per_s'])" "$b")
        echo "$pair: ours tuned at $fraction of copy"
        python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.8 else 1)" "$fraction" &&
          step "ncu-${pair/:/-}" ncu_pair "${pair%%:*}" "${pair##*:}"
      done
      ;;
  esac
done
echo "=== pipeline end $(date +%T)"
touch "$R/done.pipeline"
