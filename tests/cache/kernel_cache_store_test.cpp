// KernelCache on one process: load/store, corruption, LRU eviction, location,
// info and clear.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/hash.hpp"
#include "cache/kernel_cache.hpp"
#include "kernel_cache_test_util.hpp"
#include "scantune/scantune.hpp"

namespace scantune {
namespace {

using testing::list_dir;
using testing::make_blob;
using testing::read_file;
using testing::ScopedEnv;
using testing::set_age;
using testing::TempDir;
using testing::write_file;

std::string key_for(int i) {
  return KernelCache::key_of({"source " + std::to_string(i), {"-O3"}, "12.4", "sm_90"});
}

// ---- load / store -------------------------------------------------------------------

TEST(KernelCacheStore, MissStoreHit) {
  TempDir dir;
  KernelCache cache(dir.sub("kc"));
  const std::string key = key_for(1);
  EXPECT_FALSE(cache.load(key).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir.sub("kc"))); // a miss creates nothing

  const std::vector<char> blob = make_blob(5000, 1);
  ASSERT_TRUE(cache.store(key, blob));
  EXPECT_TRUE(std::filesystem::is_regular_file(cache.entry_path(key)));
  EXPECT_EQ(std::filesystem::file_size(cache.entry_path(key)),
            blob.size() + KernelCache::kHeaderSize);

  auto got = cache.load(key);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, blob);

  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.corrupt, 0u);
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.store_failures, 0u);
  EXPECT_EQ(s.evictions, 0u);
}

TEST(KernelCacheStore, EntryLayoutMatchesTheDocumentedFormat) {
  TempDir dir;
  KernelCache cache(dir.str());
  const std::vector<char> blob = make_blob(300, 9);
  ASSERT_TRUE(cache.store(key_for(9), blob));
  const std::vector<char> bytes = read_file(cache.entry_path(key_for(9)));
  ASSERT_EQ(bytes.size(), 56u + 300u);
  auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    return v;
  };
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "STKCACHE");
  EXPECT_EQ(le(8, 4), kCacheFormatVersion);
  EXPECT_EQ(le(12, 4), 56u);
  EXPECT_EQ(le(16, 8), 300u);
  Sha256::Digest d = sha256(std::string_view(blob.data(), blob.size()));
  EXPECT_TRUE(std::equal(d.begin(), d.end(), bytes.begin() + 24,
                         [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); }));
  EXPECT_TRUE(std::equal(blob.begin(), blob.end(), bytes.begin() + 56));
}

TEST(KernelCacheStore, SecondObjectSeesEntries) {
  TempDir dir;
  const std::vector<char> blob = make_blob(1234, 2);
  KernelCache(dir.str()).store(key_for(2), blob);
  KernelCache other(dir.str());
  auto got = other.load(key_for(2));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, blob);
}

TEST(KernelCacheStore, EmptyBlobAndOverwrite) {
  TempDir dir;
  KernelCache cache(dir.str());
  const std::string key = key_for(3);
  ASSERT_TRUE(cache.store(key, {}));
  auto got = cache.load(key);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->empty());

  const std::vector<char> blob = make_blob(100, 3);
  ASSERT_TRUE(cache.store(key, blob));
  EXPECT_EQ(cache.load(key).value(), blob);
  EXPECT_EQ(cache.info().entries, 1u);
  EXPECT_EQ(list_dir(dir.path()).size(), 1u); // no temporary files left
}

TEST(KernelCacheStore, InvalidKeyThrows) {
  TempDir dir;
  KernelCache cache(dir.str());
  EXPECT_THROW(cache.load("../escape"), CacheError);
  EXPECT_THROW(cache.store("a/b", {}), CacheError);
  EXPECT_THROW(cache.load(""), CacheError);
  EXPECT_THROW(KernelCache(""), CacheError);
}

TEST(KernelCacheStore, UnwritableDirectoryDegradesToNoCaching) {
  TempDir dir;
  // A directory below a regular file can never be created, even by root.
  write_file(dir.sub("file"), {'x'});
  KernelCache cache(dir.sub("file") + "/kc");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.store(key_for(4), make_blob(10, 4)));
  EXPECT_FALSE(cache.store(key_for(5), make_blob(10, 5)));
  std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(cache.load(key_for(4)).has_value());
  EXPECT_EQ(cache.stats().store_failures, 2u);
  // One warning, naming the path.
  EXPECT_NE(warnings.find("file/kc"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("warning"), warnings.rfind("warning")) << warnings;
}

