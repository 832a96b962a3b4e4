#!/usr/bin/env python3
"""Turns compound-bench output (bench.json, schema 1) into report.md plus PNG plots.

The benchmark runs on a lent GPU for minutes at a time; the report is rebuilt anywhere
from the JSON it leaves, so tables, plots and target checks can change without another
GPU run. Usage, outputs and the target definitions: docs/perf.md.

usage: make_report.py BENCH_DIR_OR_JSON... --out DIR
"""
import argparse
import json
import math
import os
import re
import sys

SCHEMA = 1
LABELS = {"cusparse": "cuSPARSE", "kokkos_kernels": "Kokkos Kernels",
          "ours_default": "ours, schedule-only tuning (CSR-AoS)",
          "ours_tuned": "ours, joint layout+schedule tuning"}
METHODS = ("cusparse", "kokkos_kernels", "ours_default", "ours_tuned")
# Entry classes and outer layouts come from each run: compound-bench writes the variant
# space's lists (cmake/CompoundSparseVariantSpace.cmake) into bench.json as
# "entry_classes" and "outer_layouts"; older files fall back to the order of their data.
CLASS_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")
METHOD_COLORS = {"ours_default": "#9ecae1", "ours_tuned": "#08519c", "kokkos_kernels": "#fdae6b"}
PRECISIONS = ("float", "double")
# outer.inner.vector.kind.tN.bN.lN (include/compound_sparse/variant_key.hpp).
VARIANT_RE = re.compile(r"^([^.]+)\.([^.]+)\.([^.]+)\.([^.]+)\.t(\d+)\.b(\d+)\.l(\d+)$")
# Project targets: (class, required speedup of ours_tuned over cuSPARSE, baseline wording).
SPEEDUP_TARGETS = (("quaternion", 3.0, "cuSPARSE (expanded 4×4 BSR)"),
                   ("block3", 1.5, "cuSPARSE BSR"), ("complex", 1.0, "cuSPARSE CSR"))
KK_TARGET = 1.5
LARGE_BYTES = 100e6          # "large matrix": compulsory traffic of at least 100 MB (10^8 bytes)
BANDWIDTH_TARGET = 0.80      # fraction of the measured copy bandwidth


class ReportError(Exception):
    """A bench.json the report cannot use; the message names the file and the problem."""


def need(obj, keys, where):
    """Fails with the file and key named, rather than with a KeyError deep inside a table."""
    if not isinstance(obj, dict):
        raise ReportError(f"{where}: expected a JSON object")
    for key in keys:
        if key not in obj:
            raise ReportError(f"{where}: missing key '{key}'")


