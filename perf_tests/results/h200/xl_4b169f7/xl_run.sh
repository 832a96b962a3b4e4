#!/usr/bin/env bash
# One device call of the xl pipeline (xl_pipeline.sh): starts it in the background (setsid,
# so that it may outlive the call) unless it is running already, follows it for CALL seconds
# (default 540) or until it ends, then packs /tmp/res (logs, bench.json files, Nsight
# Compute reports) into $OUT/res.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
call=${CALL:-540}
if pgrep -f xl_pipeline.sh > /dev/null; then
  echo "pipeline running since before this call (pid $(pgrep -f xl_pipeline.sh | head -1))"
else
  echo "starting the pipeline ($(date +%T)); done so far: $(cd "$R" && ls done.* 2>/dev/null | tr '\n' ' ')"
  STEPS=${STEPS:-run rerun ncu} setsid nohup bash .carry/prof/xl_pipeline.sh > /dev/null 2>&1 < /dev/null &
fi
end=$((SECONDS + call))
sleep 5
while [ $SECONDS -lt $end ] && pgrep -f xl_pipeline.sh > /dev/null; do sleep 5; done
echo "--- after ${SECONDS} s: $(pgrep -f xl_pipeline.sh > /dev/null && echo running || echo stopped)"
grep -a -E "^=== |rc=|wrote|tuned" "$R/pipeline.log" | tail -60
for f in "$R"/zoo_*.log; do echo "$(basename "$f"): $(tail -1 "$f")"; done
free -g | head -2
tar czf "$OUT/res.tgz" -C /tmp --exclude='*.ncu-rep' res 2>/dev/null
mkdir -p "$OUT/ncu" && cp "$R"/ncu/*.ncu-rep "$OUT/ncu/" 2>/dev/null
ls -la "$OUT"