TEST(KernelCacheStore, ReadOnlyDirectoryDegradesToNoCaching) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.str().c_str(), 0555), 0);
  KernelCache cache(dir.str());
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.store(key_for(6), make_blob(10, 6)));
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(cache.load(key_for(6)).has_value());
  ::chmod(dir.str().c_str(), 0755);
}

// ---- corruption ---------------------------------------------------------------------

class KernelCacheCorruption : public ::testing::Test {
protected:
  void SetUp() override {
    blob_ = make_blob(4000, 7);
    ASSERT_TRUE(cache_.store(key_, blob_));
    path_ = cache_.entry_path(key_);
    bytes_ = read_file(path_);
    ASSERT_EQ(bytes_.size(), blob_.size() + KernelCache::kHeaderSize);
  }

  /// Writes `damaged` as the entry, then expects a detected corruption that deletes
  /// the file, and a cache that still works afterwards.
  void expect_corrupt(const std::vector<char>& damaged) {
    write_file(path_, damaged);
    const std::uint64_t corrupt_before = cache_.stats().corrupt;
    const std::uint64_t misses_before = cache_.stats().misses;
    EXPECT_FALSE(cache_.load(key_).has_value());
    EXPECT_EQ(cache_.stats().corrupt, corrupt_before + 1);
    EXPECT_EQ(cache_.stats().misses, misses_before + 1);
    EXPECT_FALSE(std::filesystem::exists(path_)) << "a corrupt entry must be deleted";
    EXPECT_FALSE(cache_.load(key_).has_value()); // now a plain miss
    EXPECT_EQ(cache_.stats().corrupt, corrupt_before + 1);

    ASSERT_TRUE(cache_.store(key_, blob_));
    auto got = cache_.load(key_);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, blob_);
  }

  TempDir dir_;
  KernelCache cache_{dir_.str()};
  std::string key_ = key_for(7);
  std::vector<char> blob_, bytes_;
  std::string path_;
};

TEST_F(KernelCacheCorruption, FlippedPayloadByte) {
  std::vector<char> damaged = bytes_;
  damaged[KernelCache::kHeaderSize + 1234] ^= 0x01;
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, FlippedLastByte) {
  std::vector<char> damaged = bytes_;
  damaged.back() ^= 0x80;
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, FlippedChecksumByte) {
  std::vector<char> damaged = bytes_;
  damaged[30] ^= 0x10;
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, TruncatedPayload) {
  expect_corrupt(std::vector<char>(bytes_.begin(), bytes_.end() - 1));
}

TEST_F(KernelCacheCorruption, TruncatedHeader) {
  expect_corrupt(std::vector<char>(bytes_.begin(), bytes_.begin() + 20));
}

TEST_F(KernelCacheCorruption, EmptyFile) {
  expect_corrupt({});
}

TEST_F(KernelCacheCorruption, TrailingBytes) {
  std::vector<char> damaged = bytes_;
  damaged.push_back('x');
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, GarbageHeader) {
  std::vector<char> damaged = bytes_;
  for (std::size_t i = 0; i < KernelCache::kHeaderSize; ++i)
    damaged[i] = static_cast<char>(0xA5);
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, BadMagic) {
  std::vector<char> damaged = bytes_;
  damaged[0] = 'X';
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, OtherFormatVersion) {
  std::vector<char> damaged = bytes_;
  damaged[8] = static_cast<char>(kCacheFormatVersion + 1);
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, WrongPayloadSize) {
  std::vector<char> damaged = bytes_;
  damaged[16] ^= 0x01;
  expect_corrupt(damaged);
}

TEST_F(KernelCacheCorruption, EntryThatIsADirectoryIsAMissNotDeleted) {
  ASSERT_TRUE(std::filesystem::remove(path_));
  std::filesystem::create_directory(path_);
  EXPECT_FALSE(cache_.load(key_).has_value());
  EXPECT_EQ(cache_.stats().corrupt, 0u);
  EXPECT_TRUE(std::filesystem::is_directory(path_));
}

// ---- eviction -----------------------------------------------------------------------

