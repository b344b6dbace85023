// The NVRTC templates, embedded at build time (cmake/embed_files.cmake).
#pragma once

#include <cstddef>

namespace scantune::detail {
struct EmbeddedFile {
  const char* name; // include name, e.g. "scantune/block_scan.cuh"
  const char* text;
};
extern const EmbeddedFile kTemplateFiles[];
extern const std::size_t kTemplateFileCount;
} // namespace scantune::detail
