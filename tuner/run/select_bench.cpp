#include "tuner/run/select_bench.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

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
  const bool known =
      kind == "flags" || kind == "clustered" || kind == "unique" || kind == "partition";
  if (!known || number.empty() || *end != '\0' || !(p.fraction >= 0 && p.fraction <= 1))
    throw UsageError(fmt::format("--select {}: expected flags:P, clustered:P, unique:P or "
                                 "partition:P with P in [0, 1]",
                                 spec));
  p.clustered = kind == "clustered";
  p.how = kind == "unique"      ? Compaction::Unique
          : kind == "partition" ? Compaction::PartitionFlagged
                                : Compaction::SelectFlagged;
  return p;
}

// Flags of items [first, first + count): a counter hash, so any chunk is reproducible.
// For unique, a flag starts a new value there.
void make_flags(const SelectPattern& p, std::uint64_t first, std::vector<std::uint8_t>& out) {
  const auto threshold = static_cast<std::uint64_t>(p.fraction * 18446744073709551615.0);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::uint64_t i = first + k;
    // clustered: runs of 256 items, split at a hashed point, each part drawn once
    const std::uint64_t key = p.clustered ? (i >> 8) * 2 + ((i & 255) < mix64(i >> 8) % 256) : i;
    out[k] = mix64(key ^ 0x5E1EC7ull) < threshold ? 1 : 0;
  }
}

// Unique's input, as words of the item's width: a run id, a new one where make_flags
// flags an item, over the bits of the smallest normal float of the width, so that no
// item is zero and distinct ids stay distinct normal values of any element type of the
// width (up to 2^31 runs). Narrow ids wrap around before they leave the positive normal
// halves and bfloat16s (0x0400 .. 0x7bff) or the positive bytes: neighbours still differ.
template <class W>
void upload_runs(const SelectPattern& p, std::uint64_t n, void* in) {
  constexpr W kFirst = sizeof(W) == 8   ? static_cast<W>(std::uint64_t{1} << 52)
                       : sizeof(W) == 4 ? static_cast<W>(0x00800000u)
                       : sizeof(W) == 2 ? static_cast<W>(0x0400u)
                                        : static_cast<W>(1u);
  constexpr W kLast = sizeof(W) == 2   ? static_cast<W>(0x7bffu)
                      : sizeof(W) == 1 ? static_cast<W>(0x7fu)
                                       : std::numeric_limits<W>::max();
  std::vector<std::uint8_t> starts;
  std::vector<W> words;
  W run = kFirst - 1;
  for (std::uint64_t first = 0; first < n; first += starts.size()) {
    starts.resize(std::min<std::uint64_t>(n - first, 1u << 24));
    words.resize(starts.size());
    make_flags(p, first, starts);
    for (std::size_t k = 0; k < starts.size(); ++k) {
      if (starts[k] || (first == 0 && k == 0))
        run = run == kLast ? kFirst : static_cast<W>(run + 1);
      words[k] = run;
    }
    SCANTUNE_CUDA_TRY(cudaMemcpy(static_cast<W*>(in) + first, words.data(),
                                 words.size() * sizeof(W), cudaMemcpyHostToDevice));
  }
}

// The case's input: a walk of values and the pattern's flags, or unique's runs.
void upload_case(const SelectPattern& p, DataType type, std::uint64_t n, std::uint8_t* in,
                 std::uint8_t* flags, cudaStream_t stream) {
  if (p.how == Compaction::Unique) {
    switch (size_of(type)) {
    case 1:
      upload_runs<std::uint8_t>(p, n, in);
      break;
    case 2:
      upload_runs<std::uint16_t>(p, n, in);
      break;
    case 4:
      upload_runs<std::uint32_t>(p, n, in);
      break;
    default:
      upload_runs<std::uint64_t>(p, n, in);
    }
  } else {
    gpu::fill_input(type, ValueSet::Walk, 1, 0, n, in, stream);
    std::vector<std::uint8_t> chunk;
    for (std::uint64_t first = 0; first < n; first += chunk.size()) {
      chunk.resize(std::min<std::uint64_t>(n - first, 1u << 24));
      make_flags(p, first, chunk);
      SCANTUNE_CUDA_TRY(
          cudaMemcpy(flags + first, chunk.data(), chunk.size(), cudaMemcpyHostToDevice));
    }
  }
  // A copy from pageable memory may return before it lands, and it is not ordered with
  // `stream` (non-blocking): without this the first calls read half-copied inputs.
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
}

