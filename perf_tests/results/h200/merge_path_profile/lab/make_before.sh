#!/usr/bin/env bash
# Writes .carry/prof/before/merge_path_before.hpp: pass 1 of the merge path at 74b42ef in a
# namespace of its own (impl_before), so that the lab can time it beside the working tree's.
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
mkdir -p .carry/prof/before
git show 74b42ef:include/compound_sparse/impl/merge_path.hpp | python3 -c "
import sys
s = sys.stdin.read()
body = s[s.index('/// Pass 1: each team stages'):s.index('/// Pass 2:')]
print('// The merge-path pass 1 of commit 74b42ef (before the short-row tiles), for the lab.\n#pragma once\n'
      '#include <compound_sparse.hpp>\nnamespace compound_sparse {\nnamespace impl_before {\nusing namespace impl;\n'
      + body + '}  // namespace impl_before\n}  // namespace compound_sparse')
" > .carry/prof/before/merge_path_before.hpp
