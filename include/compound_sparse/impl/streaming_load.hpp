#pragma once
// Loads with cache hints, for kernels that read the matrix once and gather x.
//
// load_streaming: the matrix's columns and entries, "evict first" (__ldcs), so that
// the stream of non-zeros does not push x out of L2. On the H200, the segmented-sum
// lab kernel ran 10-31% faster with it on circuit-1m and rmat-s20 in complex float and
// double.
// load_readonly: x, through the read-only path (__ldg); a Kokkos View does not tell the
// compiler that nothing writes it during the kernel.
// Both are plain loads off CUDA devices. Values are read in 16-, 8- or 4-byte words as
// their size and alignment allow, so an AoS entry stays one or two wide loads.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../entries/components.hpp"
#include "../layouts/layout_tags.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// The cache hints, as loads of one word or scalar.
struct EvictFirst {
  template <class T>
  __device__ static T load(const T* p) {
    return __ldcs(p);
  }
};
struct ReadOnly {
  template <class T>
  __device__ static T load(const T* p) {
    return __ldg(p);
  }
};

/// *p read with Hint in words of type Word.
template <class Hint, class Word, class Value>
__device__ Value load_words(const Value* p) {
  static_assert(sizeof(Value) % sizeof(Word) == 0, "value size must be a multiple of the word size");
  Word words[sizeof(Value) / sizeof(Word)];
  const Word* w = reinterpret_cast<const Word*>(p);
  for (unsigned i = 0; i < sizeof(Value) / sizeof(Word); ++i) words[i] = Hint::load(w + i);
  Value value;
  memcpy(&value, words, sizeof(Value));  // registers, not memory, once compiled
  return value;
}

/// *p read with Hint in the widest words its size and alignment allow.
template <class Hint, class Value>
__device__ Value load_whole(const Value* p) {
  if constexpr (sizeof(Value) % 16 == 0 && alignof(Value) >= 16)
    return load_words<Hint, int4>(p);
  else if constexpr (sizeof(Value) % 8 == 0 && alignof(Value) >= 8)
    return load_words<Hint, int2>(p);
  else
    return load_words<Hint, int>(p);
}

/// The N values p[0], ..., p[N - 1], one run of bytes, read with Hint in words of type Word
/// (the caller knows p is aligned to it). One 16-byte word holds two complex<float> values,
/// where load_whole reads each in its own 8-byte word: a warp's load then touches a sector of
/// L1 per lane for two values instead of one.
template <class Hint, class Word, int N, class Value>
__device__ void load_run_words(const Value* p, Value (&values)[N]) {
  static_assert((N * sizeof(Value)) % sizeof(Word) == 0, "the run's size must be a multiple of the word size");
  constexpr int count = static_cast<int>(N * sizeof(Value) / sizeof(Word));
  Word words[count];
  const Word* w = reinterpret_cast<const Word*>(p);
#pragma unroll
  for (int i = 0; i < count; ++i) words[i] = Hint::load(w + i);
  memcpy(values, words, sizeof(words));  // registers, not memory, once compiled
}

/// Element i of a [value][component] view, read with Hint: an AoS value in the
/// widest words its size and alignment allow, an SoA value by component.
template <class Hint, class Value, class Inner, class View>
__device__ Value load_with(const View& view, int i) {
  if constexpr (std::is_same<Inner, Aos>::value) {
    return load_whole<Hint>(reinterpret_cast<const Value*>(view.data()) + i);
  } else {
    using traits = component_traits<Value>;
    Value v;
    for (int c = 0; c < traits::size; ++c) traits::get(v, c) = Hint::load(&view(i, c));
    return v;
  }
}
#endif

/// Element i of a [value][component] view, read once: evict first on CUDA.
template <class Value, class Inner, class View>
KOKKOS_INLINE_FUNCTION Value load_streaming(const View& view, int i) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return load_with<EvictFirst, Value, Inner>(view, i);
#else
  return load_value<Value, Inner>(view, i);
#endif
}

/// Column index k, read once: evict first on CUDA.
template <class View>
KOKKOS_INLINE_FUNCTION int load_index_streaming(const View& view, int k) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return EvictFirst::load(view.data() + k);
#else
  return view(k);
#endif
}

/// Element i of a [value][component] view that nothing writes during the kernel.
template <class Value, class Inner, class View>
KOKKOS_INLINE_FUNCTION Value load_readonly(const View& view, int i) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return load_with<ReadOnly, Value, Inner>(view, i);
#else
  return load_value<Value, Inner>(view, i);
#endif
}

/// *p, a whole value (components together) that nothing writes during the kernel.
template <class Value>
KOKKOS_INLINE_FUNCTION Value load_readonly_at(const Value* p) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return load_whole<ReadOnly>(p);
#else
  return *p;
#endif
}

/// Whether a run of N values of Value can be read in words of Word bytes wider than one
/// value's: its size a multiple of the word (where it is aligned to one).
/// (A variable, not a function: device code reads it, and a constexpr function would need
/// nvcc's --expt-relaxed-constexpr.)
template <int N, class Value, std::size_t Word>
constexpr bool run_fits_words = sizeof(Value) < Word && (N * sizeof(Value)) % Word == 0;

/// The widest word (16 or 8 bytes; 0: none wider than load_whole's) in which runs of N values
/// of Value at p + i * stride (i = 0, 1, ...; each run starting N values after the last) can be
/// read: the run's size, the stride's bytes and p's address all multiples of it.
template <int N, class Value>
int run_word_bytes(const Value* p, std::ptrdiff_t stride) {
  const auto aligned = [&](std::size_t word) {
    return (static_cast<std::size_t>(stride) * sizeof(Value)) % word == 0 &&
           reinterpret_cast<std::uintptr_t>(p) % word == 0;
  };
  return run_fits_words<N, Value, 16> && aligned(16) ? 16 : run_fits_words<N, Value, 8> && aligned(8) ? 8 : 0;
}

}  // namespace impl
}  // namespace compound_sparse