TEST(KernelCacheEviction, LeastRecentlyUsedGoesFirst) {
  TempDir dir;
  constexpr std::uint64_t kBound = 10 * 1024;
  constexpr std::size_t kBlob = 3 * 1024; // 3 entries fit (3 x 3128 bytes), 4 do not
  KernelCache cache(dir.str(), kBound);
  const std::string a = key_for(10), b = key_for(11), c = key_for(12), d = key_for(13),
                    e = key_for(14);
  ASSERT_TRUE(cache.store(a, make_blob(kBlob, 10)));
  ASSERT_TRUE(cache.store(b, make_blob(kBlob, 11)));
  ASSERT_TRUE(cache.store(c, make_blob(kBlob, 12)));
  EXPECT_EQ(cache.stats().evictions, 0u);
  set_age(cache.entry_path(a), 300); // oldest
  set_age(cache.entry_path(b), 200);
  set_age(cache.entry_path(c), 100);

  // Using `a` makes it the most recently used.
  ASSERT_TRUE(cache.load(a).has_value());

  ASSERT_TRUE(cache.store(d, make_blob(kBlob, 13))); // evicts b
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(a)));
  EXPECT_FALSE(std::filesystem::exists(cache.entry_path(b)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(c)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(d)));

  ASSERT_TRUE(cache.store(e, make_blob(kBlob, 14))); // evicts c
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(a)));
  EXPECT_FALSE(std::filesystem::exists(cache.entry_path(c)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(d)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(e)));

  EXPECT_EQ(cache.stats().evictions, 2u);
  KernelCacheInfo info = cache.info();
  EXPECT_EQ(info.entries, 3u);
  EXPECT_LE(info.total_bytes, kBound);
  EXPECT_EQ(cache.load(a).value(), make_blob(kBlob, 10));
}

TEST(KernelCacheEviction, NeverEvictsTheEntryJustStored) {
  TempDir dir;
  KernelCache cache(dir.str(), 1000);
  ASSERT_TRUE(cache.store(key_for(20), make_blob(600, 20)));
  set_age(cache.entry_path(key_for(20)), 50);
  // Larger than the bound on its own: everything else goes, it stays.
  ASSERT_TRUE(cache.store(key_for(21), make_blob(5000, 21)));
  EXPECT_FALSE(std::filesystem::exists(cache.entry_path(key_for(20))));
  EXPECT_EQ(cache.load(key_for(21)).value(), make_blob(5000, 21));
  // Storing it again (replacing it) keeps it too.
  ASSERT_TRUE(cache.store(key_for(21), make_blob(5000, 21)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(key_for(21))));
  EXPECT_EQ(cache.stats().evictions, 1u);
}

TEST(KernelCacheEviction, ZeroBoundIsUnbounded) {
  TempDir dir;
  KernelCache cache(dir.str(), 0);
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(cache.store(key_for(30 + i), make_blob(4096, i)));
  EXPECT_EQ(cache.info().entries, 8u);
  EXPECT_EQ(cache.stats().evictions, 0u);
}

TEST(KernelCacheEviction, IgnoresForeignAndVanishedFiles) {
  TempDir dir;
  KernelCache cache(dir.str(), 4000);
  write_file(dir.sub("README"), std::vector<char>(100000, 'r')); // not counted, not evicted
  ASSERT_TRUE(cache.store(key_for(40), make_blob(1500, 40)));
  ASSERT_TRUE(cache.store(key_for(41), make_blob(1500, 41)));
  set_age(cache.entry_path(key_for(40)), 100);
  std::filesystem::remove(cache.entry_path(key_for(41))); // "another process" evicted it
  ASSERT_TRUE(cache.store(key_for(42), make_blob(1500, 42)));
  EXPECT_TRUE(std::filesystem::exists(dir.sub("README")));
  EXPECT_EQ(cache.info().entries, 2u);
  EXPECT_EQ(cache.stats().evictions, 0u);
}

TEST(KernelCacheEviction, RemovesStaleTemporaryFiles) {
  TempDir dir;
  KernelCache cache(dir.str(), 1 << 20);
  const std::string k = key_for(50);
  const std::string stale = cache.entry_path(k) + ".tmp-1-0123456789abcdef";
  const std::string live =
      cache.entry_path(k) + ".tmp-" + std::to_string(::getpid()) + "-fedcba9876543210";
  write_file(stale, {'s'});
  write_file(live, {'l'});
  set_age(stale, 2 * 3600);
  ASSERT_TRUE(cache.store(k, make_blob(10, 50)));
  cache.evict();
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live)); // its writer is alive and it is fresh
}

// ---- location -------------------------------------------------------------------------

TEST(KernelCacheLocation, OffDisables) {
  ScopedEnv env("SCANTUNE_KERNEL_CACHE", "off");
  EXPECT_FALSE(KernelCache::open_default("").has_value());
  EXPECT_FALSE(KernelCache::resolve_directory("").has_value());
  EXPECT_FALSE(KernelCache::open_default("off").has_value());
}

