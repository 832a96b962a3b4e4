#!/usr/bin/env bash
# Build and install Kokkos 3.4.01 + Kokkos Kernels 3.4.01 with the CUDA backend,
# offline, from the pristine sources extracted by scripts/fetch_trilinos_source.sh.
# 3.4.01 predates CUDA 12/13 and Hopper, so the sources are copied into the build
# dir and the copy is patched; the pristine folders are never modified.
#
# Usage: scripts/build_kokkos_cuda.sh --arch sm_90|sm_80 --src third_party_src
#          --prefix <install dir> [--build-dir <dir>] [--jobs N] [--no-kernels] [--kernels-eti minimal|none]
set -euo pipefail

die()  { echo "error: $*" >&2; exit 1; }
warn() { echo "WARNING: $*" >&2; }
usage() { sed -n '7,8p' "$0" | sed 's/^# //'; exit "${1:-1}"; }

arch='' src='' prefix='' build=build-kokkos-cuda jobs=$(nproc) kernels=1 kk_eti=minimal
while [ $# -gt 0 ]; do
  case $1 in --arch|--src|--prefix|--build-dir|--jobs|--kernels-eti) [ $# -ge 2 ] || die "$1 needs a value" ;; esac
  case $1 in
    --arch) arch=${2:-}; shift 2 ;;
    --src) src=${2:-}; shift 2 ;;
    --prefix) prefix=${2:-}; shift 2 ;;
    --build-dir) build=${2:-}; shift 2 ;;
    --jobs) jobs=${2:-}; shift 2 ;;
    --no-kernels) kernels=0; shift ;;
    --kernels-eti) kk_eti=${2:-}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$arch" ] && [ -n "$src" ] && [ -n "$prefix" ] || { echo "error: --arch, --src and --prefix are required" >&2; usage; }
case $arch in
  sm_90) karch=HOPPER90 ;;  # HOPPER90 is added by the patch below
  sm_80) karch=AMPERE80 ;;
  *) die "unknown arch '$arch' (supported: sm_90, sm_80)" ;;
esac
# Kokkos Kernels' source is needed only when it is built (not with --no-kernels).
sources=kokkos
[ "$kernels" = 1 ] && sources="kokkos kokkos-kernels"
for d in $sources; do
  [ -f "$src/$d/CMakeLists.txt" ] || die "missing source dir $src/$d (run scripts/fetch_trilinos_source.sh first)"
done
# nvcc: from PATH, else the usual location; nvcc_wrapper needs it too.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || die "no nvcc found (not in PATH, not at /usr/local/cuda/bin/nvcc)"
export CUDA_ROOT=${CUDA_ROOT:-$(dirname "$(dirname "$nvcc")")} PATH="$(dirname "$nvcc"):$PATH"
for t in cmake ninja perl; do command -v $t >/dev/null || die "$t not found"; done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive integer"
case $kk_eti in minimal|none) ;; *) die "--kernels-eti is minimal or none, not '$kk_eti'" ;; esac

src=$(cd "$src" && pwd)
mkdir -p "$build" "$prefix"
build=$(cd "$build" && pwd); prefix=$(cd "$prefix" && pwd)
work=$build/$arch   # per arch: the nvcc_wrapper patch bakes the arch into the copy
stamp=$prefix/.build_kokkos_cuda.stamp

finish() {
  echo
  echo "Kokkos$( [ "$kernels" = 1 ] && echo ' + Kokkos Kernels') ($arch) installed in: $prefix"
  [ -f "$stamp" ] && sed 's/^/  /' "$stamp"
  echo "Use it with:"
  echo "  cmake -G Ninja -DKokkos_ROOT=$prefix$( [ "$kernels" = 1 ] && echo " -DKokkosKernels_ROOT=$prefix") \\"
  echo "        -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF <src>"
  exit 0
}

# Idempotence: a finished install records what it holds in the stamp file.
if [ -f "$stamp" ]; then
  grep -qx "arch=$arch" "$stamp" || die "$prefix already holds a build for another arch ($(grep ^arch= "$stamp")); use another --prefix"
  if [ "$kernels" = 0 ] || grep -q '^kokkoskernels=' "$stamp"; then echo "already installed, skipping build"; finish; fi
fi

