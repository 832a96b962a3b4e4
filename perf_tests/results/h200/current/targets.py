import gzip, json, math, sys
# bench.json or bench.json.gz (the committed run is kept gzipped)
b = json.load(gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1]))
xlnames = {"circuit-10m","helmholtz-box-xl","dirac-torus-xl","connection-hubs-8m","elasticity-box-xl","elasticity-rigid-xl"}
copies = {r["file"]: r["copy_bandwidth_bytes_per_s"] for r in b["merged_from"]}
def gm(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
rows = []
for m in b["matrices"]:
    r = {x["method"]: x for x in m["results"]}
    t = r["ours_tuned"]["seconds"]
    forms = {f["variant"]: f["seconds"] for f in m.get("cusparse_forms", []) if f["ok"]}
    best = min(forms.values())
    real = min([v for k, v in forms.items() if "2x2" not in k] or [float("nan")])
    cx = min([v for k, v in forms.items() if "2x2" in k] or [float("nan")])
    kk = r["kokkos_kernels"]["seconds"] if r["kokkos_kernels"]["ok"] else float("nan")
    rows.append(dict(name=m["name"], cls=m["class"], p=m["precision"], xl=m["name"] in xlnames, t=t, best=best,
                     bestform=min(forms, key=forms.get), real=real, cx=cx, kk=kk, nnz=m["nnz"],
                     variant=r["ours_tuned"]["variant"], cb=m["compulsory_bytes"], default=r["ours_default"]["seconds"]))
copy = b["copy_bandwidth_bytes_per_s"]
print("| class | float | double | pairs (of which xl) |")
print("|---|---|---|---|")
for cls in ["quaternion", "block3", "complex"]:
    f = [x["best"] / x["t"] for x in rows if x["cls"] == cls and x["p"] == "float"]
    d = [x["best"] / x["t"] for x in rows if x["cls"] == cls and x["p"] == "double"]
    n = sum(1 for x in rows if x["cls"] == cls); nx = sum(1 for x in rows if x["cls"] == cls and x["xl"])
    print(f"| {cls} | {gm(f):.2f} | {gm(d):.2f} | {n} ({nx}) |")
for p in ["float", "double"]:
    q = [x for x in rows if x["cls"] == "quaternion" and x["p"] == p]
    print(f"quaternion {p}: vs real 4x4 forms {gm([x['real']/x['t'] for x in q]):.2f}, vs 2x2 complex {gm([x['cx']/x['t'] for x in q]):.2f} ({len(q)} pairs)")
    qs = [x for x in q if not x["xl"]]
    print(f"   standard only: real {gm([x['real']/x['t'] for x in qs]):.2f}, 2x2 {gm([x['cx']/x['t'] for x in qs]):.2f}")
below = [(x["name"], x["p"], round(x["best"]/x["t"], 3), round(x["t"]*1e6, 2)) for x in rows if x["best"] < x["t"]]
print("below 1.0:", below)
print("KK: min", round(min(x["kk"]/x["t"] for x in rows), 2), "gm", round(gm([x["kk"]/x["t"] for x in rows]), 2))
print()
print("| matrix | precision | nnz | ours tuned (µs, variant) | cuSPARSE fastest (µs, form) | ratio | ours / copy | cuSPARSE / copy | vs real 4×4 | Kokkos Kernels (µs) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for x in rows:
    if not x["xl"]: continue
    rr = f"{x['real']/x['t']:.2f}" if x["cls"] == "quaternion" else "—"
    print(f"| {x['name']} | {x['p']} | {x['nnz']:,} | {x['t']*1e6:.1f} `{x['variant']}` | {x['best']*1e6:.1f} ({x['bestform'].replace('cusparseSpMV_','')}) | {x['best']/x['t']:.2f} | {x['cb']/x['t']/copy:.2f} | {x['cb']/x['best']/copy:.2f} | {rr} | {x['kk']*1e6:.0f} |")
