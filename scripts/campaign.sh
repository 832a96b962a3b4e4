#!/usr/bin/env bash
# One pipeline for GPU campaigns (docs/campaigns.md): builds Kokkos with CUDA from Debian's
# trilinos source (scripts/build_kokkos_cuda.sh) and the project with a CMake preset
# (CMakePresets.json), runs the stages asked for, and writes the results of one machine kind
# into perf_tests/results/<kind>/. `scripts/campaign.sh --help` prints the options.
#
# Stages run in this order, whatever the order given: prepare, zoo, tune, bench, rerun,
# examples, profile, dist, check, report. A stage that fails stops the ones after it, except report,
# which records what ran. Everything a run makes lives in WORK (logs in WORK/logs); report
# copies the results' share of it. Running the same command again continues: the zoo, the
# Kokkos install and the build are kept, compound-tune resumes its database (--resume yes).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() {
  cat << 'EOF'
usage: scripts/campaign.sh [--stages LIST] [--kind auto|host|h100|h200] [--gpus N] [--scale SCALE]
                           [--matrices a,b] [--k 1,8] [--precision float,double] [--db FILE] [--quick]
                           [--out DIR] [--work DIR] [--build-dir DIR] [--no-build] [--preset NAME]
                           [-- CMAKE_ARGS...]

  --stages LIST   comma-separated, run in this order (default zoo,tune,bench,rerun,report):
                    prepare  on a Debian machine with a network: gather in third_party_src/ what an
                             offline GPU machine needs (Kokkos' sources, GoogleTest, nlohmann-json,
                             tetgen, the zoo's meshes)
                    zoo      compound-zoo at --scale, generated while the rest builds
                    tune     compound-tune into WORK/tuning, one process per GPU; leave-one-out report
                    bench    compound-bench with that database (or --db), one process per GPU, merged
                    rerun    the bench again; compare_runs.py against the first
                    examples the solver examples at GPU size with that database
                    profile  Nsight Compute on --matrices, each precision and k (ncu_summary.py)
                    dist     compound-dist-bench on 1, 2, 4, .. N ranks (strong scaling; weak with the
                             xl2 grids on 2 and the xl4 ones on 4), test_distributed, scaling.py
                    check    ctest on the device (--quick: six suites), compute-sanitizer, the demo
                    report   README.md, summary.csv, plots, tuner_output.json.gz in --out
  --kind KIND     the card, which names the results folder (default auto: from nvidia-smi, host
                  without a GPU); host runs a dry run on the host backend. A GPU kind that
                  nvidia-smi contradicts is replaced by what it reports (with a warning)
  --gpus N        GPUs used (default: all): tune and bench split the zoo over them, dist runs N
                  ranks (on the host 2 ranks; tune and bench one process)
  --scale SCALE   zoo scale: small|full|tune|unseen|xl|xl2|xl4 (default tune on a GPU, small on the
                  host; the dist stage defaults to xl on a GPU)
  --matrices LIST only these matrices of the scale (default: all; dist at its default xl: the
                  three grids, helmholtz-box-xl, dirac-torus-xl, elasticity-box-xl)
  --k LIST        vector counts for tune and bench (default 1; e.g. 1,2,4,8,16)
  --precision L   float,double,mixed|both|all (default float,double)
  --db FILE       a tuning database (.json or .json.gz): the bench uses it, in either form,
                  where no tune stage ran; tune continues it, a tuner's full output (its records
                  kept, the rest tuned)
  --quick         a smoke test whose numbers are not results: the tools' shortest timing, the
                  check's six suites, on a GPU one launch-bounds pair (256:2) in BUILD_DIR-quick;
                  its report goes to WORK/results
  --out DIR       results folder (default perf_tests/results/<kind>, and <kind>x<N> for dist;
                  WORK/results on the host and with --quick)
  --work DIR      scratch: zoo, databases, runs, logs (default BUILD_DIR/campaign-<kind>)
  --build-dir DIR build folder (default the preset's: build, build-cuda or build-cuda-tuning)
  --no-build      use the tools already built in --build-dir (no Kokkos build, no configure)
  --preset NAME   host|cuda|cuda-tuning (default host on the host; on a GPU cuda-tuning when the
                  stages include tune, else cuda)
  -- CMAKE_ARGS   more configure arguments, e.g. -DCOMPOUND_SPARSE_LAUNCH_BOUNDS='256:2;256:4'

Environment: COMPOUND_SPARSE_COMMIT names the source commit where the tree has no usable .git
(default: git's HEAD, -dirty with uncommitted changes); PYTHON, the Python with matplotlib for
the reports (default: python3, else /usr/bin/python3, the first that imports it).
EOF
}
die() { echo "campaign.sh: $*" >&2; exit 1; }
usage_error() { echo "campaign.sh: $*" >&2; echo "(scripts/campaign.sh --help lists the options)" >&2; exit 2; }

# ---- options ---------------------------------------------------------------------------------
all_stages=(prepare zoo tune bench rerun examples profile dist check report)
stages=zoo,tune,bench,rerun,report kind=auto gpus='' scale='' matrices='' ks=1 precision=float,double
db='' quick=0 out='' work='' build_dir='' build=1 preset='' cmake_extra=()
command_line=scripts/campaign.sh  # as typed, quoted where the shell would need it
for arg in "$@"; do
  if [[ $arg =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then command_line+=" $arg"; else command_line+=" $(printf '%q' "$arg")"; fi
done
while [ $# -gt 0 ]; do
  case $1 in
    --stages|--kind|--gpus|--scale|--matrices|--k|--precision|--db|--out|--work|--build-dir|--preset)
      [ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs a value"
      case $1 in
        --stages) stages=$2 ;; --kind) kind=$2 ;; --gpus) gpus=$2 ;; --scale) scale=$2 ;;
        --matrices) matrices=$2 ;; --k) ks=$2 ;; --precision) precision=$2 ;; --db) db=$2 ;;
        --out) out=$2 ;; --work) work=$2 ;; --build-dir) build_dir=$2 ;; --preset) preset=$2 ;;
      esac
      shift 2 ;;
    --quick) quick=1; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; cmake_extra=("$@"); break ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
done
# A comma list without empty items, each matching the pattern.
list_ok() { [[ ,$1, != *,,* ]] && [[ $1 =~ ^($2)(,($2))*$ ]]; }
list_ok "$stages" "$(IFS='|'; echo "${all_stages[*]}")" ||
  usage_error "--stages: '$stages' is not a comma list of ${all_stages[*]}"
[[ $kind =~ ^(auto|host|h100|h200)$ ]] || usage_error "--kind: '$kind' is not auto, host, h100 or h200"
[ -z "$gpus" ] || [[ $gpus =~ ^[1-9][0-9]*$ ]] || usage_error "--gpus: '$gpus' is not a positive integer"
[ -z "$scale" ] || [[ $scale =~ ^(small|full|tune|unseen|xl|xl2|xl4)$ ]] ||
  usage_error "--scale: '$scale' is not small, full, tune, unseen, xl, xl2 or xl4"
