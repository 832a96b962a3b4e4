#!/usr/bin/env bash
# Session 36's device job (started by .carry/run_bg.sh, WORK set by it). The card decides:
#  H200: tuning/sm_90.json (the H200's shipped database) gets its k buckets (--resume extend),
#        after issue 17's k = 8 measure on the xl matrices (compound-bench, own search).
#  H100: the H100 tuning-zoo database's 20 mesh records get their k buckets and its 34 records
#        with segmented-sum SpMM measurements (taken before 7cb5519's kernel) are re-measured at
#        k > 1 (.carry/sm_90_h100_resegmented.json.gz: those records' k > 1 measurements dropped);
#        then the examples, and the irregular matrices' SpMM in float against cuSPARSE (twice).
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu"
export WORK PRECISIONS=float,double KS=1,2,4,8,16 SPMM_LAYOUTS=2 TUNE_RESUME=extend BENCH_SPMM_LAYOUTS=2
export SEED_DB="tuning/sm_90.json .carry/sm_90_h100_resegmented.json.gz"
export TARGETS="compound-zoo compound-tune compound-bench example_helmholtz_multisource example_dirac_eigenvectors"
if [[ "$gpu" == *H200* ]]; then
  export ZOO_ONLY=seed
  STEPS="build xlbench" XL_ONLY=helmholtz-box-xl,dirac-torus-xl XL_KS=1,8 XL_PRECISIONS=double \
    bash scripts/gpu_spmm.sh; echo "build and xlbench: rc $?"
  STEPS="tune examples" bash scripts/gpu_spmm.sh
else
  export ZOO_ONLY=circuit-1m,circuit-512k,connection-hubs-256k,connection-hubs-512k,dirac-bunny,dirac-bunny-l1,dirac-bunny-l2,dirac-spot,dirac-spot-l1,dirac-spot-l2,dirac-woody-l2,elasticity-box,elasticity-box-16,elasticity-box-28,elasticity-box-52,elasticity-lshape,elasticity-lshape-small,elasticity-rigid-34,elasticity-rigid-44,elasticity-spot,elasticity-spot-fine,elasticity-spot-mid,helmholtz-box-k3,helmholtz-box-k5,helmholtz-cylinder-k8,mhd1280b,rmat-s19,rmat-s20
  STEPS="build tune examples" bash scripts/gpu_spmm.sh || exit $?
  # The four irregular matrices alone, float, k = 1 and 8, against cuSPARSE: twice.
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
  for run in bench_float rerun_float; do
    echo "=== $run ($(date +%T))"
    build-cuda/perf_tests/bench/compound-bench --zoo /tmp/irregular_zoo/index.json --db "$WORK/tuning/sm_90.json" \
      --out "$WORK/$run" --precision float --k 1,8 --timing queued --spmm-layouts 2 2>&1 | tr '\r' '\n' | grep -a -v '%'
    python3 perf_tests/report/spmm.py "$WORK/$run" --out "$WORK/$run.md" && cat "$WORK/$run.md"
  done
fi
echo "=== job done ($(date +%T))"