TEST(KernelCacheLocation, ExplicitDirectoryOverridesEnvironment) {
  TempDir dir;
  {
    ScopedEnv env("SCANTUNE_KERNEL_CACHE", "off");
    auto cache = KernelCache::open_default(dir.sub("explicit"));
    ASSERT_TRUE(cache.has_value());
    EXPECT_EQ(cache->directory(), dir.sub("explicit"));
  }
  {
    ScopedEnv env("SCANTUNE_KERNEL_CACHE", dir.sub("from-env"));
    EXPECT_EQ(KernelCache::open_default(dir.sub("explicit"))->directory(), dir.sub("explicit"));
  }
}

TEST(KernelCacheLocation, EnvironmentOverridesXdg) {
  TempDir dir;
  ScopedEnv env("SCANTUNE_KERNEL_CACHE", dir.sub("from-env"));
  ScopedEnv xdg("XDG_CACHE_HOME", dir.sub("xdg"));
  auto cache = KernelCache::open_default("");
  ASSERT_TRUE(cache.has_value());
  EXPECT_EQ(cache->directory(), dir.sub("from-env"));
  ASSERT_TRUE(cache->store(key_for(60), make_blob(10, 60)));
  EXPECT_TRUE(std::filesystem::exists(dir.sub("from-env") + "/" + key_for(60) + ".cubin"));
}

TEST(KernelCacheLocation, XdgThenHome) {
  TempDir dir;
  ScopedEnv env("SCANTUNE_KERNEL_CACHE", std::nullopt);
  ScopedEnv home("HOME", dir.sub("home"));
  {
    ScopedEnv xdg("XDG_CACHE_HOME", dir.sub("xdg"));
    EXPECT_EQ(KernelCache::open_default("")->directory(), dir.sub("xdg") + "/scantune");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(KernelCache::open_default("")->directory(), dir.sub("home") + "/.cache/scantune");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/is/ignored");
    EXPECT_EQ(KernelCache::open_default("")->directory(), dir.sub("home") + "/.cache/scantune");
  }
  {
    ScopedEnv empty("SCANTUNE_KERNEL_CACHE", ""); // empty = unset
    ScopedEnv xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(KernelCache::open_default("")->directory(), dir.sub("home") + "/.cache/scantune");
  }
}

TEST(KernelCacheLocation, MaxSizeFromEnvironment) {
  {
    ScopedEnv max("SCANTUNE_KERNEL_CACHE_MAX_MB", std::nullopt);
    EXPECT_EQ(KernelCache::default_max_bytes(), KernelCache::kDefaultMaxBytes);
    EXPECT_EQ(KernelCache::open_default("/nonexistent/kc")->max_bytes(), std::uint64_t{512} << 20);
  }
  {
    ScopedEnv max("SCANTUNE_KERNEL_CACHE_MAX_MB", "7");
    EXPECT_EQ(KernelCache::open_default("/nonexistent/kc")->max_bytes(), std::uint64_t{7} << 20);
  }
  {
    ScopedEnv max("SCANTUNE_KERNEL_CACHE_MAX_MB", "0");
    EXPECT_EQ(KernelCache::default_max_bytes(), 0u);
  }
  {
    ScopedEnv max("SCANTUNE_KERNEL_CACHE_MAX_MB", "12abc");
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(KernelCache::default_max_bytes(), KernelCache::kDefaultMaxBytes);
    ::testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(KernelCache("/x", 1234).max_bytes(), 1234u);
}

TEST(KernelCacheLocation, OpeningTouchesNoDisk) {
  TempDir dir;
  auto cache = KernelCache::open_default(dir.sub("not-yet"));
  ASSERT_TRUE(cache.has_value());
  EXPECT_FALSE(cache->load(key_for(61)).has_value());
  EXPECT_EQ(cache->info().entries, 0u);
  EXPECT_EQ(cache->clear(), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir.sub("not-yet")));
}

// ---- info and clear ---------------------------------------------------------------------