[ -z "$matrices" ] || list_ok "$matrices" '[A-Za-z0-9._-]+' || usage_error "--matrices: '$matrices' is not a comma list of names"
list_ok "$ks" '[1-9][0-9]*' || usage_error "--k: '$ks' is not a comma list of vector counts"
list_ok "$precision" 'float|double|mixed|both|all' || usage_error "--precision: '$precision' is not a comma list of float, double, mixed, both, all"
[ -z "$preset" ] || [[ $preset =~ ^(host|cuda|cuda-tuning)$ ]] || usage_error "--preset: '$preset' is not host, cuda or cuda-tuning"
[ -z "$db" ] || [ -f "$db" ] || usage_error "--db: no such file '$db'"
[ -z "$db" ] || db=$(cd "$(dirname "$db")" && pwd)/$(basename "$db")
wants() { [[ ,$stages, == *,$1,* ]]; }
wants_any() { local s; for s in "$@"; do wants "$s" && return 0; done; return 1; }
has_k_above_1() { [[ ,$ks, =~ ,([2-9]|[1-9][0-9]+), ]]; }
has_k_1() { [[ ,$ks, == *,1,* ]]; }

# ---- the machine -----------------------------------------------------------------------------
ncores=$(nproc)
gpu_count=0 gpu_name='' arch=''
if [ "$kind" != host ] && command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  gpu_count=$(nvidia-smi -L | grep -c '^GPU')
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1)
  arch=sm_${cap//./}
fi
if [ "$kind" != host ]; then
  case $gpu_name in
    *H100*) detected=h100 ;;
    *H200*) detected=h200 ;;
    '') detected=host ;;
    *) detected=$(echo "$gpu_name" | tr 'A-Z' 'a-z' | sed 's/^nvidia //; s/[^a-z0-9]\+/-/g; s/-$//') ;;
  esac
  if [ "$kind" = auto ]; then
    kind=$detected
  elif [ "$detected" = host ]; then
    usage_error "--kind $kind, but nvidia-smi finds no GPU here (--kind host: a dry run on the host backend)"
  elif [ "$kind" != "$detected" ]; then
    echo "campaign.sh: WARNING: --kind $kind, but this machine's card is '$gpu_name': its results go to $detected" >&2
    kind=$detected
  fi
fi
gpu=0
[ "$kind" = host ] || gpu=1
if [ $gpu = 1 ]; then
  [ -z "$gpus" ] && gpus=$gpu_count
  [ "$gpus" -le "$gpu_count" ] || usage_error "--gpus $gpus, but this machine has $gpu_count GPU(s)"
  ranks=$gpus
  ! wants dist || [ "$ranks" -ge 2 ] || usage_error "the dist stage needs 2 GPUs or more (--gpus; this machine has $gpu_count)"
  [ -n "$scale" ] && dist_scale=$scale || dist_scale=xl
  scale=${scale:-tune}
  [ -n "$preset" ] || { wants tune && preset=cuda-tuning || preset=cuda; }
else
  [ -n "$gpus" ] && [ "$gpus" != 1 ] && wants_any tune bench rerun &&
    echo "campaign.sh: on the host tune and bench run one process (--gpus $gpus ignored there)" >&2
  ranks=${gpus:-2}
  [ "$ranks" -ge 2 ] || ranks=2
  gpus=1
  scale=${scale:-small} dist_scale=${scale:-small}
  preset=${preset:-host}
fi
[ $gpu = 1 ] || [ "$preset" = host ] || [ $build = 0 ] || usage_error "--preset $preset needs a GPU (--kind host builds the host preset)"
if [ -z "$build_dir" ]; then
  case $preset in host) build_dir=build ;; cuda) build_dir=build-cuda ;; cuda-tuning) build_dir=build-cuda-tuning ;; esac
  # A quick GPU run compiles one launch-bounds pair (below): in a folder of its own.
  [ $gpu = 1 ] && [ $quick = 1 ] && build_dir+=-quick
fi
mkdir -p "$build_dir" && build_dir=$(cd "$build_dir" && pwd)
# A quick run keeps its own folder: its databases must never seed a real run (--resume).
work=${work:-$build_dir/campaign-$kind$([ $quick = 1 ] && echo -quick)}
mkdir -p "$work/logs" && work=$(cd "$work" && pwd)
logs=$work/logs
# Host runs and quick ones are checks of the pipeline, never results: they stay in WORK.
if [ -z "$out" ]; then
  if [ $gpu = 0 ] || [ $quick = 1 ]; then out=$work/results dist_out=$work/results-dist
  else out=$root/perf_tests/results/$kind dist_out=$root/perf_tests/results/${kind}x$ranks; fi
else
  mkdir -p "$out" && out=$(cd "$out" && pwd)
  dist_out=$out
fi
deps=$root/third_party_src/deps
# prepare's Debian files, on the GPU machine (the host build keeps its own packages).
[ $gpu = 1 ] && [ -d "$deps" ] && export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}  # mpiexec -x passes it on
zoo_args=()
[ -d third_party_src/meshes ] && zoo_args=(--meshes "$root/third_party_src/meshes")
# MPI as root in a container; NVLink multicast stays off on shared multi-GPU hosts (the device
# machines' rule: a program that uses it can take the host's GPUs out of service).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[ $gpu = 1 ] || export OMPI_MCA_btl_vader_single_copy_mechanism=none
# The tools record this commit (compound-bench reads COMPOUND_SPARSE_COMMIT).
if [ -z "${COMPOUND_SPARSE_COMMIT:-}" ]; then
  COMPOUND_SPARSE_COMMIT=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
  [ "$COMPOUND_SPARSE_COMMIT" = unknown ] || [ -z "$(git status --porcelain --untracked-files=no 2> /dev/null)" ] ||
    COMPOUND_SPARSE_COMMIT+=-dirty
fi
export COMPOUND_SPARSE_COMMIT
# A Python with matplotlib for the reports (Debian's python3-matplotlib, or the GPU image's).
py=${PYTHON:-}
if [ -z "$py" ]; then
  py=python3
  for candidate in python3 /usr/bin/python3; do
    "$candidate" -c 'import matplotlib' 2> /dev/null && { py=$candidate; break; }
  done
fi
export MPLBACKEND=Agg

step() { echo; echo "=== $* ($(date +%T), ${SECONDS} s)"; }
if [ $gpu = 1 ]; then
  device="$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | head -n 1)"
  device+=" x $gpu_count; $(nvcc --version 2> /dev/null | grep -o 'release [0-9.]*' || echo 'no nvcc on PATH'); $ncores cores"
else
  device="host ($(uname -m), $ncores cores), Kokkos backend of the $preset preset, no GPU"
fi
if [ "$stages" != report ]; then
  printf '%s | commit %s | %s | %s\n' "$(date -u +%FT%TZ)" "$COMPOUND_SPARSE_COMMIT" "$device" "$command_line" \
    >> "$work/invocations.txt"
fi
step "campaign: stages $stages, kind $kind, preset $preset$([ $gpu = 1 ] && echo ", $gpus GPU(s)")"
echo "device: $device"
echo "commit: $COMPOUND_SPARSE_COMMIT"
echo "work:   $work"

