#!/usr/bin/env python3
"""The default variant set (COMPOUND_SPARSE_VARIANT_SET=default), derived from the shipped
databases: writes tuning/default_variant_set.cmake, or with --check compares it with what the
databases give now (ctest tuning.default_variant_set) and exits 1 with the difference.

    default_variant_set.py --variant-space BUILD/generated/compound_sparse/variant_space.json
                           [--out FILE | --check FILE] DB.json... [--prior prior.json]

A variant is named outer.inner.vector.kind.tN.bM (a key without its lanes, which are chosen
at run time). For each declared entry type the set holds
  1. databases: every variant that ran within 5% of a record's fastest at some number of
     vectors k (any device of the file), and each record's best: what selection chooses, and
     what it ranks next when a variant is not usable. Float records count for the mixed
     entry type of their class too: selection takes them where mixed has none;
  2. prior: in each region of the portable prior, the variants scored within 5% of its first;
  3. heuristic: on every outer layout, the default inner layout with either vector layout (a
     caller may fix it), the kinds static and dynamic_warp and every kind that splits rows
     (where it runs), at the launch bounds the heuristic takes in the default GPU build (128:4
     if compiled, else the pair nearest 512 threads per SM): the heuristic's choices and quick
     tuning's candidates without a database (tuned_spmv.hpp, selection.cpp);
and, of those, the variants whose SpMM is compiled too (an SpMM costs a unit more to compile
than its SpMV, and selection for k > 1 vectors considers only variants that have one):
  4. the variants of rule 1 at SpMM launch bounds that ran within 5% of a record's fastest at
     some k > 1: what selection chooses for k vectors;
  5. the SpMM's fallback: for every variant above and either multivector layout, its schedule
     with an SpMM at some SpMM launch bounds; where rule 4 gives none, the bounds nearest its
     own join the set. TunedSpmv runs it for a number of vectors no record decides (the
     nearest bounds that have an SpMM).
Every variant at the host build's launch bounds is compiled with its SpMM (the host test
suites run each variant through the registry; a GPU build compiles none of them). The rules
follow what selection reads: change them with it.
"""
import argparse
import difflib
import json
import math
import re
import sys
from collections import defaultdict

WITHIN = 1.05
NAME = re.compile(r"^([a-z0-9]+)\.([a-z0-9]+)\.([a-z0-9]+)\.([a-z_]+)\.t([0-9]+)\.b([0-9]+)(?:\.l[0-9]+)?$")


def pair_of(text):
    threads, teams = text.split(":")
    return int(threads), int(teams)


def compiled_name(variant):
    """The variant without its lanes; None for a name this space does not parse."""
    match = NAME.match(variant)
    if not match:
        return None
    return ".".join(match.groups()[:4]) + f".t{match.group(5)}.b{match.group(6)}"


def heuristic_bounds(pairs):
    """128:4 if listed, else the pair nearest 512 threads per SM, the first on a tie (selection.cpp)."""
    if (128, 4) in pairs:
        return (128, 4)
    best = None
    for p in pairs:
        if best is None or abs(math.log2(p[0] * p[1] / 512)) < abs(math.log2(best[0] * best[1] / 512)):
            best = p
    return best


def nearest(pairs, to):
    """The pair of `pairs` nearest `to` in threads per SM, the first on a tie (TunedSpmv's SpMM fallback)."""
    best = None
    for p in pairs:
        if best is None or abs(math.log2(p[0] * p[1] / (to[0] * to[1]))) < abs(
                math.log2(best[0] * best[1] / (to[0] * to[1]))):
            best = p
    return best


