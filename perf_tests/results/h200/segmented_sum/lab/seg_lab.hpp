// Segmented-sum lab (not part of the library): CSR SpMV split by non-zeros only,
// one warp per tile of 32 x K consecutive non-zeros, rows found from a bitmap of
// row heads (bit k set when non-zero k starts a row), row sums by a warp
// segmented scan in registers (no scratch, no search, no barrier). Rows that
// span tiles leave partial sums in fixed slots (2t: the tile's first segment when
// its head is in an earlier tile; 2t + 1: its last segment when its tail is in a
// later tile) and a second pass adds them in tile order. Deterministic.
#pragma once
#include <cuda_runtime.h>

#include <vector>

template <class T>
struct Pair;
template <>
struct Pair<double> {
  using type = double2;
};
template <>
struct Pair<float> {
  using type = float2;
};

template <class V>
__device__ __forceinline__ V cmul(V a, V b) {
  V r;
  r.x = a.x * b.x - a.y * b.y;
  r.y = a.x * b.y + a.y * b.x;
  return r;
}

// Pass 1. K steps per warp, loaded P steps at a time.
template <class T, int K, int P, int Threads, int MinBlocks, bool Stream>
__global__ void __launch_bounds__(Threads, MinBlocks)
    seg_pass1(int num_entries, int tiles, const int* __restrict__ cols, const typename Pair<T>::type* __restrict__ vals,
              const typename Pair<T>::type* __restrict__ x, typename Pair<T>::type* __restrict__ y,
              const unsigned* __restrict__ heads, const int* __restrict__ heads_before,
              const int* __restrict__ nonempty, typename Pair<T>::type* __restrict__ slots) {
  using V = typename Pair<T>::type;
  static_assert(K % P == 0, "");
  const int lane = threadIdx.x & 31;
  const int tile = blockIdx.x * (Threads / 32) + threadIdx.x / 32;
  if (tile >= tiles) return;
  const int k0 = tile * 32 * K;
  const int w0 = tile * K;
  const unsigned below = (2u << lane) - 1u;  // bits 0..lane
  int seg = heads_before[tile] - 1;          // ordinal of the last segment begun before this step
  bool head_seen = false;
  V carry = {0, 0};
  bool last_tail = true;
  V last = {0, 0};
#pragma unroll
  for (int jb = 0; jb < K; jb += P) {
    V p[P];
    unsigned f[P + 1];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const int k = k0 + 32 * (jb + u) + lane;
      p[u] = V{0, 0};
      if (k < num_entries) {
        if constexpr (Stream)  // evict-first: the matrix is read once, x should stay in L2
          p[u] = cmul(__ldcs(vals + k), __ldg(x + __ldcs(cols + k)));
        else
          p[u] = cmul(vals[k], __ldg(x + cols[k]));
      }
    }
#pragma unroll
    for (int u = 0; u <= P; ++u) f[u] = heads[w0 + jb + u];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const int k = k0 + 32 * (jb + u) + lane;
      const unsigned m = f[u] & below;
      const int sh = m ? 31 - __clz(m) : -1;  // this lane's segment head in the step, -1: before it
      V v = p[u];
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const T ux = __shfl_up_sync(0xffffffffu, v.x, d);
        const T uy = __shfl_up_sync(0xffffffffu, v.y, d);
        if (lane >= d && sh <= lane - d) {
          v.x += ux;
          v.y += uy;
        }
      }
      if (sh < 0) {
        v.x += carry.x;
        v.y += carry.y;
      }
      const bool tail = lane < 31 ? ((f[u] >> (lane + 1)) & 1u) : (f[u + 1] & 1u);
      if (tail && k < num_entries) {
        if (head_seen || sh >= 0)
          y[nonempty ? nonempty[seg + __popc(m)] : seg + __popc(m)] = v;
        else
          slots[2 * tile] = v;  // the tile's first segment, begun in an earlier tile
      }
      carry.x = __shfl_sync(0xffffffffu, v.x, 31);
      carry.y = __shfl_sync(0xffffffffu, v.y, 31);
      seg += __popc(f[u]);
      head_seen = head_seen || f[u] != 0;
      if (jb + u == K - 1) {
        last_tail = tail || k >= num_entries;
        last = v;
      }
    }
  }
  if (lane == 31 && !last_tail) slots[2 * tile + (head_seen ? 1 : 0)] = last;
}

