// The on-disk compiled-kernel cache. See kernel_cache.hpp and docs/kernel-cache.md.
#include "cache/kernel_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "base/hash.hpp"
#include "cache/cache_error.hpp"

namespace scantune {
namespace {

// ---- entry header (all integers little-endian) -------------------------------
//   offset  size  field
//        0     8  magic "STKCACHE"
//        8     4  format version (kCacheFormatVersion)
//       12     4  header size (kHeaderSize = 56)
//       16     8  payload size in bytes
//       24    32  SHA-256 of the payload
//       56     -  payload
constexpr char kMagic[8] = {'S', 'T', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr std::size_t kHeaderSize = KernelCache::kHeaderSize;
static_assert(kHeaderSize == 8 + 4 + 4 + 8 + Sha256::kDigestSize);

// Temporary files: "<key>.cubin.tmp-<pid>-<16 hex digits>".
constexpr std::string_view kTempMarker = ".tmp-";
// A temporary file is stale (left by a crashed writer) when its writer process is
// gone and it is older than kDeadWriterAge, or whatever its writer, when it is older
// than kStaleTempAge (the pid may be from another pid namespace or host).
constexpr std::chrono::seconds kDeadWriterAge{10};
constexpr std::chrono::seconds kStaleTempAge{3600};

void put_le(unsigned char* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

std::string errno_text(int err) {
  return std::strerror(err);
}

/// Closes a file descriptor on scope exit.
class Fd {
public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  /// Closes now and reports close()'s result (write errors can surface here).
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

private:
  int fd_;
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// Reads up to `size` bytes; returns the count read (short only at end of file), -1 on error.
ssize_t read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

std::string random_hex16() {
  static std::atomic<std::uint64_t> counter{0};
  thread_local std::mt19937_64 rng = [] {
    std::random_device rd;
    std::seed_seq seq{
        rd(),
        rd(),
        rd(),
        rd(),
        static_cast<unsigned>(::getpid()),
        static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())),
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seq);
  }();
  // The counter keeps names unique within a process even if a forked child
  // inherited the rng state (the pid in the name separates processes).
  std::uint64_t v = rng() ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ull);
  unsigned char bytes[8];
  put_le(bytes, v, 8);
  return to_hex(bytes, 8);
}

/// What a directory entry is to the cache.
enum class FileKind { Other, Entry, Temp };

struct Classified {
  FileKind kind = FileKind::Other;
  long pid = 0; // writer pid, for Temp
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Classified classify(std::string_view name) {
  const std::string_view suffix = KernelCache::kEntrySuffix;
  if (ends_with(name, suffix)) {
    std::string key(name.substr(0, name.size() - suffix.size()));
    return {KernelCache::is_valid_key(key) ? FileKind::Entry : FileKind::Other, 0};
  }
  // <key>.cubin.tmp-<pid>-<16 hex>
  std::size_t marker = name.rfind(std::string(suffix) + std::string(kTempMarker));
  if (marker == std::string_view::npos) return {};
  if (!KernelCache::is_valid_key(std::string(name.substr(0, marker)))) return {};
  std::string_view rest = name.substr(marker + suffix.size() + kTempMarker.size());
  std::size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash > 10) return {};
  std::string_view pid = rest.substr(0, dash), hex = rest.substr(dash + 1);
  if (hex.size() != 16) return {};
  auto all = [](std::string_view s, auto pred) { return std::all_of(s.begin(), s.end(), pred); };
  if (!all(pid, [](char c) { return c >= '0' && c <= '9'; })) return {};
  if (!all(hex, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) return {};
  return {FileKind::Temp, std::strtol(std::string(pid).c_str(), nullptr, 10)};
}

bool temp_is_stale(const Classified& c, const struct stat& st) {
  const auto age = std::chrono::seconds(std::time(nullptr) - st.st_mtime);
  if (age > kStaleTempAge) return true;
  if (age < kDeadWriterAge) return false;
  return c.pid > 0 && ::kill(static_cast<pid_t>(c.pid), 0) != 0 && errno == ESRCH;
}

struct EntryFile {
  std::string name;
  std::uint64_t size = 0;
  struct timespec mtime {};
};

/// Calls `visit(dirfd, name, classification, stat)` for each regular file of the cache in
/// `dir`. Returns 0, or the errno of opening the directory (ENOENT = no cache yet).
template <class Visit>
int scan_directory(const std::string& dir, Visit&& visit) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return errno;
  const int dfd = ::dirfd(d);
  while (true) {
    errno = 0;
    struct dirent* ent = ::readdir(d);
    if (ent == nullptr) break;
    std::string_view name = ent->d_name;
    Classified c = classify(name);
    if (c.kind == FileKind::Other) continue;
    struct stat st;
    // Entries may vanish at any time (another process evicting): skip those.
    if (::fstatat(dfd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode)) continue;
    visit(dfd, std::string(name), c, st);
  }
  int err = errno;
  ::closedir(d);
  return err;
}

bool earlier(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

void field(Sha256& h, std::string_view name, std::string_view value) {
  // "<name> <length>:<bytes>\n": the length prefix makes the encoding unambiguous.
  std::string prefix = fmt::format("{} {}:", name, value.size());
  h.update(prefix).update(value).update("\n");
}

std::atomic<bool> g_warned_env{false};

void warn(const std::string& message) {
  fmt::print(stderr, "scantune: warning: kernel cache: {}\n", message);
}

} // namespace

// ---- construction and configuration ---------------------------------------------

KernelCache::KernelCache(std::string directory, std::uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {
  if (directory_.empty()) throw CacheError("kernel cache: the cache directory is empty");
}

KernelCache::KernelCache(const KernelCache& other)
    : directory_(other.directory_), max_bytes_(other.max_bytes_) {
  *this = other;
}

KernelCache& KernelCache::operator=(const KernelCache& other) {
  if (this == &other) return *this;
  directory_ = other.directory_;
  max_bytes_ = other.max_bytes_;
  KernelCacheStats s = other.stats();
  counters_.hits = s.hits;
  counters_.misses = s.misses;
  counters_.corrupt = s.corrupt;
  counters_.stores = s.stores;
  counters_.store_failures = s.store_failures;
  counters_.evictions = s.evictions;
  warned_ = other.warned_.load();
  return *this;
}

std::optional<std::string> KernelCache::resolve_directory(const std::string& explicit_dir) {
  if (!explicit_dir.empty()) {
    if (explicit_dir == "off") return std::nullopt;
    return explicit_dir;
  }
  const char* env = std::getenv("SCANTUNE_KERNEL_CACHE");
  if (env != nullptr && env[0] != '\0') {
    if (std::string_view(env) == "off") return std::nullopt;
    return std::string(env);
  }
  // XDG Base Directory spec: a relative XDG_CACHE_HOME is invalid and ignored.
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return (std::filesystem::path(xdg) / "scantune").string();
  std::string home;
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] != '\0') {
    home = h;
  } else {
    struct passwd pw;
    struct passwd* result = nullptr;
    std::vector<char> buf(16384);
    if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &result) == 0 && result != nullptr &&
        result->pw_dir != nullptr)
      home = result->pw_dir;
  }
  if (home.empty()) return std::nullopt;
  return (std::filesystem::path(home) / ".cache" / "scantune").string();
}

