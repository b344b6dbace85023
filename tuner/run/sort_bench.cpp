#include "tuner/run/sort_bench.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

#include <fmt/format.h>

#include "cuda_check.hpp"
#include "dispatch.hpp"
#include "scan_request.hpp"
#include "sort.hpp"
#include "strings.hpp"
#include "tuner/gpu/cub_baseline_sort.cuh"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/input_values.hpp"
#include "tuner/gpu/type_dispatch.hpp"
#include "tuner/run/bench_timing.hpp"
#include "tuner/run/tune.hpp"

namespace scantune::tuner {
namespace {

struct ModeInfo {
  SortMode mode;
  const char* name;
  std::size_t value_bytes;
};
constexpr ModeInfo kModes[] = {{SortMode::Keys, "keys", 0},
                               {SortMode::Pairs, "pairs", 4},
                               {SortMode::Pairs8, "pairs8", 8},
                               {SortMode::Indices, "indices", 8}};

const ModeInfo& info(SortMode mode) {
  for (const ModeInfo& m : kModes)
    if (m.mode == mode) return m;
  throw Error("unknown sort mode");
}

const char* mode_name(SortMode mode) {
  return info(mode).name;
}

// The values' type as gpu::compare and fill_input take it (raw bits of their width).
DataType value_type(SortMode mode) {
  return sort_value_bytes(mode) == 8 ? DataType::UInt64 : DataType::UInt32;
}

// Throws naming the first key or value where scantune's result differs from CUB's.
void check_against_cub(const SortBenchRow& row, const void* keys, const void* cub_keys,
                       const void* values, const void* cub_values, cudaStream_t stream) {
  const gpu::CompareResult k = gpu::compare(row.type, keys, cub_keys, row.n, 0.0, stream);
  const gpu::CompareResult v =
      row.mode != SortMode::Keys
          ? gpu::compare(value_type(row.mode), values, cub_values, row.n, 0.0, stream)
          : gpu::CompareResult{};
  if (k.mismatches || v.mismatches)
    throw Error(fmt::format("sort_{} {} n = {}: {} keys and {} values differ from CUB's, the "
                            "first at {}",
                            mode_name(row.mode), to_string(row.type), row.n, k.mismatches,
                            v.mismatches, k.mismatches ? k.first : v.first));
}

// The values: random words, or (CUB's, for indices) the keys' positions as 8-byte words
// (what torch.sort sorts beside the keys).
void fill_values(SortMode mode, std::uint64_t n, void* values, cudaStream_t stream) {
  if (mode == SortMode::Pairs || mode == SortMode::Pairs8) {
    gpu::fill_input(value_type(mode), ValueSet::Wide, 2, 0, n, values, stream);
  } else if (mode == SortMode::Indices) {
    std::vector<std::uint64_t> positions(n);
    std::iota(positions.begin(), positions.end(), std::uint64_t{0});
    SCANTUNE_CUDA_TRY(
        cudaMemcpyAsync(values, positions.data(), n * 8, cudaMemcpyHostToDevice, stream));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  }
}

// `policy` null: the dispatch's.
SortBenchRow run_case(Scanner& scanner, DataType type, SortMode mode, std::uint64_t n,
                      const detail::SortPolicy* policy, unsigned key_bits, cudaStream_t stream) {
  const std::size_t w = size_of(type), vb = sort_value_bytes(mode);
  Device<std::uint8_t> keys(n * w), out(n * w), cub_out(n * w);
  Device<std::uint8_t> values(n * vb), values_out(n * vb), cub_values_out(n * vb);
  // Wide: random bit patterns for integers, +-[1, 2^20] for floats (no -0.0 or NaN,
  // which CUB orders differently).
  gpu::fill_input(type, ValueSet::Wide, 1, 0, n, keys.ptr, stream);
  if (key_bits) gpu::keep_low_bits(type, keys.ptr, n, key_bits, stream);
  fill_values(mode, n, values.ptr, stream);
  // Keys only: no value pointers at all (an empty buffer may still have an address);
  // indices: none read, CUB's positions stay its own.
  const void* v_in = vb && mode != SortMode::Indices ? values.ptr : nullptr;
  void* v_out = vb ? values_out.ptr : nullptr;
  const void* cub_v_in = vb ? values.ptr : nullptr;
  std::size_t temp_bytes = 0;
  SCANTUNE_CUDA_TRY(gpu::cub_baseline::radix_sort(type, keys.ptr, cub_out.ptr, cub_v_in,
                                                  cub_values_out.ptr, vb, n, nullptr, temp_bytes,
                                                  stream));
  Device<std::uint8_t> temp(temp_bytes);
  const unsigned bits = static_cast<unsigned>(8 * w);
  const detail::SortRequest request{
      type, keys.ptr, out.ptr, v_in, v_out, vb, n, SortOrder::Ascending, 0, bits, stream};
  auto ours = [&] {
    if (policy)
      detail::ScannerAccess::sort(scanner, request, policy);
    else
      scanner.run_sort(type, keys.ptr, out.ptr, v_in, v_out, vb, n, SortOrder::Ascending, 0, bits,
                       stream);
  };
  auto cub = [&] {
    SCANTUNE_CUDA_TRY(gpu::cub_baseline::radix_sort(type, keys.ptr, cub_out.ptr, cub_v_in,
                                                    cub_values_out.ptr, vb, n, temp.ptr, temp_bytes,
                                                    stream));
  };
  ours();
  cub();
  SortBenchRow row{
      type,
      mode,
      key_bits,
      n,
      0,
      0,
      policy ? policy->key()
             : detail::ScannerAccess::sort_choice(scanner, type, vb, n, mode == SortMode::Indices)
                   .plan()
                   .policy};
  check_against_cub(row, out.ptr, cub_out.ptr, values_out.ptr, cub_values_out.ptr, stream);
  row.scantune_ns = time_call(ours, stream);
  row.cub_ns = time_call(cub, stream);
  return row;
}

// "keys, pairs, pairs8 or indices": the modes' names, for usage errors.
std::string expected_modes() {
  std::string s;
  for (std::size_t i = 0; i < std::size(kModes); ++i)
    s += (i == 0 ? "" : i + 1 == std::size(kModes) ? " or " : ", ") + std::string(kModes[i].name);
  return s;
}

} // namespace

std::vector<SortMode> parse_sort_modes(std::string_view list) {
  const std::string expected = expected_modes();
  if (list.empty())
    throw UsageError(fmt::format("--sort: expected {} or a list of them", expected));
  std::vector<SortMode> v;
  for (std::string_view mode : detail::split(list, ',')) {
    const auto m = std::find_if(std::begin(kModes), std::end(kModes),
                                [&](const ModeInfo& i) { return mode == i.name; });
    if (m == std::end(kModes))
      throw UsageError(fmt::format("--sort {}: expected {}", mode, expected));
    v.push_back(m->mode);
  }
  return v;
}

std::size_t sort_value_bytes(SortMode mode) {
  return info(mode).value_bytes;
}

void check_sort_key_bits(unsigned key_bits, const std::vector<DataType>& types) {
  if (!key_bits) return;
  for (DataType t : types)
    if (is_floating(t) || key_bits >= 8 * size_of(t))
      throw UsageError(
          fmt::format("--key-bits {}: expected integer keys wider than {} bits, not {}", key_bits,
                      key_bits, to_string(t)));
}

std::vector<SortBenchRow> run_sort_bench(const std::vector<DataType>& types,
                                         const std::vector<SortMode>& modes,
                                         const std::vector<std::uint64_t>& sizes,
                                         const std::map<DataType, detail::SortPolicy>& policies,
                                         unsigned key_bits, const std::string& db_path,
                                         const std::function<void(const std::string&)>& log) {
  ScannerOptions options;
  options.database = db_path;
  Scanner scanner(options);
  const OwnStream own;
  std::vector<SortBenchRow> rows;
  for (DataType type : types)
    for (SortMode mode : modes)
      for (std::uint64_t n : sizes) {
        log(fmt::format("sort_{} {} n = {}", mode_name(mode), to_string(type), n));
        const auto p = policies.find(type);
        rows.push_back(run_case(scanner, type, mode, n, p == policies.end() ? nullptr : &p->second,
                                key_bits, own.stream));
      }
  return rows;
}

std::string sort_bench_markdown(const std::vector<SortBenchRow>& rows) {
  std::string s =
      "| type | mode | n | scantune us | CUB us | vs CUB | scantune Gkeys/s | "
      "scantune GB/s | CUB GB/s | policy |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SortBenchRow& r : rows) {
    // One read and one write of every key (and value): the least a sort moves.
    const double bytes = 2.0 * static_cast<double>(r.n) *
                         static_cast<double>(size_of(r.type) + sort_value_bytes(r.mode));
    s += fmt::format(
        "| {} | {} | {} | {:.2f} | {:.2f} | {:.2f}x | {:.2f} | {:.1f} | {:.1f} | {} |\n",
        to_string(r.type),
        r.key_bits ? fmt::format("{}, {}-bit", mode_name(r.mode), r.key_bits) : mode_name(r.mode),
        r.n, r.scantune_ns / 1e3, r.cub_ns / 1e3, r.cub_ns / r.scantune_ns,
        static_cast<double>(r.n) / r.scantune_ns, bytes / r.scantune_ns, bytes / r.cub_ns,
        r.policy);
  }
  return s;
}

} // namespace scantune::tuner
