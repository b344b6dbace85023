// KernelCache shared by several processes (fork) and several threads.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cache/kernel_cache.hpp"
#include "kernel_cache_test_util.hpp"

namespace scantune {
namespace {

using testing::make_blob;
using testing::TempDir;

constexpr int kKeys = 12;

std::string key_for(int i) {
  return KernelCache::key_of({"concurrent " + std::to_string(i), {}, "12.4", "sm_90"});
}

/// The one valid content of key i: sizes from 1 KB to about 45 KB.
std::vector<char> blob_for(int i) {
  return make_blob(1024 + 4000 * static_cast<std::size_t>(i), i);
}

/// One worker: `iterations` rounds of load-or-store over overlapping keys, checking
/// every hit. Returns 0, or a nonzero code naming the first problem.
int worker(const std::string& dir, std::uint64_t max_bytes, int seed, int iterations) {
  try {
    KernelCache cache(dir, max_bytes);
    unsigned x = static_cast<unsigned>(seed) * 7919u + 17u;
    for (int it = 0; it < iterations; ++it) {
      x = x * 1103515245u + 12345u;
      const int k = static_cast<int>((x >> 16) % kKeys);
      const std::string key = key_for(k);
      auto got = cache.load(key);
      if (got) {
        if (*got != blob_for(k)) return 2; // a wrong or partial entry was returned
      } else if (!cache.store(key, blob_for(k))) {
        return 3;
      }
      // Also store unconditionally now and then: concurrent replacements of one key.
      if ((x >> 8) % 4 == 0 && !cache.store(key, blob_for(k))) return 3;
    }
    if (cache.stats().corrupt != 0) return 4;
    return 0;
  } catch (...) {
    return 5;
  }
}

void run_processes(const std::string& dir, std::uint64_t max_bytes, int processes, int iterations) {
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(worker(dir, max_bytes, p, iterations));
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "worker " << pid << " died";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "worker " << pid << " failed";
  }
}

/// Every entry left loads valid, and no temporary file is left behind.
void check_directory(const std::string& dir, std::uint64_t max_bytes) {
  KernelCache cache(dir, 0);
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "temporary file left: " << name;
    ASSERT_TRUE(name.size() > 6 && name.substr(name.size() - 6) == ".cubin") << name;
    const std::string key = name.substr(0, name.size() - 6);
    int k = -1;
    for (int i = 0; i < kKeys; ++i)
      if (key_for(i) == key) k = i;
    ASSERT_GE(k, 0) << "unexpected entry " << name;
    auto got = cache.load(key);
    ASSERT_TRUE(got.has_value()) << name;
    EXPECT_EQ(*got, blob_for(k)) << name;
    ++entries;
  }
  EXPECT_EQ(cache.stats().corrupt, 0u);
  EXPECT_GT(entries, 0);
  if (max_bytes != 0) {
    // The bound holds up to the entries that concurrent stores kept (at most
    // one per writer above the bound).
    EXPECT_LE(cache.info().total_bytes, max_bytes + 4 * (blob_for(kKeys - 1).size() + 56));
  } else {
    EXPECT_EQ(entries, kKeys);
  }
}

TEST(KernelCacheConcurrency, FourProcessesOverlappingKeys) {
  TempDir dir;
  run_processes(dir.sub("kc"), 0, 4, 500);
  check_directory(dir.sub("kc"), 0);
}

TEST(KernelCacheConcurrency, FourProcessesWithEvictionRacing) {
  // A bound of ~4 entries keeps every process evicting what the others load.
  TempDir dir;
  const std::uint64_t bound = 100 * 1024;
  run_processes(dir.sub("kc"), bound, 4, 500);
  check_directory(dir.sub("kc"), bound);
}

TEST(KernelCacheConcurrency, ThreadsShareOneObject) {
  TempDir dir;
  KernelCache cache(dir.str(), 200 * 1024);
  constexpr int kThreads = 4, kIterations = 200;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int it = 0; it < kIterations; ++it) {
        const int k = (it * 5 + t) % kKeys;
        auto got = cache.load(key_for(k));
        if (got && *got != blob_for(k)) ++bad;
        if (!got && !cache.store(key_for(k), blob_for(k))) ++bad;
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(bad.load(), 0);
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.hits + s.misses, std::uint64_t{kThreads} * kIterations);
  EXPECT_EQ(s.corrupt, 0u);
  EXPECT_EQ(s.stores, s.misses);
  check_directory(dir.str(), 200 * 1024);
}

} // namespace
} // namespace scantune