std::uint64_t KernelCache::default_max_bytes() {
  const char* env = std::getenv("SCANTUNE_KERNEL_CACHE_MAX_MB");
  if (env == nullptr || env[0] == '\0') return kDefaultMaxBytes;
  std::string_view s = env;
  bool digits = s.size() <= 12 &&
                std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) {
    if (!g_warned_env.exchange(true))
      warn(fmt::format("ignoring SCANTUNE_KERNEL_CACHE_MAX_MB=\"{}\" (not a whole number of MiB); "
                       "using {} MiB",
                       s, kDefaultMaxBytes >> 20));
    return kDefaultMaxBytes;
  }
  return std::strtoull(env, nullptr, 10) << 20;
}

std::optional<KernelCache> KernelCache::open_default(const std::string& explicit_dir) {
  std::optional<std::string> dir = resolve_directory(explicit_dir);
  if (!dir) return std::nullopt;
  return KernelCache(*dir, default_max_bytes());
}

std::string KernelCache::key_of(const KernelKey& key) {
  Sha256 h;
  h.update("scantune-kernel-cache\n");
  field(h, "format", std::to_string(kCacheFormatVersion));
  field(h, "arch", key.arch);
  field(h, "nvrtc", key.nvrtc_version);
  field(h, "options", std::to_string(key.options.size()));
  for (const std::string& option : key.options)
    field(h, "option", option);
  field(h, "source", key.source);
  return h.hex_digest();
}

