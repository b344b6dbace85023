// bench/bench_options.cpp: command-line parsing for scantune_bench (CLI11).
#include "bench_options.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include <CLI/CLI.hpp>

namespace bench {
namespace {

struct TypeEntry {
  scantune::DataType type;
  const char* name;
  std::size_t size;
};
constexpr TypeEntry kTypes[] = {
    {scantune::DataType::Int32, "int32", 4},     {scantune::DataType::UInt32, "uint32", 4},
    {scantune::DataType::Int64, "int64", 8},     {scantune::DataType::UInt64, "uint64", 8},
    {scantune::DataType::Float32, "float32", 4}, {scantune::DataType::Float64, "float64", 8},
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    parts.emplace_back(s.substr(start, pos == std::string_view::npos ? s.npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return c != ' ' && c != '\t'; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

scantune::DataType parse_type(const std::string& s) {
  std::string t = s;
  if (t == "float") t = "float32";
  if (t == "double") t = "float64";
  if (t == "int") t = "int32";
  for (const auto& e : kTypes)
    if (t == e.name) return e.type;
  throw UsageError("unknown type '" + s + "' (int32, uint32, int64, uint64, float32, float64)");
}

unsigned long long parse_uint(const std::string& s, const char* what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(std::string("bad ") + what + " '" + s + "' (expected a non-negative integer)");
  try {
    return std::stoull(s);
  } catch (const std::exception&) {
    throw UsageError(std::string("bad ") + what + " '" + s + "'");
  }
}

/// "10:30", "10:30:2", "20", "10,16,20:24" -> element counts 2^k.
std::vector<std::size_t> parse_log2_sizes(const std::string& spec) {
  std::vector<std::size_t> sizes;
  for (const std::string& raw : split(spec, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    const std::vector<std::string> f = split(item, ':');
    if (f.size() > 3) throw UsageError("bad --sizes item '" + item + "' (A, A:B or A:B:STEP)");
    const unsigned long long a = parse_uint(trim(f[0]), "--sizes bound");
    const unsigned long long b = f.size() >= 2 ? parse_uint(trim(f[1]), "--sizes bound") : a;
    const unsigned long long step = f.size() == 3 ? parse_uint(trim(f[2]), "--sizes step") : 1;
    if (step == 0) throw UsageError("--sizes step must be positive");
    if (a > b) throw UsageError("bad --sizes range '" + item + "' (A must be <= B)");
    if (b > 36)
      throw UsageError("--sizes log2 " + std::to_string(b) + " is too large (at most 36)");
    for (unsigned long long k = a; k <= b; k += step)
      sizes.push_back(std::size_t{1} << k);
  }
  return sizes;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./:=,+%@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s)
    q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

} // namespace

const char* type_name(scantune::DataType t) {
  for (const auto& e : kTypes)
    if (e.type == t) return e.name;
  return "?";
}

std::size_t type_size(scantune::DataType t) {
  for (const auto& e : kTypes)
    if (e.type == t) return e.size;
  return 0;
}

const char* kind_name(scantune::ScanKind k) {
  return k == scantune::ScanKind::Inclusive ? "inclusive" : "exclusive";
}

std::string policy_key_for(const Options& o, scantune::DataType t) {
  if (auto it = o.policy_for.find(t); it != o.policy_for.end()) return it->second;
  if (!o.policy_all.empty()) return o.policy_all;
  return type_size(t) == 8 ? kDefaultPolicy8Byte : kDefaultPolicy4Byte;
}

int parse_options(int argc, char** argv, Options& out) {
  CLI::App app{
      "scantune_bench: prefix-sum throughput of scantune against cudaMemcpy (device to device)\n"
      "and CUB DeviceScan, on the same GPU in the same run. Prints markdown tables to stdout."};
  app.get_formatter()->column_width(30);

  std::string types = "int32,float32,int64,float64";
  std::string sizes = "10:30";
  std::string counts;
  std::string kind = "inclusive";
  std::vector<std::string> policies;
  bool no_verify = false;

  app.add_option("--types", types,
                 "Comma-separated element types: int32, uint32, int64, uint64, float32, float64")
      ->capture_default_str();
  app.add_option(
         "--sizes", sizes,
         "log2 sizes: A:B[:STEP] ranges and single values, comma-separated (e.g. 10:30:2,27)")
      ->capture_default_str();
  app.add_option("--n", counts,
                 "Explicit element counts, comma-separated (e.g. 1000000,12345678); replaces "
                 "--sizes unless --sizes is also given");
  app.add_option("--kind", kind, "inclusive or exclusive (exclusive: init 0, CUB ExclusiveSum)")
      ->check(CLI::IsMember({"inclusive", "exclusive"}))
      ->capture_default_str();
  app.add_option("--policy", policies,
                 "Policy of the 'scantune' column: KEY for every type, or TYPE=KEY (repeatable). "
                 "Default: " +
                     std::string(kDefaultPolicy4Byte) + " for 4-byte types, " +
                     kDefaultPolicy8Byte + " for 8-byte types");
  app.add_flag("--hot", out.hot,
               "Use one input/output buffer pair (sizes below L2 then run from cache); the default "
               "rotates among several pairs");
  app.add_option("--pairs", out.pairs, "Number of rotating buffer pairs (0 = automatic)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--rotate-mib", out.rotate_mib,
                 "Footprint in MiB the automatic rotation aims for (0 = 4 x L2)")
      ->check(CLI::Range(0.0, 1.0e6));
  app.add_option("--batches", out.batches, "Timed batches per measurement (median is reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--min-batch-ms", out.min_batch_ms,
                 "Batches of small sizes repeat the call until a batch takes at least this long")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  app.add_option("--max-calls", out.max_calls_per_batch, "Upper bound on calls per batch")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  app.add_option("--device", out.device, "CUDA device ordinal")->capture_default_str();
  app.add_flag("--no-verify", no_verify, "Skip the check of the results against a host reference");
  app.add_option("--seed", out.seed, "Seed of the random input")->capture_default_str();
  app.add_option("--csv", out.csv_path, "Also write the results as CSV to FILE");
  app.add_option("--json", out.json_path, "Also write the results (and the setup) as JSON to FILE");
  app.add_flag("-q,--quiet", out.quiet, "No progress lines on stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    out.verify = !no_verify;
    out.kind = kind == "exclusive" ? scantune::ScanKind::Exclusive : scantune::ScanKind::Inclusive;

    out.types.clear();
    for (const std::string& raw : split(types, ',')) {
      const std::string t = trim(raw);
      if (t.empty()) continue;
      const scantune::DataType dt = parse_type(t);
      if (std::find(out.types.begin(), out.types.end(), dt) == out.types.end())
        out.types.push_back(dt);
    }
    if (out.types.empty()) throw UsageError("--types names no type");

    out.sizes.clear();
    const bool sizes_given = app.count("--sizes") > 0;
    if (!counts.empty()) {
      for (const std::string& raw : split(counts, ',')) {
        const std::string c = trim(raw);
        if (c.empty()) continue;
        const unsigned long long v = parse_uint(c, "--n count");
        if (v == 0) throw UsageError("--n counts must be positive");
        out.sizes.push_back(static_cast<std::size_t>(v));
      }
    }
    if (counts.empty() || sizes_given) {
      const std::vector<std::size_t> s = parse_log2_sizes(sizes);
      out.sizes.insert(out.sizes.end(), s.begin(), s.end());
    }
    // Drop repeats, keep the order given.
    std::vector<std::size_t> unique;
    for (std::size_t n : out.sizes)
      if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
    out.sizes = std::move(unique);
    if (out.sizes.empty()) throw UsageError("no sizes to run");

    for (const std::string& p : policies) {
      const std::size_t eq = p.find('=');
      if (eq == std::string::npos) {
        if (!out.policy_all.empty() && out.policy_all != p)
          throw UsageError("--policy KEY given twice; use TYPE=KEY for per-type policies");
        out.policy_all = trim(p);
      } else {
        out.policy_for[parse_type(trim(p.substr(0, eq)))] = trim(p.substr(eq + 1));
      }
    }
    if (out.hot && out.pairs > 1) throw UsageError("--hot and --pairs > 1 contradict each other");
    if (out.hot) out.pairs = 1;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "scantune_bench: %s\n", e.what());
    return kExitUsage;
  }

  out.command_line.clear();
  for (int i = 0; i < argc; ++i) {
    if (i) out.command_line += ' ';
    out.command_line += shell_quote(argv[i]);
  }
  return -1;
}

} // namespace bench
