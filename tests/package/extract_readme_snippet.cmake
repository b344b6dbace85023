# Writes the README's first ```cpp block under "## Using the library" into a C++ file,
# wrapped in a function whose local variables come from readme_snippet_prelude.inc.
# Its #include lines move to file scope; #line keeps compiler messages on README lines.
#   cmake -DREADME=<README.md> -DPRELUDE=<prelude.inc> -DOUT=<out.cpp> -P extract_readme_snippet.cmake
cmake_minimum_required(VERSION 3.25)

file(READ ${README} text)
set(heading "\n## Using the library\n")
string(FIND "${text}" "${heading}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README}: no '## Using the library' heading (the snippet test needs one)")
endif()
string(LENGTH "${heading}" heading_length)
math(EXPR section_start "${at} + ${heading_length}")
string(SUBSTRING "${text}" ${section_start} -1 section)
string(FIND "${section}" "\n## " next_heading)
if(NOT next_heading EQUAL -1)
  string(SUBSTRING "${section}" 0 ${next_heading} section)
endif()
string(FIND "\n${section}" "\n```cpp\n" fence)
if(fence EQUAL -1)
  message(FATAL_ERROR "${README}: no ```cpp block under '## Using the library'")
endif()
math(EXPR body_start "${fence} + 7") # past "```cpp\n" (the "\n" before it was prepended)
string(SUBSTRING "${section}" ${body_start} -1 body)
string(FIND "${body}" "\n```" fence_end)
if(fence_end EQUAL -1)
  message(FATAL_ERROR "${README}: the ```cpp block under '## Using the library' is not closed")
endif()
string(SUBSTRING "${body}" 0 ${fence_end} body)

# The README line of the snippet's first line.
math(EXPR before "${section_start} + ${body_start}")
string(SUBSTRING "${text}" 0 ${before} head)
string(REGEX MATCHALL "\n" newlines "${head}")
list(LENGTH newlines first_line)
math(EXPR first_line "${first_line} + 1")

# #include lines go to file scope (blank lines keep the numbering).
string(REGEX MATCHALL "(^|\n)[ \t]*#[ \t]*include[^\n]*" includes "${body}")
string(REGEX REPLACE "(^|\n)[ \t]*#[ \t]*include[^\n]*" "\\1" body "${body}")
string(REPLACE "\n" "" includes "${includes}")
string(REPLACE ";" "\n" includes "${includes}")

file(READ ${PRELUDE} prelude)
file(CONFIGURE OUTPUT ${OUT} @ONLY CONTENT [=[
// Generated from README.md ("## Using the library") by tests/package/extract_readme_snippet.cmake.
// Do not edit: edit README.md, or tests/package/readme_snippet_prelude.inc for its variables.
@includes@
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

// Compiled and linked into scantune_readme_snippet, never called.
void scantune_readme_snippet();
void scantune_readme_snippet() {
#line 1 "tests/package/readme_snippet_prelude.inc"
@prelude@
#line @first_line@ "README.md"
@body@
}
]=])