bool KernelCache::is_valid_key(const std::string& key) {
  if (key.empty() || key.size() > 128) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '-';
  });
}

std::string KernelCache::entry_path(const std::string& key) const {
  return (std::filesystem::path(directory_) / (key + kEntrySuffix)).string();
}

KernelCacheStats KernelCache::stats() const {
  KernelCacheStats s;
  s.hits = counters_.hits.load();
  s.misses = counters_.misses.load();
  s.corrupt = counters_.corrupt.load();
  s.stores = counters_.stores.load();
  s.store_failures = counters_.store_failures.load();
  s.evictions = counters_.evictions.load();
  return s;
}

void KernelCache::warn_once(const std::string& message) {
  if (!warned_.exchange(true)) warn(message + "; continuing without caching");
}

// ---- load -------------------------------------------------------------------------

std::optional<std::vector<char>> KernelCache::load(const std::string& key) {
  if (!is_valid_key(key)) throw CacheError(fmt::format("kernel cache: invalid key \"{}\"", key));
  const std::string path = entry_path(key);
  auto miss = [&]() -> std::optional<std::vector<char>> {
    ++counters_.misses;
    return std::nullopt;
  };

  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return miss(); // ENOENT: not cached; anything else: treat as absent
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return miss();

  // A damaged entry is deleted, unless it was replaced meanwhile (by a rename()
  // of another process: then the path names a different, whole file).
  auto corrupt = [&]() -> std::optional<std::vector<char>> {
    ++counters_.corrupt;
    struct stat now;
    if (::lstat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
      ::unlink(path.c_str());
    return miss();
  };

  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  if (file_size < kHeaderSize) return corrupt();
  unsigned char header[kHeaderSize];
  ssize_t got = read_all(fd.get(), header, kHeaderSize);
  if (got < 0) return miss();
  if (static_cast<std::size_t>(got) != kHeaderSize) return corrupt();
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0) return corrupt();
  if (get_le(header + 8, 4) != kCacheFormatVersion) return corrupt();
  if (get_le(header + 12, 4) != kHeaderSize) return corrupt();
  const std::uint64_t payload_size = get_le(header + 16, 8);
  if (payload_size != file_size - kHeaderSize) return corrupt();

  std::vector<char> payload(static_cast<std::size_t>(payload_size));
  got = read_all(fd.get(), payload.data(), payload.size());
  if (got < 0) return miss();
  if (static_cast<std::uint64_t>(got) != payload_size) return corrupt();
  char extra;
  if (read_all(fd.get(), &extra, 1) != 0) return corrupt(); // grew since fstat: not ours

  Sha256::Digest digest = Sha256().update(payload.data(), payload.size()).digest();
  if (std::memcmp(digest.data(), header + 24, digest.size()) != 0) return corrupt();

  // Mark as recently used for LRU eviction. Fails harmlessly on entries another
  // user owns in a shared cache.
  ::futimens(fd.get(), nullptr);
  ++counters_.hits;
  return payload;
}

// ---- store ------------------------------------------------------------------------

