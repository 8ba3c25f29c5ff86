# Writes build_info.cpp (sim/cli/build_info.h) with the source tree's git
# commit; run at every build so the binary names the commit it was built
# from, and rewrites the file only when that changes, so nothing recompiles
# otherwise. Usage: cmake -DSOURCE_DIR=... -DOUTPUT=... -DVERSION=... -P build_info.cmake
set(commit "unknown")
find_program(QDT_GIT git)
if(QDT_GIT)
  # Only the source tree's own repository counts: a tarball unpacked inside
  # another checkout must not borrow that checkout's commit.
  execute_process(COMMAND ${QDT_GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                  RESULT_VARIABLE top_rc OUTPUT_VARIABLE top ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(top_rc EQUAL 0 AND NOT top STREQUAL "")
    file(REAL_PATH "${top}" top_real)
  endif()
  if(top_rc EQUAL 0 AND top_real STREQUAL source_real)
    execute_process(COMMAND ${QDT_GIT} -C ${SOURCE_DIR} rev-parse --verify HEAD
                    RESULT_VARIABLE head_rc OUTPUT_VARIABLE head ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(head_rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
      set(commit "${head}")
      execute_process(COMMAND ${QDT_GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      RESULT_VARIABLE status_rc OUTPUT_VARIABLE status ERROR_QUIET)
      if(status_rc EQUAL 0 AND NOT status STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
set(text "// Written by sim/cli/build_info.cmake at build time.
#include \"sim/cli/build_info.h\"

namespace qdt::sim {

const char* build_version() { return \"${VERSION}\"; }
const char* build_commit() { return \"${commit}\"; }

}  // namespace qdt::sim
")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
