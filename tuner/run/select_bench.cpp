#include "tuner/run/select_bench.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "cuda_check.hpp"
#include "scan_request.hpp"
#include "strings.hpp"
#include "tuner/gpu/cub_baseline_select.cuh"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/input_values.hpp"
#include "tuner/run/bench_timing.hpp"
#include "tuner/run/tune.hpp"

namespace scantune::tuner {
namespace {

SelectPattern parse_pattern(std::string_view spec) {
  SelectPattern p;
  p.text = std::string(spec);
  const std::size_t colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  char* end = nullptr;
  const std::string number(colon == std::string_view::npos ? "" : spec.substr(colon + 1));
  p.fraction = std::strtod(number.c_str(), &end);
  if ((kind != "flags" && kind != "clustered") || number.empty() || *end != '\0' ||
      !(p.fraction >= 0 && p.fraction <= 1))
    throw UsageError(
        fmt::format("--select {}: expected flags:P or clustered:P with P in [0, 1]", spec));
  p.clustered = kind == "clustered";
  return p;
}

// Flags of items [first, first + count): a counter hash, so any chunk is reproducible.
void make_flags(const SelectPattern& p, std::uint64_t first, std::vector<std::uint8_t>& out) {
  const auto threshold = static_cast<std::uint64_t>(p.fraction * 18446744073709551615.0);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::uint64_t i = first + k;
    // clustered: runs of 256 items, split at a hashed point, each part drawn once
    const std::uint64_t key = p.clustered ? (i >> 8) * 2 + ((i & 255) < mix64(i >> 8) % 256) : i;
    out[k] = mix64(key ^ 0x5E1EC7ull) < threshold ? 1 : 0;
  }
}

// Scanner::select_flagged, through `policy` where one is given (null: the dispatch's).
void select_with(Scanner& scanner, DataType type, const Policy* policy, const void* in,
                 const std::uint8_t* flags, void* out, std::uint64_t n, std::uint64_t* count,
                 cudaStream_t stream) {
  ScanRequest r = ScanRequest::compaction_of(type, detail::Heads::SelectFlags, in, flags, out, n,
                                             count, stream);
  r.policy = policy;
  detail::ScannerAccess::scan(scanner, r);
}

SelectBenchRow run_case(Scanner& scanner, DataType type, const Policy* policy,
                        const SelectPattern& pattern, std::uint64_t n, cudaStream_t stream) {
  const std::size_t w = size_of(type);
  // Outputs hold n items plus n bytes: the memcpy moves up to n * w + n / 2 bytes each way.
  Device<std::uint8_t> in(n * w), flags(n), out(n * w + n), cub_out(n * w + n);
  Device<std::uint64_t> counts(2);
  gpu::fill_input(type, ValueSet::Walk, 1, 0, n, in.ptr, stream);
  std::vector<std::uint8_t> chunk;
  for (std::uint64_t first = 0; first < n; first += chunk.size()) {
    chunk.resize(std::min<std::uint64_t>(n - first, 1u << 24));
    make_flags(pattern, first, chunk);
    SCANTUNE_CUDA_TRY(
        cudaMemcpy(flags.ptr + first, chunk.data(), chunk.size(), cudaMemcpyHostToDevice));
  }
  // A copy from pageable memory may return before it lands, and it is not ordered with
  // `stream` (non-blocking): without this the first calls read half-copied flags.
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  std::size_t temp_bytes = 0;
  SCANTUNE_CUDA_TRY(gpu::cub_baseline::select_flagged(
      w, in.ptr, flags.ptr, cub_out.ptr, counts.ptr + 1, n, nullptr, temp_bytes, stream));
  Device<std::uint8_t> temp(temp_bytes);
  auto ours = [&] {
    select_with(scanner, type, policy, in.ptr, flags.ptr, out.ptr, n, counts.ptr, stream);
  };
  auto cub = [&] {
    SCANTUNE_CUDA_TRY(gpu::cub_baseline::select_flagged(
        w, in.ptr, flags.ptr, cub_out.ptr, counts.ptr + 1, n, temp.ptr, temp_bytes, stream));
  };
  ours();
  cub();
  std::uint64_t got[2] = {};
  SCANTUNE_CUDA_TRY(cudaMemcpyAsync(got, counts.ptr, sizeof got, cudaMemcpyDeviceToHost, stream));
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  if (got[0] != got[1])
    throw Error(fmt::format("select_flagged {} {} n = {}: {} selected, CUB {}", to_string(type),
                            pattern.text, n, got[0], got[1]));
  const gpu::CompareResult cmp = gpu::compare(type, out.ptr, cub_out.ptr, got[0], 0.0, stream);
  if (cmp.mismatches)
    throw Error(fmt::format("select_flagged {} {} n = {}: {} items differ from CUB's, the first "
                            "at {}",
                            to_string(type), pattern.text, n, cmp.mismatches, cmp.first));
  const std::string ran =
      policy ? policy->key() : scanner.select_plan(type, Compaction::SelectFlagged, n).policy;
  SelectBenchRow row{type, pattern.text, n, got[0], 0, 0, 0, ran};
  const auto half_moved = static_cast<std::size_t>(select_bytes_moved(row)) / 2;
  row.scantune_ns = time_call(ours, stream);
  row.cub_ns = time_call(cub, stream);
  row.memcpy_ns = time_call(
      [&] {
        SCANTUNE_CUDA_TRY(
            cudaMemcpyAsync(cub_out.ptr, out.ptr, half_moved, cudaMemcpyDeviceToDevice, stream));
      },
      stream);
  return row;
}

} // namespace

