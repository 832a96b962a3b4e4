// Lab: does staging a Sliced ELL slice's entries in shared memory with cp.async (no
// registers held while in flight) beat the register-batched row kernel on mid-size
// quaternion<double> matrices? Synthetic triangle-mesh-like matrix, 7 slots a row,
// a quarter of the rows 4..12 slots. Times: CUDA events, median of 15 rounds of 20
// launches, three matrix copies rotated. Checked against a host double reference.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <functional>
#include <string>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct alignas(16) Q { double a, b, c, d; };
__host__ __device__ inline void qfma(Q& acc, const Q& p, const Q& q) {
  acc.a += p.a * q.a - p.b * q.b - p.c * q.c - p.d * q.d;
  acc.b += p.a * q.b + p.b * q.a + p.c * q.d - p.d * q.c;
  acc.c += p.a * q.c - p.b * q.d + p.c * q.a + p.d * q.b;
  acc.d += p.a * q.d + p.b * q.c - p.c * q.b + p.d * q.a;
}
__device__ inline Q ldcs(const Q* p) { int4 u = __ldcs(reinterpret_cast<const int4*>(p)); int4 v = __ldcs(reinterpret_cast<const int4*>(p) + 1); Q q; memcpy(&q, &u, 16); memcpy(reinterpret_cast<char*>(&q) + 16, &v, 16); return q; }
__device__ inline Q ldg(const Q* p) { int4 u = __ldg(reinterpret_cast<const int4*>(p)); int4 v = __ldg(reinterpret_cast<const int4*>(p) + 1); Q q; memcpy(&q, &u, 16); memcpy(reinterpret_cast<char*>(&q) + 16, &v, 16); return q; }

struct M { const int* off; const int* len; const int* col; const Q* val; int n, slices; };

// The library's shape: thread per row, persistent league-strided chunks of 256 rows, batch B.
template <int B, int T, int MB>
__global__ void __launch_bounds__(T, MB) row_kernel(M m, const Q* x, Q* y, int chunks) {
  for (int chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    int r = chunk * T + threadIdx.x;
    if (r >= m.n) continue;
    int first = m.off[r / 32] + r % 32, L = m.len[r];
    Q acc{0, 0, 0, 0};
    for (int k = 0; k < L; k += B) {
      int c[B]; Q e[B], xs[B];
#pragma unroll
      for (int u = 0; u < B; ++u) if (k + u < L) { c[u] = __ldcs(m.col + first + (k + u) * 32); e[u] = ldcs(m.val + first + (k + u) * 32); }
#pragma unroll
      for (int u = 0; u < B; ++u) if (k + u < L) xs[u] = ldg(x + c[u]);
#pragma unroll
      for (int u = 0; u < B; ++u) if (k + u < L) qfma(acc, e[u], xs[u]);
    }
    y[r] = acc;
  }
}


