// Holds every policy-derived fact to its recorded value: for each policy the default
// and `all` search spaces enumerate and each policy of the built-in table, over all
// element types and both kinds, the key and its parse, validation, shared memory,
// launch threads and geometry, minimum architecture, and the generated source and
// name expressions; and the enumerations themselves. A refactor of the policy, its
// descriptors, code generation or the search space must leave all of it unchanged.
// On a mismatch, set SCANTUNE_GOLDEN_DUMP=<file> to write the whole dump and compare
// it against one written from the previous commit.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/hash.hpp"
#include "codegen.hpp"
#include "launch.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

constexpr DataType kTypes[] = {DataType::Int32,  DataType::UInt32,  DataType::Int64,
                               DataType::UInt64, DataType::Float32, DataType::Float64};
constexpr std::size_t kSizes[] = {1, 1000, std::size_t{1} << 20, std::size_t{3} << 25};

// Section -> text; each algorithm has its own section, the enumerations another.
using Dump = std::map<std::string, std::string>;

std::vector<std::string> builtin_keys() {
  std::ifstream in(SCANTUNE_SOURCE_DIR "/runtime/builtin/h100_sm90.json");
  const auto json = nlohmann::json::parse(in);
  std::set<std::string> keys;
  for (const auto& row : json.at("entries"))
    if (row.value("problem", std::string()).empty()) { // flat scans: what the hashes recorded
      keys.insert(row.at("policy").get<std::string>());
      if (row.contains("lower_policy")) keys.insert(row.at("lower_policy").get<std::string>());
    }
  return {keys.begin(), keys.end()};
}

SpaceOptions all_space() {
  SpaceOptions s = default_space();
  apply_algorithms(s, "all");
  return s;
}

// The generated source without its first line (the templates' hash, which any
// template edit changes).
std::string generated(const Policy& p, DataType t) {
  std::vector<detail::KernelSpec> specs(2);
  for (int k = 0; k < 2; ++k) {
    specs[k].policy = p;
    specs[k].type = t;
    specs[k].kind = k == 0 ? ScanKind::Inclusive : ScanKind::Exclusive;
  }
  const detail::GeneratedSource g = detail::generate(specs);
  std::string out = g.name + "\n" + g.source.substr(g.source.find('\n') + 1);
  for (const auto& names : g.name_expressions)
    for (const auto& n : names)
      out += n + "\n";
  return out;
}

std::string geometry(const Policy& p, DataType t) {
  std::string out = fmt::format("align {} needs_resident {} {}\n", detail::tile_alignment(p, t),
                                detail::geometry_needs_resident(p, false),
                                detail::geometry_needs_resident(p, true));
  for (std::size_t n : kSizes)
    for (bool by_block : {false, true}) {
      const std::size_t tiles =
          p.algorithm == Algorithm::Sequential ? 1 : detail::tile_count(p, n, 1);
      const auto g = detail::launch_geometry(p, tiles, 264, by_block);
      out += fmt::format("n {} by_block {} tiles {} flags {}:", n, by_block, tiles, g.flags);
      for (int k = 0; k < g.count; ++k)
        out += fmt::format(" {}x{}", g.launches[k].grid, g.launches[k].block);
      out += "\n";
    }
  return out;
}

std::string describe(const Policy& p, DataType t) {
  const auto why = p.invalid_reason(t);
  std::string out = fmt::format(
      "{} {} | parse {} | {} | shared {} dynamic {} threads {} arch {} tile {} flags {}{}{}\n",
      p.key(), to_string(t), Policy::parse(p.key()).key(), why ? *why : "valid", p.shared_bytes(t),
      p.dynamic_shared_bytes(t), p.launch_threads(), p.min_arch(), p.tile_items(),
      p.uses_tile_status(), p.one_tile_per_block(), p.stages_tiles());
  return out + geometry(p, t) + generated(p, t);
}

