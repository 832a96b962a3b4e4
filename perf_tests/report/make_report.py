#!/usr/bin/env python3
"""Turns compound-bench output (bench.json, schema 1) into report.md plus PNG plots.

The benchmark runs on a lent GPU for minutes at a time; the report is rebuilt anywhere
from the JSON it leaves, so tables, plots and target checks can change without another
GPU run. Usage, outputs and the target definitions: docs/perf.md.

Every ratio against cuSPARSE is against the "cusparse" result, which compound-bench makes
the fastest of the cuSPARSE forms it ran on the matrix ("cusparse_forms"; a file from
before the forms holds one form). Matrices are grouped by the zoo's "structure" (grid,
mesh, irregular; "unknown" where the file has none) as well as by class.

usage: make_report.py BENCH_DIR_OR_JSON... --out DIR
"""
import argparse
import gzip
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
# The zoo's structure families (docs/zoo.md), in report order; others follow, "unknown" last.
STRUCTURES = ("grid", "mesh", "irregular")
# Apart from the class palette, which colours the same plots' tick labels.
STRUCTURE_COLORS = {"grid": "#1b9e77", "mesh": "#7570b3", "irregular": "#e7298a", "unknown": "#7f7f7f"}
CUSPARSE_FASTEST = "the fastest cuSPARSE form"
# outer.inner.vector.kind.tN.bN.lN (include/compound_sparse/variants/variant_key.hpp).
VARIANT_RE = re.compile(r"^([^.]+)\.([^.]+)\.([^.]+)\.([^.]+)\.t(\d+)\.b(\d+)\.l(\d+)$")
# Project targets: (class, required speedup of ours_tuned over cuSPARSE, baseline wording).
# The baseline is the fastest cuSPARSE form of each matrix (cusparse_baseline.hpp).
SPEEDUP_TARGETS = (("quaternion", 3.0, CUSPARSE_FASTEST), ("block3", 1.5, CUSPARSE_FASTEST),
                   ("complex", 1.0, CUSPARSE_FASTEST))
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
    """Reads and checks every input: a bench.json, or a directory holding one, either of
    them possibly gzip-compressed (bench.json.gz: older committed runs are kept that way)."""
    runs, seen = [], {}
    for path in paths:
        f = os.path.join(path, "bench.json") if os.path.isdir(path) else path
        if os.path.isdir(path) and not os.path.exists(f) and os.path.exists(f + ".gz"):
            f += ".gz"
        try:
            with (gzip.open(f, "rt", encoding="utf-8") if f.endswith(".gz") else open(f, encoding="utf-8")) as fh:
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
        # This report is of A x in float and double (the SpMV, one vector); products with
        # A^T / A^H (--ops), mixed precision and the SpMM of k > 1 vectors (--k; "k" absent
        # in older files: 1) have their own summaries (transposes.py, mixed_precision.py,
        # spmm.py).
        kept = [m for m in run["matrices"]
                if isinstance(m, dict) and m.get("op", "N") == "N" and m.get("precision") != "mixed"
                and m.get("k", 1) == 1]
        if len(kept) != len(run["matrices"]):
            print(f"{f}: leaving out {len(run['matrices']) - len(kept)} mixed-precision, op T/H or k > 1 "
                  "result(s): see transposes.py, mixed_precision.py and spmm.py", file=sys.stderr)
        run["matrices"] = kept
        for i, m in enumerate(run["matrices"]):
            where = f"{f}: matrices[{i}]"
            need(m, ("name", "class", "precision", "compulsory_bytes", "results"), where)
            if m["precision"] not in PRECISIONS:
                raise ReportError(f"{where}: precision {m['precision']!r} is not float or double")
            for j, r in enumerate(m["results"]):
                need(r, ("method", "ok", "seconds"), f"{where} ({m['name']}): results[{j}]")
            for j, r in enumerate(m.get("cusparse_forms") or []):
                need(r, ("variant", "ok", "seconds"), f"{where} ({m['name']}): cusparse_forms[{j}]")
            check_fastest_form(m, f"{where} ({m['name']})")
            key = (run["device"]["name"], m["name"], m["precision"])
            if key in seen:
                raise ReportError(f"{f}: {m['name']} ({m['precision']}) on {key[0]} is also in {seen[key]}")
            seen[key] = f
            m["_copy_bw"] = float(run["copy_bandwidth_bytes_per_s"])
            m["_read_bw"] = float(run.get("read_bandwidth_bytes_per_s") or 0)  # runs before it had none
            s = m.get("structure")
            m["_structure"] = s if isinstance(s, str) and s else "unknown"
            m["_entry_classes"] = run.get("entry_classes", [])
            m["_outer_layouts"] = run.get("outer_layouts", [])
        run["_file"] = f
        runs.append(run)
    return runs


