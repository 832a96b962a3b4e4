#!/usr/bin/env bash
# Session 42 (nvidia-h100-x4): sessions 41-42's library changes on CUDA: TunedSpmv's record by
# name and device, the mixed stand-in selection, the segmented sum's warp_tile (heads counted
# once); the tests named below, then compute-sanitizer memcheck on the changed kernel's test.
cd "$(dirname "$0")/.."
# tuning/sm_90.json travels gzipped (the tree with it is over the device tool's 64 MiB).
gunzip -c .carry/sm_90.json.gz > tuning/sm_90.json
STEPS="build tests sanitizer" \
  TARGETS="test_segmented_sum test_tuned_spmv test_mixed_precision test_registry test_transpose test_merge_path test_row_batch test_tuning_database test_leave_one_out" \
  bash scripts/gpu_spmm.sh > $WORK/main.txt 2>&1
echo "=== gpu_spmm.sh rc $? ($(date +%T))"; grep -a -E '^=== |default GPU build|rc=' $WORK/main.txt
for t in test_tuning_database test_leave_one_out; do
  timeout 300 build-cuda/unit_tests/$t > $WORK/$t.log 2>&1
  echo "$t: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' $WORK/$t.log | tr '\n' ' ')"
done
compute-sanitizer --tool memcheck --error-exitcode 3 build-cuda/unit_tests/test_segmented_sum > $WORK/memcheck_segmented_sum.log 2>&1
echo "memcheck test_segmented_sum (all cases): rc=$? $(grep -a 'ERROR SUMMARY' $WORK/memcheck_segmented_sum.log) $(grep -a -E '^\[  (PASSED|FAILED)' $WORK/memcheck_segmented_sum.log | tr '\n' ' ')"
