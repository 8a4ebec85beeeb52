// Which ddpsim this is: the version (project(VERSION) in CMakeLists.txt) and the git commit the
// build was made from. The commit is read at build time by sim/process/build_info.cmake: the full
// hash, with "-dirty" when tracked files differed from it; "unknown" when the sources are not a
// git checkout of their own (a release tarball) or git is missing.
#pragma once

#include <string>

namespace ddpsim {

const char* ddpsim_version();
const char* source_commit();

// "ddpsim 0.1.0 (commit 0123abcd..., or commit unknown)": what `ddpsim --version` prints.
std::string version_line();

}  // namespace ddpsim
