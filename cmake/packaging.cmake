# What `cmake --install` puts where, and the .deb CPack makes of it (`cpack -G DEB` in the build
# directory: rtgate_<version>_<arch>.deb, Depends from dpkg-shlibdeps).
#   bin/rtgate
#   share/man/man1/rtgate.1.gz          help2man, from --help (cmake/man_page.cmake)
#   share/rtgate/prometheus/            rules.yml, rules_test.yml, dashboard.json, METRICS.md,
#                                       prometheus.yml (an example scrape config)
#   share/rtgate/ci/                    gate-kernel.sh, the GitLab, GitHub and LAVA templates,
#                                       lab/ (board.sh, gate-kernels.sh: the pre-gate)
#   lib/systemd/system/rtgate-serve.service   ExecStart names the installed binary
#   share/doc/rtgate/                   README.md, copyright, changelog.Debian.gz, docs/ (the
#                                       reference the README links to)
include(GNUInstallDirs)

install(TARGETS rtgate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(RTGATE_MAN ${PROJECT_BINARY_DIR}/man/rtgate.1.gz)
  add_custom_command(
    OUTPUT ${RTGATE_MAN}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -DRTGATE=$<TARGET_FILE:rtgate> -DHELP2MAN=${HELP2MAN}
            -DOUT=${RTGATE_MAN} -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
    DEPENDS rtgate ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
    COMMENT "man page from rtgate --help (help2man)")
  add_custom_target(rtgate_man ALL DEPENDS ${RTGATE_MAN})
  install(FILES ${RTGATE_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: no man page is built or installed")
endif()

set(RTGATE_SHARE ${CMAKE_INSTALL_DATADIR}/rtgate)
install(FILES exporters/prometheus/rules.yml exporters/prometheus/rules_test.yml
              exporters/prometheus/dashboard.json exporters/prometheus/METRICS.md
        DESTINATION ${RTGATE_SHARE}/prometheus)
# The example config names the rules by their place in the source tree; installed, they sit
# beside it.
file(READ ci/prometheus/prometheus.yml RTGATE_PROM_CONFIG)
string(REPLACE "../../exporters/prometheus/rules.yml" "rules.yml" RTGATE_PROM_CONFIG
       "${RTGATE_PROM_CONFIG}")
file(WRITE ${PROJECT_BINARY_DIR}/packaging/prometheus.yml "${RTGATE_PROM_CONFIG}")
install(FILES ${PROJECT_BINARY_DIR}/packaging/prometheus.yml DESTINATION ${RTGATE_SHARE}/prometheus)
install(PROGRAMS ci/gate-kernel.sh DESTINATION ${RTGATE_SHARE}/ci)
# The virtual board and its kernel gate, for the templates' pre-gate (init is the guest's /init);
# the share copier is run as `python3 share_sync.py` (python3 is suggested, as for lava-cases.py).
install(PROGRAMS ci/lab/board.sh ci/lab/gate-kernels.sh ci/lab/root-view.sh ci/lab/lab-user.sh
        ci/lab/init
        DESTINATION ${RTGATE_SHARE}/ci/lab)
install(FILES ci/lab/share_sync.py DESTINATION ${RTGATE_SHARE}/ci/lab)
install(FILES ci/gitlab/rtgate.gitlab-ci.yml DESTINATION ${RTGATE_SHARE}/ci/gitlab)
install(FILES ci/github/rtgate.yml DESTINATION ${RTGATE_SHARE}/ci/github)
# lava-cases.py is run as `python3 lava-cases.py`, hence not executable (no python3 dependency
# for boards that do not use LAVA).
install(FILES ci/lava/rtgate.yaml ci/lava/job-example.yaml ci/lava/README.md ci/lava/lava-cases.py
        DESTINATION ${RTGATE_SHARE}/ci/lava)

# The unit's ExecStart names /usr/local/bin/rtgate (a manual install); installed, it names the
# binary where this install put it (the prefix is only known at install time: CPack's is /usr).
install(CODE "
  file(READ \"${PROJECT_SOURCE_DIR}/ci/systemd/rtgate-serve.service\" unit)
  string(REPLACE \"/usr/local/bin/rtgate\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/rtgate\"
         unit \"\${unit}\")
  set(dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
  file(MAKE_DIRECTORY \"\${dest}\")
  file(WRITE \"\${dest}/rtgate-serve.service\" \"\${unit}\")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${dest}/rtgate-serve.service\")
")

# Debian's changelog and copyright files (lintian requires both in every binary package).
string(TIMESTAMP RTGATE_BUILD_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(RTGATE_MAINTAINER "rtgate maintainers <rtgate@example.org>")
file(WRITE ${PROJECT_BINARY_DIR}/packaging/changelog.Debian
     "rtgate (${PROJECT_VERSION}-1) unstable; urgency=medium\n\n"
     "  * Built with CPack from the rtgate source tree.\n"
     "  * rtgate --version names the git revision.\n\n"
     " -- ${RTGATE_MAINTAINER}  ${RTGATE_BUILD_DATE}\n")
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
  COMMAND gzip -9nkf ${PROJECT_BINARY_DIR}/packaging/changelog.Debian
  DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.Debian)
add_custom_target(rtgate_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
install(FILES README.md cmake/copyright ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rtgate)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)  # 0.1.0-1: a Debian revision, as changelog.Debian says
set(CPACK_PACKAGE_CONTACT "${RTGATE_MAINTAINER}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # rtgate_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rt-tests, trace-cmd")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "prometheus, prometheus-pushgateway, prometheus-node-exporter, stress-ng, python3")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time latency regression tests for Linux")
# The extended description; CPack puts the summary above it and indents each line.
set(CPACK_PACKAGE_DESCRIPTION
    "rtgate runs SCHED_FIFO test suites (cyclic wakeup latency, PI rwsems, PI\n"
    "mutexes and spinlocks under mixed load, page-fault, futex and path-walk\n"
    "workloads) and records the latency distribution and the throughput of each,\n"
    "with the machine's environment. It gates a result against a baseline with\n"
    "calibrated statistics and an exit code a CI job can trust, and exports JSON,\n"
    "JUnit XML and Prometheus metrics.")
set(CPACK_STRIP_FILES ON)
include(CPack)