def load_runs(paths):
    """Reads and checks every input (a bench.json or a directory holding one)."""
    runs, seen = [], {}
    for path in paths:
        f = os.path.join(path, "bench.json") if os.path.isdir(path) else path
        try:
            with open(f, encoding="utf-8") as fh:
                run = json.load(fh)
        except OSError as e:
            raise ReportError(f"{f}: cannot read: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ReportError(f"{f}: not valid JSON: {e}") from None
        need(run, ("schema",), f)
        if run["schema"] != SCHEMA:
            raise ReportError(f"{f}: schema is {run['schema']!r}, this script reads schema {SCHEMA}")
        need(run, ("device", "matrices", "copy_bandwidth_bytes_per_s"), f)
        need(run["device"], ("name",), f + ": device")
        if not isinstance(run["matrices"], list):
            raise ReportError(f"{f}: 'matrices' is not a list")
        for i, m in enumerate(run["matrices"]):
            where = f"{f}: matrices[{i}]"
            need(m, ("name", "class", "precision", "compulsory_bytes", "results"), where)
            if m["precision"] not in PRECISIONS:
                raise ReportError(f"{where}: precision {m['precision']!r} is not float or double")
            for j, r in enumerate(m["results"]):
                need(r, ("method", "ok", "seconds"), f"{where} ({m['name']}): results[{j}]")
            key = (run["device"]["name"], m["name"], m["precision"])
            if key in seen:
                raise ReportError(f"{f}: {m['name']} ({m['precision']}) on {key[0]} is also in {seen[key]}")
            seen[key] = f
            m["_copy_bw"] = float(run["copy_bandwidth_bytes_per_s"])
            m["_entry_classes"] = run.get("entry_classes", [])
            m["_outer_layouts"] = run.get("outer_layouts", [])
        run["_file"] = f
        runs.append(run)
    return runs


def slug(text):
    """File-name / directory form of a device or matrix name ("NVIDIA H200" -> "h200")."""
    text = re.sub(r"^nvidia\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def result(m, method):
    """The result of one method on a matrix, or None when the bench did not run it."""
    return next((r for r in m["results"] if r["method"] == method), None)


def seconds(m, method):
    """Time of a successful result, None for failed or absent ones (kept out of plots)."""
    r = result(m, method)
    return r["seconds"] if r and r["ok"] and r["seconds"] > 0 else None


def speedup(m, method, base="cusparse"):
    t, b = seconds(m, method), seconds(m, base)
    return b / t if t and b else None


def failed(m, method):
    r = result(m, method)
    return "—" if r is None else "failed: " + (r.get("error") or "no error text")


def cell(text):
    """Markdown table cell: error texts may hold '|' or newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows])


def fmt_ratio(x):
    """Three significant digits without exponent: 1.00, 3.27, 41.5, 412."""
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def fmt_speedup(m, method, base="cusparse"):
    if seconds(m, method) is None:
        return failed(m, method)
    s = speedup(m, method, base)
    return f"{s:.2f}×" if s else f"n/a ({LABELS[base]} {'failed' if result(m, base) else 'not run'})"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def first_seen(lists):
    """The items of several lists, each once, in order of first appearance."""
    return list(dict.fromkeys(x for items in lists for x in items))


def entry_classes(ms):
    """The runs' entry classes (variant space order), then any other class in the data."""
    return first_seen([m["_entry_classes"] for m in ms] + [[m["class"] for m in ms]])


def outer_layouts(ms):
    """The runs' outer layouts (variant space order; the first is the default), then any
    other layout in the memory tables."""
    return first_seen([m["_outer_layouts"] for m in ms] + [list(m.get("memory_bytes") or {}) for m in ms])


def class_color(cls, ms):
    return CLASS_PALETTE[entry_classes(ms).index(cls) % len(CLASS_PALETTE)]


def ordered(ms):
    """Matrices grouped by class (in the variant space's class order) so plots and tables line up."""
    rank = {c: i for i, c in enumerate(entry_classes(ms))}
    return sorted(ms, key=lambda m: (rank.get(m["class"], len(rank)), m["class"], m["name"]))


def pyplot():
    """matplotlib on the Agg backend (no display on CI or the GPU machine)."""
    try:
        import matplotlib
    except ImportError:
        raise ReportError("matplotlib is missing for " + sys.executable + ": run scripts/setup.sh "
                          "(Debian python3-matplotlib) and use /usr/bin/python3") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_speedup(ms, precision, device, path):
    """Grouped bars per matrix, one per method, against the 1.0 line (cuSPARSE); the class
    is shown by shaded bands and the tick-label colour. Returns notes on what was left out."""
    plt = pyplot()
    methods = [k for k in ("ours_default", "ours_tuned", "kokkos_kernels") if any(speedup(m, k) for m in ms)]
    notes = [f"{m['name']}: {LABELS[k]} {failed(m, k)}" for m in ms for k in METHODS
             if result(m, k) and not result(m, k)["ok"]]
    if not methods:
        return notes, False
    fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * len(ms) + 2.5), 4.8))
    width = 0.8 / len(methods)
    for i, k in enumerate(methods):
        xs = [j + (i - (len(methods) - 1) / 2) * width for j in range(len(ms))]
        ys = [speedup(m, k) or 0 for m in ms]
        bars = ax.bar(xs, ys, width, label=LABELS[k], color=METHOD_COLORS[k], edgecolor="black",
                      linewidth=0.5, zorder=3)
        if len(ms) <= 16:
            ax.bar_label(bars, labels=[f"{y:.2f}" if y else "" for y in ys], fontsize=7, padding=2)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="cuSPARSE (1.0)", zorder=4)
    for cls in dict.fromkeys(m["class"] for m in ms):
        idx = [j for j, m in enumerate(ms) if m["class"] == cls]
        ax.axvspan(idx[0] - 0.5, idx[-1] + 0.5, color=class_color(cls, ms), alpha=0.08, zorder=0)
        ax.text((idx[0] + idx[-1]) / 2, 1.0, cls, transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=9, color=class_color(cls, ms), fontweight="bold")
    for j, m in enumerate(ms):
        if not any(speedup(m, k) for k in methods):
            ax.text(j, 0.03, "failed\n(see note)", transform=ax.get_xaxis_transform(), ha="center", fontsize=8)
    ax.set_xticks(range(len(ms)))
    ax.set_xticklabels([m["name"] for m in ms], rotation=30, ha="right", fontsize=9)
    for label, m in zip(ax.get_xticklabels(), ms):
        label.set_color(class_color(m["class"], ms))
    ax.set_xlim(-0.5, len(ms) - 0.5)
    ax.set_ylim(0, max(max(speedup(m, k) or 0 for m in ms for k in methods), 1.0) * 1.18)
    ax.set_ylabel("speedup over cuSPARSE (higher is better)")
    ax.set_title(f"SpMV speedup over cuSPARSE, {precision} — {device}", pad=18)
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    ax.grid(axis="y", alpha=0.3, zorder=1)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return notes, True