def ok_seconds(r):
    """Time of a result or form that ran, else None."""
    return r["seconds"] if r and r.get("ok") and r.get("seconds", 0) > 0 else None


def check_fastest_form(m, where):
    """The "cusparse" result must be the fastest cuSPARSE form that ran: every ratio is
    against it. A file where it is not was not written by compound-bench as documented."""
    forms = [f for f in m.get("cusparse_forms") or [] if ok_seconds(f)]
    if not forms:
        return
    best = min(forms, key=ok_seconds)
    r = next((r for r in m["results"] if r["method"] == "cusparse"), None)
    if not ok_seconds(r) or ok_seconds(r) > ok_seconds(best):
        raise ReportError(f"{where}: the cusparse result is not the fastest cuSPARSE form "
                          f"({best['variant']}: {ok_seconds(best) * 1e6:.2f} µs)")
    named = m.get("cusparse_best")  # the same result under its own name (runs before it had none)
    if named is not None and (named.get("variant") != r.get("variant") or named.get("seconds") != r["seconds"]):
        raise ReportError(f"{where}: cusparse_best ({named.get('variant')}) is not the cusparse result "
                          f"({r.get('variant')})")


def structure(m):
    return m["_structure"]


def structures(ms):
    """The structures present, in STRUCTURES order, then others, then "unknown"."""
    present = {structure(m) for m in ms}
    rest = sorted(present - set(STRUCTURES) - {"unknown"})
    return [s for s in STRUCTURES if s in present] + rest + (["unknown"] if "unknown" in present else [])


def structure_color(s):
    return STRUCTURE_COLORS.get(s, "#bcbd22")


def slug(text):
    """File-name / directory form of a device or matrix name ("NVIDIA H200" -> "h200")."""
    text = re.sub(r"^nvidia\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def result(m, method):
    """The result of one method on a matrix, or None when the bench did not run it."""
    return next((r for r in m["results"] if r["method"] == method), None)


def seconds(m, method):
    """Time of a successful result, None for failed or absent ones (kept out of plots)."""
    return ok_seconds(result(m, method))


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
    """Grouped bars per matrix, one per method, against the 1.0 line (the fastest cuSPARSE
    form); the class is shown by shaded bands and the tick-label colour, the structure by a
    coloured marker under each name. Returns notes on what was left out."""
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
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="fastest cuSPARSE form (1.0)", zorder=4)
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
    ax.scatter(range(len(ms)), [-0.02] * len(ms), transform=ax.get_xaxis_transform(), clip_on=False, marker="s",
               s=30, c=[structure_color(structure(m)) for m in ms], zorder=5)
    for st in structures(ms):
        ax.scatter([], [], marker="s", s=30, color=structure_color(st), label=f"structure: {st}")
    ax.set_xlim(-0.5, len(ms) - 0.5)
    ax.set_ylim(0, max(max(speedup(m, k) or 0 for m in ms for k in methods), 1.0) * 1.18)
    ax.set_ylabel("speedup over the fastest cuSPARSE form (higher is better)")
    ax.set_title(f"SpMV speedup over the fastest cuSPARSE form, {precision} — {device}", pad=18)
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    ax.grid(axis="y", alpha=0.3, zorder=1)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return notes, True


