# SPDX-License-Identifier: MIT
# The suite's data files: known-answer vectors, HA decision cases, simulator
# traces and their JSON Schemas (README "Installed data").
#   - installed under share/rl-testbed, where an installed rl-testbed finds them
#     without the source tree;
#   - checked against the schemas (every shipped file, and broken files that
#     must be rejected);
#   - packed into the versioned bundle rl-testbed-vectors-<version>.tar.gz
#     (target vector-bundle).
# Included from the top-level CMakeLists.txt after the tools.

set(RL_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/rl-testbed)

# RL_PYTHON3: the Debian interpreter first (top CMakeLists.txt): the tests need its
# python3-jsonschema and python3-cryptography (scripts/install-deps.sh).

if(TARGET rl_testbed_lib)
  # Where the installed binary looks (vec_default_base): beside itself first,
  # so an installed tree can be moved, then the configured prefix.
  file(RELATIVE_PATH rl_data_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR}/rl-testbed)
  target_compile_definitions(rl_testbed_lib PRIVATE
    RL_DATA_DIR="${CMAKE_INSTALL_FULL_DATADIR}/rl-testbed"
    RL_DATA_DIR_FROM_BIN="${rl_data_from_bin}")
endif()

# ---- install -----------------------------------------------------------------
# Components (top CMakeLists.txt): data, docs, templates.
file(GLOB rl_data_vectors CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/vectors/*.json)
file(GLOB rl_data_dialect CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/vectors/dialect/*.json)
file(GLOB rl_data_cases CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/conformance/cases/*.json)
file(GLOB rl_data_traces CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/traces/*.json)
file(GLOB rl_data_schemas CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/schemas/*.schema.json)
install(FILES ${rl_data_vectors} DESTINATION ${RL_DATA_INSTALL_DIR}/vectors COMPONENT data)
install(FILES ${rl_data_dialect} DESTINATION ${RL_DATA_INSTALL_DIR}/vectors/dialect COMPONENT data)
install(FILES ${rl_data_cases} DESTINATION ${RL_DATA_INSTALL_DIR}/conformance/cases COMPONENT data)
install(FILES ${rl_data_traces} ${PROJECT_SOURCE_DIR}/sim/traces/default-set.txt
        DESTINATION ${RL_DATA_INSTALL_DIR}/sim/traces COMPONENT data)
file(GLOB rl_data_sweep_traces CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/traces/sweep/*.json)
install(FILES ${rl_data_sweep_traces} DESTINATION ${RL_DATA_INSTALL_DIR}/sim/traces/sweep COMPONENT data)
# Data files a trace names (empirical latency samples, relative to the trace).
file(GLOB rl_data_trace_data CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/traces/data/*.txt)
install(FILES ${rl_data_trace_data} DESTINATION ${RL_DATA_INSTALL_DIR}/sim/traces/data COMPONENT data)
install(FILES ${rl_data_schemas} DESTINATION ${RL_DATA_INSTALL_DIR}/schemas COMPONENT data)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/schemas/validate.py DESTINATION ${RL_DATA_INSTALL_DIR}/schemas COMPONENT data)
# The suite-data version of the installed files (rl-testbed --version compares it with its own).
# Computed at install time from the files installed, so the component needs no build.
install(CODE "
  execute_process(COMMAND \"${RL_PYTHON3}\" \"${PROJECT_SOURCE_DIR}/vectors/tools/make_bundle.py\" --suite-version
                          --version ${PROJECT_VERSION} OUTPUT_VARIABLE rl_sdv RESULT_VARIABLE rl_rc)
  if(NOT rl_rc EQUAL 0)
    message(FATAL_ERROR \"make_bundle.py --suite-version failed\")
  endif()
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${RL_DATA_INSTALL_DIR}/SUITE_DATA_VERSION\" \"\${rl_sdv}\")
  " COMPONENT data)
# Every document a --help or an installed document names, under share/rl-testbed/docs by
# its file name (conformance/README.md as ha-cases.md, tools/rl-testbed/README.md as
# rl-testbed.md; scripts/check-install.sh checks the help texts against this list).
install(FILES ${PROJECT_SOURCE_DIR}/conformance/README.md DESTINATION ${RL_DATA_INSTALL_DIR}/docs
        RENAME ha-cases.md COMPONENT docs)
install(FILES ${PROJECT_SOURCE_DIR}/tools/rl-testbed/README.md DESTINATION ${RL_DATA_INSTALL_DIR}/docs
        RENAME rl-testbed.md COMPONENT docs)
install(FILES ${PROJECT_SOURCE_DIR}/docs/traces.md ${PROJECT_SOURCE_DIR}/docs/testing-other-clients.md
        ${PROJECT_SOURCE_DIR}/conformance/ADAPTER.md ${PROJECT_SOURCE_DIR}/docs/serve.md
        ${PROJECT_SOURCE_DIR}/docs/sweep.md ${PROJECT_SOURCE_DIR}/docs/interop.md
        ${PROJECT_SOURCE_DIR}/docs/spec-notes.md ${PROJECT_SOURCE_DIR}/docs/api-guide.md
        DESTINATION ${RL_DATA_INSTALL_DIR}/docs COMPONENT docs)
# The adapter templates (conformance/ADAPTER.md), in the checkout's layout so the Python
# template finds its model (vectors/tools/gen_*.py) the same way installed as in the tree.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/conformance/adapters/python/rl_adapter.py
        DESTINATION ${RL_DATA_INSTALL_DIR}/conformance/adapters/python COMPONENT templates)
install(FILES ${PROJECT_SOURCE_DIR}/vectors/tools/gen_vectors.py ${PROJECT_SOURCE_DIR}/vectors/tools/gen_ha_schedule.py
        ${PROJECT_SOURCE_DIR}/vectors/tools/gen_admin_vectors.py
        DESTINATION ${RL_DATA_INSTALL_DIR}/vectors/tools COMPONENT templates)
file(GLOB rl_adapter_c_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/conformance/adapters/c/*.[ch])
install(FILES ${rl_adapter_c_sources} DESTINATION ${RL_DATA_INSTALL_DIR}/conformance/adapters/c COMPONENT templates)
# The outside known answers (../shared/external), when the checkout has them,
# so the installed suite runs what the checkout runs.
set(RL_EXTERNAL_VECTORS_DIR ${PROJECT_SOURCE_DIR}/../shared/external
    CACHE PATH "Directory of outside known-answer vector files")
# Off for the Debian package (scripts/make-deb.sh): they are not the project's to ship.
option(RL_INSTALL_EXTERNAL "Install the outside known answers (RL_EXTERNAL_VECTORS_DIR)" ON)
file(GLOB rl_data_external CONFIGURE_DEPENDS ${RL_EXTERNAL_VECTORS_DIR}/*.json)
if(rl_data_external AND RL_INSTALL_EXTERNAL)
  install(FILES ${rl_data_external} DESTINATION ${RL_DATA_INSTALL_DIR}/external COMPONENT data)
endif()

# ---- bundle --------------------------------------------------------------------
add_custom_target(vector-bundle
  COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/vectors/tools/make_bundle.py
          --version ${PROJECT_VERSION} --out ${PROJECT_BINARY_DIR}
  COMMENT "rl-testbed-vectors-${PROJECT_VERSION}.tar.gz (vectors/tools/README.md \"Bundle\")"
  VERBATIM)

# ---- tests -------------------------------------------------------------------------
if(RCLIENT_BUILD_TESTS)
  # The committed vectors are exactly what the independent generator writes.
  add_test(NAME suite_vectors_generated COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/vectors/tools/gen_vectors.py --check)
  # The administrative-channel vectors (vectors/admin_*.json) likewise, from their own generator.
  add_test(NAME suite_admin_vectors_generated
           COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/vectors/tools/gen_admin_vectors.py --check)
  # ... and the committed HA cases exactly what their authoring script writes.
  add_test(NAME suite_cases_generated COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/conformance/tools/gen_cases.py --check)
  # Every shipped vector file, HA case and trace (and ../shared/external) against its schema.
  add_test(NAME suite_schemas_shipped COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/schemas/validate.py
           --root ${PROJECT_SOURCE_DIR})
  # The schemas reject broken files, each at the field that is wrong.
  add_test(NAME suite_schemas_reject_broken COMMAND ${RL_PYTHON3} ${PROJECT_SOURCE_DIR}/schemas/validate.py
           --bad ${PROJECT_SOURCE_DIR}/schemas/tests/bad/bad.tsv)
  set_tests_properties(suite_vectors_generated suite_admin_vectors_generated suite_cases_generated suite_schemas_shipped suite_schemas_reject_broken
                       PROPERTIES LABELS suite-data)
  if(TARGET rl-testbed)
    # cmake --install to a temporary prefix, then the installed rl-testbed run
    # from /tmp with no path argument: it must find the installed data.
    add_test(NAME suite_install
             COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/check-install.sh ${PROJECT_BINARY_DIR}
                     ${PROJECT_SOURCE_DIR} ${RL_PYTHON3})
    # The bundle: built, its SHA-256 sums and manifest checked, reproducible.
    add_test(NAME suite_bundle
             COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/check-bundle.sh ${PROJECT_SOURCE_DIR} ${RL_PYTHON3}
                     ${PROJECT_VERSION} $<TARGET_FILE:rl-testbed>)
    set_tests_properties(suite_install suite_bundle PROPERTIES LABELS suite-data)
  endif()
endif()