# ---- copy the pristine sources (atomically, so an interrupted copy is redone) ----
mkdir -p "$work/src"
for d in $sources; do
  [ -d "$work/src/$d" ] && continue
  rm -rf "$work/src/$d.tmp"; cp -a "$src/$d" "$work/src/$d.tmp"; mv "$work/src/$d.tmp" "$work/src/$d"
done
K=$work/src/kokkos KK=$work/src/kokkos-kernels

# subst FILE OLD NEW: replace every literal OLD by NEW in FILE (a file of the copy);
# OLD must be there, else fail loudly (not the expected source). Patches are applied
# to FILE.patched, started afresh from the pristine file on every run, and
# commit_patches moves it over FILE only if it differs: re-runs are idempotent and
# leave mtimes alone (no needless rebuilds), even after the patches were edited.
declare -A touched=()
subst() {
  [ -n "${touched[$1]:-}" ] || { cp "$src/${1#"$work/src/"}" "$1.patched"; touched[$1]=1; }
  OLD=$2 NEW=$3 perl -e '
    my $f = shift; open(my $h, "<", $f) or die "error: cannot read $f\n";
    local $/; my $t = <$h>; close $h;
    index($t, $ENV{OLD}) >= 0 or die "error: patch pattern not found in $f:\n$ENV{OLD}\n";
    $t =~ s/\Q$ENV{OLD}\E/$ENV{NEW}/g;
    open($h, ">", $f) or die; print $h $t; close $h;' "$1.patched"
}
commit_patches() {
  local f; for f in "${!touched[@]}"; do
    if cmp -s "$f.patched" "$f"; then rm "$f.patched"; else mv "$f.patched" "$f"; fi
  done; touched=()
}
# timed CMD...: run CMD, report its wall time, keep its exit status
timed() { local t0=$SECONDS rc=0; "$@" || rc=$?; echo "   [$(( SECONDS - t0 )) s] ${*:3:3} ..."; return $rc; }
# logged LOG CMD...: append CMD's output to LOG; on failure show the first errors
logged() {
  local log=$1; shift; echo "   $* >> $log" | cut -c1-150
  "$@" >> "$log" 2>&1 && return 0
  grep -m 8 -A 12 -E 'error:|CMake Error|FAILED:' "$log" | head -n 80 >&2; echo "   (full log: $log)" >&2; return 1
}

echo "== patching sources in $work/src"
# 1. cast_from_half (CUDA >= 11.1 branch): CUDA 13's __half2* intrinsics no longer
#    accept half_t implicitly, so convert explicitly; there is no __half2double (go
#    through float); the bool overloads were declared but never defined (nvcc #821).
H=$K/core/src/Cuda/Kokkos_Cuda_Half.hpp
for f in float short_rz ushort_rz int_rz uint_rz ll_rz ull_rz; do
  subst "$H" "return __half2$f(val);" "return __half2$f(__half(val));"
done
subst "$H" 'return __half2double(val);' 'return static_cast<T>(__half2float(__half(val)));'
subst "$H" '#else  // CUDA 11.1 versions follow
' '#else  // CUDA 11.1 versions follow

KOKKOS_INLINE_FUNCTION
half_t cast_to_half(bool val) { return cast_to_half(static_cast<float>(val)); }
template <class T>
KOKKOS_INLINE_FUNCTION std::enable_if_t<std::is_same<T, bool>::value, T>
cast_from_half(half_t val) {
  return static_cast<T>(cast_from_half<float>(val));
}
'
# 2. CUDA 13: cudaMemPrefetchAsync takes a cudaMemLocation and a flags argument.
subst "$K/core/src/Cuda/Kokkos_CudaSpace.cpp" \
'    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));' \
'#if CUDART_VERSION >= 13000
    cudaMemLocation loc = {};
    loc.type = cudaMemLocationTypeDevice;
    loc.id   = space.cuda_device();
    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, loc, 0, space.cuda_stream()));
#else
    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));
#endif'
# 3. Hopper: Kokkos aborts when the kernels' CC differs in major version from the
#    device, so sm_90 needs its own arch option (3.4.01 stops at AMPERE86).
subst "$K/cmake/kokkos_arch.cmake" \
  'KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")' \
  'KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")
