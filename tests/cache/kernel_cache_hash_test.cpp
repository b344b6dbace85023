// SHA-256 against the FIPS 180-2 test vectors, and KernelCache::key_of.
#include <string>

#include <gtest/gtest.h>

#include "base/hash.hpp"
#include "cache/kernel_cache.hpp"

namespace scantune {
namespace {

constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr const char* kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* k448Bits = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr const char* kMessage448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

TEST(KernelCacheSha256, FipsVectorAbc) {
  EXPECT_EQ(sha256_hex("abc"), kAbc);
}

TEST(KernelCacheSha256, FipsVectorEmpty) {
  EXPECT_EQ(sha256_hex(""), kEmpty);
}

TEST(KernelCacheSha256, FipsVector448Bits) {
  EXPECT_EQ(sha256_hex(kMessage448), k448Bits);
}

TEST(KernelCacheSha256, FipsVector896Bits) {
  EXPECT_EQ(
      sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmn"
                 "opqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(KernelCacheSha256, FipsVectorMillionA) {
  Sha256 h;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i)
    h.update(chunk);
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(KernelCacheSha256, PaddingBoundaries) {
  // Lengths around the 55/56/64-byte padding edges, checked against sha256sum.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(KernelCacheSha256, IncrementalMatchesOneShotAtEverySplit) {
  std::string message;
  for (int i = 0; i < 200; ++i)
    message.push_back(static_cast<char>(i * 7 + 3));
  const std::string expected = sha256_hex(message);
  for (std::size_t split = 0; split <= message.size(); ++split) {
    Sha256 h;
    h.update(std::string_view(message).substr(0, split));
    h.update(std::string_view(message).substr(split));
    ASSERT_EQ(h.hex_digest(), expected) << "split at " << split;
  }
  // Byte by byte, and digest() does not disturb further updates.
  Sha256 h;
  for (char c : message) {
    h.update(&c, 1);
    (void)h.digest();
  }
  EXPECT_EQ(h.hex_digest(), expected);
}

TEST(KernelCacheSha256, ResetAndBinaryDigest) {
  Sha256 h;
  h.update("garbage");
  h.reset();
  h.update("abc");
  Sha256::Digest d = h.digest();
  EXPECT_EQ(to_hex(d.data(), d.size()), kAbc);
  EXPECT_EQ(sha256("abc"), d);
  EXPECT_EQ(d[0], 0xba);
  EXPECT_EQ(d[31], 0xad);
}

KernelKey base_key() {
  return {"extern \"C\" __global__ void k() {}", {"--std=c++17", "-arch=sm_90"}, "12.4", "sm_90"};
}

TEST(KernelCacheKey, StableAndHex) {
  const std::string k1 = KernelCache::key_of(base_key());
  const std::string k2 = KernelCache::key_of(base_key());
  EXPECT_EQ(k1, k2);
  ASSERT_EQ(k1.size(), 64u);
  EXPECT_EQ(k1.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(KernelCache::is_valid_key(k1));
}

TEST(KernelCacheKey, GoldenValue) {
  // If this changes, key_of()'s encoding changed: bump kCacheFormatVersion (and
  // then update this value) so that old entries stop matching.
  static_assert(kCacheFormatVersion == 1, "update the golden key below");
  EXPECT_EQ(KernelCache::key_of(base_key()),
            "1a763e8e05883e6841de4c41d7d301f8b256dec8febbff775331178adc2815ae");
}

TEST(KernelCacheKey, EveryFieldMatters) {
  const std::string base = KernelCache::key_of(base_key());
  KernelKey k = base_key();
  k.source += " ";
  EXPECT_NE(KernelCache::key_of(k), base);
  k = base_key();
  k.options[1] = "-arch=sm_80";
  EXPECT_NE(KernelCache::key_of(k), base);
  k = base_key();
  k.options.push_back("-lineinfo");
  EXPECT_NE(KernelCache::key_of(k), base);
  k = base_key();
  std::swap(k.options[0], k.options[1]);
  EXPECT_NE(KernelCache::key_of(k), base);
  k = base_key();
  k.nvrtc_version = "12.5";
  EXPECT_NE(KernelCache::key_of(k), base);
  k = base_key();
  k.arch = "sm_80";
  EXPECT_NE(KernelCache::key_of(k), base);
}

TEST(KernelCacheKey, FieldBoundariesAreUnambiguous) {
  KernelKey a{"src", {"ab"}, "12.4", "sm_90"};
  KernelKey b{"src", {"a", "b"}, "12.4", "sm_90"};
  EXPECT_NE(KernelCache::key_of(a), KernelCache::key_of(b));
  KernelKey c{"src", {}, "12.4", "sm_90"};
  KernelKey d{"src", {""}, "12.4", "sm_90"};
  EXPECT_NE(KernelCache::key_of(c), KernelCache::key_of(d));
  KernelKey e{"", {}, "12.4sm_90", ""};
  KernelKey f{"", {}, "12.4", "sm_90"};
  EXPECT_NE(KernelCache::key_of(e), KernelCache::key_of(f));
}

TEST(KernelCacheKey, Validity) {
  EXPECT_TRUE(KernelCache::is_valid_key("abc-DEF_123"));
  EXPECT_FALSE(KernelCache::is_valid_key(""));
  EXPECT_FALSE(KernelCache::is_valid_key("../etc/passwd"));
  EXPECT_FALSE(KernelCache::is_valid_key("a.b"));
  EXPECT_FALSE(KernelCache::is_valid_key("a/b"));
  EXPECT_FALSE(KernelCache::is_valid_key(std::string(129, 'a')));
  EXPECT_TRUE(KernelCache::is_valid_key(std::string(128, 'a')));
}

} // namespace
} // namespace scantune
