# A self-registering piece (a suite, load kind, exporter or import format) works only in a
# translation unit the linker keeps: its kind's OBJECT library, whose files a name rule selects
# (suites/*.cpp, framework/background_load/*_load.cpp, exporters/**/*_export.cpp,
# importers/*_import.cpp).
# A registration that lands in a static library instead is dropped without a word, so
# configuring stops, naming the file and the rule it breaks.
#
#   rtgate_forbid_registration(MACRO RULE SOURCES...)
# Each source must not use MACRO(...). Editing one of them re-runs this check.
function(rtgate_forbid_registration macro rule)
  foreach(source ${ARGN})
    if(NOT CMAKE_SCRIPT_MODE_FILE)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
    endif()
    file(STRINGS ${source} uses REGEX "^[ \t]*${macro}[ \t]*\\(")
    if(uses)
      message(FATAL_ERROR "${source} registers with ${macro}, which only works in ${rule}: "
                          "the static library it is in now would drop it. Rename the file.")
    endif()
  endforeach()
endfunction()