TEST(KernelCacheInfo, CountsEntriesOnly) {
  TempDir dir;
  KernelCache cache(dir.str(), 777);
  ASSERT_TRUE(cache.store(key_for(70), make_blob(100, 70)));
  ASSERT_TRUE(cache.store(key_for(71), make_blob(200, 71)));
  write_file(dir.sub("unrelated.txt"), std::vector<char>(5000, 'u'));
  KernelCacheInfo info = cache.info();
  EXPECT_EQ(info.directory, dir.str());
  EXPECT_EQ(info.entries, 2u);
  EXPECT_EQ(info.total_bytes, 300u + 2 * KernelCache::kHeaderSize);
  EXPECT_EQ(info.max_bytes, 777u);
  EXPECT_TRUE(info.enabled);
}

TEST(KernelCacheInfo, UnreadableDirectoryThrowsNamingIt) {
  TempDir dir;
  write_file(dir.sub("file"), {'x'});
  KernelCache cache(dir.sub("file"));
  try {
    cache.info();
    FAIL() << "expected scantune::CacheError";
  } catch (const CacheError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.sub("file")), std::string::npos) << e.what();
  }
  EXPECT_THROW(cache.clear(), CacheError);
}

TEST(KernelCacheClear, RemovesOnlyCacheFiles) {
  TempDir dir;
  KernelCache cache(dir.str());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(cache.store(key_for(80 + i), make_blob(64, i)));

  // Things the cache does not own.
  write_file(dir.sub("notes.txt"), {'n'});
  write_file(dir.sub("kernel.cubin.bak"), {'b'});
  write_file(dir.sub("bad key!.cubin"), {'k'});
  write_file(dir.sub(".cubin"), {'e'});
  std::filesystem::create_directory(dir.sub("sub.cubin"));
  write_file(dir.sub("sub.cubin/inner.cubin"), {'i'});
  TempDir elsewhere;
  write_file(elsewhere.sub("target.cubin"), {'t'});
  std::filesystem::create_symlink(elsewhere.sub("target.cubin"), dir.sub("link.cubin"));

  // A temporary file left by a crashed writer, and one a live writer is filling.
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const std::string dead =
      dir.sub(key_for(90) + ".cubin.tmp-" + std::to_string(child) + "-00112233445566aa");
  const std::string alive =
      dir.sub(key_for(91) + ".cubin.tmp-" + std::to_string(::getpid()) + "-00112233445566bb");
  write_file(dead, {'d'});
  set_age(dead, 60);
  write_file(alive, {'a'});

  EXPECT_EQ(cache.clear(), 5u);
  EXPECT_EQ(cache.info().entries, 0u);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(alive));
  std::vector<std::string> left = list_dir(dir.path());
  std::vector<std::string> expected = {".cubin",
                                       "bad key!.cubin",
                                       "kernel.cubin.bak",
                                       "link.cubin",
                                       "notes.txt",
                                       "sub.cubin",
                                       std::filesystem::path(alive).filename().string()};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(left, expected);
  EXPECT_TRUE(std::filesystem::exists(dir.sub("sub.cubin/inner.cubin")));
  EXPECT_TRUE(std::filesystem::exists(elsewhere.sub("target.cubin")));

  // Still usable afterwards.
  ASSERT_TRUE(cache.store(key_for(80), make_blob(64, 0)));
  EXPECT_EQ(cache.load(key_for(80)).value(), make_blob(64, 0));
  EXPECT_EQ(cache.clear(), 1u);
}

TEST(KernelCacheClear, SymlinkedEntryIsNotFollowed) {
  TempDir dir, elsewhere;
  KernelCache source(elsewhere.str());
  ASSERT_TRUE(source.store(key_for(95), make_blob(64, 95)));
  std::filesystem::create_symlink(source.entry_path(key_for(95)), dir.sub(key_for(95) + ".cubin"));
  KernelCache cache(dir.str());
  EXPECT_FALSE(cache.load(key_for(95)).has_value()); // O_NOFOLLOW: not an entry of this cache
  EXPECT_EQ(cache.info().entries, 0u);
  EXPECT_EQ(cache.clear(), 0u);
  EXPECT_TRUE(std::filesystem::exists(source.entry_path(key_for(95))));
}

TEST(KernelCacheCopy, CopiesConfigurationAndStats) {
  TempDir dir;
  KernelCache cache(dir.str(), 4242);
  cache.load(key_for(1));
  KernelCache copy = cache;
  EXPECT_EQ(copy.directory(), dir.str());
  EXPECT_EQ(copy.max_bytes(), 4242u);
  EXPECT_EQ(copy.stats().misses, 1u);
  std::optional<KernelCache> moved = std::move(copy);
  EXPECT_EQ(moved->stats().misses, 1u);
}

} // namespace
} // namespace scantune
