#!/usr/bin/env bash
# Session 42, on the host: h100/current's bench.json.gz made whole and its rerun joined.
#   bash complete_bench.sh FIRST.json.gz REST_DIR RERUN_K18 RERUN_K2416
# FIRST: session 41's bench (0a37016, 323 runs); REST_DIR: job42a.sh's bench_rest (gpu0..gpu3,
# 30418c9, the 50 runs FIRST lacked); RERUN_*: the two reruns' merged bench.json (30418c9).
# elasticity-spot-fine double's three runs in FIRST (k = 1, 2, 4 of an unfinished share) are
# dropped: REST_DIR holds that pair at every k, and merge_bench.py refuses a pair twice.
# 0a37016 and 30418c9 time the same kernels (git diff 0a37016 30418c9 -- src include: the record
# lookup by device only), hence --allow-commits.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../../..
first=$1 rest=$2 rerun18=$3 rerun2416=$4
tmp=$(mktemp -d)
python3 - "$first" "$tmp/first.json" <<'PY'
import gzip, json, sys
bench = json.load(gzip.open(sys.argv[1], "rt"))
keep = [m for m in bench["matrices"] if not (m["name"] == "elasticity-spot-fine" and m["precision"] == "double")]
print(f"first run: {len(bench['matrices'])} runs, {len(bench['matrices']) - len(keep)} dropped")
bench["matrices"] = keep
json.dump(bench, open(sys.argv[2], "w"))
PY
python3 "$root/perf_tests/report/merge_bench.py" "$tmp/bench.json" "$tmp/first.json" "$rest"/gpu{0,1,2,3} \
  --allow-commits 0a37016,30418c9
python3 "$root/perf_tests/report/merge_bench.py" "$tmp/rerun.json" "$rerun18" "$rerun2416"
gzip -9 -c "$tmp/bench.json" > "$here/bench.json.gz"
mkdir -p "$here/rerun"
gzip -9 -c "$tmp/rerun.json" > "$here/rerun/bench.json.gz"
python3 "$root/perf_tests/report/spmm.py" "$here/bench.json.gz" --out "$here/spmm.md" > /dev/null
python3 "$root/perf_tests/report/spmm.py" "$here/rerun/bench.json.gz" --out "$here/rerun/spmm.md" > /dev/null
rm -r "$tmp"
