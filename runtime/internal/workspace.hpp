// Per-stream workspaces: tile status words and ticket (single-pass algorithms),
// tile partials (reduce-then-scan; a sort's scratch) and the sorts' look-back
// status words. Grown on demand with stream-ordered allocation, zeroed once when
// (re)allocated, then reused by every call on the stream without any per-call
// initialisation (see templates/tile_status.cuh; a sort's tags, take_sort_tags).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include <cuda_runtime_api.h>

namespace scantune::detail {

class WorkspacePool {
public:
  struct Buffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };
  /// What the stream's sorts keep beside their status buffer (sort_launch.cpp): the
  /// next look-back tag no word carries yet, and the single launch's count (its
  /// histograms alternate) and grid barrier counter; reset when the buffer is zeroed.
  struct SortState {
    unsigned tag = 1;
    unsigned launches = 0;
    unsigned barrier = 0;
  };
  /// Held while a call enqueues its launches: the stream's buffers cannot be
  /// replaced (and freed) under a launch that uses them.
  struct Lease {
    std::unique_lock<std::mutex> lock;
    Buffer* status = nullptr;   // ticket word + status slots
    Buffer* partials = nullptr; // reduce-then-scan partials, a sort's scratch
    Buffer* sort_status = nullptr;
    SortState* sort = nullptr;
  };

  explicit WorkspacePool(int device) : device_(device) {}
  ~WorkspacePool();
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;

  /// The stream's buffers with at least the requested sizes (0 = not needed).
  /// cudaStreamPerThread is a different stream on every host thread, so it gets a
  /// workspace per thread.
  Lease acquire(cudaStream_t stream, std::size_t status_bytes, std::size_t partial_bytes,
                std::size_t sort_status_bytes = 0);

  /// Bytes of workspace a call needs for `tiles` tiles: status slots (any element
  /// size) and reduce-then-scan's partials of `element_size` bytes.
  static std::size_t status_bytes(std::size_t tiles);
  /// The same for `slots` packed slots of `words` 8-byte words (axis scans' columns).
  static std::size_t packed_status_bytes(std::size_t slots, std::size_t words);
  static std::size_t partial_bytes(std::size_t tiles, std::size_t element_size);

private:
  struct PerStream {
    std::mutex mutex;
    Buffer status, partials, sort_status;
    SortState sort;
  };
  /// Whether it reallocated (and zeroed) the buffer.
  static bool grow(Buffer& b, std::size_t bytes, cudaStream_t stream);

  int device_;
  std::mutex mutex_;
  std::map<std::pair<cudaStream_t, std::thread::id>, std::unique_ptr<PerStream>> streams_;
};

} // namespace scantune::detail
