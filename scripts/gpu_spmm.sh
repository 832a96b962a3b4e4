#!/usr/bin/env bash
# Issue 17's SpMM on an offline GPU machine, in steps (STEPS, default all, run in this order,
# the most wanted results first since a device machine may go back mid-run):
#   build      Kokkos with CUDA and Kokkos Kernels, then the default GPU build of the library,
#              tools, tests and examples (default launch bounds and SpMM launch bounds), timed:
#              the issue asks for under 10 minutes on 16 cores. `ninja -k 0`: a target that
#              fails to compile is reported and the others are still built and run
#   tests      the registry's SpMM (test_registry), TunedSpmv on multivectors, mixed precision,
#              Kokkos Kernels interop, the merge path (its SpMM staging on aos multivectors,
#              e45e642), the segmented sum (its SpMM against its SpMV per vector), the other
#              kernel tests (those linking compound_sparse_core_objects, not the library: quick
#              to build), and the complex, quaternion and block suites' SpMM cases (bit for bit
#              against one SpMV per vector at every compiled launch-bounds pair)
#   tune       compound-tune --k $KS --spmm-layouts $SPMM_LAYOUTS (default 4) on ZOO_ONLY (at
#              ZOO_SCALE, default tune) into $WORK/tuning, continuing SEED_DB's records where given
#              (TUNE_RESUME=extend: only adding the k they lack; ZOO_ONLY=seed: SEED_DB's matrices;
#              SEED_DB="A B": the one measured on this GPU). On a machine of several GPUs, one
#              compound-tune per GPU (TUNE_GPUS, default all of them), each on a share of the
#              zoo balanced by non-zeros, all writing the one database (compound-tune merges
#              each record into it under a file lock); a line a minute gives each GPU's pairs
#              done (TUNE_PROGRESS_SECONDS), their logs $WORK/tune_gpuN.log
#   examples   example_helmholtz_multisource and example_dirac_eigenvectors at GPU size
#   bench      compound-bench --db that database --k $KS; report/spmm.py (BENCH_SPMM_LAYOUTS=N: its
#              SpMM search, for matrices the database has no record of, on N layouts only; then
#              the k lists of the steps run (KS, KS_RERUN, XL_KS) must hold 1, checked first);
#              BENCH_GPUS=N: one compound-bench per GPU on a share of the zoo, merged (bench_run)
#   rerun      compound-bench again at k = $KS_RERUN (default 1,8) and its report/spmm.py
#   ncu        Nsight Compute (scripts/gpu_profile.sh) at k = 1 and 8 on NCU_PAIRS (default
#              helmholtz-box-k40, dirac-torus-l1 and elasticity-box-52 in double): DRAM bytes,
#              L1 and L2 hit rates, L2-to-L1 bytes and sectors per request of ours' SpMV and SpMM
#              against cuSPARSE's, for the k = 8 target (x gathered k values at a time from L2?);
#              NCU_KS (default "1 8"), NCU_VARIANTS: only these of ours (gpu_profile.sh VARIANTS),
#              NCU_SECTIONS (default WarpStateStats: the stall reasons; "" for none)
#   k8lab      perf_tests/results/h200/spmm_k8_lab (k = 8, complex or quaternion double, Sliced
#              ELL): the row kernel at other batches and bounds, and a kernel whose row threads
#              load different slots and share them by shuffles, against the library's; on
#              K8LAB_MATRICES of the zoo as NAME:complex|quaternion (default
#              helmholtz-box-k40:complex; .mtx or the xl zoo's .csrb), then under memcheck, and
#              with K8LAB_NCU=1 under Nsight Compute (runs right after tests); K8LAB_CHECK_ONLY=PARTS
#              (comma-separated) keeps only the kernels whose names hold one of them in those two;
#              K8LAB_MEMCHECK=0 leaves the memcheck run out
#   seglab     perf_tests/results/h100/segmented_k16_lab (the segmented sum's SpMM of complex
#              vectors at k = 8 and 16 with other groups of vectors a lane, against cuSPARSE) on
#              SEGLAB_MATRICES of the zoo as NAME:float|double (default circuit-1m:float
#              rmat-s20:float), then under memcheck, and with SEGLAB_NCU=1 (or =NAME,...) under
#              Nsight Compute
#   sanitizer  compute-sanitizer memcheck on the registry's SpMM, TunedSpmv's multivectors and the
#              segmented sum's SpMM (test_segmented_sum)
#   xlbench    compound-bench on XL_ONLY (default helmholtz-box-xl,dirac-torus-xl; generated during
#              the build) at k = XL_KS (default 1,8) in XL_PRECISIONS (default double), no
#              database: issue 17's k = 8 target on the xl matrices, after the tune-scale steps
#   ctest      every ctest case (CTEST_REGEX: fewer) within CTEST_SECONDS (default 480), CTEST_JOBS
#              (default 8) at once: the
#              variant-space suites, the examples, the mpi cases (ranks sharing the one GPU),
#              the tools; last, as the longest and the one a cut-off run loses least by
# Needs what scripts/gpu_check.sh needs (carried third_party_src and .carry/deps). Writes
# under $WORK (default gpu_spmm_out/). Long: start it detached (the device tool's 10-minute
# calls), e.g. with perf_tests/results/h200/transposes/scripts/run_bg.sh.
#
#   STEPS="build tests" WORK=/tmp/out scripts/gpu_spmm.sh   (KS=1,8 ZOO_ONLY=a,b PRECISIONS=double: fewer)
#   STEPS="build tune bench" TARGETS="compound-zoo compound-tune compound-bench" ...   (no tests built)
#   STEPS="build bench" ZOO_SCALE=xl ZOO_ONLY=helmholtz-box-xl,dirac-torus-xl,elasticity-box-xl KS=1,8 \
#     BENCH_SPMM_LAYOUTS=2 ...
#     (issue 17's k = 8 target on the xl grids: generating them took 47-175 s each on an H200
#     machine, now one process per matrix during the build; the bench searches matrices the
#     database has no record of)
#   SPMM_LAUNCH_BOUNDS="256:2;256:4;256:8" ...   (the SpMM at other launch bounds than the default)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${WORK:-gpu_spmm_out}
steps=${STEPS:-build tests tune examples bench rerun ncu sanitizer ctest}
zoo_only=${ZOO_ONLY:-helmholtz-box-k40,dirac-torus-l1,elasticity-box-52,connection-hubs-512k,circuit-1m}
mkdir -p "$out"
[ -d third_party_src/kokkos ] || tar -xJf .carry/packed/deps.tar.xz
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step() { echo; echo "=== $* ($(date +%T), ${SECONDS} s)"; }
wants() { [[ " $steps " == *" $1 "* ]]; }
ks=${KS:-1,2,4,8,16}
ks_rerun=${KS_RERUN:-1,8}
precisions=${PRECISIONS:-float,double}
# The xlbench step's matrices (ZOO_SCALE xl), k and precisions.
xl_only=${XL_ONLY:-helmholtz-box-xl,dirac-torus-xl}
xl_ks=${XL_KS:-1,8}
xl_precisions=${XL_PRECISIONS:-double}
xl_zoo=/tmp/compound_zoo_spmm_xl
# compound-bench's --spmm-layouts takes the SpMM's layouts from the SpMV's search, so it refuses a
# k list without 1; refuse that here, before the build, not after it (session 38 lost a rerun so).
if [ -n "${BENCH_SPMM_LAYOUTS:-}" ]; then
  for pair in "bench:$ks" "rerun:$ks_rerun" "xlbench:$xl_ks"; do
    if wants "${pair%%:*}" && [[ ",${pair#*:}," != *,1,* ]]; then
      echo "gpu_spmm.sh: BENCH_SPMM_LAYOUTS needs k = 1 in the ${pair%%:*} step's list (${pair#*:})" >&2
      exit 2
    fi
  done
