#!/usr/bin/env bash
# SCRIPT=.carry/x.sh CALL=seconds OUT=$OUT bash .carry/run_bg.sh
# Starts SCRIPT once per machine (detached, so it outlives this call), then waits up to
# CALL seconds for it to finish; copies its work folder to $OUT either way.
name=$(basename "$SCRIPT" .sh)
work=/tmp/bg_$name
if [ ! -e "$work/started" ]; then
  mkdir -p "$work"; date > "$work/started"
  setsid nohup bash -c "WORK=$work bash $SCRIPT > $work/log.txt 2>&1; echo \$? > $work/rc" > /dev/null 2>&1 < /dev/null &
fi
end=$((SECONDS + CALL))
while [ ! -e "$work/rc" ] && [ $SECONDS -lt "$end" ]; do sleep 5; done
[ -e "$work/rc" ] && echo "=== finished rc $(cat "$work/rc")" || echo "=== still running"
tar -czf "$OUT/work.tgz" -C "$work" --exclude='*.lock' . 2>/dev/null; cp "$work/log.txt" "$OUT/" 2>/dev/null
tail -n 60 "$work/log.txt"
