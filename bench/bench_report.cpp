// bench/bench_report.cpp: markdown tables, CSV and JSON for scantune_bench.
#include "bench_report.hpp"

#include <cmath>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench_options.hpp"

namespace bench {
namespace {

bool is_pow2(std::size_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

int log2_of(std::size_t n) {
  int k = 0;
  while ((std::size_t{1} << k) < n)
    ++k;
  return k;
}

std::string mib(std::size_t bytes) {
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}
std::string gib(std::size_t bytes) {
  return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
}

std::string cell_gbps(const Row& r, Method k) {
  if (!r.m[k].error.empty()) return "error";
  if (!r.m[k].valid) return "-";
  return fmt::format("{:.1f}", r.gbps(k));
}

std::string cell_us(const Row& r, Method k) {
  if (!r.m[k].error.empty()) return "error";
  if (!r.m[k].valid) return "-";
  return fmt::format("{:.2f}", r.m[k].ns_per_call / 1000.0);
}

std::string cell_ratio(const Row& r, Method num, Method den) {
  if (!r.m[num].valid || !r.m[den].valid || r.gbps(den) <= 0) return "-";
  return fmt::format("{:.2f}", r.gbps(num) / r.gbps(den));
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s)
    q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

nlohmann::json measurement_json(const Row& r, Method k) {
  const Measurement& m = r.m[k];
  nlohmann::json j;
  j["valid"] = m.valid;
  if (m.valid) {
    j["ns_per_call"] = m.ns_per_call;
    j["min_ns_per_call"] = m.min_ns;
    j["max_ns_per_call"] = m.max_ns;
    j["gbps"] = r.gbps(k);
    j["calls_per_batch"] = m.calls_per_batch;
    j["batches"] = m.batches;
  }
  if (!m.error.empty()) j["error"] = m.error;
  return j;
}

} // namespace

const char* method_name(Method m) {
  switch (m) {
  case kMemcpy:
    return "memcpy";
  case kCub:
    return "cub";
  case kPolicy:
    return "scantune";
  case kDispatch:
    return "dispatch";
  default:
    return "?";
  }
}

double Row::gbps(Method k) const {
  if (!m[k].valid || m[k].ns_per_call <= 0) return 0;
  return bytes_per_call() / m[k].ns_per_call; // bytes per ns == GB/s
}

std::string size_label(std::size_t n) {
  return is_pow2(n) ? fmt::format("2^{}", log2_of(n)) : std::to_string(n);
}

std::string cuda_version_string(int v) {
  if (v <= 0) return "unknown";
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

void print_preamble(std::FILE* f, const RunInfo& info) {
  fmt::print(f, "# scantune benchmark: {} sum\n\n", info.kind);
  fmt::print(f, "- device {}: {} (sm_{}{}, {} SMs, L2 {}, {} memory, {} free at start", info.device,
             info.device_name, info.cc_major, info.cc_minor, info.sm_count, mib(info.l2_bytes),
             gib(info.mem_total), gib(info.mem_free));
  if (info.peak_gbps > 0) fmt::print(f, ", theoretical peak {:.0f} GB/s", info.peak_gbps);
  fmt::print(f, ")\n");
  fmt::print(f, "- CUDA driver {}, runtime {}, CUB {}.{}.{}\n",
             cuda_version_string(info.driver_version), cuda_version_string(info.runtime_version),
             info.cub_version / 100000, info.cub_version / 100 % 1000, info.cub_version % 100);
  fmt::print(f, "- date: {}\n", info.date);
  fmt::print(f, "- command: `{}`\n", info.command);
  fmt::print(f, "- input: {}\n", info.input);
  fmt::print(
      f,
      "- timing: CUDA events around a batch of back-to-back calls on one stream; the median of "
      "{} batch averages is reported; small sizes repeat the call until a batch takes >= {:g} ms; "
      "warm-up calls (including scantune's first call, which compiles the kernel with NVRTC) are "
      "not timed; the four methods' batches are interleaved\n",
      info.batches, info.min_batch_ms);
  if (info.hot)
    fmt::print(f,
               "- buffers: HOT, one input/output pair reused by every call (sizes that fit in the "
               "{} L2 run from cache)\n",
               mib(info.l2_bytes));
  else
    fmt::print(f,
               "- buffers: ROTATING, {} (column `pairs`), so that sizes below L2 are not purely "
               "cache-resident; `--hot` uses one pair\n",
               info.rotation);
  fmt::print(f,
             "- GB/s counts bytes read + written: 2 * n * sizeof(T) per call (1 GB = 1e9 bytes)\n");
  fmt::print(f, "- memcpy: cudaMemcpyAsync device to device of the same n elements (the bandwidth "
                "ceiling)\n");
  fmt::print(
      f,
      "- CUB: cub::DeviceScan::{}Sum with its temporary storage queried and allocated once per "
      "size, outside the timed loop (that is how CUB is used efficiently)\n",
      info.kind == "exclusive" ? "Exclusive" : "Inclusive");
  fmt::print(
      f, "- scantune: Scanner::scan_with(policy, ...) with the hand-picked policy named above each "
         "table; `x CUB` and `x memcpy` are its throughput relative to those columns\n");
  std::string pol;
  for (const auto& [t, key] : info.policies)
    pol += fmt::format("{}{} `{}`", pol.empty() ? "" : ", ", type_name(t), key);
  fmt::print(f, "- scantune policies (hand-picked; `--policy` overrides): {}\n", pol);
  fmt::print(f,
             "- dispatch: scantune's default call (Scanner::{}_scan), which runs the policy the "
             "scanner chooses (column `dispatch policy`)\n",
             info.kind);
  fmt::print(f, "- check: {}\n\n",
             info.verify
                 ? "each result (CUB, scantune, dispatch) was compared with a host reference "
                   "once per size, before timing"
                 : "results NOT verified (--no-verify)");
  std::fflush(f);
}

void print_table_header(std::FILE* f, scantune::DataType t, const std::string& policy) {
  fmt::print(f, "## {} (scantune policy `{}`)\n\n", type_name(t), policy);
  fmt::print(
      f, "| n | memcpy GB/s | CUB GB/s | scantune GB/s | scantune us/call | CUB us/call | x CUB | "
         "x memcpy | dispatch GB/s | dispatch policy | pairs | check |\n");
  fmt::print(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|---:|:---:|\n");
  std::fflush(f);
}

void print_row(std::FILE* f, const Row& r) {
  fmt::print(f, "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", size_label(r.n),
             cell_gbps(r, kMemcpy), cell_gbps(r, kCub), cell_gbps(r, kPolicy), cell_us(r, kPolicy),
             cell_us(r, kCub), cell_ratio(r, kPolicy, kCub), cell_ratio(r, kPolicy, kMemcpy),
             cell_gbps(r, kDispatch),
             r.dispatch_policy.empty() ? std::string("-") : "`" + r.dispatch_policy + "`", r.pairs,
             r.check);
  std::fflush(f);
}

void print_skips(std::FILE* f, const std::vector<Skip>& skips, scantune::DataType t) {
  bool any = false;
  for (const Skip& s : skips) {
    if (s.type != t) continue;
    if (!any) fmt::print(f, "\nNot run:\n");
    any = true;
    fmt::print(f, "- n = {}: {}\n", size_label(s.n), s.reason);
  }
  fmt::print(f, "\n");
  std::fflush(f);
}

void print_summary(std::FILE* f, const std::vector<Row>& rows) {
  // Per type: geometric mean of the ratios over the sizes that are clearly
  // bandwidth-bound (n * sizeof(T) >= 64 MiB), and the ratios at the largest size.
  std::map<scantune::DataType, std::vector<const Row*>> by_type;
  for (const Row& r : rows)
    by_type[r.type].push_back(&r);
  if (by_type.empty()) return;
  fmt::print(f, "## Summary\n\n");
  fmt::print(f,
             "| type | sizes | geomean x CUB (n*sizeof(T) >= 64 MiB) | geomean x memcpy (same) | "
             "x CUB at largest n | sizes with failures |\n");
  fmt::print(f, "|:---|---:|---:|---:|---:|---:|\n");
  for (const auto& [type, list] : by_type) {
    double log_cub = 0, log_mem = 0;
    int count = 0, failures = 0;
    const Row* largest = nullptr;
    for (const Row* r : list) {
      bool failed = r->check.rfind("FAIL", 0) == 0;
      for (int k = 0; k < kNumMethods; ++k)
        failed = failed || !r->m[k].error.empty();
      if (failed) ++failures;
      if (!largest || r->n > largest->n) largest = r;
      if (r->n * r->elem_bytes < (std::size_t{64} << 20)) continue;
      if (!r->m[kPolicy].valid || !r->m[kCub].valid || !r->m[kMemcpy].valid) continue;
      log_cub += std::log(r->gbps(kPolicy) / r->gbps(kCub));
      log_mem += std::log(r->gbps(kPolicy) / r->gbps(kMemcpy));
      ++count;
    }
    const std::string gc = count ? fmt::format("{:.3f}", std::exp(log_cub / count)) : "-";
    const std::string gm = count ? fmt::format("{:.3f}", std::exp(log_mem / count)) : "-";
    fmt::print(f, "| {} | {} | {} | {} | {} | {} |\n", type_name(type), list.size(), gc, gm,
               largest
                   ? cell_ratio(*largest, kPolicy, kCub) + " (n = " + size_label(largest->n) + ")"
                   : std::string("-"),
               failures);
  }
  fmt::print(f, "\n");
  std::fflush(f);
}

bool write_csv(const std::string& path, const RunInfo& info, const std::vector<Row>& rows) {
  std::ofstream out(path);
  if (!out) {
    fmt::print(stderr, "scantune_bench: cannot open {} for writing\n", path);
    return false;
  }
  out << "device,type,kind,n,log2n,elem_bytes,bytes_per_call,mode,pairs,check,policy,dispatch_"
         "policy,"
         "cub_temp_bytes";
  for (int k = 0; k < kNumMethods; ++k) {
    const char* m = method_name(static_cast<Method>(k));
    out << ',' << m << "_ns," << m << "_gbps," << m << "_min_ns," << m << "_max_ns," << m
        << "_calls_per_batch";
  }
  out << ",x_cub,x_memcpy,dispatch_x_cub\n";
  for (const Row& r : rows) {
    out << csv_escape(info.device_name) << ',' << type_name(r.type) << ',' << info.kind << ','
        << r.n << ',' << (is_pow2(r.n) ? std::to_string(log2_of(r.n)) : std::string()) << ','
        << r.elem_bytes << ',' << fmt::format("{:.0f}", r.bytes_per_call()) << ','
        << (info.hot ? "hot" : "rotating") << ',' << r.pairs << ',' << r.check << ','
        << csv_escape(r.policy) << ',' << csv_escape(r.dispatch_policy) << ',' << r.cub_temp_bytes;
    for (int k = 0; k < kNumMethods; ++k) {
      const Measurement& m = r.m[k];
      if (m.valid)
        out << fmt::format(",{:.1f},{:.2f},{:.1f},{:.1f},{}", m.ns_per_call,
                           r.gbps(static_cast<Method>(k)), m.min_ns, m.max_ns, m.calls_per_batch);
      else
        out << ",,,,,";
    }
    const auto ratio = [&](Method a, Method b) {
      return (r.m[a].valid && r.m[b].valid) ? fmt::format("{:.4f}", r.gbps(a) / r.gbps(b))
                                            : std::string();
    };
    out << ',' << ratio(kPolicy, kCub) << ',' << ratio(kPolicy, kMemcpy) << ','
        << ratio(kDispatch, kCub) << '\n';
  }
  out.flush();
  if (!out) {
    fmt::print(stderr, "scantune_bench: error writing {}\n", path);
    return false;
  }
  return true;
}

bool write_json(const std::string& path, const RunInfo& info, const std::vector<Row>& rows,
                const std::vector<Skip>& skips) {
  nlohmann::json j;
  j["device"] = {{"ordinal", info.device},
                 {"name", info.device_name},
                 {"compute_capability", fmt::format("{}.{}", info.cc_major, info.cc_minor)},
                 {"sm_count", info.sm_count},
                 {"l2_bytes", info.l2_bytes},
                 {"memory_bytes", info.mem_total},
                 {"memory_free_bytes_at_start", info.mem_free},
                 {"theoretical_peak_gbps", info.peak_gbps}};
  j["versions"] = {{"driver", cuda_version_string(info.driver_version)},
                   {"runtime", cuda_version_string(info.runtime_version)},
                   {"cub", info.cub_version}};
  j["date"] = info.date;
  j["command"] = info.command;
  j["config"] = {{"kind", info.kind},
                 {"op", "sum"},
                 {"mode", info.hot ? "hot" : "rotating"},
                 {"rotation", info.hot ? std::string("one pair") : info.rotation},
                 {"batches", info.batches},
                 {"min_batch_ms", info.min_batch_ms},
                 {"verify", info.verify},
                 {"input", info.input},
                 {"statistic", "median of batch averages"},
                 {"gbps_bytes", "2 * n * sizeof(T) per call, 1 GB = 1e9 bytes"},
                 {"cub_temp_storage", "allocated once per size outside the timed loop"}};
  nlohmann::json pol = nlohmann::json::object();
  for (const auto& [t, key] : info.policies)
    pol[type_name(t)] = key;
  j["config"]["policies"] = pol;

  nlohmann::json results = nlohmann::json::array();
  for (const Row& r : rows) {
    nlohmann::json e;
    e["type"] = type_name(r.type);
    e["n"] = r.n;
    if (is_pow2(r.n)) e["log2n"] = log2_of(r.n);
    e["elem_bytes"] = r.elem_bytes;
    e["bytes_per_call"] = r.bytes_per_call();
    e["pairs"] = r.pairs;
    e["check"] = r.check;
    e["policy"] = r.policy;
    e["dispatch_policy"] = r.dispatch_policy;
    e["cub_temp_bytes"] = r.cub_temp_bytes;
    for (int k = 0; k < kNumMethods; ++k)
      e[method_name(static_cast<Method>(k))] = measurement_json(r, static_cast<Method>(k));
    if (r.m[kPolicy].valid && r.m[kCub].valid) e["x_cub"] = r.gbps(kPolicy) / r.gbps(kCub);
    if (r.m[kPolicy].valid && r.m[kMemcpy].valid) e["x_memcpy"] = r.gbps(kPolicy) / r.gbps(kMemcpy);
    results.push_back(std::move(e));
  }
  j["results"] = std::move(results);
  nlohmann::json sk = nlohmann::json::array();
  for (const Skip& s : skips)
    sk.push_back({{"type", type_name(s.type)}, {"n", s.n}, {"reason", s.reason}});
  j["skipped"] = std::move(sk);

  std::ofstream out(path);
  if (!out) {
    fmt::print(stderr, "scantune_bench: cannot open {} for writing\n", path);
    return false;
  }
  out << j.dump(2) << '\n';
  out.flush();
  if (!out) {
    fmt::print(stderr, "scantune_bench: error writing {}\n", path);
    return false;
  }
  return true;
}

} // namespace bench