def by_structure(ms):
    """Matrices grouped by structure (report order), then class, then name."""
    rank_s = {st: i for i, st in enumerate(structures(ms))}
    rank_c = {c: i for i, c in enumerate(entry_classes(ms))}
    return sorted(ms, key=lambda m: (rank_s[structure(m)], rank_c.get(m["class"], len(rank_c)), m["name"]))


def plot_structure(ms, precision, device, path):
    """ours_tuned over the fastest cuSPARSE form per matrix, bars coloured by structure and
    grouped by it, with each structure's geometric mean as a line over its group; hollow
    diamonds: ours_tuned over Kokkos Kernels. Returns False when there is nothing to plot."""
    ms = by_structure(ms)
    if not any(speedup(m, "ours_tuned") for m in ms):
        return False
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(6.5, 0.7 * len(ms) + 2.5), 4.8))
    ys = [speedup(m, "ours_tuned") or 0 for m in ms]
    ax.bar(range(len(ms)), ys, 0.7, color=[structure_color(structure(m)) for m in ms], edgecolor="black",
           linewidth=0.5, zorder=3)
    kk = [(j, speedup(m, "ours_tuned", "kokkos_kernels")) for j, m in enumerate(ms)]
    kk = [(j, v) for j, v in kk if v]
    if kk:
        ax.scatter([j for j, _ in kk], [v for _, v in kk], marker="D", facecolors="none", edgecolors="black",
                   zorder=5, label="ours_tuned over Kokkos Kernels")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, zorder=4)
    from matplotlib.patches import Patch
    handles = []
    for st in structures(ms):
        idx = [j for j, m in enumerate(ms) if structure(m) == st]
        vals = [ys[j] for j in idx if ys[j]]
        label = f"{st}: geomean {geomean(vals):.2f}×" if vals else f"{st}: no results"
        if vals:
            ax.hlines(geomean(vals), idx[0] - 0.45, idx[-1] + 0.45, colors=structure_color(st), linestyles=":",
                      linewidth=2, zorder=6)
        handles.append(Patch(facecolor=structure_color(st), edgecolor="black", linewidth=0.5, label=label))
    ax.set_xticks(range(len(ms)))
    ax.set_xticklabels([f"{m['name']} ({m['class']})" for m in ms], rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.5, len(ms) - 0.5)
    ax.set_ylim(0, max(max(ys), max((v for _, v in kk), default=0), 1.0) * 1.15)
    ax.set_ylabel("ours_tuned / fastest cuSPARSE form")
    ax.set_title(f"Speedup of ours_tuned by matrix structure, {precision} — {device}")
    ax.legend(handles=handles + ax.get_legend_handles_labels()[0], fontsize=8, loc="best", framealpha=0.9)
    ax.grid(axis="y", alpha=0.3, zorder=1)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


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
                f"- Measured copy bandwidth: {run['copy_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s"]
        if run.get("read_bandwidth_bytes_per_s"):
            out.append(f"- Measured read-only bandwidth (the sum of one large array): "
                       f"{run['read_bandwidth_bytes_per_s'] / 1e9:.0f} GB/s")
        out.append(f"- Matrices: {len(run['matrices'])} ({counts})")
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


def bw_fraction(m, method):
    """Effective bandwidth (compulsory bytes / time) of a method as a fraction of the run's
    copy bandwidth, None when it did not run."""
    t = seconds(m, method)
    return m["compulsory_bytes"] / t / m["_copy_bw"] if t else None


def fmt_bandwidth(m, method):
    f = bw_fraction(m, method)
    return f"{f * m['_copy_bw'] / 1e9:.0f} GB/s ({f:.0%})" if f else failed(m, method)


