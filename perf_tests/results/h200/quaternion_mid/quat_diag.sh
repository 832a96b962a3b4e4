#!/usr/bin/env bash
# Nsight Compute (full set) of the tuned row kernel on the mid-size quaternion double pairs
# and two complex pairs of the same bytes. Build via xl_pipeline.sh (no steps, no xl).
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
echo "=== diag start $(date +%T)"
mkdir -p $R/ncu
for spec in dirac-bunny-l1:double:ell.aos.aos.static.t256.b2.l1 dirac-torus-l1:double:ell.aos.aos.static.t256.b4.l1 \
  helmholtz-box-k20:double:sell32c16.aos.aos.static.t256.b4.l1 dirac-bunny:double:sell32c16.soa.aos.static.t256.b2.l1 \
  dirac-spot-l2:double:sell32c16.soa.soa.static.t256.b2.l1 dirac-bunny-l2:double:ell.aos.aos.static.t256.b2.l1 \
  dirac-bunny-l1:double:csr.aos.aos.static.t256.b4.l4 dirac-bunny-l1:float:ell.aos.aos.static.t256.b8.l1; do
  IFS=: read -r m p v <<< "$spec"
  name=$m-$p-$(echo $v | tr . _)
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:row_kernel -s 3 -c 1 -o $R/ncu/$name -f \
    $bench --zoo /tmp/compound_zoo_tune/index.json --out /tmp/b_$name --matrices $m --precision $p --variants $v \
    --samples 1 --batch 1 --timing wall > $R/ncu/$name.log 2>&1 || echo "ncu $name failed: $(tail -3 $R/ncu/$name.log)"
  ncu --import $R/ncu/$name.ncu-rep --page details --csv --print-units base > $R/ncu/$name.details.csv 2>> $R/ncu/$name.log
  ncu --import $R/ncu/$name.ncu-rep --page raw --csv --print-units base > $R/ncu/$name.raw.csv 2>> $R/ncu/$name.log
  echo "$name: $(grep -a -m1 'Duration' $R/ncu/$name.details.csv)"
done
echo "=== diag end $(date +%T)"
touch $R/done.diag
