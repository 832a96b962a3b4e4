#!/usr/bin/env python3
"""Writes one device's records of a tuning database to a file of its own (the header's device
named that device), for judging the prior on each device's records apart.

    split_by_device.py DB.json DEVICE OUT.json"""
import json
import sys

source, device, target = sys.argv[1:]
db = json.load(open(source))
header = db["device"]["name"]
db["matrices"] = [m for m in db["matrices"] if m.get("device", header) == device]
if not db["matrices"]:
    sys.exit(f"split_by_device.py: {source} has no record of {device}")
db["device"] = dict(db["device"], name=device)
json.dump(db, open(target, "w"))
print(f"{target}: {len(db['matrices'])} records of {device}")
