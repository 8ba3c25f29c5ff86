#pragma once
// What qdt was built from, for `qdt --version`: the project's version and
// the git commit of the source tree, written into the build by
// sim/cli/build_info.cmake at every build ("unknown" outside a git checkout,
// as in a source tarball).
namespace qdt::sim {

const char* build_version();
// The full commit hash, "-dirty" appended when tracked files differed from it.
const char* build_commit();

}  // namespace qdt::sim