KOKKOS_ARCH_OPTION(HOPPER90        GPU  "NVIDIA Hopper generation CC 9.0")'
subst "$K/cmake/kokkos_arch.cmake" 'CHECK_CUDA_ARCH(AMPERE86  sm_86)' \
  'CHECK_CUDA_ARCH(AMPERE86  sm_86)
CHECK_CUDA_ARCH(HOPPER90  sm_90)'
subst "$K/cmake/kokkos_arch.cmake" '    SET(KOKKOS_ARCH_AMPERE ON)
  ENDIF()' '    SET(KOKKOS_ARCH_AMPERE ON)
  ENDIF()
  IF (KOKKOS_ARCH_HOPPER90)
    SET(KOKKOS_ARCH_HOPPER ON)
  ENDIF()'
subst "$K/cmake/KokkosCore_config.h.in" '#cmakedefine KOKKOS_ARCH_AMPERE86' \
  '#cmakedefine KOKKOS_ARCH_AMPERE86
#cmakedefine KOKKOS_ARCH_HOPPER
#cmakedefine KOKKOS_ARCH_HOPPER90'
subst "$K/cmake/compile_tests/cuda_compute_capability.cc" \
  '    case 86: std::cout << "Set -DKokkos_ARCH_AMPERE86=ON ." << std::endl; break;' \
  '    case 86: std::cout << "Set -DKokkos_ARCH_AMPERE86=ON ." << std::endl; break;
    case 90: std::cout << "Set -DKokkos_ARCH_HOPPER90=ON ." << std::endl; break;'
# 4. nvcc_wrapper defaults to sm_35, which CUDA 13 rejects; default to the requested
#    arch (overridable by NVCC_WRAPPER_DEFAULT_ARCH) and find nvcc without PATH.
subst "$K/bin/nvcc_wrapper" 'default_arch="sm_35"' "default_arch=\${NVCC_WRAPPER_DEFAULT_ARCH:-\"$arch\"}"
subst "$K/bin/nvcc_wrapper" 'nvcc_compiler=nvcc
' "nvcc_compiler=\$(command -v nvcc || echo $nvcc)
"
# 5. Kokkos copies CUDA::cudart/cuda_driver into KokkosConfig.cmake property by
#    property; with recent CMake (4.x on the GPU machine) + CUDA 13 that breaks
#    consumers (include dirs list "include;include/cccl" joined by a newline, missing
#    CUDA::cudart_static_deps). Have consumers run find_dependency(CUDAToolkit).
subst "$K/cmake/Modules/FindTPLCUDA.cmake" '  KOKKOS_EXPORT_IMPORTED_TPL(CUDA::cudart)' \
  '  KOKKOS_APPEND_CONFIG_LINE("FIND_DEPENDENCY(CUDAToolkit)")'
subst "$K/cmake/Modules/FindTPLCUDA.cmake" '  KOKKOS_EXPORT_IMPORTED_TPL(CUDA::cuda_driver)' \
  '  # CUDA::cuda_driver: exported by FIND_DEPENDENCY(CUDAToolkit)'
commit_patches

# ---- Kokkos core ----
# Kokkos exports CXX_EXTENSIONS=OFF and warns in consumers that do not set it.
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
        -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_COMPILER="$K/bin/nvcc_wrapper")
if ! grep -qx "kokkos=ok" "$stamp" 2>/dev/null; then
  echo "== Kokkos: configure + build ($karch, $jobs jobs)"
  timed logged "$work/kokkos.log" cmake -S "$K" -B "$work/kokkos-build" "${common[@]}" \
    -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON \
    -DKokkos_ARCH_$karch=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF || die "Kokkos configure failed"
  timed logged "$work/kokkos.log" cmake --build "$work/kokkos-build" --target install -j "$jobs" \
    || die "Kokkos build failed"
  printf 'arch=%s\nkokkos=ok\n' "$arch" > "$stamp"
fi
[ "$kernels" = 1 ] || finish

