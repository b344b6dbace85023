// The README snippet test's executable: links the snippet extracted from README.md
// (readme_snippet.cpp, generated) against libscantune. The snippet's function is
// never called (its device pointers are null): compiling, linking (every symbol it
// uses must resolve in libscantune) and loading are the test.
#include <cstdio>

int main() {
  std::printf(
      "README.md's \"Using the library\" snippet compiled and linked against libscantune\n");
  return 0;
}
