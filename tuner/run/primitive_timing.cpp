#include "tuner/run/primitive_timing.hpp"

#include <fmt/format.h>

#include "scan_request.hpp"
#include "sort.hpp"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/primitive_reference.hpp"
#include "tuner/run/bench_timing.hpp"

namespace scantune::tuner {
namespace {

template <class T>
void upload(Device<T>& d, const std::vector<std::uint8_t>& host) {
  SCANTUNE_CUDA_TRY(cudaMemcpy(d.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before it lands, unordered with the
  // non-blocking stream the candidates run on.
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
}

void expect_equal(DataType type, const void* got, const void* want, std::size_t n, const char* what,
                  cudaStream_t stream) {
  const gpu::CompareResult c = gpu::compare(type, got, want, n, 0.0, stream);
  if (c.mismatches)
    throw Error(fmt::format("{} of {} {} differ from the host reference, the first at {}",
                            c.mismatches, n, what, c.first));
}

// Runs, checks and times each candidate with `call(key)` and `check()`.
template <class Call, class Check>
std::vector<PrimitiveTiming> time_each(const std::vector<std::string>& candidates, Call call,
                                       Check check, cudaStream_t stream,
                                       const std::function<void()>& before_each) {
  std::vector<PrimitiveTiming> out;
  for (const std::string& key : candidates) {
    before_each();
    PrimitiveTiming t{key, std::nullopt, {}};
    try {
      auto run = call(key);
      run();
      check();
      t.ns = time_call(run, stream);
    } catch (const Error& e) {
      t.error = e.what();
      cudaGetLastError(); // a failed launch leaves nothing behind for the next one
    }
    out.push_back(std::move(t));
  }
  return out;
}

PrimitiveSize time_select(Scanner& scanner, const PrimitiveProblem& p, std::uint64_t n,
                          std::uint64_t seed, const std::vector<std::string>& candidates,
                          cudaStream_t stream, const std::function<void()>& before_each) {
  const SelectCase c = select_case(p.type, p.compaction, n, seed);
  const std::size_t w = size_of(p.type);
  Device<std::uint8_t> in(n * w), flags(n), out(n * w), want(c.expected.size());
  Device<std::uint64_t> count(1);
  upload(in, c.items);
  upload(flags, c.flags);
  upload(want, c.expected);
  const bool flagged = p.compaction != detail::Heads::Unique;
  Policy policy;
  auto call = [&](const std::string& key) {
    policy = Policy::parse(key);
    return [&] {
      ScanRequest r =
          ScanRequest::compaction_of(p.type, p.compaction, in.ptr, flagged ? flags.ptr : nullptr,
                                     out.ptr, n, count.ptr, stream);
      r.policy = &policy;
      detail::ScannerAccess::scan(scanner, r);
    };
  };
  auto check = [&] {
    const std::uint64_t got = selected_count(count.ptr, stream);
    if (got != c.selected)
      throw Error(fmt::format("{} items selected, the host reference selects {}", got, c.selected));
    expect_equal(p.type, out.ptr, want.ptr, c.expected.size() / w, "items", stream);
  };
  const double flag_bytes = flagged ? static_cast<double>(n) : 0.0;
  return {time_each(candidates, call, check, stream, before_each),
          static_cast<double>((n + c.selected) * w) + flag_bytes};
}

PrimitiveSize time_sort(Scanner& scanner, const PrimitiveProblem& p, std::uint64_t n,
                        std::uint64_t seed, const std::vector<std::string>& candidates,
                        cudaStream_t stream, const std::function<void()>& before_each) {
  const std::size_t v = *p.sort_values, w = size_of(p.type);
  const SortCase c = sort_case(p.type, v, n, seed);
  Device<std::uint8_t> keys(n * w), keys_out(n * w), want_keys(n * w), values(n * v),
      values_out(n * v), want_values(n * v);
  upload(keys, c.keys);
  upload(want_keys, c.expected_keys);
  upload(values, c.values);
  upload(want_values, c.expected_values);
  detail::SortPolicy policy;
  auto call = [&](const std::string& key) {
    policy = detail::SortPolicy::parse(key);
    return [&] {
      const detail::SortRequest r{p.type,
                                  keys.ptr,
                                  keys_out.ptr,
                                  v ? values.ptr : nullptr,
                                  v ? values_out.ptr : nullptr,
                                  v,
                                  n,
                                  SortOrder::Ascending,
                                  0,
                                  static_cast<unsigned>(8 * w),
                                  stream};
      detail::ScannerAccess::sort(scanner, r, &policy);
    };
  };
  auto check = [&] {
    expect_equal(p.type, keys_out.ptr, want_keys.ptr, n, "keys", stream);
    if (v)
      expect_equal(v == 4 ? DataType::UInt32 : DataType::UInt64, values_out.ptr, want_values.ptr, n,
                   "values", stream);
  };
  return {time_each(candidates, call, check, stream, before_each),
          2.0 * static_cast<double>(n * (w + v))};
}

} // namespace

PrimitiveSize time_primitive(Scanner& scanner, const PrimitiveProblem& p, std::uint64_t n,
                             std::uint64_t seed, const std::vector<std::string>& candidates,
                             cudaStream_t stream, const std::function<void()>& before_each) {
  return p.sort_values ? time_sort(scanner, p, n, seed, candidates, stream, before_each)
                       : time_select(scanner, p, n, seed, candidates, stream, before_each);
}

std::uint64_t primitive_device_bytes(const PrimitiveProblem& p, std::uint64_t n) {
  const std::uint64_t w = size_of(p.type);
  if (!p.sort_values) return n * (3 * w + 1);
  // Inputs, outputs and references, and the sort's alternate key and value buffers.
  return 4 * n * (w + *p.sort_values);
}

} // namespace scantune::tuner
