// Helpers shared by the kernel cache tests: a fresh temporary directory per test
// and scoped environment variables.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/scoped_env.hpp"

namespace scantune::testing {

/// A fresh directory under $TMPDIR, removed with its contents on destruction.
class TempDir {
public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "scantune-kc-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  std::string sub(const std::string& name) const { return (path_ / name).string(); }

private:
  std::filesystem::path path_;
};

using test::ScopedEnv;

/// A deterministic blob of `size` bytes derived from `seed`.
inline std::vector<char> make_blob(std::size_t size, unsigned seed) {
  std::vector<char> blob(size);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < size; ++i) {
    x = x * 1664525u + 1013904223u;
    blob[i] = static_cast<char>(x >> 24);
  }
  return blob;
}

inline std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Sets a file's mtime (and atime) to `seconds_ago` seconds before now.
inline void set_age(const std::string& path, long seconds_ago) {
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  struct timespec times[2] = {now, now};
  times[0].tv_sec -= seconds_ago;
  times[1].tv_sec -= seconds_ago;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

/// Names of the files in `dir`, sorted.
inline std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace scantune::testing
