// base/hash.hpp: SHA-256 (FIPS 180-4), one-shot and incremental.
//
// Used for kernel-cache keys and entry checksums, and to fingerprint template
// sources. The implementation is portable C++ (no intrinsics); it hashes a few
// hundred MB/s, far more than any caller here needs.
//
//   std::string h = scantune::sha256_hex("abc");  // "ba7816bf...f20015ad"
//
//   scantune::Sha256 s;
//   s.update(part1).update(part2);
//   std::string h2 = s.hex_digest();  // same as sha256_hex(part1 + part2)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace scantune {

/// Incremental SHA-256. Feed bytes with update(); digest() and hex_digest() do not
/// modify the object, so more data may be appended afterwards.
class Sha256 {
public:
  static constexpr std::size_t kDigestSize = 32;
  static constexpr std::size_t kBlockSize = 64;
  using Digest = std::array<std::uint8_t, kDigestSize>;

  Sha256() noexcept { reset(); }

  /// Forgets everything hashed so far.
  void reset() noexcept;

  /// Appends `size` bytes at `data` to the message.
  Sha256& update(const void* data, std::size_t size) noexcept;
  Sha256& update(std::string_view bytes) noexcept { return update(bytes.data(), bytes.size()); }

  /// The digest of the message so far (32 bytes).
  Digest digest() const noexcept;
  /// The digest as 64 lowercase hexadecimal characters.
  std::string hex_digest() const;

private:
  void compress(const std::uint8_t* block) noexcept;

  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, kBlockSize> buffer_{};
  std::size_t buffered_ = 0; // bytes in buffer_
  std::uint64_t length_ = 0; // message length in bytes
};

/// SHA-256 of `bytes`.
Sha256::Digest sha256(std::string_view bytes) noexcept;
/// SHA-256 of `bytes` as 64 lowercase hexadecimal characters.
std::string sha256_hex(std::string_view bytes);
/// `size` bytes as lowercase hexadecimal (2 characters a byte).
std::string to_hex(const std::uint8_t* data, std::size_t size);

} // namespace scantune