// Dynamic schedules: a chunk of T rows per block (Team) or 32 rows per warp (Warp) from an
// atomic counter. RESET: the last block/warp to finish zeroes the counters (no memset launch).
template <int B>
__device__ inline void one_row(const M& m, const Q* x, Q* y, int r) {
  if (r >= m.n) return;
  int first = m.off[r / 32] + r % 32, L = m.len[r];
  Q acc{0, 0, 0, 0};
  for (int k = 0; k < L; k += B) {
    int c[B]; Q e[B], xs[B];
#pragma unroll
    for (int u = 0; u < B; ++u) if (k + u < L) { c[u] = __ldcs(m.col + first + (k + u) * 32); e[u] = ldcs(m.val + first + (k + u) * 32); }
#pragma unroll
    for (int u = 0; u < B; ++u) if (k + u < L) xs[u] = ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < B; ++u) if (k + u < L) qfma(acc, e[u], xs[u]);
  }
  y[r] = acc;
}
template <int B, int T, int MB, bool RESET>
__global__ void __launch_bounds__(T, MB) team_kernel(M m, const Q* x, Q* y, int chunks, unsigned* counter) {
  __shared__ unsigned block_chunk;
  for (;;) {
    if (threadIdx.x == 0) block_chunk = atomicAdd(counter, 1u);
    __syncthreads();
    int chunk = block_chunk;
    __syncthreads();
    if (chunk >= chunks) break;
    one_row<B>(m, x, y, chunk * T + threadIdx.x);
  }
  if (RESET && threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(counter + 1, 1u) == gridDim.x - 1) { counter[0] = 0; counter[1] = 0; }
  }
}
template <int B, int T, int MB, bool RESET>
__global__ void __launch_bounds__(T, MB) warp_kernel(M m, const Q* x, Q* y, int chunks, unsigned* counter) {
  int lane = threadIdx.x & 31;
  for (;;) {
    unsigned chunk = 0;
    if (lane == 0) chunk = atomicAdd(counter, 1u);
    chunk = __shfl_sync(0xffffffffu, chunk, 0);
    if (chunk >= (unsigned)chunks) break;
    one_row<B>(m, x, y, chunk * 32 + lane);
  }
  if (RESET && lane == 0) {
    __threadfence();
    if (atomicAdd(counter + 1, 1u) == gridDim.x * (T / 32) - 1) { counter[0] = 0; counter[1] = 0; }
  }
}

// Staged: a warp per slice; cp.async copies the slice's first W slot columns (indices and
// entries) to the warp's shared buffer, then each lane gathers x for its row in batches of XB.
// Slots past W (rare) are read from global directly. Warps loop over slices; with PREF the
// next slice's copy is issued before this one is computed (double buffer).
template <int W, int XB, int T, int MB, bool PREF>
__global__ void __launch_bounds__(T, MB) staged_kernel(M m, const Q* x, Q* y) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int warps = T / 32;
  constexpr int buf_bytes = W * 32 * (32 + 4);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  unsigned char* mybuf = smem + (size_t)w * buf_bytes * (PREF ? 2 : 1);
  const int gw = blockIdx.x * warps + w, nw = gridDim.x * warps;
  auto issue = [&](int s, unsigned char* buf) {
    int base = m.off[s], width = min((m.off[s + 1] - base) / 32, W);
    Q* sv = reinterpret_cast<Q*>(buf);
    int* sc = reinterpret_cast<int*>(buf + W * 32 * 32);
    for (int i = lane; i < width * 32 * 2; i += 32) __pipeline_memcpy_async(reinterpret_cast<char*>(sv) + 16 * i, reinterpret_cast<const char*>(m.val + base) + 16 * i, 16);
    for (int i = lane; i < width * 8; i += 32) __pipeline_memcpy_async(reinterpret_cast<char*>(sc) + 16 * i, reinterpret_cast<const char*>(m.col + base) + 16 * i, 16);
    __pipeline_commit();
  };
  int s = gw, cur = 0;
  if (PREF && s < m.slices) issue(s, mybuf);
  for (; s < m.slices; s += nw) {
    unsigned char* buf = mybuf + (PREF ? cur * buf_bytes : 0);
    if (PREF) {
      int next = s + nw;
      if (next < m.slices) { issue(next, mybuf + (cur ^ 1) * buf_bytes); __pipeline_wait_prior(1); } else __pipeline_wait_prior(0);
    } else { issue(s, buf); __pipeline_wait_prior(0); }
    __syncwarp();
    const Q* sv = reinterpret_cast<const Q*>(buf);
    const int* sc = reinterpret_cast<const int*>(buf + W * 32 * 32);
    int r = s * 32 + lane;
    Q acc{0, 0, 0, 0};
    if (r < m.n) {
      int L = m.len[r], base = m.off[s];
      for (int k = 0; k < L; k += XB) {
        Q xs[XB];
#pragma unroll
        for (int u = 0; u < XB; ++u) if (k + u < L) { int kk = k + u; int c = kk < W ? sc[kk * 32 + lane] : __ldcs(m.col + base + kk * 32 + lane); xs[u] = ldg(x + c); }
#pragma unroll
        for (int u = 0; u < XB; ++u) if (k + u < L) { int kk = k + u; Q e = kk < W ? sv[kk * 32 + lane] : ldcs(m.val + base + kk * 32 + lane); qfma(acc, e, xs[u]); }
      }
      y[r] = acc;
    }
    __syncwarp();
    cur ^= 1;
  }
}

