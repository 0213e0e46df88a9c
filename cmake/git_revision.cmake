# Run at build time (cmake -P): writes OUT with the git revision the tree was built from, e.g.
#   #define RTGATE_GIT_REVISION "v0.1.0-42-g1a2b3c4d5e6f-dirty"
# from `git describe --always --dirty` in SRC. A tree without git (a source tarball) takes
# $ENV{RTGATE_GIT_REVISION} when set (a packager names the revision), else "unknown". OUT is
# rewritten only when the text changes, so an unchanged revision rebuilds nothing.
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR revision STREQUAL "")
  if(DEFINED ENV{RTGATE_GIT_REVISION} AND NOT "$ENV{RTGATE_GIT_REVISION}" STREQUAL "")
    set(revision "$ENV{RTGATE_GIT_REVISION}")
  else()
    set(revision "unknown")
  endif()
endif()
set(text "#pragma once\n#define RTGATE_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