std::vector<SelectPattern> parse_select_patterns(std::string_view list) {
  if (list.empty()) throw UsageError("--select: expected flags:P or clustered:P, comma-separated");
  std::vector<SelectPattern> v;
  for (std::string_view item : detail::split(list, ','))
    v.push_back(parse_pattern(item));
  return v;
}

std::vector<SelectBenchRow> run_select_bench(const std::vector<DataType>& types,
                                             const std::vector<SelectPattern>& patterns,
                                             const std::vector<std::uint64_t>& sizes,
                                             const std::string& db_path,
                                             const std::map<DataType, Policy>& policies,
                                             const std::function<void(const std::string&)>& log) {
  ScannerOptions options;
  options.database = db_path;
  Scanner scanner(options);
  const OwnStream own;
  std::vector<SelectBenchRow> rows;
  for (DataType type : types) {
    const auto given = policies.find(type);
    const Policy* policy = given == policies.end() ? nullptr : &given->second;
    for (const SelectPattern& p : patterns)
      for (std::uint64_t n : sizes) {
        log(fmt::format("select_flagged {} {} n = {}", to_string(type), p.text, n));
        rows.push_back(run_case(scanner, type, policy, p, n, own.stream));
      }
  }
  return rows;
}

double select_bytes_moved(const SelectBenchRow& r) {
  return static_cast<double>(r.n * size_of(r.type) + r.n + r.selected * size_of(r.type));
}

std::string select_bench_markdown(const std::vector<SelectBenchRow>& rows) {
  std::string s =
      "| type | flags | n | selected | scantune us | CUB us | memcpy us | vs CUB | "
      "of memcpy | scantune GB/s | policy |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SelectBenchRow& r : rows) {
    const double moved = select_bytes_moved(r);
    s += fmt::format(
        "| {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f}x | {:.2f}x | {:.1f} | {} |\n",
        to_string(r.type), r.pattern, r.n, r.selected, r.scantune_ns / 1e3, r.cub_ns / 1e3,
        r.memcpy_ns / 1e3, r.cub_ns / r.scantune_ns, r.memcpy_ns / r.scantune_ns,
        moved / r.scantune_ns, r.policy);
  }
  return s;
}

nlohmann::json select_bench_to_json(const std::vector<SelectBenchRow>& rows) {
  nlohmann::json docs = nlohmann::json::array();
  for (const SelectBenchRow& r : rows) {
    if (docs.empty() || docs.back()["type"] != to_string(r.type) ||
        docs.back()["select"] != r.pattern) {
      nlohmann::json series = nlohmann::json::array();
      for (const char* name : {"tuned", "cub", "memcpy"})
        series.push_back({{"name", name}, {"policy", ""}, {"points", nlohmann::json::array()}});
      docs.push_back({{"format", "scantune-bench"},
                      {"version", 1},
                      {"type", to_string(r.type)},
                      {"select", r.pattern},
                      {"sizes", nlohmann::json::array()},
                      {"series", series}});
    }
    nlohmann::json& doc = docs.back();
    doc["sizes"].push_back(r.n);
    const double ns[] = {r.scantune_ns, r.cub_ns, r.memcpy_ns};
    for (std::size_t i = 0; i < 3; ++i)
      doc["series"][i]["points"].push_back({{"size", r.n},
                                            {"ns", ns[i]},
                                            {"gbs", select_bytes_moved(r) / ns[i]},
                                            {"policy", i == 0 ? r.policy : std::string()},
                                            {"selected", r.selected}});
  }
  return docs;
}

} // namespace scantune::tuner
