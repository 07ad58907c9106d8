// Where the tool tests find the `weft` binary, the source tree and their own data. The paths
// live in one generated file (ToolTestPaths.cpp, written by CMake), not in compile definitions,
// so that the test objects themselves are the same in any clone (the compiler cache).
#pragma once

#include <string>

namespace weft::tool::test {

const std::string& weftBinary();  // the weft executable of this build
const std::string& sourceDir();   // the source tree, without a trailing slash
const std::string& testDir();     // tests/tool in the source tree

}  // namespace weft::tool::test
