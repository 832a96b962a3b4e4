#!/usr/bin/env bash
# Mixed precision selected from float records (session 41, selection.cpp's stand-in): each of
# this run's six mixed-precision records judged as a matrix the database has not seen. For each,
# tuning/sm_90.json plus that one mixed record is judged by compound-tune --loo, which leaves out
# every record of the matrix (its float and double records too): with no mixed record left, the
# entry type's float records stand in. Host only (no GPU): the ratios are the mixed record's own
# H200 times of the selected variant over its best.
#   perf_tests/results/h200/mixed_precision/stand_in_check.sh BUILD_DIR > stand_in.md
set -euo pipefail
build=${1:?usage: stand_in_check.sh BUILD_DIR (with compound-tune built)}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$here/run/tuning/sm_90.json.gz" "$work" <<'PY'
import gzip, json, sys
db = json.load(gzip.open(sys.argv[1], "rt"))
for r in db["matrices"]:
    if r["features"]["precision"] == "mixed":
        with open(f"{sys.argv[2]}/mixed_{r['name']}.json", "w") as f:
            json.dump(dict(db, matrices=[r]), f)
PY
echo "| matrix | class | rule | nearest float record (distance) | selected | mixed's best | ratio | quick tuning (auto) |"
echo "|---|---|---|---|---|---|---|---|"
for one in "$work"/mixed_*.json; do
  name=$(basename "$one" .json)
  "$build/tuning/compound-tune" --merge "$work/db.json" --from "$root/tuning/sm_90.json,$one" > /dev/null 2>&1
  "$build/tuning/compound-tune" --loo "$work/db.json" --out "$work/loo" > /dev/null 2>&1
  python3 - "$work/loo.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r["precision"] == "mixed":
        print(f"| {r['matrix']} | {r['entry_type']} | {r['rule']} | {r['neighbour']} ({r['neighbour_device']}, "
              f"{r['distance']:.2f}) | `{r['selected']}` | `{r['best']}` | {r['ratio']:.3f} | {r['auto_ratio']:.3f} |")
PY
done