// Pass 2: rows split across tiles t1 < t2 add slot 2 t1 + 1 and slots 2t, t1 < t <= t2,
// in that order; empty rows get 0 (beta = 0 in the lab). Blocks [0, short_blocks): a thread
// per short split row, then empty rows; the rest: a warp per long split row (each lane adds
// every 32nd slot in order, then a butterfly: the same bits on every run).
template <class T>
__global__ void seg_pass2(int short_count, int long_count, int short_blocks, const int* __restrict__ split_row,
                          const int* __restrict__ split_t1, const int* __restrict__ split_t2,
                          const typename Pair<T>::type* __restrict__ slots, typename Pair<T>::type* __restrict__ y,
                          int empty_count, const int* __restrict__ empty) {
  using V = typename Pair<T>::type;
  if (static_cast<int>(blockIdx.x) < short_blocks) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < short_count) {
      const int t1 = split_t1[i], t2 = split_t2[i];
      V s = slots[2 * t1 + 1];
      int t = t1 + 1;
      for (; t + 3 <= t2; t += 4) {
        const V a = slots[2 * t], b = slots[2 * t + 2], c = slots[2 * t + 4], d = slots[2 * t + 6];
        s.x += a.x;
        s.y += a.y;
        s.x += b.x;
        s.y += b.y;
        s.x += c.x;
        s.y += c.y;
        s.x += d.x;
        s.y += d.y;
      }
      for (; t <= t2; ++t) {
        s.x += slots[2 * t].x;
        s.y += slots[2 * t].y;
      }
      y[split_row[i]] = s;
    } else if (i - short_count < empty_count) {
      y[empty[i - short_count]] = V{0, 0};
    }
    return;
  }
  const int w = ((blockIdx.x - short_blocks) * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (w >= long_count) return;
  const int i = short_count + w;
  const int t1 = split_t1[i], t2 = split_t2[i];
  V s = {0, 0};
  // Item 0 is slot 2 t1 + 1, item q > 0 slot 2 (t1 + q).
  for (int q = lane; q <= t2 - t1; q += 32) {
    const V v = slots[q == 0 ? 2 * t1 + 1 : 2 * (t1 + q)];
    s.x += v.x;
    s.y += v.y;
  }
  for (int d = 16; d >= 1; d >>= 1) {
    s.x += __shfl_xor_sync(0xffffffffu, s.x, d);
    s.y += __shfl_xor_sync(0xffffffffu, s.y, d);
  }
  if (lane == 0) y[split_row[i]] = s;
}

// The bitmap and lists of a matrix for tiles of 32 x K non-zeros.
struct SegPlan {
  int K = 0, tiles = 0, num_entries = 0;
  Kokkos::View<unsigned*, Mem> heads;
  Kokkos::View<int*, Mem> heads_before, nonempty, split_row, split_t1, split_t2, empty;
  int short_count = 0, long_count = 0, empty_count = 0;
  bool has_empty = false;
};

template <class View>
View device_of(const std::vector<typename View::value_type>& h, const char* label) {
  View d(std::string(label), h.size());
  Kokkos::View<const typename View::value_type*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hv(h.data(), h.size());
  Kokkos::deep_copy(d, hv);
  return d;
}