def bandwidth_table(ms):
    """compulsory_bytes / seconds per method, and its fraction of the measured copy bandwidth."""
    rows = []
    for m in ms:
        row = [m["name"], m["class"], structure(m), m["precision"], f"{m['compulsory_bytes'] / 1e6:.1f}"]
        for k in METHODS:
            t = seconds(m, k)
            bw = m["compulsory_bytes"] / t if t else None
            read = f"; {bw / m['_read_bw']:.0%} of read" if bw and m["_read_bw"] else ""
            row.append(f"{bw / 1e9:.0f} GB/s ({bw / m['_copy_bw']:.0%}{read})" if bw else failed(m, k))
        rows.append(row)
    head = ["Matrix", "class", "structure", "precision", "compulsory MB"] + [LABELS[k] for k in METHODS]
    return ("— : not run. cuSPARSE: its fastest form. In brackets: the fraction of the run's copy bandwidth, "
            "and of its read-only bandwidth where the run measured it.\n\n" + md_table(head, rows))


def fmt_time(t):
    return f"{t * 1e6:.2f} µs"


def cusparse_forms_tables(ms):
    """Every cuSPARSE form per matrix (time, and its ratio to the fastest, which is the
    baseline of every ratio in this report), one table per precision and class."""
    with_forms = [m for m in ms if m.get("cusparse_forms")]
    without = [m for m in ms if not m.get("cusparse_forms")]
    out = []
    for p in PRECISIONS:
        for cls in entry_classes(with_forms):
            sel = [m for m in with_forms if m["precision"] == p and m["class"] == cls]
            if not sel:
                continue
            names = first_seen([[f["variant"] for f in m["cusparse_forms"]] for m in sel])
            rows = []
            for m in sel:
                forms = {f["variant"]: f for f in m["cusparse_forms"]}
                best = seconds(m, "cusparse")
                cells = []
                for name in names:
                    f = forms.get(name)
                    t = ok_seconds(f)
                    if f is None:
                        cells.append("—")
                    elif not t:
                        cells.append("failed: " + (f.get("error") or "no error text"))
                    else:
                        cells.append(f"**{fmt_time(t)}**" if best and t <= best else
                                     f"{fmt_time(t)} ({t / best:.2f}×)" if best else fmt_time(t))
                    if f is not None and f.get("note"):
                        cells[-1] += f" (note: {f['note']})"
                    if f is not None and f.get("repeats_differing"):
                        cells[-1] += f" (not reproducible: {f['repeats_differing']} of {f['repeats']} reruns other bits)"
                r = result(m, "cusparse")
                rows.append([m["name"], structure(m)] + cells +
                            [r["variant"] if best else failed(m, "cusparse")])
            out += ["", f"**{cls}, {p}**", "", md_table(["Matrix", "structure", *names, "baseline"], rows)]
    rerun = [f for m in with_forms for f in m["cusparse_forms"] if f.get("repeats")]
    if rerun:
        unreproducible = sorted({f["variant"] for f in rerun if f.get("repeats_differing")})
        ours = [r for m in ms for r in m.get("results", []) if r.get("method") == "ours_tuned" and r.get("repeats")]
        ours_differ = sum(1 for r in ours if r.get("repeats_differing"))
        out += ["", "Each form was rerun after its check on the same inputs, and its bits compared with the "
                "checked product's. " +
                ("Not reproducible bit for bit on some matrix: " + ", ".join(f"`{v}`" for v in unreproducible) +
                 " (its sums change order between runs); it stays in the baseline when it is the fastest."
                 if unreproducible else "Every form reproduced its bits.") +
                (f" Ours (tuned) reproduced its bits on {len(ours) - ours_differ} of {len(ours)} matrix runs."
                 if ours else "")]
    if without:
        counts = {}
        for m in without:
            v = (result(m, "cusparse") or {}).get("variant") or "—"
            counts[v] = counts.get(v, 0) + 1
        out += ["", "Runs from before `cusparse_forms` record one cuSPARSE form per matrix, which is its "
                "baseline: " + ", ".join(f"`{v}` ({n} matrix run{'s' if n > 1 else ''})" for v, n in counts.items()) +
                "."]
    return out


