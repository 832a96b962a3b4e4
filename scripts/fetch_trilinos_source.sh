#!/usr/bin/env bash
# Download Debian's trilinos 13.2.0 *source* package and extract only Kokkos and
# Kokkos Kernels (3.4.01) into a folder, leaving the system's apt configuration
# untouched: a temporary deb-src list is built from the URIs that are already
# configured in /etc/apt/sources.list.d/ and handed to apt with -o options.
#
# Usage: scripts/fetch_trilinos_source.sh [DEST]   (default: third_party_src)
# Result: DEST/kokkos, DEST/kokkos-kernels (pristine; fixes are applied by
#         scripts/build_kokkos_cuda.sh), DEST/trilinos_*.orig.tar.* kept for the
#         zoo (packages/anasazi/testmatrices/mhd1280b.cua is extracted too).
set -euo pipefail

dest=${1:-third_party_src}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Collect the Debian archive URIs the machine already uses (deb822 or one-line format).
uris=$( (grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}';
         grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}') |
        grep -E 'debian' | grep -v security | sort -u) || true
[ -n "$uris" ] || { echo "error: no Debian archive URI found in /etc/apt" >&2; exit 1; }

mkdir -p "$tmp/lists/partial"
: > "$tmp/sources.list"
for u in $uris; do
  echo "deb-src [trusted=yes] $u bookworm main" >> "$tmp/sources.list"
done
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=-"
      -o "Dir::State::Lists=$tmp/lists" -o "APT::Sandbox::User=root")

if ! ls "$dest"/trilinos_13.2.0*.orig.tar.* >/dev/null 2>&1; then
  apt-get "${opts[@]}" update -qq
  (cd "$dest" && apt-get "${opts[@]}" source --download-only -qq trilinos=13.2.0-4 ||
                 apt-get "${opts[@]}" source --download-only -qq trilinos)
fi
tarball=$(ls "$dest"/trilinos_13.2.0*.orig.tar.* | head -n 1)
echo "source tarball: $tarball"

top=$(set +o pipefail; tar -tf "$tarball" | head -n 1 | cut -d/ -f1)
rm -rf "$dest/kokkos" "$dest/kokkos-kernels"
tar -xf "$tarball" -C "$dest" "$top/packages/kokkos" "$top/packages/kokkos-kernels" \
    "$top/packages/anasazi/testmatrices/mhd1280b.cua"
mv "$dest/$top/packages/kokkos" "$dest/kokkos"
mv "$dest/$top/packages/kokkos-kernels" "$dest/kokkos-kernels"
mkdir -p "$dest/testmatrices"
mv "$dest/$top/packages/anasazi/testmatrices/mhd1280b.cua" "$dest/testmatrices/"
rm -rf "$dest/${top:?}"
echo "extracted: $dest/kokkos $dest/kokkos-kernels $dest/testmatrices/mhd1280b.cua"