# ---- Kokkos Kernels ----
echo "== patching Kokkos Kernels sources"
# cuSPARSE 12 removed the pre-11 SpMV algorithm enum names.
S=$KK/src/impl/tpls/KokkosSparse_spmv_tpl_spec_decl.hpp
subst "$S" 'CUSPARSE_MV_ALG_DEFAULT' 'CUSPARSE_SPMV_ALG_DEFAULT'
subst "$S" 'CUSPARSE_CSRMV_ALG2' 'CUSPARSE_SPMV_CSR_ALG2'
# cuSPARSE 12 removed csrsv2 (used by the optional cuSPARSE sptrsv backend, whose
# handle is part of every KokkosKernels handle): compile that backend out; asking
# for it then throws "CUSPARSE IS NOT DEFINED" at run time. SpMV keeps cuSPARSE.
# Classical two-stage Gauss-Seidel picks that backend by default: use KK's own.
subst "$KK/src/common/KokkosKernels_Handle.hpp" '      #if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE)' \
  '      #if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE) && !defined(KK_NO_CUSPARSE_SPTRSV)'
for f in "$KK/src/sparse/KokkosSparse_sptrsv_handle.hpp" "$KK/src/sparse/impl/KokkosSparse_sptrsv_cuSPARSE_impl.hpp"; do
  subst "$f" '#ifdef KOKKOSKERNELS_ENABLE_TPL_CUSPARSE' \
    '#if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE) && !defined(KK_NO_CUSPARSE_SPTRSV)'
  subst "$f" '#include "cusparse.h"
' '#include "cusparse.h"
#if CUSPARSE_VERSION >= 12000
#define KK_NO_CUSPARSE_SPTRSV
#endif
'
done
commit_patches

# Minimal ETI (build time): {double,float,complex<double>,complex<float>} x ordinal int
# x offset {int,size_t} x LayoutLeft x <Cuda,CudaSpace>; no Serial/HostSpace/UVM.
kk=KokkosKernels
eti=(-D${kk}_INST_EXECSPACE_CUDA=ON -D${kk}_INST_MEMSPACE_CUDASPACE=ON -D${kk}_INST_MEMSPACE_CUDAUVMSPACE=OFF
     -D${kk}_INST_EXECSPACE_SERIAL=OFF -D${kk}_INST_MEMSPACE_HOSTSPACE=OFF -D${kk}_INST_DOUBLE=ON
     -D${kk}_INST_FLOAT=ON -D${kk}_INST_COMPLEX_DOUBLE=ON -D${kk}_INST_COMPLEX_FLOAT=ON
     -D${kk}_INST_LAYOUTLEFT=ON -D${kk}_INST_LAYOUTRIGHT=OFF -D${kk}_INST_ORDINAL_INT=ON
     -D${kk}_INST_ORDINAL_INT64_T=OFF -D${kk}_INST_OFFSET_INT=ON -D${kk}_INST_OFFSET_SIZE_T=ON)
# --kernels-eti none: no pre-instantiated types at all (about 10 s instead of about
# 5 minutes on 16 cores). Enough for code that instantiates what it uses itself, as
# compound-bench does: its unsigned offset type has no ETI anyway.
if [ "$kk_eti" = none ]; then
  eti=()
  for t in DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT LAYOUTLEFT LAYOUTRIGHT ORDINAL_INT ORDINAL_INT64_T OFFSET_INT \
    OFFSET_SIZE_T; do eti+=(-D${kk}_INST_$t=OFF); done
fi
kk_build() {  # $1: ON|OFF = cuSPARSE TPL. CMP0146=OLD: KK's cuBLAS/cuSPARSE finders use FindCUDA.
  local b=$work/kk-build-cusparse-$1 log=$work/kokkoskernels-cusparse-$1.log
  rm -f "$log"
  timed logged "$log" cmake -S "$KK" -B "$b" "${common[@]}" "${eti[@]}" -DKokkos_ROOT="$prefix" \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_ROOT" \
    -DCMAKE_POLICY_DEFAULT_CMP0146=OLD -D${kk}_ENABLE_TPL_CUSPARSE=$1 -D${kk}_ENABLE_TPL_CUBLAS=ON \
    -D${kk}_ENABLE_TESTS=OFF -D${kk}_ENABLE_EXAMPLES=OFF || return 1
  timed logged "$log" cmake --build "$b" --target install -j "$jobs"
}
echo "== Kokkos Kernels: configure + build ($jobs jobs)"
if kk_build ON; then cusparse=ON
else
  warn "Kokkos Kernels with the cuSPARSE TPL failed to build; retrying with the TPL off"
  kk_build OFF || die "Kokkos Kernels build failed"
  cusparse=OFF
fi
echo "kokkoskernels=ok cusparse=$cusparse eti=$kk_eti" >> "$stamp"
finish
