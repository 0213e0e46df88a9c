# cmake/registration_rule.cmake refuses a registration macro in a file that a static library
# would drop, naming the file, and lets every other file through.
#   cmake -DROOT=<source dir> -DWORK=<scratch dir> -P registration_rule_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/plain.cpp "int helper;\n// RTGATE_EXPORTER( in a comment is not a use\n")
file(WRITE ${WORK}/json_exporter.cpp "RTGATE_EXPORTER({.name = \"json\"});\n")
file(WRITE ${WORK}/check.cmake
     "include(${ROOT}/cmake/registration_rule.cmake)\n"
     "rtgate_forbid_registration(RTGATE_EXPORTER \"exporters/**/*_export.cpp\" \${SOURCES})\n")

execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCES=${WORK}/plain.cpp -P ${WORK}/check.cmake
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a file without a registration was refused: ${err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCES=${WORK}/plain.cpp\;${WORK}/json_exporter.cpp
                        -P ${WORK}/check.cmake
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a registration in a static library's file was accepted")
endif()
string(REGEX REPLACE "[ \n]+" " " flat "${err}")  # cmake wraps the message
if(NOT flat MATCHES "json_exporter.cpp registers with RTGATE_EXPORTER, which only works in exporters/\\*\\*/\\*_export.cpp")
  message(FATAL_ERROR "the refusal does not name the file and the rule: ${err}")
endif()
file(REMOVE_RECURSE ${WORK})
