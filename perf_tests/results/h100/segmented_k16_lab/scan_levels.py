#!/usr/bin/env python3
"""How many levels of the segmented sum's scan a matrix's tiles run (c0e9a4e's SpMV).

    scan_levels.py MATRIX.mtx [...]

A tile is 64 consecutive non-zeros in two steps of 32 lanes (impl/segmented_sum.hpp). Its reach
is the longest run of lanes from a row's first lane in a step (lane 0 where the row began in an
earlier step) to a lane of the same row, over both steps; its scan runs the levels
d = 1, 2, 4, 8, 16 with d <= reach (segmented_scan_reach): five where the reach is 16 or more.
The last tile's lanes past the last non-zero count as one more row, as in the kernel.
Prints the share of tiles by levels and their mean. Reads the row indices of a Matrix Market
coordinate file (first column), in any order.
"""
import sys

import numpy as np

TILE, STEP = 64, 32


def levels_per_tile(row_lengths):
    """The scan levels of each tile of a CSR matrix with these row lengths (empty rows allowed)."""
    lengths = np.asarray(row_lengths, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    nnz = int(offsets[-1])
    if nnz == 0:
        return np.zeros(0, dtype=np.int64)
    tiles = (nnz + TILE - 1) // TILE
    # The last tile's lanes past the end scan too, as a row begun at non-zero nnz (the kernel's
    # head bitmap sets bit nnz): they count in its reach, as on the GPU.
    position = np.arange(tiles * TILE)
    head = np.zeros(tiles * TILE + 1, dtype=bool)
    head[offsets[:-1][lengths > 0]] = True
    head[nnz] = True
    row_first = np.maximum.accumulate(np.where(head[:-1], position, 0))  # each lane's row's first
    run = position - np.maximum(row_first, (position // STEP) * STEP)
    reach = run.reshape(tiles, TILE).max(axis=1)
    return sum((reach >= d).astype(np.int64) for d in (1, 2, 4, 8, 16))


def row_lengths_of(path):
    """Row lengths of a Matrix Market coordinate file."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("%"):
                break  # the size line
        for line in f:
            rows.append(int(line.split(None, 1)[0]) - 1)
    return np.bincount(np.asarray(rows, dtype=np.int64))


def summary(name, levels):
    """The lines printed for one matrix."""
    out = [f"{name}: {len(levels)} tiles, mean {levels.mean():.2f} levels of 5"]
    for count in range(6):
        share = np.mean(levels == count) * 100
        if share > 0:
            out.append(f"  {count} levels: {share:5.1f}% of tiles")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        print("\n".join(summary(path.rsplit("/", 1)[-1], levels_per_tile(row_lengths_of(path)))))
