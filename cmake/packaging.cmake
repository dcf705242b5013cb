# SPDX-License-Identifier: MIT
# The Debian package (README "Installing"): cpack -G DEB in a build configured
# with -DCMAKE_INSTALL_PREFIX=/usr (scripts/make-deb.sh does both). One package,
# rl-testbed, holding every install component; its dependencies come from
# dpkg-shlibdeps, plus python3 and python3-cryptography for the Python adapter
# template.
set(CPACK_PACKAGE_NAME rl-testbed)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The Ratelimitly toolkit authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Ratelimitly reference client library, conformance suite and testbed")
set(CPACK_PACKAGE_DESCRIPTION "librclient (the Ratelimitly client core and runtime), rl-testbed (vectors, conformance,
dialect, check, admin, sim, serve, interop, sweep), the suite data (known-answer vectors,
HA decision cases, traces, schemas), its documents and the adapter templates.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_CONTACT "The Ratelimitly toolkit authors")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-cryptography")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox, libssl-dev, libb2-dev, libc-ares-dev")
# The whole build's install (every component), as one package.
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_STRIP_FILES ON)
include(CPack)