# ---- prepare (on a Debian machine, before going offline) -------------------------------------
stage_prepare() {
  [ -f third_party_src/kokkos/CMakeLists.txt ] && [ -f third_party_src/kokkos-kernels/CMakeLists.txt ] ||
    scripts/fetch_trilinos_source.sh third_party_src || return 1
  # GoogleTest's source (built there with the CUDA toolchain), nlohmann-json's headers and
  # CMake package, tetgen and its libtet (the zoo's tetrahedral meshes): Debian's, as
  # scripts/setup.sh installs them.
  local f
  for f in /usr/src/googletest/CMakeLists.txt /usr/include/nlohmann/json.hpp \
           /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake; do
    [ -e "$f" ] || { echo "$f missing: run scripts/setup.sh first"; return 1; }
  done
  rm -rf "$deps"
  mkdir -p "$deps/src" "$deps/include" "$deps/share/cmake" "$deps/bin" "$deps/lib"
  cp -r /usr/src/googletest "$deps/src/googletest"
  cp -r /usr/include/nlohmann "$deps/include/nlohmann"
  cp -r /usr/share/cmake/nlohmann_json "$deps/share/cmake/nlohmann_json"
  if command -v tetgen > /dev/null; then
    cp "$(command -v tetgen)" "$deps/bin/"
    ldd "$(command -v tetgen)" | awk '/libtet/ {print $3}' | xargs -r cp -L -t "$deps/lib/"
  fi
  # The surface meshes, from compound-zoo's default place beside the checkout.
  if [ -d ../shared/data/meshes ]; then
    rm -rf third_party_src/meshes && cp -r ../shared/data/meshes third_party_src/meshes
  else
    echo "no ../shared/data/meshes: the mesh matrices of the zoo will be skipped or refused"
  fi
  du -sh third_party_src/kokkos third_party_src/kokkos-kernels third_party_src/testmatrices "$deps" \
    third_party_src/meshes 2> /dev/null
}

