// cache/kernel_cache.hpp: the on-disk cache of compiled kernels.
//
// Entries are opaque byte blobs (the runtime stores a CUBIN and the lowered kernel
// names in them) keyed by a SHA-256 of everything that determines the compiled
// code: generated source, NVRTC options, NVRTC version, target arch and the cache
// format version. A second process that needs the same kernel loads it from here
// instead of running NVRTC. docs/kernel-cache.md describes the format in full.
//
//   std::optional<scantune::KernelCache> cache = scantune::KernelCache::open_default("");
//   std::string key = scantune::KernelCache::key_of({source, options, nvrtc_version, "sm_90"});
//   if (cache) {
//     if (auto blob = cache->load(key)) { /* use *blob */ }
//     else { /* compile, then */ cache->store(key, blob_of_compiled_kernel); }
//   }
//
// Properties:
// - Safe for many threads and processes at once: an entry is written to a unique
//   temporary file in the cache directory, fsync'ed and rename()d into place, so a
//   reader sees either no entry or a whole one.
// - Every entry carries a checksum; a damaged entry is deleted and reported as a miss.
// - Bounded: after a store the least recently used entries (by mtime, which a
//   load hit refreshes) are deleted until the total size is under the bound.
// - Never fails a scan: load() and store() do not throw on I/O errors. A cache that
//   cannot be written prints one warning and then behaves as a cache that misses.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cache/cache_error.hpp"

namespace scantune {

/// Version of the entry file format *and* of the blob layout the runtime writes
/// into entries. It is part of every key and of every entry header.
///
/// Rule: bump this whenever the header layout below changes, or the runtime changes
/// what it serializes into a blob (field order, encoding, added fields), or key_of()
/// changes how it encodes a KernelKey. Old entries then stop matching (their keys
/// differ) and age out through LRU eviction; nothing is ever misread.
inline constexpr std::uint32_t kCacheFormatVersion = 1;

/// Everything that determines a compiled kernel.
struct KernelKey {
  std::string source;               ///< the generated CUDA source
  std::vector<std::string> options; ///< NVRTC options, in order
  std::string nvrtc_version;        ///< e.g. "12.4"
  std::string arch;                 ///< e.g. "sm_90"
};

/// Counters of one KernelCache object (this process only).
struct KernelCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;  ///< includes corrupt entries
  std::uint64_t corrupt = 0; ///< entries found damaged (and deleted)
  std::uint64_t stores = 0;  ///< entries written
  std::uint64_t store_failures = 0;
  std::uint64_t evictions = 0; ///< entries deleted to respect the size bound
};

/// What `scantune cache info` shows.
struct KernelCacheInfo {
  std::string directory;
  std::uint64_t entries = 0;
  std::uint64_t total_bytes = 0; ///< sum of entry file sizes (headers included)
  std::uint64_t max_bytes = 0;   ///< 0 = unbounded
  bool enabled = true;
};

class KernelCache {
public:
  /// Default size bound: 512 MiB.
  static constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{512} << 20;
  /// Entry files are named `<key><kEntrySuffix>`.
  static constexpr const char* kEntrySuffix = ".cubin";

  /// A cache in `directory` (created on the first store) holding at most
  /// `max_bytes` bytes of entries; 0 = unbounded. Does not touch the disk.
  explicit KernelCache(std::string directory, std::uint64_t max_bytes = kDefaultMaxBytes);

  KernelCache(const KernelCache& other);
  KernelCache& operator=(const KernelCache& other);

  /// The cache the runtime uses. Directory, first match wins:
  ///   `explicit_dir` (ScannerOptions::kernel_cache) if non-empty;
  ///   $SCANTUNE_KERNEL_CACHE if set and non-empty;
  ///   $XDG_CACHE_HOME/scantune if XDG_CACHE_HOME is an absolute path;
  ///   $HOME/.cache/scantune.
  /// A directory of "off" (in `explicit_dir` or the environment) disables the cache:
  /// returns nullopt, and nothing touches the disk. Size bound: default_max_bytes().
  static std::optional<KernelCache> open_default(const std::string& explicit_dir = "");

  /// The directory open_default(explicit_dir) would use; nullopt when disabled
  /// (or when no home directory can be found).
  static std::optional<std::string> resolve_directory(const std::string& explicit_dir = "");

  /// $SCANTUNE_KERNEL_CACHE_MAX_MB in MiB (0 = unbounded) if set and valid, else
  /// kDefaultMaxBytes. An invalid value prints a warning and is ignored.
  static std::uint64_t default_max_bytes();

  /// The key of `key`: 64 hex characters, a SHA-256 over an unambiguous encoding
  /// of every field and kCacheFormatVersion.
  static std::string key_of(const KernelKey& key);

  /// The entry stored under `key`, or nullopt on a miss. A damaged entry (bad magic,
  /// wrong version, truncated, checksum mismatch) is deleted and reported as a miss.
  /// A hit refreshes the entry's mtime (its LRU age). Never throws on I/O errors.
  /// Throws CacheError if `key` is not a valid key (see is_valid_key).
  std::optional<std::vector<char>> load(const std::string& key);

  /// Stores `blob` under `key` atomically (replacing an existing entry), then evicts
  /// least recently used entries (never this one) while the total exceeds the
  /// bound. Returns false if the entry could not be written (a warning is printed
  /// the first time); never throws on I/O errors. Throws CacheError for an invalid key.
  bool store(const std::string& key, const std::vector<char>& blob);

  /// Entry count and total size on disk now. Throws CacheError if the directory exists
  /// but cannot be read; a missing directory is an empty cache.
  KernelCacheInfo info() const;

  /// Deletes every entry and every stale temporary file (a store interrupted by a
  /// crash); nothing else in the directory. Returns the number of entries deleted.
  /// Throws CacheError if the directory exists but cannot be read.
  std::size_t clear();

  /// Deletes least recently used entries until the total is at most max_bytes()
  /// (never `keep`, an entry file name or ""), and stale temporary files. Returns
  /// the number of entries deleted. store() calls this; never throws.
  std::size_t evict(const std::string& keep = "");

  const std::string& directory() const { return directory_; }
  std::uint64_t max_bytes() const { return max_bytes_; }
  KernelCacheStats stats() const;

  /// The file that holds the entry for `key`.
  std::string entry_path(const std::string& key) const;

  /// A key is 1 to 128 characters of [0-9A-Za-z_-] (key_of() gives 64 hex digits).
  static bool is_valid_key(const std::string& key);

  /// Size of the header in front of each payload, in bytes.
  static constexpr std::size_t kHeaderSize = 56;

private:
  struct Counters {
    std::atomic<std::uint64_t> hits{0}, misses{0}, corrupt{0}, stores{0}, store_failures{0},
        evictions{0};
  };

  void warn_once(const std::string& message);

  std::string directory_;
  std::uint64_t max_bytes_;
  Counters counters_;
  std::atomic<bool> warned_{false};
};

} // namespace scantune