Dump make_dump() {
  Dump dump;
  std::vector<Policy> policies;
  std::set<std::string> seen;
  auto add = [&](const Policy& p) {
    if (seen.insert(p.key()).second) policies.push_back(p);
  };
  for (const SpaceOptions& space : {default_space(), all_space()})
    for (DataType t : kTypes) {
      std::string& text = dump["space"];
      text += fmt::format("enumerate {} {}\n", to_string(t), space.algorithms.size());
      for (const Policy& p : enumerate(t, space)) {
        text += p.key() + "\n";
        add(p);
      }
    }
  for (const std::string& key : builtin_keys()) {
    const Policy p = Policy::parse(key);
    add(p);
    std::string& text = dump["space"];
    text += fmt::format("neighbours {}:", key);
    for (const Policy& q : neighbours(p, DataType::Int32, default_space()))
      text += " " + q.key();
    text += fmt::format("\napplies {} {} {}\n", applies_at(p, 1024, default_space()),
                        applies_at(p, 1u << 22, default_space()),
                        applies_at(p, 1u << 30, default_space()));
  }
  for (const Policy& p : policies)
    for (DataType t : kTypes)
      dump[std::string(to_string(p.algorithm))] += describe(p, t);
  return dump;
}

// sha256 of each section, recorded from the code base before the algorithm and
// field descriptors replaced the per-algorithm switches ("space" since, whenever the
// built-in table's set of keys (lower winners included) or the grid's neighbours
// change, and "lookback_pipelined" since that algorithm's 384-thread and 10-item shapes
// joined the default space, "single_block" since the table holds a residency
// neighbour's `.mb8` of it, and "lookback_bulk" since two tiles a ticket joined the
// default space: new policies only, every other section unchanged).
const std::map<std::string, std::string> kGolden = {
    {"chained", "f1e3841845fa820e5f8c21b330897ef6561baba0411cfe1c0605bb42198ff8a1"},
    {"lookback_bulk", "e6c5af2c20d0d9d9605412216db893a09502c972f728d59b3391ca42e96628a2"},
    {"lookback_pipelined", "58f3a86b68868103f72e133a829859cbf74ac8311b2870e18344ace26ff444f4"},
    {"lookback_thread", "599b78138fb6941019a0aadff13d258a71c07e6f64b543e7a37aa151fbc1c5f3"},
    {"lookback_warp", "906dbe80d48126ee85fcd67a40899f8b2672bc9960b35286378f7078e535ae29"},
    {"reduce_then_scan", "7705e332417a6edb4f79ff904e3526deb2aab82bf872de54a3bc4e6d55e3b63c"},
    {"sequential", "865168574fedb594d14c433ce991a020eb4196f13ee752a175ddc037c317defc"},
    {"single_block", "6af7e85929586a6aa8d4e919af03e2c218f3a34b105d1c0d4e262230f7429c4a"},
    {"space", "e3ad55b8c32305a4773a4684013db67e1a3e8dc9a189aefbfae7089776a9d162"},
};

TEST(PolicyGolden, EveryPolicyFactIsUnchanged) {
  const Dump dump = make_dump();
  if (const char* path = std::getenv("SCANTUNE_GOLDEN_DUMP")) {
    std::ofstream out(path);
    for (const auto& [section, text] : dump)
      out << "=== " << section << "\n" << text;
  }
  std::string table;
  for (const auto& [section, text] : dump)
    table += fmt::format("    {{\"{}\", \"{}\"}},\n", section, sha256_hex(text));
  for (const auto& [section, text] : dump) {
    auto golden = kGolden.find(section);
    ASSERT_NE(golden, kGolden.end()) << "no golden hash for " << section << "; table:\n" << table;
    EXPECT_EQ(sha256_hex(text), golden->second) << section << "; table:\n" << table;
  }
  EXPECT_EQ(dump.size(), kGolden.size()) << table;
}

} // namespace
} // namespace scantune::tuner
