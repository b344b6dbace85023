// The argument descriptor that every rank all-gathers before a distributed scan, and
// the host-side comparison that turns disagreeing ranks into one error message (the
// same text on every rank, since every rank compares the same gathered array).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scantune/types.hpp"

namespace scantune::nccl::detail {

/// A problem with one rank's own arguments, reported to every rank through the
/// descriptor so that no rank waits forever in a collective the failing rank skips.
enum class ArgProblem : std::uint32_t { None, NullPointer, WrongDevice };

/// Fixed-size and trivially copyable: it travels as bytes (ncclUint8).
struct Descriptor {
  std::uint32_t magic = 0;
  std::uint32_t type = 0;
  std::uint32_t op = 0; ///< an Op, or kCustomOp
  std::uint32_t kind = 0;
  std::uint64_t custom_hash = 0; ///< of the custom operator's name, body and identity
  std::uint64_t init_bits = 0;   ///< an exclusive scan's init (first size_of(type) bytes)
  std::uint32_t problem = 0;     ///< an ArgProblem
  std::uint32_t device = 0;      ///< the CUDA device of the rank (messages only)
  std::uint64_t n = 0;           ///< the rank's chunk size (messages only)
};
static_assert(sizeof(Descriptor) == 48, "the descriptor travels as 48 bytes");

inline constexpr std::uint32_t kDescriptorMagic = 0x5354'4e31; // "STN1"
inline constexpr std::uint32_t kCustomOp = 0xffff'ffff;

/// The descriptor of one rank's call; `init` (host, one element of `type`) may be null.
Descriptor make_descriptor(DataType type, ScanKind kind, OpRef op, const void* init, std::size_t n,
                           ArgProblem problem, int device);

/// "rank 2: null input or output pointer with n = 5"; "" for ArgProblem::None.
std::string describe_problem(ArgProblem problem, std::size_t rank, std::uint64_t n, int device);

/// "" when the gathered descriptors (index = rank) agree and report no problem; else
/// a message naming, for each field that differs, which ranks hold which value, and
/// every rank's argument problem.
std::string compare_descriptors(const std::vector<Descriptor>& all);

} // namespace scantune::nccl::detail