// Whether the two outputs agree: the kept items in order; a partition's rejected items
// in order against CUB's reversed tail (compared on the host, once a case).
std::string differences(const SelectPattern& p, DataType type, const std::uint8_t* ours,
                        const std::uint8_t* cub, std::uint64_t n, std::uint64_t kept,
                        cudaStream_t stream) {
  const gpu::CompareResult c = gpu::compare(type, ours, cub, kept, 0.0, stream);
  if (c.mismatches)
    return fmt::format("{} kept items differ from CUB's, the first at {}", c.mismatches, c.first);
  if (p.how != Compaction::PartitionFlagged || kept == n) return "";
  const std::size_t w = size_of(type), tail = (n - kept) * w;
  std::vector<std::uint8_t> a(tail), b(tail);
  SCANTUNE_CUDA_TRY(cudaMemcpy(a.data(), ours + kept * w, tail, cudaMemcpyDeviceToHost));
  SCANTUNE_CUDA_TRY(cudaMemcpy(b.data(), cub + kept * w, tail, cudaMemcpyDeviceToHost));
  const std::uint64_t rejected = n - kept;
  for (std::uint64_t j = 0; j < rejected; ++j)
    if (std::memcmp(&a[j * w], &b[(rejected - 1 - j) * w], w) != 0)
      return fmt::format("rejected item {} differs from CUB's (reversed) one", j);
  return "";
}

// The scanner's compaction, through `policy` where one is given (null: the dispatch's).
void compact_with(Scanner& scanner, DataType type, Compaction how, const Policy* policy,
                  const void* in, const std::uint8_t* flags, void* out, std::uint64_t n,
                  std::uint64_t* count, cudaStream_t stream) {
  ScanRequest r = ScanRequest::compaction_of(type, detail::compaction_heads(how), in,
                                             how == Compaction::Unique ? nullptr : flags, out, n,
                                             count, stream);
  r.policy = policy;
  detail::ScannerAccess::scan(scanner, r);
}

SelectBenchRow run_case(Scanner& scanner, DataType type, const Policy* policy,
                        const SelectPattern& pattern, std::uint64_t n, cudaStream_t stream) {
  const std::size_t w = size_of(type);
  const Compaction how = pattern.how;
  // Outputs hold n items plus n bytes: the memcpy moves up to n w + n / 2 bytes each way.
  Device<std::uint8_t> in(n * w), flags(n), out(n * w + n), cub_out(n * w + n);
  Device<std::uint64_t> counts(2);
  upload_case(pattern, type, n, in.ptr, flags.ptr, stream);
  const std::uint8_t* cub_flags = how == Compaction::Unique ? nullptr : flags.ptr;
  std::size_t temp_bytes = 0;
  SCANTUNE_CUDA_TRY(gpu::cub_baseline::compact(how, w, in.ptr, cub_flags, cub_out.ptr,
                                               counts.ptr + 1, n, nullptr, temp_bytes, stream));
  Device<std::uint8_t> temp(temp_bytes);
  auto ours = [&] {
    compact_with(scanner, type, how, policy, in.ptr, flags.ptr, out.ptr, n, counts.ptr, stream);
  };
  auto cub = [&] {
    SCANTUNE_CUDA_TRY(gpu::cub_baseline::compact(how, w, in.ptr, cub_flags, cub_out.ptr,
                                                 counts.ptr + 1, n, temp.ptr, temp_bytes, stream));
  };
  ours();
  cub();
  std::uint64_t got[2] = {};
  SCANTUNE_CUDA_TRY(cudaMemcpyAsync(got, counts.ptr, sizeof got, cudaMemcpyDeviceToHost, stream));
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  if (got[0] != got[1])
    throw Error(fmt::format("{} {} n = {}: {} kept, CUB {}", to_string(type), pattern.text, n,
                            got[0], got[1]));
  const std::string why = differences(pattern, type, out.ptr, cub_out.ptr, n, got[0], stream);
  if (!why.empty())
    throw Error(fmt::format("{} {} n = {}: {}", to_string(type), pattern.text, n, why));
  const std::string ran = policy ? policy->key() : scanner.select_plan(type, how, n).policy;
  SelectBenchRow row{type, pattern.text, n, got[0], 0, 0, 0, ran, how};
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
  if (list.empty())
    throw UsageError(
        "--select: expected flags:P, clustered:P, unique:P or partition:P, comma-separated");
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
        log(fmt::format("compaction {} {} n = {}", to_string(type), p.text, n));
        rows.push_back(run_case(scanner, type, policy, p, n, own.stream));
      }
  }
  return rows;
}

double select_bytes_moved(const SelectBenchRow& r) {
  const std::uint64_t flag_bytes = r.how == Compaction::Unique ? 0 : r.n;
  const std::uint64_t written = r.how == Compaction::PartitionFlagged ? r.n : r.selected;
  return static_cast<double>((r.n + written) * size_of(r.type) + flag_bytes);
}

std::string select_bench_markdown(const std::vector<SelectBenchRow>& rows) {
  std::string s =
      "| type | pattern | n | selected | scantune us | CUB us | memcpy us | vs CUB | "
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
