// scantune_sparse_reads: what a selection could save by reading only the values it keeps.
// Every thread reads 16 one-byte flags, then its 16 values: all of them, each flagged one,
// or each 16-byte vector that holds a flagged one; random flags kept with probability P,
// 4- and 8-byte values, 8 blocks of 256 threads an SM, nothing stored (the values are
// summed into a register). Against the values read alone and cudaMemcpy of the values
// (docs/decisions.md, "Sparse selections keep staging whole tiles").
#include <cstdint>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "event_timer.cuh"

namespace {

enum Read { kValuesOnly, kAll, kEach, kVectors };

template <class T, int READ>
__global__ void read_kept(const T* in, const unsigned char* flags, std::size_t n,
                          unsigned long long* sink) {
  constexpr int ITEMS = 16, PER = 16 / sizeof(T); // a thread's items; items a vector
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x * ITEMS;
  unsigned long long acc = 0;
  for (std::size_t b = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * ITEMS; b < n;
       b += stride) {
    const uint4 f = READ == kValuesOnly ? make_uint4(1u, 1u, 1u, 1u)
                                        : *reinterpret_cast<const uint4*>(flags + b);
    const unsigned char* kept = reinterpret_cast<const unsigned char*>(&f);
    const uint4* vectors = reinterpret_cast<const uint4*>(in + b);
#pragma unroll
    for (int v = 0; v < ITEMS / PER; ++v) {
      bool any = false;
#pragma unroll
      for (int j = 0; j < PER; ++j)
        any |= kept[v * PER + j] != 0;
      if (READ == kValuesOnly || READ == kAll || (READ == kVectors && any)) {
        const uint4 x = __ldcs(vectors + v);
        const T* e = reinterpret_cast<const T*>(&x);
#pragma unroll
        for (int j = 0; j < PER; ++j)
          if (READ == kValuesOnly || kept[v * PER + j]) acc += (unsigned long long)e[j];
      } else if (READ == kEach) {
#pragma unroll
        for (int j = 0; j < PER; ++j)
          if (kept[v * PER + j]) acc += (unsigned long long)__ldcs(in + b + v * PER + j);
      }
    }
  }
  if (acc == 0x123456789ull) *sink = acc; // keeps the reads; never true for these inputs
}

struct Case {
  std::size_t n;
  int repeats, sms;
};

template <class T>
void run(const Case& c, double kept_share) {
  std::vector<unsigned char> flags(c.n);
  std::vector<T> values(c.n);
  std::uint64_t s = 88172645463325252ull; // xorshift64
  for (std::size_t i = 0; i < c.n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    flags[i] = (s % 1000000) < kept_share * 1000000;
    values[i] = T(s >> 40) | T(1); // never zero
  }
  T *in = nullptr, *copy = nullptr;
  unsigned char* d_flags = nullptr;
  unsigned long long* sink = nullptr;
  CHECK(cudaMalloc(&in, c.n * sizeof(T)));
  CHECK(cudaMalloc(&copy, c.n * sizeof(T)));
  CHECK(cudaMalloc(&d_flags, c.n));
  CHECK(cudaMalloc(&sink, sizeof *sink));
  CHECK(cudaMemcpy(in, values.data(), c.n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_flags, flags.data(), c.n, cudaMemcpyHostToDevice));
  Timer timer;
  const int grid = c.sms * 8;
  const auto us = [&](auto kernel) {
    return 1e3 * timer.median_ms([&] { kernel<<<grid, 256>>>(in, d_flags, c.n, sink); }, c.repeats);
  };
  const double memcpy_us =
      1e3 *
      timer.median_ms(
          [&] { CHECK(cudaMemcpyAsync(copy, in, c.n * sizeof(T), cudaMemcpyDeviceToDevice)); },
          c.repeats);
  const double values_us = us(read_kept<T, kValuesOnly>), all_us = us(read_kept<T, kAll>);
  const double each_us = us(read_kept<T, kEach>), vectors_us = us(read_kept<T, kVectors>);
  CHECK(cudaGetLastError());
  std::printf("| %zu | %.2f | %.1f | %.1f | %.1f | %.1f (%.2fx) | %.1f (%.2fx) |\n", sizeof(T),
              kept_share, memcpy_us, values_us, all_us, each_us, all_us / each_us, vectors_us,
              all_us / vectors_us);
  CHECK(cudaFree(in));
  CHECK(cudaFree(copy));
  CHECK(cudaFree(d_flags));
  CHECK(cudaFree(sink));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Reading only the kept values of a selection, against reading all of them"};
  int log2n = 28, repeats = 20;
  std::vector<double> shares{0.01, 0.05, 0.2, 0.5};
  app.add_option("--log2n", log2n, "Items: 2^N (default 28)")->check(CLI::Range(16, 30));
  app.add_option("--repeats", repeats, "Timed calls, median (default 20)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--kept", shares, "Shares of items kept (default 0.01 0.05 0.2 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  CLI11_PARSE(app, argc, argv);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const Case c{std::size_t(1) << log2n, repeats, prop.multiProcessorCount};
  std::printf("%s, n = 2^%d, us (medians); x = flags + all over the row's own time\n\n", prop.name,
              log2n);
  std::printf("| item bytes | kept | memcpy of the values | values only | flags + all | "
              "flags + each kept item | flags + each vector holding one |\n"
              "|---:|---:|---:|---:|---:|---:|---:|\n");
  for (double share : shares) {
    run<std::uint32_t>(c, share);
    run<std::uint64_t>(c, share);
  }
}
