#!/usr/bin/env bash
# Session 39's device job (started by .carry/run_bg.sh, WORK set by it), for a machine of 4 GPUs.
#  H200s: tuning/sm_90.json (the H200's shipped database) gets its k buckets (--resume extend),
#         the zoo dealt over the 4 GPUs (gpu_spmm.sh's tune step); then, one GPU each, at once:
#         0: the CUDA tests of the segmented sum's SpMM (a9cf46b and on), memcheck, the examples
#            from the extended database; 1: helmholtz-box-xl at k = 1, 8 (issue 17's k = 8 target,
#            the repeat of session 38's single run); 2 and 3: the four irregular matrices' SpMM in
#            float against cuSPARSE from the extended database (bench, and its rerun).
#  H100s: the CUDA tests and memcheck only (the H100's database has its k buckets already).
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
export WORK
tests="test_segmented_sum test_spmv_complex_float test_spmv_block3_float"
if [[ "$gpu" != *H200* ]]; then
  STEPS="build tests sanitizer" TARGETS="$tests" bash scripts/gpu_spmm.sh
  echo "=== job done rc $? ($(date +%T))"; exit
fi
STEPS="build tune" PRECISIONS=float,double KS=1,2,4,8,16 SPMM_LAYOUTS=2 TUNE_RESUME=extend \
  SEED_DB=tuning/sm_90.json ZOO_ONLY=seed \
  TARGETS="compound-zoo compound-tune compound-bench example_helmholtz_multisource example_dirac_eigenvectors $tests" \
  bash scripts/gpu_spmm.sh
echo "=== build and tune rc $? ($(date +%T))"
[ -f "$WORK/tuning/sm_90.json" ] || exit 1
python3 - /tmp/compound_zoo_spmm_tune /tmp/irregular_zoo <<'PY'
import json, pathlib, sys
src, dst = map(pathlib.Path, sys.argv[1:])
keep = {"circuit-1m", "rmat-s20", "connection-hubs-512k", "elasticity-rigid-44"}
index = json.loads((src / "index.json").read_text())
index["matrices"] = [m for m in index["matrices"] if m["name"] in keep]
dst.mkdir(exist_ok=True)
for f in src.iterdir():
    if f.suffix == ".mtx" and f.stem in keep and not (dst / f.name).exists(): (dst / f.name).symlink_to(f.resolve())
(dst / "index.json").write_text(json.dumps(index, indent=2) + "\n")
PY
irregular() {  # irregular GPU NAME KS
  CUDA_VISIBLE_DEVICES=$1 build-cuda/perf_tests/bench/compound-bench --zoo /tmp/irregular_zoo/index.json \
    --db "$WORK/tuning/sm_90.json" --out "$WORK/$2" --precision float --k "$3" --timing queued --spmm-layouts 2 \
    > "$WORK/$2.log" 2>&1
  echo "=== $2 rc $? ($(date +%T))"
  python3 perf_tests/report/spmm.py "$WORK/$2" --out "$WORK/$2.md"
}
CUDA_VISIBLE_DEVICES=0 STEPS="tests sanitizer examples" SEED_DB=$WORK/tuning/sm_90.json WORK=$WORK/gpu0 \
  bash scripts/gpu_spmm.sh > "$WORK/gpu0.log" 2>&1 &
CUDA_VISIBLE_DEVICES=1 STEPS=xlbench XL_ONLY=helmholtz-box-xl XL_KS=1,8 XL_PRECISIONS=double WORK=$WORK/xl \
  bash scripts/gpu_spmm.sh > "$WORK/xl.log" 2>&1 &
irregular 2 bench_float 1,2,4,8,16 &
irregular 3 rerun_float 1,2,8,16 &
wait
grep -a -E 'rc=|^===' "$WORK/gpu0.log"
tail -20 "$WORK/xl/spmm_xl.md"
cat "$WORK/bench_float.md" "$WORK/rerun_float.md" | grep -a -v '^$' | head -80
echo "=== job done ($(date +%T))"