inline SegPlan seg_plan(const std::vector<int>& offsets, int K) {
  SegPlan plan;
  const int n = static_cast<int>(offsets.size()) - 1;
  const int N = offsets[n];
  plan.K = K;
  plan.num_entries = N;
  const int tile_entries = 32 * K;
  plan.tiles = (N + tile_entries - 1) / tile_entries;
  std::vector<unsigned> heads(static_cast<std::size_t>(plan.tiles) * K + 1, 0u);
  std::vector<int> nonempty, split_row, split_t1, split_t2, empty, long_row, long_t1, long_t2;
  for (int r = 0; r < n; ++r) {
    const int b = offsets[r], e = offsets[r + 1];
    if (b == e) {
      empty.push_back(r);
      continue;
    }
    heads[b / 32] |= 1u << (b % 32);
    nonempty.push_back(r);
    const int t1 = b / tile_entries, t2 = (e - 1) / tile_entries;
    if (t2 - t1 > 16) {
      long_row.push_back(r);
      long_t1.push_back(t1);
      long_t2.push_back(t2);
    } else if (t1 != t2) {
      split_row.push_back(r);
      split_t1.push_back(t1);
      split_t2.push_back(t2);
    }
  }
  heads[N / 32] |= 1u << (N % 32);
  std::vector<int> before(plan.tiles + 1, 0);
  {
    int count = 0;
    for (int t = 0; t < plan.tiles; ++t) {
      before[t] = count;
      for (int w = 0; w < K; ++w) count += __builtin_popcount(heads[t * K + w]);
    }
  }
  plan.has_empty = !empty.empty();
  plan.heads = device_of<Kokkos::View<unsigned*, Mem>>(heads, "heads");
  plan.heads_before = device_of<Kokkos::View<int*, Mem>>(before, "before");
  if (plan.has_empty) plan.nonempty = device_of<Kokkos::View<int*, Mem>>(nonempty, "nonempty");
  plan.short_count = static_cast<int>(split_row.size());
  plan.long_count = static_cast<int>(long_row.size());
  plan.empty_count = static_cast<int>(empty.size());
  split_row.insert(split_row.end(), long_row.begin(), long_row.end());
  split_t1.insert(split_t1.end(), long_t1.begin(), long_t1.end());
  split_t2.insert(split_t2.end(), long_t2.begin(), long_t2.end());
  split_row.push_back(0);
  split_t1.push_back(0);
  split_t2.push_back(0);
  empty.push_back(0);
  plan.split_row = device_of<Kokkos::View<int*, Mem>>(split_row, "split_row");
  plan.split_t1 = device_of<Kokkos::View<int*, Mem>>(split_t1, "split_t1");
  plan.split_t2 = device_of<Kokkos::View<int*, Mem>>(split_t2, "split_t2");
  plan.empty = device_of<Kokkos::View<int*, Mem>>(empty, "empty");
  return plan;
}

template <class T, int K, int P, int Threads, int MinBlocks, bool Stream>
void seg_launch(const SegPlan& plan, const int* cols, const void* vals, const void* x, void* y, void* slots,
                cudaStream_t stream, bool pass2 = true) {
  using V = typename Pair<T>::type;
  if (plan.tiles > 0) {
    const int warps = Threads / 32;
    seg_pass1<T, K, P, Threads, MinBlocks, Stream><<<(plan.tiles + warps - 1) / warps, Threads, 0, stream>>>(
        plan.num_entries, plan.tiles, cols, static_cast<const V*>(vals), static_cast<const V*>(x), static_cast<V*>(y),
        plan.heads.data(), plan.heads_before.data(), plan.has_empty ? plan.nonempty.data() : nullptr,
        static_cast<V*>(slots));
  }
  const int short_blocks = (plan.short_count + plan.empty_count + 255) / 256;
  const int long_blocks = (plan.long_count * 32 + 255) / 256;
  if (pass2 && short_blocks + long_blocks > 0)
    seg_pass2<T><<<short_blocks + long_blocks, 256, 0, stream>>>(
        plan.short_count, plan.long_count, short_blocks, plan.split_row.data(), plan.split_t1.data(),
        plan.split_t2.data(), static_cast<const V*>(slots), static_cast<V*>(y), plan.empty_count, plan.empty.data());
}
