#!/usr/bin/env bash
# Starts SCRIPT (default quat_diag.sh) in the background unless running, follows it CALL s, packs /tmp/res.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
script=${SCRIPT:-quat_diag.sh}
R=/tmp/res; mkdir -p "$R"
if pgrep -f "prof/$script" > /dev/null; then echo "running already"; else
  setsid nohup bash .carry/prof/$script > /tmp/res/script.out 2>&1 < /dev/null & fi
end=$((SECONDS + ${CALL:-540})); sleep 5
while [ $SECONDS -lt $end ] && pgrep -f "prof/$script" > /dev/null; do sleep 5; done
echo "--- after ${SECONDS} s: $(pgrep -f "prof/$script" > /dev/null && echo running || echo stopped)"
tail -5 $R/pipeline.log; cat $R/diag.log 2>/dev/null | tail -30
tar czf "$OUT/res.tgz" -C /tmp --exclude='*.ncu-rep' res 2>/dev/null
ls -la $OUT