def geomean_cell(values, n, percent=False):
    """Geometric mean of the values there are, with how many of the n matrices they cover."""
    if not values:
        return "—"
    g = geomean(values)
    text = f"{g:.0%}" if percent else f"{g:.2f}×"
    return text if len(values) == n else f"{text} ({len(values)} of {n})"


def structure_tables(ms):
    """Geometric means per precision, structure and class (and all classes of a structure):
    speedups of ours over the fastest cuSPARSE form and over Kokkos Kernels, and effective
    bandwidth as a fraction of the copy bandwidth."""
    head = ["structure", "class", "matrices", "ours_tuned / cuSPARSE", "ours_default / cuSPARSE",
            "ours_tuned / Kokkos Kernels", "ours_tuned % of copy", "cuSPARSE % of copy"]
    out = ["Geometric means over the matrices with results (\"k of n\" where some did not run); "
           "cuSPARSE is the fastest form per matrix; % of copy: compulsory bytes / time over the "
           "measured copy bandwidth."]
    for p in PRECISIONS:
        sel = [m for m in ms if m["precision"] == p]
        if not sel:
            continue
        rows = []
        for st in structures(sel):
            sm = [m for m in sel if structure(m) == st]
            groups = [(c, [m for m in sm if m["class"] == c]) for c in entry_classes(sel)]
            groups = [(c, cm) for c, cm in groups if cm]
            if len(groups) > 1:
                groups.append(("all", sm))
            for cls, cm in groups:
                def values(f):
                    return [v for v in (f(m) for m in cm) if v]
                rows.append([st, cls, str(len(cm)),
                             geomean_cell(values(lambda m: speedup(m, "ours_tuned")), len(cm)),
                             geomean_cell(values(lambda m: speedup(m, "ours_default")), len(cm)),
                             geomean_cell(values(lambda m: speedup(m, "ours_tuned", "kokkos_kernels")), len(cm)),
                             geomean_cell(values(lambda m: bw_fraction(m, "ours_tuned")), len(cm), True),
                             geomean_cell(values(lambda m: bw_fraction(m, "cusparse")), len(cm), True)])
        out += ["", f"**{p}**", "", md_table(head, rows)]
    return out


def irregular_family(ms):
    """The irregular matrices one by one, and the family's effective bandwidth against the
    copy bandwidth, per precision."""
    sel = [m for m in ms if structure(m) == "irregular"]
    if not sel:
        return ["No matrix of these runs has structure \"irregular\" (the structure comes from the zoo "
                "index; runs from before it have none)."]
    rows = []
    for m in sel:
        r = result(m, "cusparse")
        rows.append([m["name"], m["class"], m["precision"],
                     fmt_time(seconds(m, "ours_tuned")) if seconds(m, "ours_tuned") else failed(m, "ours_tuned"),
                     f"{r['variant']}: {fmt_time(seconds(m, 'cusparse'))}" if seconds(m, "cusparse")
                     else failed(m, "cusparse"),
                     fmt_speedup(m, "ours_tuned"), fmt_speedup(m, "ours_tuned", "kokkos_kernels"),
                     fmt_bandwidth(m, "ours_tuned"), fmt_bandwidth(m, "cusparse")])
    out = [md_table(["Matrix", "class", "precision", "ours_tuned", "fastest cuSPARSE form", "vs cuSPARSE",
                     "vs Kokkos Kernels", "ours_tuned bandwidth", "cuSPARSE bandwidth"], rows), ""]
    for p in PRECISIONS:
        pm = [m for m in sel if m["precision"] == p]
        if not pm:
            continue
        parts = []
        for k in ("ours_tuned", "cusparse", "kokkos_kernels"):
            pairs = [(m["name"], bw_fraction(m, k)) for m in pm if bw_fraction(m, k)]
            if pairs:
                worst = min(pairs, key=lambda nv: nv[1])
                parts.append(f"{LABELS[k] if k != 'ours_tuned' else 'ours_tuned'} geomean "
                             f"{geomean([v for _, v in pairs]):.0%} of copy bandwidth (min {worst[1]:.0%}, "
                             f"{worst[0]})" + ("" if len(pairs) == len(pm) else f" over {len(pairs)} of {len(pm)}"))
        out.append(f"- irregular, {p}, {len(pm)} matri{'x' if len(pm) == 1 else 'ces'}: " +
                   ("; ".join(parts) if parts else "no results"))
    return out


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