def plot_heatmap(m, device, path):
    """Threads per block × blocks (teams) per SM for one layout: shows how flat or sharp the
    schedule optimum is. GB/s (higher is better); missing or failed cells stay blank."""
    plt = pyplot()
    import numpy as np
    hm = m["heatmap"]
    cells = [c for c in hm.get("cells", []) if c.get("ok", True) and c.get("seconds", 0) > 0]
    threads = sorted({c["threads"] for c in hm.get("cells", [])})
    teams = sorted({c["teams_per_sm"] for c in hm.get("cells", [])})
    grid = np.full((len(threads), len(teams)), np.nan)
    for c in cells:
        grid[threads.index(c["threads"]), teams.index(c["teams_per_sm"])] = m["compulsory_bytes"] / c["seconds"] / 1e9
    fig, ax = plt.subplots(figsize=(max(5.5, 0.9 * len(teams) + 3), max(4, 0.55 * len(threads) + 2)))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("white")
    im = ax.imshow(np.ma.masked_invalid(grid), origin="lower", aspect="auto", cmap=cmap)
    lo, hi = (np.nanmin(grid), np.nanmax(grid)) if cells else (0, 1)
    for (i, j), v in np.ndenumerate(grid):
        if not np.isnan(v):
            dark = (v - lo) / ((hi - lo) or 1) < 0.6
            ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8, color="white" if dark else "black")
    if cells:
        i, j = np.unravel_index(np.nanargmax(grid), grid.shape)
        ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2))
    ax.set_xticks(range(len(teams)), [str(t) for t in teams])
    ax.set_yticks(range(len(threads)), [str(t) for t in threads])
    ax.set_xlabel("teams (blocks) per SM, n_b")
    ax.set_ylabel("threads per team (block), n_t")
    fig.colorbar(im, ax=ax, label="effective bandwidth, GB/s")
    ax.set_title(f"{m['name']} ({m['precision']}), {hm.get('variant_prefix', '?')}, "
                 f"lanes/row {hm.get('lanes_per_row', '?')}\n{device} (red: best; blank: not measured)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def header(runs, paths):
    """Where the numbers come from: one block per input run, all from its metadata."""
    out = ["# CompoundSparse SpMV benchmark report", "",
           "Generated by `perf_tests/report/make_report.py " + " ".join(paths) + "`.", "", "## Runs"]
    for i, run in enumerate(runs, 1):
        d, t = run["device"], run.get("timing", {})
        counts = ", ".join(f"{p}: {sum(m['precision'] == p for m in run['matrices'])}" for p in PRECISIONS)
        out += ["", f"### Run {i}: `{run['_file']}`", "",
                f"- Device: {d['name']} (backend {d.get('backend', '?')}, compute capability "
                f"{d.get('compute_capability', '?')}, {d.get('multiprocessors', '?')} SMs, L2 "
                f"{d.get('l2_cache_bytes', 0) / 2**20:.0f} MiB, memory {d.get('memory_bytes', 0) / 1e9:.0f} GB)",
                f"- CUDA runtime {d.get('cuda_runtime', '?')}, driver {d.get('driver', '?')}",
                f"- Commit `{run.get('commit', '?')}`, date {run.get('date', '?')}",
                f"- Command: `{run.get('command', '?')}`",
                "- Timing: " + (", ".join(f"{k} {v}" for k, v in t.items()) or "?") +
                f"; search: {run.get('search', '?')}",
                f"- Measured copy bandwidth: {run['copy_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s",
                f"- Matrices: {len(run['matrices'])} ({counts})"]
    return out


def best_layout_tables(ms):
    """Tables 2–7 of the paper: the tuned variant per matrix, split into its parts."""
    out = []
    for p in PRECISIONS:
        for cls in dict.fromkeys(m["class"] for m in ms):
            sel = [m for m in ms if m["precision"] == p and m["class"] == cls]
            if not sel:
                continue
            rows = []
            for m in sel:
                r = result(m, "ours_tuned")
                if seconds(m, "ours_tuned") is None:
                    rows.append([m["name"], failed(m, "ours_tuned")] + [""] * 9)
                    continue
                match = VARIANT_RE.match(r.get("variant", ""))
                parts = list(match.groups()) if match else [r.get("variant", "?")] + ["?"] * 6
                rows.append([m["name"]] + parts[:4] + parts[4:] + [f"{r['seconds'] * 1e6:.2f} µs",
                             fmt_speedup(m, "ours_tuned"), fmt_speedup(m, "ours_tuned", "ours_default")])
            out += ["", f"**{cls}, {p}**", "", md_table(
                ["Matrix", "outer", "matrix inner", "vector", "schedule", "n_t", "n_b", "lanes/row",
                 "time", "vs cuSPARSE", "vs ours_default"], rows)]
    return out


def memory_table(ms):
    """Table 9 of the paper: storage of each outer layout relative to the default one (CSR)."""
    layouts = outer_layouts(ms)
    if not layouts:
        return "No memory figures in these runs."
    rows = []
    for m in ms:
        mem = m.get("memory_bytes") or {}
        base = mem.get(layouts[0])
        rows.append([m["name"], m["class"], m["precision"], f"{base / 1e6:.2f}" if base else "—"] +
                    [fmt_ratio(mem[k] / base) if base and mem.get(k) else "—" for k in layouts])
    return md_table(["Matrix", "class", "precision", f"{layouts[0]} MB", *layouts], rows)


def bandwidth_table(ms):
    """compulsory_bytes / seconds per method, and its fraction of the measured copy bandwidth."""
    rows = []
    for m in ms:
        row = [m["name"], m["class"], m["precision"], f"{m['compulsory_bytes'] / 1e6:.1f}"]
        for k in METHODS:
            t = seconds(m, k)
            bw = m["compulsory_bytes"] / t if t else None
            row.append(f"{bw / 1e9:.0f} GB/s ({bw / m['_copy_bw']:.0%})" if bw else failed(m, k))
        rows.append(row)
    head = ["Matrix", "class", "precision", "compulsory MB"] + [LABELS[k] for k in METHODS]
    return "— : not run.\n\n" + md_table(head, rows)


def verdict(value, target, percent_points=False):
    """'met'/'missed' and by how much: relative for speedups, in points for bandwidth fractions."""
    word = "**met**" if value >= target else "**missed**"
    if percent_points:
        return f"{value:.0%} — {word} ({(value - target) * 100:+.0f} points vs {target:.0%})"
    return f"{value:.2f}× — {word} ({value / target - 1:+.0%} vs {target:g}×)"


def target_line(label, pairs, target, excluded, percent_points=False):
    """One target, judged on the geometric mean and on the minimum over the matrices."""
    if not pairs:
        return f"- {label}: no usable results" + (f" (excluded: {'; '.join(excluded)})" if excluded else "")
    worst = min(pairs, key=lambda nv: nv[1])
    text = (f"- {label}: geomean {verdict(geomean([v for _, v in pairs]), target, percent_points)}; "
            f"min {verdict(worst[1], target, percent_points)} ({worst[0]}); "
            f"{len(pairs)} matri{'x' if len(pairs) == 1 else 'ces'}")
    return text + (f"; excluded: {'; '.join(excluded)}" if excluded else "")


def ratio_target(label, cm, base, factor):
    """Speedup target of ours_tuned over `base` on the matrices `cm` of one class."""
    pairs = [(m["name"], speedup(m, "ours_tuned", base)) for m in cm if speedup(m, "ours_tuned", base)]
    excl = [f"{m['name']} ({fmt_speedup(m, 'ours_tuned', base)})" for m in cm if not speedup(m, "ours_tuned", base)]
    return target_line(label, pairs, factor, excl)


def targets(ms, gpu):
    """Targets of the project, computed for ours_tuned; no explanations here (ANALYSIS.md)."""
    out = ["Each target is judged on the geometric mean and on the minimum over the matrices of the "
           "class (worst matrix named), per precision, for ours_tuned. Failed runs are excluded and listed.", ""]
    for p in PRECISIONS:
        sel = [m for m in ms if m["precision"] == p]
        if not sel:
            continue
        for cls, factor, base in SPEEDUP_TARGETS:
            cm, label = [m for m in sel if m["class"] == cls], f"{cls} ≥ {factor:g}× {base}, {p}"
            out.append(ratio_target(label, cm, "cusparse", factor) if cm else f"- {label}: no {cls} matrices")
        big = [m for m in sel if m["compulsory_bytes"] >= LARGE_BYTES]
        label = f"large matrices (compulsory ≥ 100 MB) ≥ {BANDWIDTH_TARGET:.0%} of copy bandwidth, {p}"
        if big:
            pairs = [(m["name"], m["compulsory_bytes"] / seconds(m, "ours_tuned") / m["_copy_bw"])
                     for m in big if seconds(m, "ours_tuned")]
            excl = [f"{m['name']} ({failed(m, 'ours_tuned')})" for m in big if not seconds(m, "ours_tuned")]
            out.append(target_line(label, pairs, BANDWIDTH_TARGET, excl, percent_points=True))
        else:
            out.append(f"- {label}: no matrix with compulsory_bytes ≥ 100 MB")
        for cls in entry_classes(ms):
            cm, label = [m for m in sel if m["class"] == cls], f"{cls} ≥ {KK_TARGET:g}× Kokkos Kernels, {p}"
            if not cm:
                out.append(f"- {label}: no {cls} matrices")
            elif not any(seconds(m, "kokkos_kernels") for m in cm):
                out.append(f"- {label}: no Kokkos Kernels results")
            else:
                out.append(ratio_target(label, cm, "kokkos_kernels", KK_TARGET))
    return out + ["", f"Analysis: see perf_tests/results/{gpu}/ANALYSIS.md"]


def device_sections(device, ms, out_dir, suffix, level):
    """All tables and plots of one GPU; `suffix` keeps file names apart when there are several."""
    h = "#" * level
    out, ms = [], ordered(ms)
    out += ["", f"{h} Speedup over cuSPARSE — {device}"]
    for p in PRECISIONS:
        sel = [m for m in ms if m["precision"] == p]
        if not sel:
            continue
        name = f"speedup_{p}{suffix}.png"
        notes, drawn = plot_speedup(sel, p, device, os.path.join(out_dir, name))
        out += ["", f"![speedup over cuSPARSE, {p}]({name})" if drawn else f"No speedups to plot for {p}."]
        if notes:
            out += ["", f"Left out of the {p} plot (failed): " + "; ".join(cell(n) for n in notes) + "."]
    out += ["", f"{h} Best layout per matrix (ours_tuned) — {device}"] + best_layout_tables(ms)
    out += ["", f"{h} Memory per outer layout, relative to the default layout — {device}", "", memory_table(ms)]
    out += ["", f"{h} Effective bandwidth (compulsory bytes / time; % of measured copy bandwidth) — {device}",
            "", bandwidth_table(ms)]
    maps = [m for m in ms if m.get("heatmap")]
    if maps:
        out += ["", f"{h} Schedule heat map — {device}"]
    for m in maps:
        name = f"heatmap{suffix}.png" if len(maps) == 1 else f"heatmap_{slug(m['name'])}_{m['precision']}{suffix}.png"
        plot_heatmap(m, device, os.path.join(out_dir, name))
        out += ["", f"![schedule heat map, {m['name']} {m['precision']}]({name})"]
    out += ["", f"{h} Targets — {device}", ""] + targets(ms, slug(device))
    return out


def build_report(runs, paths, out_dir):
    by_device = {}
    for run in runs:
        by_device.setdefault(run["device"]["name"], []).extend(run["matrices"])
    lines = header(runs, paths)
    for device, ms in by_device.items():
        if len(by_device) > 1:
            lines += ["", f"## {device}"]
        lines += device_sections(device, ms, out_dir, f"_{slug(device)}" if len(by_device) > 1 else "",
                                 3 if len(by_device) > 1 else 2)
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Markdown report + plots from compound-bench bench.json files.")
    ap.add_argument("inputs", nargs="+", metavar="BENCH_DIR_OR_JSON")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory (created)")
    args = ap.parse_args(argv)
    try:
        runs = load_runs(args.inputs)
        os.makedirs(args.out, exist_ok=True)
        text = build_report(runs, args.inputs, args.out)
    except ReportError as e:
        print(f"make_report: error: {e}", file=sys.stderr)
        return 2
    with open(os.path.join(args.out, "report.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"make_report: wrote {os.path.join(args.out, 'report.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