def load(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as e:
        raise SystemExit(f"default_variant_set.py: cannot read {path}: {e}") from None


def derive(space, databases, prior):
    """{entry type: sorted compiled names} and the bounds at which every variant is compiled."""
    entries = [e["name"] for e in space["entry_types"]]
    entry_of = {(e["class"], e["precision"]): e["name"] for e in space["entry_types"]}
    outer_names = space["outer_layout_names"]
    inner_names = space["inner_layout_names"]
    outer_of_type = dict(zip(space["outer_layout_types"], outer_names))
    kinds = {k["name"]: k for k in space["schedule_kind_details"]}
    defaults = space["defaults"]
    gpu = [pair_of(p) for p in defaults["launch_bounds_gpu"]]
    spmm = [pair_of(p) for p in defaults["spmm_launch_bounds_gpu"]]
    every_at = defaults["launch_bounds_host"]
    sets = defaultdict(set)
    spmm_sets = defaultdict(set)

    def add(entry_class, precision, name, to=sets):
        """A variant of (class, precision)'s entry type, and of its mixed one for float."""
        for p in [precision] + (["mixed"] if precision == "float" else []):
            entry = entry_of.get((entry_class, p))
            if entry is not None and name is not None:
                to[entry].add(name)

    for db in databases:  # rule 1
        table = db["variants"]
        lists = db["variant_lists"]
        for record in db["records"]:
            f = record["features"]
            if record.get("best"):
                add(f["entry_type"], f["precision"], compiled_name(record["best"]))
            for times in record["times"]:
                names = [table[i] for i in lists[times["variants"]]]
                fastest = min(times["ps"])
                for name, ps in zip(names, times["ps"]):
                    if ps <= WITHIN * fastest:
                        add(f["entry_type"], f["precision"], compiled_name(name))
                        if times["k"] > 1:  # rule 4
                            add(f["entry_type"], f["precision"], compiled_name(name), spmm_sets)
    if prior is not None:  # rule 2
        for region in prior["regions"]:
            if not region["variants"]:
                continue
            first = region["variants"][0][1]
            for name, score in region["variants"]:
                if score <= first + math.log(WITHIN):
                    add(region["entry_type"], region["precision"], compiled_name(name))

    bounds = heuristic_bounds(gpu)
    for entry in entries:  # rule 3
        for kind, details in kinds.items():
            runs_on = [outer_of_type[t] for t in details["outer_layout_types"]]
            if kind not in ("static", "dynamic_warp") and not details["splits_rows"]:
                continue
            for outer in outer_names:
                if outer not in runs_on:
                    continue
                for vector in inner_names:
                    sets[entry].add(f"{outer}.{inner_names[0]}.{vector}.{kind}.t{bounds[0]}.b{bounds[1]}")
    spmm_pairs = {f"t{t}.b{b}" for t, b in spmm}
    for entry in entries:
        # Rule 4 only where an SpMM is compiled at all.
        spmm_sets[entry] = {n for n in spmm_sets[entry] if ".".join(n.split(".")[4:6]) in spmm_pairs}
        covered = {".".join(n.split(".")[:4]) for n in spmm_sets[entry]}
        for name in sorted(sets[entry]):  # rule 5, in a fixed order
            outer, inner, _, kind, threads, teams = NAME.match(name).groups()
            to = nearest(spmm, (int(threads), int(teams)))
            for vector in inner_names:
                schedule = f"{outer}.{inner}.{vector}.{kind}"
                if schedule not in covered:
                    covered.add(schedule)
                    spmm_sets[entry].add(f"{schedule}.t{to[0]}.b{to[1]}")
        sets[entry] |= spmm_sets[entry]
    # Every variant at the host bounds is compiled anyway, with its SpMM: not listed.
    every = {f"t{t}.b{b}" for t, b in (pair_of(p) for p in every_at)}
    listed = {e: sorted(n for n in sets[e] if ".".join(n.split(".")[4:6]) not in every) for e in entries}
    listed_spmm = {e: sorted(n for n in spmm_sets[e] if ".".join(n.split(".")[4:6]) not in every) for e in entries}
    return listed, listed_spmm, every_at


def text_of(listed, listed_spmm, every_at, sources):
    lines = [
        "# Generated by tuning/default_variant_set.py from " + ", ".join(sources) + ": do not edit.",
        "# The default variant set (COMPOUND_SPARSE_VARIANT_SET=default, cmake/CompoundSparseVariants.cmake);",
        "# ctest tuning.default_variant_set regenerates it from those files and fails when it differs.",
        "# Every variant at these launch bounds, with its SpMM (the host build's: its tests run each through",
        "# the registry):",
        "set(COMPOUND_SPARSE_DEFAULT_SET_EVERY_VARIANT_AT \"" + ";".join(every_at) + "\")",
        "# and at other launch bounds, per entry type, these (outer.inner.vector.kind.tN.bM; the script",
        "# says why each is in the set), and of them those whose SpMM is compiled too (_SPMM):",
    ]
    for entry, names in listed.items():
        lines.append(f"set(COMPOUND_SPARSE_DEFAULT_SET_{entry}  # {len(names)} variants")
        lines += [f"    {n}" for n in names]
        lines.append(")")
        lines.append(f"set(COMPOUND_SPARSE_DEFAULT_SET_SPMM_{entry}  # {len(listed_spmm[entry])} variants")
        lines += [f"    {n}" for n in listed_spmm[entry]]
        lines.append(")")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant-space", required=True, help="variant_space.json of a configured build")
    parser.add_argument("--prior", help="the portable prior (tuning/prior.json)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--out", help="write the list here")
    action.add_argument("--check", help="compare the list here with what the databases give")
    parser.add_argument("databases", nargs="+", help="shipped databases (tuning/sm_90.json, ...)")
    args = parser.parse_args()
    space = load(args.variant_space)
    databases = []
    for path in args.databases:
        db = load(path)
        if db.get("schema_version") != 2:
            raise SystemExit(f"default_variant_set.py: {path} is not a shipped database (schema version 2)")
        databases.append(db)
    prior = load(args.prior) if args.prior else None
    listed, listed_spmm, every_at = derive(space, databases, prior)
    sources = [re.sub(r"^.*/tuning/", "tuning/", p) for p in args.databases + ([args.prior] if args.prior else [])]
    text = text_of(listed, listed_spmm, every_at, sources)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
        counts = ", ".join(f"{e} {len(n)} ({len(listed_spmm[e])} with SpMM)" for e, n in listed.items())
        print(f"default_variant_set.py: wrote {args.out}: {counts}")
        return 0
    try:
        with open(args.check, encoding="utf-8") as fh:
            committed = fh.read()
    except OSError as e:
        raise SystemExit(f"default_variant_set.py: cannot read {args.check}: {e.strerror}") from None
    if committed == text:
        print(f"default_variant_set.py: {args.check} is what the databases give")
        return 0
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), text.splitlines(True), args.check,
                                               "from the databases"))
    print(f"default_variant_set.py: {args.check} differs from what the databases give: regenerate it with --out")
    return 1


if __name__ == "__main__":
    sys.exit(main())
