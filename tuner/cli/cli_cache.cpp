// `scantune cache info|clear`: inspect and empty the compiled-kernel cache.
//
//   scantune cache info [--dir DIR] [--json]
//   scantune cache clear [--dir DIR]
//
// Without --dir, the directory is the one the runtime uses (docs/kernel-cache.md):
// $SCANTUNE_KERNEL_CACHE, else $XDG_CACHE_HOME/scantune, else ~/.cache/scantune.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cache/kernel_cache.hpp"
#include "tuner/cli/cli.hpp"

namespace scantune::cli {
namespace {

struct CacheOptions {
  std::string dir;
  bool json = false;
};

/// Where the directory came from, for humans.
std::string directory_source(const std::string& explicit_dir) {
  if (!explicit_dir.empty()) return "--dir";
  const char* env = std::getenv("SCANTUNE_KERNEL_CACHE");
  if (env != nullptr && env[0] != '\0') return "$SCANTUNE_KERNEL_CACHE";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return "$XDG_CACHE_HOME";
  return "$HOME";
}

/// Why the cache is disabled (resolve_directory() gave nullopt).
std::string disabled_reason(const std::string& explicit_dir) {
  if (explicit_dir == "off") return "--dir off";
  const char* env = std::getenv("SCANTUNE_KERNEL_CACHE");
  if (env != nullptr && std::string(env) == "off") return "SCANTUNE_KERNEL_CACHE=off";
  return "no home directory to put it in";
}

std::string human_size(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (v >= 1024.0 && unit < 3) {
    v /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {} ({} bytes)", v, kUnits[unit], bytes);
}

void run_info(const CacheOptions& opts) {
  std::optional<KernelCache> cache = KernelCache::open_default(opts.dir);
  if (!cache) {
    if (opts.json) {
      nlohmann::json j = {{"enabled", false},
                          {"directory", nullptr},
                          {"reason", disabled_reason(opts.dir)},
                          {"entries", 0},
                          {"total_bytes", 0},
                          {"max_bytes", KernelCache::default_max_bytes()}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("kernel cache: disabled ({})\n", disabled_reason(opts.dir));
    }
    return;
  }
  KernelCacheInfo info = cache->info();
  if (opts.json) {
    nlohmann::json j = {{"enabled", info.enabled},
                        {"directory", info.directory},
                        {"source", directory_source(opts.dir)},
                        {"entries", info.entries},
                        {"total_bytes", info.total_bytes},
                        {"max_bytes", info.max_bytes}};
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("directory: {} (from {})\n", info.directory, directory_source(opts.dir));
  fmt::print("entries:   {}\n", info.entries);
  fmt::print("size:      {}\n", human_size(info.total_bytes));
  fmt::print("bound:     {}\n",
             info.max_bytes == 0 ? std::string("unbounded") : human_size(info.max_bytes));
}

void run_clear(const CacheOptions& opts) {
  std::optional<KernelCache> cache = KernelCache::open_default(opts.dir);
  if (!cache) {
    fmt::print("kernel cache: disabled ({}); nothing to clear (use --dir DIR to clear a "
               "directory)\n",
               disabled_reason(opts.dir));
    return;
  }
  std::size_t removed = cache->clear();
  fmt::print("removed {} {} from {}\n", removed, removed == 1 ? "entry" : "entries",
             cache->directory());
}

} // namespace

void register_cache_commands(CLI::App& app) {
  CLI::App* cache = app.add_subcommand("cache", "Inspect or empty the compiled-kernel cache");
  cache->require_subcommand(1);

  auto info_opts = std::make_shared<CacheOptions>();
  CLI::App* info =
      cache->add_subcommand("info", "Show the cache directory, entries, size and bound");
  info->add_option("--dir", info_opts->dir,
                   "Cache directory (default: $SCANTUNE_KERNEL_CACHE, else "
                   "$XDG_CACHE_HOME/scantune, else ~/.cache/scantune)");
  info->add_flag("--json", info_opts->json, "Print JSON");
  info->callback([info_opts] { run_info(*info_opts); });

  auto clear_opts = std::make_shared<CacheOptions>();
  CLI::App* clear = cache->add_subcommand("clear", "Delete every cached kernel");
  clear->add_option("--dir", clear_opts->dir, "Cache directory (default: as for `cache info`)");
  clear->callback([clear_opts] { run_clear(*clear_opts); });
}

} // namespace scantune::cli
