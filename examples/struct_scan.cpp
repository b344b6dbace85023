// struct_scan.cpp: scans of struct values with an installed scantune.
//
// Two struct-valued custom operators on one stream: a first-order linear recurrence
// h[i] = a[i] * h[i-1] + b[i] as an inclusive scan of (a, b) pairs
// (scantune::linear_recurrence_op), and a running argmax of (value, index) pairs
// (scantune::argmax_op, ties to the first index), then an operator of one's own: the
// running (min, max) of floats as a struct given as source. Each is checked against a
// host loop.
//
// Exit status: 0 OK, 1 wrong result or error, 77 no CUDA device (or no driver).
#include <scantune/scantune.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Copies `h` to the device, scans it in place with `op` and copies it back.
template <class T>
void scan_on_device(scantune::Scanner& scanner, std::vector<T>& h, const scantune::CustomOp& op,
                    scantune::ScanKind kind, cudaStream_t stream) {
  void* d = nullptr;
  const std::size_t bytes = h.size() * sizeof(T);
  check(cudaMalloc(&d, bytes), "cudaMalloc");
  check(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  scanner.scan_struct(static_cast<const T*>(d), static_cast<T*>(d), h.size(), op, kind, stream);
  check(cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaFree(d), "cudaFree");
}

// The host's twin of the device struct below.
struct MinMax {
  float lo, hi;
};

int run() {
  const std::size_t n = (std::size_t{1} << 20) + 7;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  scantune::Scanner scanner;

  // 1. h[i] = a[i] * h[i-1] + b[i] (h[-1] = 0): out[i].b is h[i].
  std::vector<scantune::LinearRecurrence> pairs(n);
  for (std::size_t i = 0; i < n; ++i)
    pairs[i] = {0.9f + 0.0001f * float(i % 997), std::sin(float(i))};
  const std::vector<scantune::LinearRecurrence> in_pairs = pairs;
  scan_on_device(scanner, pairs, scantune::linear_recurrence_op(), scantune::ScanKind::Inclusive,
                 stream);
  double h = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    h = double(in_pairs[i].a) * h + double(in_pairs[i].b);
    if (std::fabs(double(pairs[i].b) - h) > 1e-4 * (std::fabs(h) + 1)) {
      std::printf("linear recurrence: h[%zu] is %g, expected %g\n", i, double(pairs[i].b), h);
      return 1;
    }
  }

  // 2. The first maximum so far and where it is.
  std::vector<scantune::ValueIndex> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = {float((i * 2654435761u) >> 8 & 0xffff), static_cast<std::int32_t>(i)};
  const std::vector<scantune::ValueIndex> in_values = values;
  scan_on_device(scanner, values, scantune::argmax_op(), scantune::ScanKind::Inclusive, stream);
  scantune::ValueIndex best = in_values[0];
  for (std::size_t i = 0; i < n; ++i) {
    if (in_values[i].value > best.value) best = in_values[i];
    if (values[i].value != best.value || values[i].index != best.index) {
      std::printf("argmax: element %zu is (%g, %d), expected (%g, %d)\n", i,
                  double(values[i].value), values[i].index, double(best.value), best.index);
      return 1;
    }
  }

  // 3. An operator of one's own: the struct's source, its name and size, the combine
  //    (a: earlier values, b: later ones) and the identity. Exclusive: out[0] is it.
  const scantune::CustomOp min_max{"min_max",
                                   "return minmax_t{fminf(a.lo, b.lo), fmaxf(a.hi, b.hi)};",
                                   "minmax_t{__int_as_float(0x7f800000), "
                                   "-__int_as_float(0x7f800000)}",
                                   "struct minmax_t { float lo, hi; };",
                                   "minmax_t",
                                   static_cast<int>(sizeof(MinMax))};
  std::vector<MinMax> ranges(n);
  for (std::size_t i = 0; i < n; ++i)
    ranges[i].lo = ranges[i].hi = std::cos(float(i) * 0.001f) * float(i % 1000);
  const std::vector<MinMax> in_ranges = ranges;
  scan_on_device(scanner, ranges, min_max, scantune::ScanKind::Exclusive, stream);
  float lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) {
    if (ranges[i].lo != lo || ranges[i].hi != hi) {
      std::printf("min_max: element %zu is (%g, %g), expected (%g, %g)\n", i, double(ranges[i].lo),
                  double(ranges[i].hi), double(lo), double(hi));
      return 1;
    }
    lo = std::fmin(lo, in_ranges[i].lo);
    hi = std::fmax(hi, in_ranges[i].hi);
  }
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  const scantune::Plan plan =
      scanner.plan_struct(scantune::linear_recurrence_op(), scantune::ScanKind::Inclusive, n);
  std::printf("struct_scan_example: OK (n = %zu; policy for the recurrence: %s)\n", n,
              plan.policy.c_str());
  return 0;
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("struct_scan_example: no CUDA device, nothing to run (exit 77)\n");
    return 77;
  }
  try {
    return run();
  } catch (const scantune::Error& e) {
    std::printf("scantune error (%s): %s\n%s\n", std::string(scantune::to_string(e.kind())).c_str(),
                e.what(), e.log().c_str());
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
  }
  return 1;
}