fi

zoo_scale=${ZOO_SCALE:-tune}
zoo=/tmp/compound_zoo_spmm_$zoo_scale
# The zoo: one compound-zoo process per matrix of ZOO_ONLY into $zoo/parts/NAME
# (scripts/zoo_background.sh), started once compound-zoo is built, so that generation overlaps
# the build; zoo_ready waits for them and joins their indexes into $zoo/index.json (the files
# linked beside it). Without the build step: one process, as before. The surface meshes of
# the mesh matrices (dirac-spot, dirac-bunny, elasticity-spot, ...) live in ../shared, which the
# device's copy of the tree lacks: carry them as .carry/meshes (a copy of ../shared/data/meshes).
zoo_tool_args=()
[ -d .carry/meshes ] && zoo_tool_args=(--meshes .carry/meshes)
source scripts/zoo_background.sh
# Both take DIR ONLY SCALE (default the run's zoo: $zoo, ZOO_ONLY, ZOO_SCALE).
start_zoo() {
  local zoo=${1:-$zoo} zoo_only=${2:-$zoo_only} zoo_scale=${3:-$zoo_scale} name
  [ -f $zoo/index.json ] && return
  for name in ${zoo_only//,/ }; do
    zoo_generate build-cuda/perf_tests/zoo/compound-zoo "$zoo/parts" "$name" "$zoo_scale"
  done
}
zoo_ready() {
  local zoo=${1:-$zoo} zoo_only=${2:-$zoo_only} zoo_scale=${3:-$zoo_scale}
  [ -f $zoo/index.json ] && return 0
  if [ ! -d $zoo/parts ]; then
    build-cuda/perf_tests/zoo/compound-zoo --out $zoo --scale "$zoo_scale" --only "$zoo_only" "${zoo_tool_args[@]}" \
      > "$out/zoo.log" 2>&1 ||
      { tail "$out/zoo.log"; return 1; }
    return 0
  fi
  local name
  for name in ${zoo_only//,/ }; do
    zoo_wait "$zoo/parts" "$name" || return 1
    local file
    for file in "$zoo/parts/$name/$name".{mtx,csrb}; do  # binary CSR at the xl scales
      [ -e "$file" ] && ln -sf "$file" "$zoo/${file##*/}"
    done
  done
  python3 - "$zoo" ${zoo_only//,/ } <<'PY'
import json, pathlib, sys
zoo = pathlib.Path(sys.argv[1])
parts = [json.loads((zoo / "parts" / name / "index.json").read_text()) for name in sys.argv[2:]]
index = dict(parts[0], matrices=[m for p in parts for m in p["matrices"]])
(zoo / "index.json").write_text(json.dumps(index, indent=2) + "\n")
PY
}

step device
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$out/device.txt"
# The device's copy of the tree may carry an older .git: the tools record this commit instead.
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit 2>/dev/null || git rev-parse --short HEAD)
echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"
# SEED_DB may name several databases (space-separated): the one measured on this GPU is used
# (an H200's or an H100's, whichever card the device tool gives). TUNE_RESUME=extend adds k
# buckets to SEED_DB's records of this GPU only: on another GPU it would build for minutes and
# change nothing, so it stops here. ZOO_ONLY=seed: the matrices SEED_DB has records of (with
# TUNE_RESUME=extend, the k buckets for a whole tuned database).
seed_db() {  # seed_db PATH devices|names: a database's (.json or .json.gz) devices (a line each: its
  # records' devices, a file of one compute capability may hold several), or its matrices
  python3 - "$@" <<'PY'
import gzip, json, sys
path, what = sys.argv[1:]
db = json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
header = db["device"]["name"]
if what == "devices":
    print("\n".join(sorted({m.get("device") or header for m in db["matrices"]})))
else:
    print(",".join(sorted({m["name"] for m in db["matrices"]})))
PY
}
gpu=$(head -1 "$out/device.txt" | cut -d, -f1)
if wants tune && [ "${TUNE_RESUME:-}" = extend ]; then : "${SEED_DB:?TUNE_RESUME=extend needs SEED_DB}"; fi
if [ -n "${SEED_DB:-}" ]; then
  chosen=
  for candidate in $SEED_DB; do
    seed_db "$candidate" devices | grep -qxF "$gpu" && { chosen=$candidate; break; }
  done
  # One database of another GPU may still seed a run that retunes; several, or an extension, may not.
  if [ -z "$chosen" ] && { [ "${SEED_DB// /}" != "$SEED_DB" ] || { wants tune && [ "${TUNE_RESUME:-}" = extend ]; }; }; then
    echo "SEED_DB: none of $SEED_DB was measured on $gpu"
    exit 3
  fi
  SEED_DB=${chosen:-$SEED_DB}
  echo "SEED_DB: $SEED_DB" | tee -a "$out/device.txt"
fi
if [ "$zoo_only" = seed ]; then
  zoo_only=$(seed_db "${SEED_DB:?ZOO_ONLY=seed needs SEED_DB}" names) || exit 1
fi

if wants build; then
  step kokkos
  [ -x $prefix/bin/nvcc_wrapper ] || scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix $prefix \
    --build-dir /tmp/kokkos-build --jobs "$(nproc)" --kernels-eti none > "$out/kokkos_build.log" 2>&1 ||
    { tail -30 "$out/kokkos_build.log"; exit 1; }
  step configure
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix -DKokkosKernels_ROOT=$prefix \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=$deps \
    -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=$deps/src/googletest -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
    -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF -UCOMPOUND_SPARSE_LAUNCH_BOUNDS -UCOMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS \
    ${SPMM_LAUNCH_BOUNDS:+"-DCOMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS=$SPMM_LAUNCH_BOUNDS"} \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  start=$SECONDS  # the build's time includes compound-zoo's, built first (it needs none of the library)
  zoo_alongside=
  if wants tune || wants bench || wants rerun || wants ncu || wants k8lab || wants seglab || wants xlbench; then
    step "compound-zoo, then the zoo in the background during the build"
    ninja -C build-cuda -j "$(nproc)" compound-zoo > "$out/build_zoo.log" 2>&1 || { tail -30 "$out/build_zoo.log"; exit 1; }
    start_zoo
    if wants xlbench; then start_zoo $xl_zoo "$xl_only" xl; fi
    # A matrix that cannot be made (a mesh not carried, a name not in the zoo) fails at once:
    # stop before the build's minutes rather than after them.
    sleep 5
    failed=$(zoo_failed "$zoo/parts" ${zoo_only//,/ })
    if [ -n "$failed" ]; then
      for name in $failed; do echo "compound-zoo failed on $name:"; tail -3 "$out/zoo_$name.log"; done
      exit 3
    fi
    zoo_alongside=" (the zoo generated alongside from $((SECONDS - start)) s)"
  fi
  step "build (default GPU variant space${SPMM_LAUNCH_BOUNDS:+, SpMM at $SPMM_LAUNCH_BOUNDS})"
  # TARGETS (e.g. "compound-zoo compound-tune compound-bench example_helmholtz_multisource
  # example_dirac_eigenvectors") builds only those: the tune and bench steps without the tests.
  ninja -C build-cuda -k 0 -j "$(nproc)" ${TARGETS:-} > "$out/build.log" 2>&1
  rc=$?
  echo "default GPU build${TARGETS:+ of $TARGETS}: $((SECONDS - start)) s on $(nproc) cores$zoo_alongside, ninja rc $rc" |
    tee "$out/build_time.txt"
  cp build-cuda/.ninja_log "$out/ninja_log.txt"
  # The longest translation units (seconds, output), from ninja's log.
  awk 'NR > 1 {printf "%6.1f %s\n", ($2 - $1) / 1000, $4}' build-cuda/.ninja_log | sort -rn | head -15 |
    tee -a "$out/build_time.txt"
  [ $rc -eq 0 ] || grep -a -E 'error|FAILED' -A3 "$out/build.log" | head -80
fi

# A test that TARGETS left out is named, not run.
built() { [ -x "build-cuda/unit_tests/$1" ] || { echo "$1: not built"; return 1; }; }
if wants tests; then
  step tests
  for t in test_registry test_tuned_spmv test_mixed_precision test_interop_kokkoskernels test_merge_path \
    test_segmented_sum test_row_batch test_transpose test_layouts test_entry_types test_host_csr test_io \
    test_interop test_example_eigen test_partition; do
    built $t || continue
    timeout 600 build-cuda/unit_tests/$t > "$out/$t.log" 2>&1
    echo "$t: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/$t.log" | tr '\n' ' ')"
  done
  # The SpMM against one SpMV per vector, bit for bit, at every compiled launch-bounds pair
  # (run 3 saw sell32.soa at 256:8 differ on complex entries); with quaternions of doubles, whose
  # k = 8 on Aos multivectors takes the fixed groups with one slot in flight.
  for t in test_spmv_complex_float test_spmv_complex_double test_spmv_quaternion_float \
    test_spmv_quaternion_double test_spmv_block3_float test_spmv_block3_double; do
    built $t || continue
    build-cuda/unit_tests/$t --gtest_filter='*Spmm.*' > "$out/${t}_spmm.log" 2>&1
    echo "$t SpMM: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/${t}_spmm.log" | tr '\n' ' ')"
  done
fi

# build_lab SOURCE BUILD NAME: configures and builds a lab (its CMakeLists takes Kokkos and the
# configured build's generated headers) in BUILD, logging to $out/NAME_{configure,build}.log and
# showing their errors and warnings if either fails.
build_lab() {
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix \
    -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCOMPOUND_SPARSE_GENERATED="$PWD/build-cuda/generated" \
    > "$out/$3_configure.log" 2>&1 && ninja -C "$2" > "$out/$3_build.log" 2>&1 ||
    { grep -a -E "error|warning" -A3 "$out/$3_build.log" "$out/$3_configure.log" | head -60; }
}

# The lab first: it takes a minute and says what the k = 8 kernel should be.
if wants k8lab; then
  step "the k = 8 SpMM lab (perf_tests/results/h200/spmm_k8_lab)"
  build_lab perf_tests/results/h200/spmm_k8_lab /tmp/k8-lab k8lab
  if [ -x /tmp/k8-lab/coop_spmm ]; then
    zoo_ready || exit 1
    for pair in ${K8LAB_MATRICES:-helmholtz-box-k40:complex}; do  # NAME:complex|quaternion
      name=${pair%%:*} entry=${pair##*:}
      file=$(ls "$zoo/$name".mtx "$zoo/$name".csrb 2>/dev/null | head -1)
      [ -n "$file" ] || { echo "k8lab: $name is not in the zoo"; continue; }
      /tmp/k8-lab/coop_spmm "$entry" "$file" "$out/k8lab_$name.csv" 2>&1 | tee "$out/k8lab_$name.log"
      # K8LAB_MEMCHECK=0: no memcheck run (the lab's kernels unchanged, a matrix's times wanted).
      if [ "${K8LAB_MEMCHECK:-1}" != 0 ]; then
        compute-sanitizer --tool memcheck --error-exitcode 3 /tmp/k8-lab/coop_spmm "$entry" "$file" \
          "$out/k8lab_memcheck_$name.csv" check ${K8LAB_CHECK_ONLY:-} > "$out/k8lab_memcheck_$name.log" 2>&1
        echo "k8lab memcheck $name: rc=$? $(grep -a 'ERROR SUMMARY' "$out/k8lab_memcheck_$name.log")"
      fi
      # K8LAB_NCU=1: each kernel of the check run (one product each) under Nsight Compute: its
      # throughputs, occupancy, registers and stall reasons (the details page, as CSV).
      if [ -n "${K8LAB_NCU:-}" ]; then
        ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
          --section Occupancy --section LaunchStats -k 'regex:coop_kernel|coop_deep_kernel|own_kernel|row_kernel' --csv \
          --page details /tmp/k8-lab/coop_spmm "$entry" "$file" /dev/null check ${K8LAB_CHECK_ONLY:-} \
          > "$out/k8lab_ncu_$name.csv" 2> "$out/k8lab_ncu_$name.log"
        echo "k8lab ncu $name: rc=$? $(grep -a -c '' "$out/k8lab_ncu_$name.csv") lines"
      fi
    done
  fi
fi

if wants seglab; then
  step "the segmented sum's SpMM lab (perf_tests/results/h100/segmented_k16_lab)"
  build_lab perf_tests/results/h100/segmented_k16_lab /tmp/seg-lab seglab
  if [ -x /tmp/seg-lab/segmented_spmm_lab ]; then
    zoo_ready || exit 1
    for pair in ${SEGLAB_MATRICES:-circuit-1m:float rmat-s20:float}; do  # NAME:float|double
      name=${pair%%:*} precision=${pair##*:}
      file=$zoo/$name.mtx
      [ -e "$file" ] || { echo "seglab: $name is not in the zoo"; continue; }
      /tmp/seg-lab/segmented_spmm_lab "$precision" "$file" "$out/seglab_${name}_$precision.csv" 2>&1 |
        tee "$out/seglab_${name}_$precision.log"
      compute-sanitizer --tool memcheck --error-exitcode 3 /tmp/seg-lab/segmented_spmm_lab "$precision" "$file" \
        /dev/null check > "$out/seglab_memcheck_${name}_$precision.log" 2>&1
      echo "seglab memcheck $name $precision: rc=$? $(grep -a 'ERROR SUMMARY' "$out/seglab_memcheck_${name}_$precision.log")"
      # SEGLAB_NCU=1 (or names: those matrices only): the first pass of every product of the
      # check run under Nsight Compute: DRAM and L2 bytes, hit rates, registers, occupancy,
      # stall reasons (details page, CSV).
      if [ "${SEGLAB_NCU:-}" = 1 ] || [[ ",${SEGLAB_NCU:-}," == *",$name,"* ]]; then
        ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
          --section Occupancy --section LaunchStats \
          --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,launch__registers_per_thread \
          -k 'regex:segmented_sum_tiles|csrmm|spmm|SpMM' --csv --page details \
          /tmp/seg-lab/segmented_spmm_lab "$precision" "$file" /dev/null check \
          > "$out/seglab_ncu_${name}_$precision.csv" 2> "$out/seglab_ncu_${name}_$precision.log"
        echo "seglab ncu $name $precision: rc=$? $(grep -a -c '' "$out/seglab_ncu_${name}_$precision.csv") lines"
      fi
    done
  fi
fi

# gpus_for N NAME: N, or this machine's GPU count where N asks for more (saying so on stderr,
# NAME the variable that asked): how many processes the tune and bench steps split over.
gpus_for() {
  local gpus
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  if [ "$1" -gt "$gpus" ] && [ "$gpus" -ge 1 ]; then
    echo "$2=$1, but this machine has $gpus GPU(s): $gpus" >&2
    echo "$gpus"
  else
    echo "$1"
  fi
}
# bench_run DIR KS REPORT [ZOO PRECISIONS]: compound-bench (from the tuned database, if any) at
# k = KS into $out/DIR, then report/spmm.py into $out/REPORT. BENCH_GPUS=N (N > 1, on a machine
# of several GPUs): one compound-bench per GPU, each on a share of the zoo (zoo_shares), into
# $out/DIR/gpuI (logs $out/DIR_gpuI.log), merged by perf_tests/report/merge_bench.py into
# $out/DIR/bench.json. Each matrix's ratios stay those of one process on one GPU (ours and every
# baseline timed there); the merge refuses runs of other devices or settings.
bench_run() {
  local zoo=${4:-$zoo} precisions=${5:-$precisions}
  local db=()  # no database (no tune step, no SEED_DB): the bench searches every matrix
  [ -f "$out/tuning/sm_90.json" ] && db=(--db "$out/tuning/sm_90.json")
  local bench=(build-cuda/perf_tests/bench/compound-bench "${db[@]}" --precision "$precisions" --k "$2" --timing queued
    ${BENCH_SPMM_LAYOUTS:+--spmm-layouts $BENCH_SPMM_LAYOUTS})
  local bench_gpus
  bench_gpus=$(gpus_for "${BENCH_GPUS:-1}" BENCH_GPUS)
  if [ "$bench_gpus" -le 1 ]; then
    "${bench[@]}" --zoo $zoo/index.json --out "$out/$1" 2>&1 | tr '\r' '\n' | grep -a -v '%'
  else
    local shares i pids=() runs=()
    shares=$(zoo_shares "$bench_gpus" "bench_share" "$zoo") || return 1
    echo "compound-bench on $bench_gpus GPUs, shares $shares"
    for i in $shares; do
      CUDA_VISIBLE_DEVICES=$i "${bench[@]}" --zoo "$zoo/bench_share_$i.json" --out "$out/$1/gpu$i" 2>&1 |
        tr '\r' '\n' | grep -a -v '%' > "$out/$1_gpu$i.log" &
      pids+=($!)
      runs+=("$out/$1/gpu$i")
    done
    for i in "${!pids[@]}"; do wait "${pids[i]}"; done
    tail -n 3 "$out/$1"_gpu*.log
    python3 perf_tests/report/merge_bench.py "$out/$1/bench.json" "${runs[@]}" || return 1
  fi
  python3 perf_tests/report/spmm.py "$out/$1" --out "$out/$3" && cat "$out/$3"
}
if wants tune || wants bench || wants rerun; then
  zoo_ready || exit 1
fi
# SEED_DB: a database of an earlier run (.json or .json.gz): tune continues it (its records are
# skipped, --resume yes), and without tune the examples and the bench read it as it is.
if [ -n "${SEED_DB:-}" ] && [ ! -f "$out/tuning/sm_90.json" ]; then
  mkdir -p "$out/tuning"
  case "$SEED_DB" in *.gz) gunzip -c "$SEED_DB" > "$out/tuning/sm_90.json" ;; *) cp "$SEED_DB" "$out/tuning/sm_90.json" ;; esac
fi
# zoo_shares N [PREFIX [ZOO]]: writes ZOO/PREFIX_I.json (I = 0..N-1; default $zoo/tune_share_I.json),
# zoo indexes of the matrices dealt so that each share holds about as many non-zeros times jobs
# (the database's records of the matrix when extending it, else the precisions), plus a fixed
# cost a job, largest first; prints the shares that got matrices. The tune and bench steps'
# split over GPUs. BENCH_COSTS=FILE (a bench.json or .json.gz of the same matrices, e.g.
# perf_tests/results/h100/current/bench.json.gz) deals the bench's shares by the seconds that
# run spent on each matrix instead (host_phase_seconds, all its precisions and k; a matrix it
# lacks at its non-zeros times the median seconds per non-zero): non-zeros are the tuner's
# cost, not the bench's, whose cuSPARSE forms of the expanded quaternions dominate (session
# 41's bench on four GPUs: shares of 329 to over 602 s).
zoo_shares() {
  python3 - "${3:-$zoo}" "$1" "$out/tuning/sm_90.json" "$precisions" "${TUNE_RESUME:-yes}" "${2:-tune_share}" \
    "${BENCH_COSTS:-}" <<'PY'
import gzip, json, pathlib, statistics, sys
zoo, shares, db_path, precisions, resume, prefix, bench_costs = pathlib.Path(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]
index = json.loads((zoo / "index.json").read_text())
records = {}
if resume == "extend" and pathlib.Path(db_path).exists():
    for r in json.loads(pathlib.Path(db_path).read_text())["matrices"]:
        records[r["name"]] = records.get(r["name"], 0) + 1
seconds = {}  # bench shares with BENCH_COSTS: each matrix's seconds in that run
if prefix == "bench_share" and bench_costs:
    opener = gzip.open if bench_costs.endswith(".gz") else open
    with opener(bench_costs, "rt") as f:
        for r in json.load(f)["matrices"]:
            if r.get("host_phase_seconds"):
                seconds[r["name"]] = seconds.get(r["name"], 0) + sum(r["host_phase_seconds"].values())
    known = [seconds[m["name"]] / max(1, m["nonzeros"]) for m in index["matrices"] if m["name"] in seconds]
    if not known:  # none of this zoo's matrices: deal by non-zeros as the tuner does
        print(f"BENCH_COSTS: {bench_costs} times none of the zoo's matrices; dealing by non-zeros", file=sys.stderr)
        seconds = {}
    per_nonzero = statistics.median(known) if known else 0
def cost(m):  # a job's fixed cost (its variants' launches) counted as 500k non-zeros
    if seconds:
        return seconds.get(m["name"], per_nonzero * m["nonzeros"])
    jobs = records.get(m["name"], 0) if resume == "extend" else len(precisions.split(","))
    return jobs * (m["nonzeros"] + 500_000)
load = [0] * shares
dealt = [[] for _ in range(shares)]
for m in sorted(index["matrices"], key=cost, reverse=True):
    i = load.index(min(load))
    load[i] += cost(m)
    dealt[i].append(m)
for i, part in enumerate(dealt):
    if part:
        (zoo / f"{prefix}_{i}.json").write_text(json.dumps(dict(index, matrices=part), indent=2) + "\n")
        print(i, end=" ")
PY
}
if wants tune; then
  tune_gpus=$(gpus_for "${TUNE_GPUS:-$(nvidia-smi -L | grep -c '^GPU')}" TUNE_GPUS)
  step "tune at k = $ks on $tune_gpus GPU(s)"
  # SPMM_LAYOUTS: compound-tune --spmm-layouts (default 4; 0: all). TUNE_RESUME: --resume
  # (default yes; extend: only give SEED_DB's records of this device the k they lack).
  # tune_on ZOO_INDEX: one compound-tune on the GPUs this process sees, its progress bar left
  # out, line by line as it goes (the progress below counts the lines).
  tune_on() {
    build-cuda/tuning/compound-tune --zoo "$1" --db-dir "$out/tuning" --precision "$precisions" --k $ks \
      --spmm-layouts "${SPMM_LAYOUTS:-4}" --resume "${TUNE_RESUME:-yes}" --timing queued 2>&1 |
      sed -u 's/\r/\n/g' | grep -a --line-buffered -v '%'
    return "${PIPESTATUS[0]}"
  }
  if [ "$tune_gpus" -le 1 ]; then
    tune_on $zoo/index.json
  else
    # The database file is shared: compound-tune reads it once at its start and merges each
    # record it tunes into the file's latest version under a lock. Each share on its own GPU
    # (CUDA_VISIBLE_DEVICES), so that no two tuners time on one GPU.
    tuner=()  # tuner[GPU]: the pid of that GPU's compound-tune
    shares=$(zoo_shares "$tune_gpus") || exit 1
    for i in $shares; do
      CUDA_VISIBLE_DEVICES=$i tune_on "$zoo/tune_share_$i.json" > "$out/tune_gpu$i.log" &
      tuner[i]=$!
    done
    # Progress every minute: each tuner's pairs done (tuned, skipped or not extended) of its total.
    tune_progress() {
      local i line=
      for i in "${!tuner[@]}"; do
        line+=" GPU $i $(grep -a -c -E ': tuned in |^compound-tune: (skipping|not tuning) ' "$out/tune_gpu$i.log")/$(
          grep -a -o -E '^compound-tune: [0-9]+ matrix/precision' "$out/tune_gpu$i.log" | grep -o -E '[0-9]+' || echo '?');"
      done
      echo "tune ($(date +%T)):$line"
    }
    tuners_running() {  # the tuners only: the zoo's generators may run in the background too
      local pid
      for pid in "${tuner[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done
      return 1
    }
    while tuners_running; do
      sleep "${TUNE_PROGRESS_SECONDS:-60}"
      tuners_running && tune_progress
    done
    tune_failed=0
    for i in "${!tuner[@]}"; do
      wait "${tuner[i]}"
      rc=$?
      tune_failed=$((tune_failed || rc))
      echo "GPU $i: compound-tune rc $rc; $(grep -a '^compound-tune: [0-9]* tuned' "$out/tune_gpu$i.log")"
    done
    [ "$tune_failed" -eq 0 ] || echo "compound-tune failed on some GPU: see $out/tune_gpu*.log"
  fi
fi
if wants examples; then
  step examples
  COMPOUND_SPARSE_TUNING_DIR="$out/tuning" timeout 300 build-cuda/examples/example_helmholtz_multisource 80 8 8 \
    2>&1 | tee "$out/example_helmholtz_multisource.log"
  COMPOUND_SPARSE_TUNING_DIR="$out/tuning" timeout 300 build-cuda/examples/example_dirac_eigenvectors 200 8 \
    2>&1 | tee "$out/example_dirac_eigenvectors.log"
fi

if wants bench; then
  step "bench at k = $ks"
  bench_run bench "$ks" spmm.md
fi

if wants rerun; then
  step "rerun at k = $ks_rerun"
  bench_run rerun "$ks_rerun" spmm_rerun.md
fi

if wants ncu; then
  step "Nsight Compute at k = 1 and 8"
  ncu_db=-
  [ -f "$out/tuning/sm_90.json" ] && ncu_db=$out/tuning/sm_90.json
  zoo_ready || exit 1
  for k in ${NCU_KS:-1 8}; do
    # shellcheck disable=SC2086  # NCU_PAIRS: a list
    K=$k VARIANTS=${NCU_VARIANTS:-} SECTIONS=${NCU_SECTIONS-WarpStateStats} scripts/gpu_profile.sh build-cuda $zoo/index.json "$ncu_db" "$out/ncu_k$k" \
      ${NCU_PAIRS:-helmholtz-box-k40:double dirac-torus-l1:double elasticity-box-52:double}
  done
fi

# memcheck_test TEST FILTER LOG LABEL: TEST's cases matching FILTER under compute-sanitizer
# memcheck (output in $out/LOG.log), then LABEL, the exit status and memcheck's summary; a test
# that TARGETS left out is named, not run.
memcheck_test() {
  built "$1" || return 0
  compute-sanitizer --tool memcheck --error-exitcode 3 "build-cuda/unit_tests/$1" --gtest_filter="$2" \
    > "$out/$3.log" 2>&1
  echo "$4: rc=$? $(grep -a 'ERROR SUMMARY' "$out/$3.log")"
}
if wants sanitizer; then
  step compute-sanitizer
  memcheck_test test_registry 'Registry.*Spmm*:Measure.SeveralVectors*' memcheck_registry_spmm "memcheck registry SpMM"
  memcheck_test test_tuned_spmv '*Multivector*' memcheck_tuned_multivectors "memcheck TunedSpmv multivectors"
  memcheck_test test_segmented_sum '*Spmm*' memcheck_segmented_sum_spmm "memcheck segmented-sum SpMM"
fi

if wants xlbench; then
  step "bench on the xl matrices $xl_only at k = $xl_ks ($xl_precisions)"
  zoo_ready $xl_zoo "$xl_only" xl || exit 1
  bench_run xl_bench "$xl_ks" spmm_xl.md $xl_zoo "$xl_precisions"
fi

if wants ctest; then
  step ctest
  # Every ctest case but the configure checks (CTEST_REGEX: fewer), at most CTEST_SECONDS,
  # CTEST_JOBS (default 8) at once on the one GPU.
  timeout "${CTEST_SECONDS:-480}" ctest --test-dir build-cuda -j "${CTEST_JOBS:-8}" -R "${CTEST_REGEX:-.}" \
    -E '^configure\.' --timeout 300 --output-on-failure > "$out/ctest.log" 2>&1
  echo "ctest ${CTEST_REGEX:-(all)}: rc=$? $(grep -a -E 'tests passed|tests failed' "$out/ctest.log")"
  grep -a -E '^\s+[0-9]+ - |Total Test time' "$out/ctest.log"
fi

step done