# ---- build -----------------------------------------------------------------------------------
tool_path() {  # tool_path NAME: the built tool or test in the build folder, or nothing
  local p
  for p in "$build_dir"/src/tools/*/"$1" "$build_dir"/unit_tests/"$1" "$build_dir"/examples/"$1" \
           "$build_dir"/perf_tests/*/"$1" "$build_dir"/tuning/"$1"; do
    [ -x "$p" ] && [ -f "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}
tool() { tool_path "$1" || { echo "campaign.sh: $1 is not built in $build_dir" >&2; echo false; }; }
# The solver examples at GPU size (default and TunedSpmv's choice, each checked against the other).
examples=("example_helmholtz_cocg 100 8" "example_elasticity_cg 40" "example_dirac_inverse_iteration 300"
          "example_helmholtz_multisource 80 8 8" "example_dirac_eigenvectors 200 8")
quick_suites=(test_spmv_complex_double test_spmv_block3_double test_registry test_tuned_spmv test_merge_path
              test_segmented_sum)
build_targets() {  # the targets the stages need; "all" for the whole check
  local t=()
  wants_any zoo tune bench rerun profile dist && t+=(compound-zoo)
  wants tune && t+=(compound-tune)
  wants_any bench rerun profile && t+=(compound-bench)
  wants dist && t+=(compound-dist-bench test_distributed)
  wants examples && t+=(compound-tune "${examples[@]%% *}")  # compound-tune ships the campaign's database
  if wants check; then
    [ $quick = 1 ] && t+=("${quick_suites[@]}" compound_sparse_demo) || t+=(all)
  fi
  echo "${t[@]}"
}
stage_build() {
  local targets prefix=$root/build-kokkos-cuda/install-$arch args
  targets=$(build_targets)
  [ -n "$targets" ] || return 0
  if [ $gpu = 1 ]; then
    step "Kokkos and Kokkos Kernels with CUDA ($arch) from third_party_src"
    scripts/build_kokkos_cuda.sh --arch "$arch" --src third_party_src --prefix "$prefix" \
      --build-dir "$root/build-kokkos-cuda" --jobs "$ncores" --kernels-eti none > "$logs/kokkos.log" 2>&1 ||
      { tail -n 30 "$logs/kokkos.log"; return 1; }
    tail -n 3 "$logs/kokkos.log" | head -n 2
  fi
  step "configure: preset $preset into $build_dir"
  # Launch bounds and entry types back to the preset's defaults unless CMAKE_ARGS set them:
  # a campaign builds what its command says, whatever the folder held before.
  args=(--preset "$preset" -B "$build_dir" -U COMPOUND_SPARSE_LAUNCH_BOUNDS -U COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS
        -U COMPOUND_SPARSE_VARIANT_ENTRIES)
  # The presets' Kokkos is sm_90's; another card's arch gets its own install.
  [ $gpu = 1 ] && [ "$arch" != sm_90 ] &&
    args+=("-DKokkos_ROOT=$prefix" "-DKokkosKernels_ROOT=$prefix" "-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper")
  [ $gpu = 1 ] && [ -d "$deps" ] && args+=("-DCMAKE_PREFIX_PATH=$deps" "-DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=$deps/src/googletest")
  # --quick on a GPU: one launch-bounds pair, a quarter of the default registry's compile time
  # (CMAKE_ARGS, after these, still choose).
  [ $gpu = 1 ] && [ $quick = 1 ] &&
    args+=(-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=256:2 -DCOMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS=256:2)
  cmake "${args[@]}" "${cmake_extra[@]}" > "$logs/configure.log" 2>&1 || { tail -n 30 "$logs/configure.log"; return 1; }
  grep -a -E 'SpMV variants|Kokkos [0-9]|MPI found|NCCL found|Kokkos Kernels found' "$logs/configure.log" | sed 's/^-- //'
  local start=$SECONDS rc=0 rest=() t
  # compound-zoo first (it needs none of the library), so that the zoo is generated meanwhile.
  if [[ " $targets " == *" compound-zoo "* ]]; then
    cmake --build "$build_dir" -j "$ncores" --target compound-zoo > "$logs/build.log" 2>&1 ||
      { grep -a -E 'error|FAILED' -A3 "$logs/build.log" | head -n 40; return 1; }
    zoo_start
  fi
  for t in $targets; do [ "$t" = compound-zoo ] || rest+=("$t"); done
  step "build ${rest[*]:-compound-zoo} ($ncores jobs)"
  if [ ${#rest[@]} -gt 0 ]; then
    cmake --build "$build_dir" -j "$ncores" --target "${rest[@]}" -- -k 0 >> "$logs/build.log" 2>&1 || rc=$?
  fi
  {
    echo "build of ${targets// /, } (preset $preset${cmake_extra[*]:+, ${cmake_extra[*]}}): $((SECONDS - start)) s on $ncores cores, rc $rc"
    echo "longest translation units (s):"
    awk 'NR > 1 {printf "%7.1f %s\n", ($2 - $1) / 1000, $4}' "$build_dir/.ninja_log" | sort -rn | head -n 10
  } > "$work/build_time.txt"
  cat "$work/build_time.txt"
  # The check reports what did not build; the other stages need every target.
  [ $rc -eq 0 ] || { grep -a -E 'error|FAILED' -A3 "$logs/build.log" | head -n 60; [[ " $targets " == *" all "* ]]; }
}

# ---- zoo -------------------------------------------------------------------------------------
# zoo_dir SCALE; zoo_names DIR: the index's matrices, one a line.
zoo_dir() { echo "$work/zoo-$1"; }
zoo_names() {
  [ -f "$1/index.json" ] || return 0
  "$py" -c 'import json, sys; print("\n".join(m["name"] for m in json.load(open(sys.argv[1]))["matrices"]))' \
    "$1/index.json" 2> /dev/null
}
zoo_pids=()
declare -A zoo_started=()  # DIR: generated (or found complete) by this run
# zoo_generate DIR SCALE NAMES: compound-zoo into DIR in the background: NAMES (comma list) one
# process each, as many at once as cores (each adds itself to DIR/index.json under its lock), or
# the whole scale in one process (DIR/complete once done). What is already in DIR is kept.
zoo_generate() {
  local dir=$1 scale=$2 names=$3 have missing=() name zoo_tool
  [ -z "${zoo_started[$dir]:-}" ] || return 0
  zoo_started[$dir]=1
  mkdir -p "$dir"
  have=$(zoo_names "$dir")
  if [ -z "$names" ]; then
    [ -f "$dir/complete" ] && return 0
  else
    for name in ${names//,/ }; do grep -qxF "$name" <<< "$have" || missing+=("$name"); done
    [ ${#missing[@]} -gt 0 ] || return 0
  fi
  zoo_tool=$(tool compound-zoo)
  rm -f "$dir/failed"
  (
    if [ -z "$names" ]; then
      if "$zoo_tool" --out "$dir" --scale "$scale" "${zoo_args[@]}" > "$logs/zoo_$scale.log" 2>&1; then
        touch "$dir/complete"
      else
        echo "$scale" >> "$dir/failed"
      fi
    else
      for name in "${missing[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$ncores" ]; do sleep 1; done
        { "$zoo_tool" --out "$dir" --scale "$scale" --only "$name" "${zoo_args[@]}" > "$logs/zoo_$name.log" 2>&1 ||
            echo "$name" >> "$dir/failed"; } &
      done
      wait
    fi
  ) &
  zoo_pids+=($!)
  echo "zoo: generating ${missing[*]:-the $scale scale} into $dir (logs $logs/zoo_*.log)"
}
# The zoos this run's stages need: the data stages' at --scale, and dist's (with the xl2 and
# xl4 grids for weak scaling at xl: compound-zoo's xl2 and xl4 sets double and quadruple
# these three, docs/zoo.md).
dist_names() {  # --matrices where dist runs at the data stages' scale; else the scale's defaults
  if [ -n "$matrices" ] && [ "$dist_scale" = "$scale" ]; then echo "$matrices"
  elif [ "$dist_scale" = xl ]; then echo helmholtz-box-xl,dirac-torus-xl,elasticity-box-xl
  elif [ "$dist_scale" = small ]; then echo helmholtz-box-small,elasticity-box-small
  fi
}
rank_counts() {  # the dist stage's rank counts beyond 1: 2, 4, 8, .. up to $ranks, and $ranks
  local r=2 counts=()
  while [ $r -lt "$ranks" ]; do counts+=($r); r=$((r * 2)); done
  counts+=("$ranks")
  echo "${counts[*]}"
}
weak_pairs() {  # NAME=NAMEr for the dist matrices with an xl<r> twin, r in 2 and 4 up to $ranks
  local name r pairs=()
  [ "$dist_scale" = xl ] || return 0
  for r in 2 4; do
    [ "$r" -le "$ranks" ] || continue
    for name in $(dist_names | tr , ' '); do
      case $name in
        # elasticity-box-xl4's assembly holds about 100 GB of element blocks for about 20 minutes.
        elasticity-box-xl) [ $r = 2 ] && pairs+=("$name=${name}$r") ;;
        helmholtz-box-xl|dirac-torus-xl) pairs+=("$name=${name}$r") ;;
      esac
    done
  done
  (IFS=,; echo "${pairs[*]}")
}
weak_names() {  # the twins of weak_pairs at xl<$1>, comma-separated
  weak_pairs | tr , '\n' | cut -d= -f2 | grep -E "xl$1\$" | paste -sd,
}
zoo_start() {
  wants_any zoo tune bench rerun profile && zoo_generate "$(zoo_dir "$scale")" "$scale" "$matrices"
  if wants dist; then
    zoo_generate "$(zoo_dir "$dist_scale")" "$dist_scale" "$(dist_names)"
    local r twins
    for r in 2 4; do
      twins=$(weak_names $r)
      [ -z "$twins" ] || zoo_generate "$(zoo_dir xl$r)" xl$r "$twins"
    done
  fi
}
zoo_wait() {  # 0 once every generation started has finished and none failed
  local pid rc=0 dir name
  for pid in "${zoo_pids[@]}"; do wait "$pid"; done
  zoo_pids=()
  for dir in "$work"/zoo-*; do
    [ -f "$dir/failed" ] || continue
    for name in $(cat "$dir/failed"); do echo "compound-zoo failed on $name:"; tail -n 5 "$logs/zoo_$name.log"; done
    rc=1
  done
  return $rc
}
stage_zoo() {
  zoo_start
  zoo_wait || return 1
  local dir
  for dir in "$work"/zoo-*; do echo "$dir: $(zoo_names "$dir" | wc -l) matrices"; done
}

# ---- tune and bench --------------------------------------------------------------------------
# shares INDEX N PREFIX: INDEX's matrices dealt to N files DIR/PREFIX_I.json (largest first, to
# the least loaded: non-zeros plus a fixed 500k a matrix for its launches); prints "I NAMES"
# for each share that got matrices.
shares() {
  "$py" - "$@" << 'PY'
import json, pathlib, sys
index_path, n, prefix = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
index = json.loads(index_path.read_text())
load, dealt = [0] * n, [[] for _ in range(n)]
for m in sorted(index["matrices"], key=lambda m: m["nonzeros"], reverse=True):
    i = load.index(min(load))
    load[i] += m["nonzeros"] + 500_000
    dealt[i].append(m)
for i, part in enumerate(dealt):
    if part:
        (index_path.parent / f"{prefix}_{i}.json").write_text(json.dumps(dict(index, matrices=part), indent=1) + "\n")
        print(i, ",".join(m["name"] for m in part))
PY
}
# unbar: a tool's progress bar out of its output, line by line.
unbar() { tr '\r' '\n' | grep -a --line-buffered -v -e '%' -e '^\s*$'; }
database() { ls "$work"/tuning/*.json 2> /dev/null | head -n 1; }
# bench_database: what compound-bench reads: the campaign's database, else --db (a .json.gz
# gunzipped into WORK: compound-bench reads .json), else nothing.
bench_database() {
  local file
  file=$(database)
  if [ -z "$file" ] && [ -n "$db" ]; then
    file=$db
    case $db in *.gz) file=$work/given_$(basename "${db%.gz}"); gunzip -c "$db" > "$file" ;; esac
  fi
  echo "$file"
}
zoo_index() { echo "$(zoo_dir "$scale")/index.json"; }
matrix_args() { [ -n "$matrices" ] && echo "--matrices $matrices"; }
# asked_index: the zoo's index, or with --matrices an index of those alone (what the shares deal).
asked_index() {
  local index
  index=$(zoo_index)
  [ -n "$matrices" ] || { echo "$index"; return; }
  "$py" -c 'import json, sys; i = json.load(open(sys.argv[1])); names = set(sys.argv[3].split(","))
i["matrices"] = [m for m in i["matrices"] if m["name"] in names]; json.dump(i, open(sys.argv[2], "w"), indent=1)' \
    "$index" "$(dirname "$index")/asked.json" "$matrices"
  echo "$(dirname "$index")/asked.json"
}
stage_tune() {
  zoo_wait || return 1
  local index tune_tool quick_args=() rc=0 i names pids=()
  index=$(zoo_index)
  tune_tool=$(tool compound-tune)
  mkdir -p "$work/tuning"
  if [ -n "$db" ] && [ -z "$(database)" ]; then  # --db: continued (its records kept)
    local seed=$work/tuning/$(basename "${db%.gz}")
    case $db in *.gz) gunzip -c "$db" > "$seed" ;; *) cp "$db" "$seed" ;; esac
    echo "tune: continuing $db"
  fi
  [ $quick = 1 ] && quick_args=(--samples 2 --batch 2 --warmup 1 --top 2 --final-samples 3 --final-batch 2)
  local args=(--db-dir "$work/tuning" --search reduced --precision "$precision" --k "$ks" --resume yes "${quick_args[@]}")
  has_k_above_1 && args+=(--spmm-layouts 2)
  if [ "$gpus" -le 1 ]; then
    # shellcheck disable=SC2046  # matrix_args: none or two words
    "$tune_tool" --zoo "$index" $(matrix_args) "${args[@]}" 2>&1 | unbar | tee "$logs/tune.log"
    rc=${PIPESTATUS[0]}
  else
    # One compound-tune per GPU on its share; all merge their records into the one database
    # under its lock. A line a minute: each GPU's records done.
    while read -r i names; do
      (CUDA_VISIBLE_DEVICES=$i "$tune_tool" --zoo "$(dirname "$index")/tune_share_$i.json" "${args[@]}" 2>&1 |
        unbar > "$logs/tune_gpu$i.log"; exit "${PIPESTATUS[0]}") &
      pids+=($!)
      echo "GPU $i: $names"
    done < <(shares "$(asked_index)" "$gpus" tune_share)
    local running=1 pid waited=0
    while [ $running = 1 ]; do
      sleep 5
      running=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2> /dev/null && running=1; done
      waited=$((waited + 5))
      [ $running = 1 ] && [ $((waited % 60)) -eq 0 ] &&
        echo "tune ($(date +%T)), records done: $(for f in "$logs"/tune_gpu*.log; do printf '%s %s; ' "${f##*/}" \
          "$(grep -a -c -E 'tuned in|skipping|not tuning' "$f")"; done)"
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    tail -n 2 "$logs"/tune_gpu*.log
  fi
  [ $rc -eq 0 ] || { echo "compound-tune failed (logs $logs/tune*.log)"; return 1; }
  local database_file
  database_file=$(database)
  [ -n "$database_file" ] || { echo "compound-tune wrote no database"; return 1; }
  echo "database: $database_file, $(grep -c '"best"' "$database_file") records"
  # The leave-one-out report: how selection does for matrices the database has not seen.
  "$tune_tool" --loo "$database_file" --out "$work/tuning/selection_quality" > "$logs/loo.log" 2>&1 ||
    echo "leave-one-out report: failed (too few records?), $logs/loo.log"
  return 0
}
# bench_run DIR [MAP]: compound-bench of the zoo into DIR (DIR/bench.json), one process per GPU
# on shares merged by merge_bench.py (each matrix's ratios stay one process's on one GPU); MAP=map:
# with the schedule heat map of one mid-size grid.
bench_run() {
  local dir=$1 index bench_tool db_file args=() heatmap='' rc=0 i name names pids=() runs=()
  index=$(zoo_index)
  bench_tool=$(tool compound-bench)
  db_file=$(bench_database)
  [ -n "$db_file" ] && args+=(--db "$db_file")
  args+=(--precision "$precision" --k "$ks")
  [ $quick = 1 ] && args+=(--samples 3 --batch 2)
  has_k_1 && has_k_above_1 && args+=(--spmm-layouts 2)
  # The schedule heat map of one mid-size grid, where the zoo has it and k = 1 is measured.
  if has_k_1 && [ "${2:-}" = map ]; then
    for name in elasticity-box-large elasticity-box-small; do
      zoo_names "$(dirname "$index")" | grep -qxF "$name" && { [ -z "$matrices" ] || [[ ,$matrices, == *,$name,* ]]; } &&
        { heatmap=$name; break; }
    done
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ "$gpus" -le 1 ]; then
    # shellcheck disable=SC2046
    "$bench_tool" --zoo "$index" --out "$dir" $(matrix_args) "${args[@]}" ${heatmap:+--heatmap "$heatmap"} 2>&1 |
      unbar | tee "$logs/$(basename "$dir").log"
    rc=${PIPESTATUS[0]}
  else
    while read -r i names; do
      local map=()
      [ -n "$heatmap" ] && [[ ,$names, == *,$heatmap,* ]] && map=(--heatmap "$heatmap")
      (CUDA_VISIBLE_DEVICES=$i "$bench_tool" --zoo "$(dirname "$index")/bench_share_$i.json" --out "$dir/gpu$i" \
        "${args[@]}" "${map[@]}" 2>&1 | unbar > "$logs/$(basename "$dir")_gpu$i.log"; exit "${PIPESTATUS[0]}") &
      pids+=($!)
      runs+=("$dir/gpu$i")
      echo "GPU $i: $names"
    done < <(shares "$(asked_index)" "$gpus" bench_share)
    for i in "${!pids[@]}"; do wait "${pids[i]}" || rc=1; done
    tail -n 2 "$logs/$(basename "$dir")"_gpu*.log
    "$py" perf_tests/report/merge_bench.py "$dir/bench.json" "${runs[@]}" || rc=1
  fi
  [ $rc -eq 0 ] || { echo "compound-bench failed (logs $logs/$(basename "$dir")*.log)"; return 1; }
  if has_k_above_1; then
    "$py" perf_tests/report/spmm.py "$dir" --out "$dir/spmm.md" > /dev/null && echo "wrote $dir/spmm.md"
  fi
  return 0
}
stage_bench() { zoo_wait && bench_run "$work/bench" map; }
stage_rerun() {
  zoo_wait || return 1
  [ -f "$work/bench/bench.json" ] || { echo "rerun: no bench in $work/bench (the bench stage first)"; return 1; }
  bench_run "$work/rerun" || return 1
  "$py" perf_tests/report/compare_runs.py "$work/bench" "$work/rerun" --out "$work/rerun/comparison.md" &&
    grep -a '^- ' "$work/rerun/comparison.md" | grep -v '^- cusparse_form:'
}

# ---- examples --------------------------------------------------------------------------------
stage_examples() {
  local e=$work/examples rc=0 example exe words file erc tuning=()
  rm -rf "$e"
  mkdir -p "$e/cache"
  # The campaign's database where it has one, shipped (TunedSpmv reads the shipped form), with
  # the shipped prior beside it; else the shipped ones. Quick tuning's cache of this run alone.
  if [ -n "$(database)" ]; then
    mkdir -p "$work/shipped"
    "$(tool compound-tune)" --ship "$(database)" --out "$work/shipped/$(basename "$(database)")" \
      > "$logs/ship.log" 2>&1 || { echo "compound-tune --ship failed ($logs/ship.log)"; return 1; }
    cp tuning/prior.json "$work/shipped/"
    tuning=("COMPOUND_SPARSE_TUNING_DIR=$work/shipped")
  fi
  for example in "${examples[@]}"; do
    read -r -a words <<< "$example"
    [ $gpu = 1 ] || words=("${words[0]}")  # the host: the examples' own small sizes
    exe=$(tool_path "${words[0]}") || { echo "${words[0]}: not built"; rc=1; continue; }
    file=$e/$(IFS=_; echo "${words[*]}").txt
    erc=0
    { echo "\$ ${words[*]}"
      env "${tuning[@]}" COMPOUND_SPARSE_CACHE_DIR="$e/cache" timeout 600 "$exe" "${words[@]:1}" 2>&1; } > "$file" || erc=$?
    [ $erc -eq 0 ] || rc=1
    echo "${words[*]}: rc $erc; $(tail -n 1 "$file")"
  done
  return $rc
}

# ---- profile (Nsight Compute) ----------------------------------------------------------------
stage_profile() {
  command -v ncu > /dev/null || { echo "profile: no ncu here (Nsight Compute): skipped"; return 0; }
  [ -n "$matrices" ] || { echo "profile: name the matrices (--matrices)"; return 1; }
  zoo_wait || return 1
  local bench_tool db_args=() metrics kernels k m p dir rep precisions
  bench_tool=$(tool compound-bench)
  local db_file
  db_file=$(bench_database)
  [ -n "$db_file" ] && db_args=(--db "$db_file")
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  metrics+=,lts__t_sector_hit_rate.pct,launch__registers_per_thread,launch__grid_size,launch__block_size
  metrics+=,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
  # Ours (SpmvFunctor, SpmmFunctor, the row kernels), Kokkos Kernels' and cuSPARSE's kernels.
  kernels='regex:SpmvFunctor|SpmmFunctor|SPMV|[Ss]pmv|[Ss]pmm|csrmv|csrmm|bsrmv|bsrmm|bsr_|csr_|ELL|[Ss]ell|ell_|row_kernel|segmented_sum'
  case $precision in both) precisions="float double" ;; all) precisions="float double mixed" ;; *) precisions=${precision//,/ } ;; esac
  for k in ${ks//,/ }; do
    dir=$work/profile/k$k
    mkdir -p "$dir"
    for m in ${matrices//,/ }; do
      for p in $precisions; do
        rep=$dir/$m-$p
        # One timed launch (--samples 1 --batch 1) and wall timing: ncu serialises the launches.
        ncu --clock-control none --metrics "$metrics" --section WarpStateStats --kernel-name-base demangled \
          -k "$kernels" -o "$rep" -f "$bench_tool" --zoo "$(zoo_index)" "${db_args[@]}" --out "$dir/bench-$m-$p" \
          --matrices "$m" --precision "$p" --k "$k" --samples 1 --batch 1 --timing wall > "$rep.log" 2>&1 ||
          { echo "ncu failed on $m $p k = $k:"; tail -n 5 "$rep.log"; continue; }
        ncu --import "$rep.ncu-rep" --csv --page raw --print-units base > "$rep.csv" 2>> "$rep.log"
      done
    done
    "$py" perf_tests/report/ncu_summary.py "$dir" > "$dir/summary.md" && echo "wrote $dir/summary.md"
  done
}

# ---- dist: the distributed product on N ranks ------------------------------------------------
run_ranks() {  # run_ranks R PROGRAM ARGS: rank i on GPU i % N
  local devices=()
  [ $gpu = 1 ] && devices=("--kokkos-num-devices=$gpus")
  mpiexec -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -n "$1" "${@:2}" "${devices[@]}"
}
stage_dist() {
  zoo_wait || return 1
  command -v mpiexec > /dev/null || { echo "dist: no mpiexec"; return 1; }
  local d=$work/dist dist_tool test index weak samples=() rc=0 np r many=()
  dist_tool=$(tool compound-dist-bench)
  index=$(zoo_dir "$dist_scale")/index.json
  weak=$(weak_pairs)
  rm -rf "$d"
  mkdir -p "$d"
  [ $quick = 1 ] && samples=(--samples 3)
  if [ $gpu = 1 ] && test=$(tool_path test_distributed); then
    # Each rank on its GPU, then one rank more: two share a GPU and NCCL gives way to host-staged MPI.
    for np in 1 "$ranks" $((ranks + 1)); do
      run_ranks "$np" "$test" --gtest_color=no > "$logs/test_distributed_np$np.log" 2>&1 || rc=1
      echo "test_distributed on $np ranks: $(grep -a -E '^\[  (PASSED|FAILED)' "$logs/test_distributed_np$np.log" | tr '\n' ' ')"
    done
  fi
  # dist_run NAME RANKS ARGS: one compound-dist-bench run into $d/NAME.json, both orders,
  # each record's timings taken twice in the process (--repeat 2: the spread without a rebuild).
  dist_run() {
    run_ranks "$2" "$dist_tool" --out "$d/$1.json" --order both --repeat 2 "${samples[@]}" "${@:3}" > "$logs/dist_$1.log" 2>&1 ||
      { echo "compound-dist-bench $1 failed:"; tail -n 5 "$logs/dist_$1.log"; return 1; }
    echo "$1: $(grep -a -c '"order"' "$d/$1.json") records"
  }
  local names
  names=$(dist_names)
  dist_run np1 1 --zoo "$index" ${names:+--matrices "$names"} || return 1
  for r in $(rank_counts); do
    dist_run "np$r" "$r" --zoo "$index" ${names:+--matrices "$names"} || return 1
    # The weak twins of this rank count (xl2 on 2, xl4 on 4), one file with the xl grids.
    local twins
    twins=$( ( [ "$r" = 2 ] || [ "$r" = 4 ] ) && weak_names "$r")
    [ -z "$twins" ] || dist_run "np${r}_xl$r" "$r" --zoo "$(zoo_dir xl$r)/index.json" || return 1
    "$py" - "$d/np$r.json" "$d/np${r}_xl$r.json" "$d/np${r}_all.json" << 'PY'
import json, os, sys
runs = [json.load(open(p)) for p in sys.argv[1:3] if os.path.exists(p)]
merged = dict(runs[0], commands=[r.get("command") for r in runs], matrices=[m for r in runs for m in r["matrices"]])
json.dump(merged, open(sys.argv[3], "w"), indent=1)
PY
    many+=("$d/np${r}_all.json")
  done
  # The exchange through host-staged MPI against what Auto chose (NCCL between GPUs).
  [ $gpu = 1 ] && { dist_run "np${ranks}_mpi" "$ranks" --zoo "$index" ${names:+--matrices "$names"} --exchange mpi || rc=1; }
  if wants rerun; then
    dist_run np1_rerun 1 --zoo "$index" ${names:+--matrices "$names"} &&
      dist_run "np${ranks}_rerun" "$ranks" --zoo "$index" ${names:+--matrices "$names"} || rc=1
  fi
  # Strong scaling 1 -> each rank count, weak with the twins; the issue's targets as lines.
  "$py" perf_tests/report/scaling.py "$d/np1.json" "${many[@]}" ${weak:+--weak "$weak"} \
    --out "$d/scaling.md" --csv "$d/summary.csv" --plot "$d/scaling.png" || return 1
  [ -f "$d/np${ranks}_mpi.json" ] &&
    "$py" perf_tests/report/scaling.py "$d/np1.json" "$d/np${ranks}_mpi.json" --out "$d/scaling_mpi_exchange.md" > /dev/null
  [ -f "$d/np${ranks}_rerun.json" ] &&
    "$py" perf_tests/report/scaling.py "$d/np1_rerun.json" "$d/np${ranks}_rerun.json" --out "$d/scaling_rerun.md" > /dev/null
  return $rc
}

# ---- check: tests and compute-sanitizer on the device ----------------------------------------
stage_check() {
  local c=$work/check exe rc=0 t
  rm -rf "$c"
  mkdir -p "$c"
  : > "$c/summary.txt"
  note() { echo "$*" | tee -a "$c/summary.txt"; }
  if [ $quick = 1 ]; then
    for t in "${quick_suites[@]}"; do
      exe=$(tool_path "$t") || { note "$t: not built"; rc=1; continue; }
      timeout 600 "$exe" --gtest_color=no > "$c/$t.log" 2>&1 || rc=1
      note "$t: $(grep -a -E '^\[  (PASSED|FAILED)' "$c/$t.log" | tr '\n' ' ')"
    done
  else
    ctest --test-dir "$build_dir" -j "$([ $gpu = 1 ] && echo 8 || echo "$ncores")" --timeout 600 -E '^configure\.' \
      --output-on-failure > "$c/ctest.log" 2>&1 || rc=1
    note "ctest: $(grep -a -E 'tests passed|tests failed' "$c/ctest.log")"
    grep -a -E '^\s+[0-9]+ - ' "$c/ctest.log" | tee -a "$c/summary.txt"
  fi
  if command -v compute-sanitizer > /dev/null && [ $gpu = 1 ]; then
    local sanitizer_args=()
    # sanitize TOOL LABEL TEST [GTEST_FILTER]: the test's cases under compute-sanitizer.
    sanitize() {
      local exe
      exe=$(tool_path "$3") || { note "$1 $2: $3 not built"; return; }
      compute-sanitizer --tool "$1" --error-exitcode 3 "${sanitizer_args[@]}" "$exe" --gtest_color=no \
        ${4:+--gtest_filter="$4"} > "$c/$1_$2.log" 2>&1 || rc=1
      note "$1 $2: $(grep -a -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$c/$1_$2.log" | tr '\n' ' ')"
    }
    # Every 5th variant case: a step prime to the counts of layouts and kinds mixes them all.
    sample() {
      local exe
      exe=$(tool_path "$1") || return 0
      "$exe" --gtest_list_tests | awk -v step="$2" '/^[^ ]/ { suite = $1 }
        /^  MatchesDoubleReference/ { if (n++ % step == 0) { printf "%s%s%s", sep, suite, $1; sep = ":" } }'
    }
    sanitize memcheck spmv_complex_double_sample test_spmv_complex_double "$(sample test_spmv_complex_double 5)"
    sanitize memcheck spmv_block3_double_sample test_spmv_block3_double "$(sample test_spmv_block3_double 5)"
    # The schedules that split rows, in full, and their pieces; the SpMM of the registry and of TunedSpmv.
    sanitize memcheck split_rows_block3_double test_spmv_block3_double '*merge_path*:*segmented_sum*'
    sanitize memcheck merge_path test_merge_path
    sanitize memcheck segmented_sum test_segmented_sum
    sanitize memcheck registry_spmm test_registry 'Registry.*Spmm*:Measure.SeveralVectors*'
    sanitize memcheck tuned_multivectors test_tuned_spmv '*Multivector*'
    sanitize racecheck split_rows_complex_double test_spmv_complex_double '*merge_path*:*segmented_sum*'
    # The distributed product on one rank, where it was built (dist). Without API errors: NCCL's
    # set-up probes kernel images it was not built for, each probe an API error.
    if tool_path test_distributed > /dev/null; then
      sanitizer_args=(--report-api-errors no)
      sanitize memcheck distributed_np1 test_distributed
      sanitizer_args=()
    fi
  else
    note "compute-sanitizer: not run (no GPU or no compute-sanitizer)"
  fi
  if exe=$(tool_path compound_sparse_demo); then
    local size=128 demo_rc=0
    [ $gpu = 1 ] && size=1024
    "$exe" "$size" > "$c/demo.log" 2>&1 || demo_rc=$?
    [ $demo_rc -eq 0 ] || rc=1
    note "demo (complex Helmholtz, grid $size): rc $demo_rc; $(tail -n 1 "$c/demo.log")"
  fi
  return $rc
}

# ---- report ----------------------------------------------------------------------------------
# readme_head TITLE: the run's facts, from WORK's records.
readme_head() {
  echo "# $1"
  echo
  echo "Written by \`scripts/campaign.sh\` ([docs/campaigns.md](../../../docs/campaigns.md)) on $(date -u +%F):"
  echo "the next campaign rewrites everything above the notes marker and keeps what is below it."
  echo
  echo "Invocations (date | commit | device | command):"
  echo
  sed 's/^/    /' "$work/invocations.txt"
  echo
  echo "Stages (stage | rc | seconds | finished):"
  echo
  sed 's/^/    /' "$work/stages.txt" 2> /dev/null
  [ -f "$work/build_time.txt" ] && { echo; echo "Build: $(head -n 1 "$work/build_time.txt")"; }
  echo
}
# readme_notes FILE: an earlier README's notes (from the marker on), or an empty marker.
readme_notes() {
  if [ -f "$1" ] && grep -q '^<!-- notes -->$' "$1"; then sed -n '/^<!-- notes -->$/,$p' "$1"
  else printf '%s\n' '<!-- notes -->' '' '## Notes' '' '(none yet)'; fi
}
# sections FILE NAME...: the "## NAME..." sections of a Markdown file.
sections() {
  local file=$1; shift
  awk -v names="$(IFS='|'; echo "$*")" '
    BEGIN { n = split(names, want, "|") }
    /^## / { keep = 0; for (i = 1; i <= n; i++) if (index($0, "## " want[i]) == 1) keep = 1 }
    /^# / { keep = 0 }
    keep' "$file"
}
check_section() {
  [ -f "$work/check/summary.txt" ] || return 0
  echo "## GPU check"
  echo
  sed 's/^/    /' "$work/check/summary.txt"
  echo
}
report_bench() {  # the bench's set in $out
  local plot kept=() left=() readme=$out/README.md rerun=()
  mkdir -p "$out" "$work/report"
  [ -f "$work/rerun/bench.json" ] && rerun=(--rerun "$work/rerun")
  # A tuner output already there stays unless this run tuned: tuning/sm_90.json is shipped from
  # the result sets' tuner outputs (ctest tuning.shipped_database).
  rm -f "$out"/*.png "$out/rerun.json.gz"
  # summary.csv, the headline tables, the speedups' plots and the runs without their search
  # lists (summarize.py); the tables by structure, the heat map and the targets (make_report.py).
  "$py" perf_tests/report/summarize.py "$work/bench" "${rerun[@]}" --csv "$out/summary.csv" \
    --markdown "$work/report/summary.md" --plot "$work/report/speedup_vs_cusparse.png" \
    --plot-k "$work/report/speedup_vs_cusparse_by_k.png" --slim "$out/bench.json.gz" || return 1
  [ ${#rerun[@]} -eq 0 ] || "$py" perf_tests/report/summarize.py "$work/rerun" --slim "$out/rerun.json.gz" || return 1
  "$py" perf_tests/report/make_report.py "$work/bench" --out "$work/report" > "$logs/report.log" 2>&1 ||
    { tail -n 20 "$logs/report.log"; return 1; }
  # At most six plots.
  for plot in "$work"/report/speedup_vs_cusparse{,_by_k}.png "$work"/report/speedup_structure_{double,float}.png \
              "$work"/report/heatmap*.png; do
    [ -f "$plot" ] || continue
    if [ ${#kept[@]} -lt 6 ]; then cp "$plot" "$out/"; kept+=("${plot##*/}"); else left+=("${plot##*/}"); fi
  done
  [ -n "$(database)" ] && gzip -9 -c "$(database)" > "$out/tuner_output.json.gz"
  rm -f "$out"/example_*.txt
  [ -d "$work/examples" ] && cp "$work"/examples/example_*.txt "$out/" 2> /dev/null
  {
    readme_head "Campaign on $kind"
    echo "Files: \`summary.csv\` (one row per matrix, precision, op and k: ours tuned and default, cuSPARSE's"
    echo "fastest form and Kokkos Kernels, their ratios, the rerun's times), \`bench.json.gz\` and"
    echo "\`rerun.json.gz\` (the bench and its rerun without their search lists)$([ -f "$out/tuner_output.json.gz" ] && printf '%s' \
      ", \`tuner_output.json.gz\` (the database compound-tune wrote)")$(ls "$out"/example_*.txt > /dev/null 2>&1 &&
      printf '%s' ", \`example_*.txt\` (the solver examples at GPU size: the default SpMV and TunedSpmv's choice)"), the plots below."
    echo
    for plot in "${kept[@]}"; do echo "![$plot]($plot)"; echo; done
    echo "## Headline tables (\`summarize.py\`)"
    echo
    sed 's/^#/##/' "$work/report/summary.md"
    echo
    if [ -f "$work/tuning/selection_quality.md" ]; then
      echo "## Selection for matrices the database has not seen (\`compound-tune --loo\`)"
      echo
      grep -a -m 1 '^\*\*Median' "$work/tuning/selection_quality.md"
      echo
      awk '/^## Quick tuning/ { q = 1; print "Quick tuning (simulated), the chosen candidate over the best:"; print ""; next }
           q && /^## / { exit } q && /^\|/' "$work/tuning/selection_quality.md"
      echo
    fi
    check_section
    sections "$work/report/report.md" "By structure" "Targets" | grep -v -F '.png)'
    echo
    readme_notes "$readme"
  } > "$readme.tmp" && mv "$readme.tmp" "$readme"
  [ ${#left[@]} -eq 0 ] || echo "report: left out (over six plots): ${left[*]}"
  echo "wrote $out: $(ls "$out" | tr '\n' ' ')"
}
report_dist() {  # the scaling's set in $dist_out (a part of $out's README when they are one folder)
  local weak many combined=0 readme=$dist_out/README.md summary=$dist_out/summary.csv f
  weak=$(weak_pairs)
  many=$(ls "$work"/dist/np*_all.json | sort -V)
  [ "$dist_out" = "$out" ] && [ -f "$out/README.md" ] && [ -f "$work/bench/bench.json" ] &&
    combined=1 readme=$out/README.md.dist summary=$out/summary_dist.csv
  mkdir -p "$dist_out"
  # shellcheck disable=SC2086  # one path per rank count
  "$py" perf_tests/report/scaling.py "$work/dist/np1.json" $many ${weak:+--weak "$weak"} --csv "$summary" > /dev/null ||
    return 1
  # The runs themselves (small: one record per matrix, order and precision), as scaling.py reads them.
  [ $combined = 1 ] || { rm -f "$dist_out"/np*.json; cp "$work"/dist/np*.json "$dist_out/"; }
  cp "$work/dist/scaling.png" "$dist_out/"
  {
    if [ $combined = 1 ]; then echo "## The distributed product"; echo
    else readme_head "The distributed product ($kind, 1 to $ranks ranks)"; fi
    echo "Files: \`$(basename "$summary")\` (one row per matrix, order, precision and rank count: 1 rank and"
    echo "R ranks, the efficiencies, the exchange), \`scaling.png\`$([ $combined = 1 ] || printf '%s' \
      ", the compound-dist-bench runs \`np*.json\` (\`scaling.py np1.json np2_all.json ..\` reads them)")."
    echo
    for f in "$logs"/test_distributed_np*.log; do
      [ -f "$f" ] && echo "- ${f##*/}: $(grep -a -E '^\[  (PASSED|FAILED)' "$f" | tr '\n' ' ')"
    done
    echo
    sed 's/^#/##/' "$work/dist/scaling.md"
    echo
    echo "![Strong and weak scaling](scaling.png)"
    echo
    [ -f "$work/dist/scaling_mpi_exchange.md" ] && { echo "## With the halo through host-staged MPI (\`--exchange mpi\`)"
      echo; sed 's/^#/###/' "$work/dist/scaling_mpi_exchange.md"; echo; }
    [ -f "$work/dist/scaling_rerun.md" ] && { echo "## Rerun"; echo; sed 's/^#/###/' "$work/dist/scaling_rerun.md"; echo; }
    [ $combined = 1 ] || { [ "$dist_out" = "$out" ] || check_section; readme_notes "$readme"; }
  } > "$readme.tmp" && mv "$readme.tmp" "$readme"
  if [ $combined = 1 ]; then  # before the bench README's notes
    { sed '/^<!-- notes -->$/,$d' "$out/README.md"; cat "$readme"; sed -n '/^<!-- notes -->$/,$p' "$out/README.md"; } \
      > "$out/README.md.tmp" && mv "$out/README.md.tmp" "$out/README.md"
    rm "$readme"
  fi
  echo "wrote $dist_out: $(ls "$dist_out" | tr '\n' ' ')"
}
stage_report() {
  local wrote=0
  if [ -f "$work/bench/bench.json" ]; then report_bench || return 1; wrote=1; fi
  if [ -f "$work/dist/scaling.md" ]; then report_dist || return 1; wrote=1; fi
  if [ $wrote = 0 ]; then
    # Nothing to publish (a check, a profile): the record stays in WORK.
    { readme_head "Campaign on $kind (no bench, no scaling)"; check_section; } > "$work/README.md"
    echo "report: no bench or scaling ran; the record is $work/README.md"
  fi
  return 0
}

# ---- the stages ------------------------------------------------------------------------------
failed=''
run_stage() {  # (its locals' names are its own: bash's callees see them)
  local stage_=$1 start_=$SECONDS rc_=0
  step "$stage_"
  "stage_$stage_" || rc_=$?
  printf '%-8s | rc %d | %5d s | %s\n' "$stage_" "$rc_" $((SECONDS - start_)) "$(date -u +%FT%TZ)" >> "$work/stages.txt"
  [ $rc_ -eq 0 ] || { echo "=== $stage_ failed (rc $rc_)"; failed+=" $stage_"; }
  return $rc_
}
if wants prepare; then run_stage prepare || exit 1; fi
if [ $build = 1 ] && [ -n "$(build_targets)" ]; then
  run_stage build || { wants report && run_stage report; exit 1; }
elif [ $build = 0 ]; then
  zoo_start
fi
for s in zoo tune bench rerun examples profile dist check; do
  wants "$s" || continue
  [ -z "$failed" ] || { echo "=== $s: skipped after the failure of$failed"; continue; }
  run_stage "$s"
done
zoo_wait > /dev/null 2>&1
if wants report; then run_stage report; fi
step "done${failed:+, failed:$failed}"
[ -z "$failed" ]