bool KernelCache::store(const std::string& key, const std::vector<char>& blob) {
  if (!is_valid_key(key)) throw CacheError(fmt::format("kernel cache: invalid key \"{}\"", key));
  auto fail = [&](const std::string& message) {
    ++counters_.store_failures;
    if (!message.empty()) warn_once(message);
    return false;
  };

  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  std::error_code ignored;
  if (ec && !std::filesystem::is_directory(directory_, ignored))
    return fail(fmt::format("cannot create directory {}: {}", directory_, ec.message()));

  unsigned char header[kHeaderSize];
  std::memcpy(header, kMagic, sizeof kMagic);
  put_le(header + 8, kCacheFormatVersion, 4);
  put_le(header + 12, kHeaderSize, 4);
  put_le(header + 16, blob.size(), 8);
  Sha256::Digest digest = Sha256().update(blob.data(), blob.size()).digest();
  std::memcpy(header + 24, digest.data(), digest.size());

  const std::string final_path = entry_path(key);
  std::string temp_path;
  int raw_fd = -1;
  for (int attempt = 0; attempt < 8 && raw_fd < 0; ++attempt) {
    temp_path = fmt::format("{}{}{}-{}", final_path, kTempMarker, ::getpid(), random_hex16());
    raw_fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (raw_fd < 0 && errno != EEXIST) break;
  }
  if (raw_fd < 0) return fail(fmt::format("cannot create {}: {}", temp_path, errno_text(errno)));

  Fd fd(raw_fd);
  auto abandon = [&](const char* what) {
    int err = errno;
    ::unlink(temp_path.c_str());
    return fail(fmt::format("cannot {} {}: {}", what, temp_path, errno_text(err)));
  };
  if (!write_all(fd.get(), header, kHeaderSize) || !write_all(fd.get(), blob.data(), blob.size()))
    return abandon("write");
  if (::fsync(fd.get()) != 0) return abandon("fsync");
  if (fd.close() != 0) return abandon("close");
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_path.c_str());
    // ENOENT: a concurrent `scantune cache clear` removed the temporary file.
    return fail(err == ENOENT ? std::string()
                              : fmt::format("cannot rename {} to {}: {}", temp_path, final_path,
                                            errno_text(err)));
  }
  ++counters_.stores;
  evict(key + kEntrySuffix);
  return true;
}

// ---- eviction, info, clear ----------------------------------------------------------

std::size_t KernelCache::evict(const std::string& keep) {
  if (max_bytes_ == 0) return 0;
  std::vector<EntryFile> entries;
  std::uint64_t total = 0;
  scan_directory(directory_,
                 [&](int dfd, const std::string& name, const Classified& c, const struct stat& st) {
                   if (c.kind == FileKind::Temp) {
                     if (temp_is_stale(c, st)) ::unlinkat(dfd, name.c_str(), 0);
                     return;
                   }
                   entries.push_back({name, static_cast<std::uint64_t>(st.st_size), st.st_mtim});
                   total += static_cast<std::uint64_t>(st.st_size);
                 });
  if (total <= max_bytes_) return 0;

  std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) {
    if (earlier(a.mtime, b.mtime)) return true;
    if (earlier(b.mtime, a.mtime)) return false;
    return a.name < b.name;
  });
  std::size_t evicted = 0;
  for (const EntryFile& e : entries) {
    if (total <= max_bytes_) break;
    if (e.name == keep) continue;
    const std::string path = (std::filesystem::path(directory_) / e.name).string();
    if (::unlink(path.c_str()) == 0) {
      ++evicted;
      total -= e.size;
    } else if (errno == ENOENT) {
      total -= e.size; // another process evicted it first
    }
  }
  counters_.evictions += evicted;
  return evicted;
}

KernelCacheInfo KernelCache::info() const {
  KernelCacheInfo info;
  info.directory = directory_;
  info.max_bytes = max_bytes_;
  info.enabled = true;
  int err = scan_directory(
      directory_, [&](int, const std::string&, const Classified& c, const struct stat& st) {
        if (c.kind != FileKind::Entry) return;
        ++info.entries;
        info.total_bytes += static_cast<std::uint64_t>(st.st_size);
      });
  if (err != 0 && err != ENOENT)
    throw CacheError(
        fmt::format("kernel cache: cannot read directory {}: {}", directory_, errno_text(err)));
  return info;
}

std::size_t KernelCache::clear() {
  std::size_t removed = 0;
  std::string failure;
  int err = scan_directory(directory_, [&](int dfd, const std::string& name, const Classified& c,
                                           const struct stat& st) {
    if (c.kind == FileKind::Temp && !temp_is_stale(c, st)) return; // a store in progress
    if (::unlinkat(dfd, name.c_str(), 0) == 0) {
      if (c.kind == FileKind::Entry) ++removed;
    } else if (errno != ENOENT && failure.empty()) {
      failure = fmt::format("kernel cache: cannot remove {}: {}",
                            (std::filesystem::path(directory_) / name).string(), errno_text(errno));
    }
  });
  if (err != 0 && err != ENOENT)
    throw CacheError(
        fmt::format("kernel cache: cannot read directory {}: {}", directory_, errno_text(err)));
  if (!failure.empty()) throw CacheError(failure);
  return removed;
}

} // namespace scantune