def analysis_file(files):
    """The README.md of the committed result set these runs belong to, if there is one: the first
    found beside a run file (perf_tests/results/h200/bench.json.gz is explained by
    perf_tests/results/h200/README.md). Only the run's own directory is looked in, so a run
    elsewhere names no unrelated README. None when there is none."""
    for f in files:
        candidate = os.path.join(os.path.dirname(os.path.abspath(f)), "README.md")
        if os.path.isfile(candidate):
            return os.path.relpath(candidate)
    return None


def targets(ms, analysis):
    """Targets of the project, computed for ours_tuned; no explanations here (`analysis`,
    the README.md beside the runs, where there is one)."""
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
    return out + (["", f"Analysis: see {analysis}"] if analysis else [])


def device_sections(device, ms, files, out_dir, suffix, level):
    """All tables and plots of one GPU (its runs read from `files`); `suffix` keeps file names
    apart when there are several."""
    h = "#" * level
    out, ms = [], ordered(ms)
    out += ["", f"{h} Speedup over the fastest cuSPARSE form — {device}", "",
            "cuSPARSE is timed in every form that applies to the matrix (next section); each ratio is "
            "against the fastest of them on that matrix, measured in the same run."]
    for p in PRECISIONS:
        sel = [m for m in ms if m["precision"] == p]
        if not sel:
            continue
        name = f"speedup_{p}{suffix}.png"
        notes, drawn = plot_speedup(sel, p, device, os.path.join(out_dir, name))
        out += ["", f"![speedup over cuSPARSE, {p}]({name})" if drawn else f"No speedups to plot for {p}."]
        if notes:
            out += ["", f"Left out of the {p} plot (failed): " + "; ".join(cell(n) for n in notes) + "."]
    out += ["", f"{h} cuSPARSE forms (bold: the fastest, the baseline; others: time over it) — {device}"]
    out += cusparse_forms_tables(ms)
    out += ["", f"{h} By structure — {device}", ""] + structure_tables(ms)
    for p in PRECISIONS:
        sel = [m for m in ms if m["precision"] == p]
        name = f"speedup_structure_{p}{suffix}.png"
        if sel and plot_structure(sel, p, device, os.path.join(out_dir, name)):
            out += ["", f"![speedup by structure, {p}]({name})"]
    out += ["", f"{h} Irregular family — {device}", ""] + irregular_family(ms)
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
    out += ["", f"{h} Targets — {device}", ""] + targets(ms, analysis_file(files))
    return out


def build_report(runs, paths, out_dir):
    by_device, files = {}, {}
    for run in runs:
        by_device.setdefault(run["device"]["name"], []).extend(run["matrices"])
        files.setdefault(run["device"]["name"], []).append(run["_file"])
    lines = header(runs, paths)
    for device, ms in by_device.items():
        if len(by_device) > 1:
            lines += ["", f"## {device}"]
        lines += device_sections(device, ms, files[device], out_dir, f"_{slug(device)}" if len(by_device) > 1 else "",
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
