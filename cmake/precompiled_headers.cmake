# RTGATE_PCH: precompiled headers for every target but the rtgate binary. Most of a -O0 build's
# time (the ASan build, ci/sanitize.sh) is spent parsing the same standard, JSON and GoogleTest
# headers in every file. A precompiled header is included in every file of its target, so it
# would hide a missing #include: the normal build never uses it, and the rtgate binary's files
# (the CLI, compiled each on its own in the ASan build for that very check) never get it.
set(RTGATE_PCH_HEADERS <algorithm> <cstdint> <functional> <map> <memory> <optional> <string>
    <string_view> <vector> <nlohmann/json.hpp>)

# The targets defined in `dir` and the directories below it.
function(rtgate_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    rtgate_targets_below(${sub} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(rtgate_precompile_headers)
  rtgate_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(t STREQUAL "rtgate" OR NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    if(NOT sources)
      continue()
    endif()
    target_precompile_headers(${t} PRIVATE ${RTGATE_PCH_HEADERS})
    if(t MATCHES "_tests$")
      target_precompile_headers(${t} PRIVATE <gtest/gtest.h>)
    endif()
  endforeach()
endfunction()
