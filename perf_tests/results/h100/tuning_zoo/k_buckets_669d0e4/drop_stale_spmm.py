#!/usr/bin/env python3
"""Drops the k > 1 measurements of every record that has a segmented-sum SpMM measurement
(k > 1), so that `compound-tune --resume extend` measures those records' k buckets again:
the segmented sum's SpMM was one SpMV per vector until 7cb5519, and a record extends only
the k it has no measurement of. The k = 1 measurements and the best stay as they are.

    drop_stale_spmm.py IN.json.gz OUT.json.gz   (session 36: 34 records, 13296 measurements)"""
import gzip
import json
import sys

source, target = sys.argv[1:]
db = json.load(gzip.open(source, "rt"))
records = dropped = 0
for record in db["matrices"]:
    spmm = [m for m in record["measurements"] if m.get("k", 1) > 1]
    if any("segmented_sum" in m["variant"] for m in spmm):
        record["measurements"] = [m for m in record["measurements"] if m.get("k", 1) == 1]
        records += 1
        dropped += len(spmm)
json.dump(db, gzip.open(target, "wt"))
print(f"{records} records, {dropped} measurements dropped")
