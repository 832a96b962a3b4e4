#!/usr/bin/env bash
# Do lanes 2, 8, 16 (outside the reduced search's 1, 4, 32) or other bounds help the
# quaternion double pairs? compound-bench --variants with a grid around the tuned ones.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
XL=" " STEPS=" " bash .carry/prof/xl_pipeline.sh
exec >> "$R/diag.log" 2>&1
deps=$PWD/.carry/deps
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bench=build-cuda/perf_tests/bench/compound-bench
until [ -e /tmp/compound_zoo_tune/index.json ]; do sleep 3; done
echo "=== lanes start $(date +%T)"
v=""
for lay in csr.aos.aos csr.soa.aos ell.aos.aos sell32.aos.aos sell32c16.aos.aos sell32c16.soa.aos sell32c16.soa.soa sell16.aos.aos; do
  for b in t256.b1 t256.b2 t256.b4 t128.b4 t256.b8; do
    for l in 1 2 4 8 16; do v+="$lay.static.$b.l$l,"; done
  done
done
for k in dynamic_team dynamic_warp; do for b in t256.b2 t256.b4; do for l in 1 2; do v+="ell.aos.aos.$k.$b.l$l,"; done; done; done
v=${v%,}
mkdir -p $R/lanes
for p in double float; do
  for m in dirac-spot dirac-spot-l1 dirac-woody-l2 dirac-bunny dirac-spot-l2 dirac-bunny-l1 dirac-torus-l1 dirac-bunny-l2; do
    [ $p = float ] && [[ " dirac-bunny dirac-spot-l2 dirac-bunny-l1 " != *" $m "* ]] && continue
    start=$SECONDS
    $bench --zoo /tmp/compound_zoo_tune/index.json --out $R/lanes/$m-$p --matrices $m --precision $p --variants "$v" \
      2>&1 | tr '\r' '\n' | grep -v '%' > $R/lanes/$m-$p.log
    echo "$m $p rc=${PIPESTATUS[0]} $((SECONDS - start)) s: $(tail -1 $R/lanes/$m-$p.log)"
  done
done
echo "=== lanes end $(date +%T)"
touch $R/done.lanes
