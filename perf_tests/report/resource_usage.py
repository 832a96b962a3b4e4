#!/usr/bin/env python3
"""Registers and stack per SpMV kernel, by entry type and launch bounds, from
`cuobjdump -res-usage` of a CUDA build's libcompound_sparse.a: after a campaign's build
(scripts/campaign.sh, whose build record is WORK/build_time.txt; docs/campaigns.md,
"Profiling and build cost"), `cuobjdump -res-usage BUILD_DIR/libcompound_sparse.a | gzip >
resource_usage.txt.gz`.

    resource_usage.py FILE[.gz] [--variant-space variant_space.json]

The entry types (and their mangled names) come from the variant space (variant_space.py).

The SpMV kernels are the plain row kernels (impl::row_kernel), which CUDA runs, where the
listing has them; else, for builds that launched them through Kokkos, Kokkos' kernels.
One Markdown row per entry type and launch-bounds pair n_t:n_b: the number of kernels,
registers per thread (min / median / max) and how many kernels have a stack frame
(with the largest). A bound of n_t * n_b threads per SM leaves 65536 / (n_t * n_b)
registers per thread; nvcc keeps to it by spilling to the stack (local memory) when the
kernel wants more, which is what a stack frame appearing only under tighter bounds
shows.
"""
import collections
import gzip
import pathlib
import re
import statistics
import sys

import variant_space  # the entry types, from cmake/CompoundSparseVariantSpace.cmake

FUNCTION = re.compile(r"^\s*Function (\S+):\s*$")
BOUNDS = re.compile(r"LaunchBoundsILj(\d+)ELj(\d+)E")
# The plain kernel CUDA runs for the row schedules (impl::row_kernel<Functor, Threads, MinBlocks>,
# impl/spmv_functor.hpp): its bounds close the name. The Kokkos-launched copies of the same
# functor (LaunchBounds above) are still compiled (team-size queries) but not run there.
PLAIN_BOUNDS = re.compile(r"row_kernelI.*ELj(\d+)ELj(\d+)EEEvT_$")
USAGE = re.compile(r"REG:(\d+) STACK:(\d+)")


def entry_type(mangled, entry_types):
    for token, name in entry_types:
        if re.search(token, mangled):
            return name
    return None


def read(path):
    path = pathlib.Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def collect(lines, entry_types):
    """{(entry type, "n_t:n_b"): [(registers, stack bytes)]} over the SpMV kernels: the plain
    row kernels where the listing has any (the kernels CUDA runs since they replaced Kokkos'
    launch), else the Kokkos-launched ones (listings of older builds)."""
    found = {"plain": collections.defaultdict(list), "kokkos": collections.defaultdict(list)}
    for i, line in enumerate(lines):
        function = FUNCTION.match(line)
        if not function or "SpmvFunctor" not in function.group(1) or i + 1 >= len(lines):
            continue
        name = function.group(1)
        plain = PLAIN_BOUNDS.search(name)
        bounds = plain or BOUNDS.search(name)
        entry = entry_type(name, entry_types)
        usage = USAGE.search(lines[i + 1])
        if bounds and entry and usage:
            found["plain" if plain else "kokkos"][(entry, f"{bounds.group(1)}:{bounds.group(2)}")].append(
                (int(usage.group(1)), int(usage.group(2))))
    return found["plain"] or found["kokkos"]


def bounds_order(pair):
    threads, teams = map(int, pair.split(":"))
    return threads * teams, threads


def markdown(kernels, entry_types):
    out = ["| entry type | bounds n_t:n_b | threads/SM | register cap | kernels | registers min / median / max "
           "| with a stack frame (largest) |",
           "|---|---|---|---|---|---|---|"]
    entries = sorted({e for e, _ in kernels}, key=lambda e: [n for _, n in entry_types].index(e))
    for entry in entries:
        for pair in sorted((p for e, p in kernels if e == entry), key=bounds_order):
            usage = kernels[(entry, pair)]
            regs = [r for r, _ in usage]
            stacks = [s for _, s in usage if s > 0]
            per_sm = bounds_order(pair)[0]
            cap = min(255, 65536 // per_sm)
            framed = f"{len(stacks)} ({max(stacks)} B)" if stacks else "0"
            out.append(f"| {entry} | {pair} | {per_sm} | {cap} | {len(usage)} | {min(regs)} / "
                       f"{statistics.median(regs):g} / {max(regs)} | {framed} |")
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--variant-space"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    entry_types = variant_space.mangled_entry_tokens(variant_space.load(argv[3] if len(argv) == 4 else None))
    try:
        kernels = collect(read(argv[1]), entry_types)
    except OSError as e:
        print(f"resource_usage: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 1
    if not kernels:
        print(f"resource_usage: {argv[1]}: no SpMV kernel with launch bounds (not cuobjdump -res-usage output?)",
              file=sys.stderr)
        return 1
    print(markdown(kernels, entry_types))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