__global__ void copy_kernel(const int4* a, int4* b, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i]; }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 139122;
  int irregular = argc > 2 ? atoi(argv[2]) : 1;
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::mt19937 rng(7);
  int wdt = 373;
  std::vector<std::vector<int>> rows(n);
  for (int r = 0; r < n; ++r) {
    int offs[7] = {0, 1, -1, wdt, -wdt, wdt + 1, -wdt - 1};
    int L = 7;
    if (irregular && r < n / 4) L = 4 + rng() % 9;
    for (int k = 0; k < L; ++k) { int c = k < 7 ? r + offs[k] : r + (int)(rng() % 2000) - 1000; rows[r].push_back(((c % n) + n) % n); }
  }
  int slices = (n + 31) / 32;
  std::vector<int> off(slices + 1, 0), len(n);
  for (int s = 0; s < slices; ++s) { int wmax = 0; for (int r = s * 32; r < std::min(n, s * 32 + 32); ++r) wmax = std::max<int>(wmax, rows[r].size()); off[s + 1] = off[s] + wmax * 32; }
  size_t slots = off[slices], nnz = 0;
  std::vector<int> col(slots, 0); std::vector<Q> val(slots, Q{0, 0, 0, 0});
  std::uniform_real_distribution<double> ud(-1, 1);
  for (int r = 0; r < n; ++r) { len[r] = rows[r].size(); nnz += len[r]; for (int k = 0; k < len[r]; ++k) { size_t sl = off[r / 32] + k * 32 + r % 32; col[sl] = rows[r][k]; val[sl] = Q{ud(rng), ud(rng), ud(rng), ud(rng)}; } }
  std::vector<Q> x(n); for (auto& q : x) q = Q{ud(rng), ud(rng), ud(rng), ud(rng)};
  std::vector<Q> ref(n);
  for (int r = 0; r < n; ++r) { Q acc{0, 0, 0, 0}; for (int k = 0; k < len[r]; ++k) { size_t sl = off[r / 32] + k * 32 + r % 32; qfma(acc, val[sl], x[col[sl]]); } ref[r] = acc; }
  const int copies = 3;
  M dm[copies];
  for (int i = 0; i < copies; ++i) {
    int *o, *l, *c; Q* v;
    CK(cudaMalloc(&o, off.size() * 4)); CK(cudaMalloc(&l, n * 4)); CK(cudaMalloc(&c, slots * 4)); CK(cudaMalloc(&v, slots * sizeof(Q)));
    CK(cudaMemcpy(o, off.data(), off.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(l, len.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, col.data(), slots * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(v, val.data(), slots * sizeof(Q), cudaMemcpyHostToDevice));
    dm[i] = M{o, l, c, v, n, slices};
  }
  Q *dx, *dy; CK(cudaMalloc(&dx, n * sizeof(Q))); CK(cudaMalloc(&dy, n * sizeof(Q)));
  CK(cudaMemcpy(dx, x.data(), n * sizeof(Q), cudaMemcpyHostToDevice));
  double bytes = nnz * (32.0 + 4) + 2.0 * n * 32 + n * 4.0;  // CSR count: entries, indices, x, y, row lengths
  printf("n %d nnz %zu slots %zu (%.3f padding) compulsory %.1f MB, SMs %d\n", n, nnz, slots, double(slots) / nnz, bytes / 1e6, sms);
  unsigned* counter; CK(cudaMalloc(&counter, 8)); CK(cudaMemset(counter, 0, 8));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<std::pair<std::string, std::function<void(const M&)>>> vs;
  auto timeit = [&](const char* name, std::function<void(const M&)> launch) { vs.emplace_back(name, launch); };
  auto run_all = [&]() {
    std::vector<std::vector<float>> t(vs.size());
    for (size_t v = 0; v < vs.size(); ++v) {
      CK(cudaMemset(counter, 0, 8)); CK(cudaMemset(dy, 0, n * sizeof(Q)));
      vs[v].second(dm[0]); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      std::vector<Q> got(n); CK(cudaMemcpy(got.data(), dy, n * sizeof(Q), cudaMemcpyDeviceToHost));
      double err = 0, nr = 0;
      for (int r = 0; r < n; ++r) { err = std::max({err, fabs(got[r].a - ref[r].a), fabs(got[r].b - ref[r].b), fabs(got[r].c - ref[r].c), fabs(got[r].d - ref[r].d)}); nr = std::max(nr, fabs(ref[r].a)); }
      if (!(err / nr < 1e-12)) printf("%s WRONG err %.1e\n", vs[v].first.c_str(), err / nr);
      for (int i = 0; i < 10; ++i) vs[v].second(dm[i % copies]);
    }
    for (int round = 0; round < 21; ++round)
      for (size_t v = 0; v < vs.size(); ++v) {
        CK(cudaEventRecord(e0)); for (int i = 0; i < 20; ++i) vs[v].second(dm[i % copies]); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t[v].push_back(ms * 1000 / 20);
      }
    for (size_t v = 0; v < vs.size(); ++v) {
      std::sort(t[v].begin(), t[v].end());
      printf("%-30s %8.2f us (min %.2f max %.2f) %.2f TB/s\n", vs[v].first.c_str(), t[v][10], t[v][0], t[v][20], bytes / t[v][10] / 1e6);
    }
  };
  { size_t words = 256u << 20; int4 *a, *b; CK(cudaMalloc(&a, words * 16)); CK(cudaMalloc(&b, words * 16)); CK(cudaMemset(a, 1, words * 16));
    for (int i = 0; i < 3; ++i) copy_kernel<<<sms * 8, 512>>>(a, b, words);
    CK(cudaEventRecord(e0)); for (int i = 0; i < 10; ++i) copy_kernel<<<sms * 8, 512>>>(a, b, words); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); printf("copy %.2f TB/s\n", 2.0 * words * 16 * 10 / (ms / 1000) / 1e12); CK(cudaFree(a)); CK(cudaFree(b)); }
  {
    int chunks = (n + 255) / 256, g2 = std::min(chunks, sms * 2), g4 = std::min(chunks, sms * 4);
    timeit("A row b4 256x2 persistent", [=](const M& m) { row_kernel<4, 256, 2><<<g2, 256>>>(m, dx, dy, chunks); });
    timeit("B row b4 256x2 full", [=](const M& m) { row_kernel<4, 256, 2><<<chunks, 256>>>(m, dx, dy, chunks); });
    timeit("C row b1 256x4 persistent", [=](const M& m) { row_kernel<1, 256, 4><<<g4, 256>>>(m, dx, dy, chunks); });
    timeit("D row b1 256x4 full", [=](const M& m) { row_kernel<1, 256, 4><<<chunks, 256>>>(m, dx, dy, chunks); });
    timeit("E team b4 256x2 self-reset", [=](const M& m) { team_kernel<4, 256, 2, true><<<g2, 256>>>(m, dx, dy, chunks, counter); });
    timeit("F team b1 256x4 self-reset", [=](const M& m) { team_kernel<1, 256, 4, true><<<g4, 256>>>(m, dx, dy, chunks, counter); });
    timeit("G team b4 256x2 memset", [=](const M& m) { cudaMemsetAsync(counter, 0, 4); team_kernel<4, 256, 2, false><<<g2, 256>>>(m, dx, dy, chunks, counter); });
    timeit("H row b2 256x4?no: b4 128x4 full", [=](const M& m) { row_kernel<4, 128, 4><<<(n + 127) / 128, 128>>>(m, dx, dy, (n + 127) / 128); });
    run_all();
  }
  return 0;
}
