# SPDX-License-Identifier: MIT
# cmake -DSRC=<source dir> -DOUT=<file.c> -DVERSION=<v> -DPYTHON=<python3> [-DCOMMIT=<sha>] -P gen.cmake
# Writes OUT from rl_build_info_gen.c.in; configure_file leaves it untouched
# (so nothing relinks) when the commit and the suite data did not change.
if(COMMIT)
  set(RL_COMMIT "${COMMIT}")
elseif(DEFINED ENV{RL_COMMIT})
  set(RL_COMMIT "$ENV{RL_COMMIT}")
else()
  execute_process(COMMAND git -C "${SRC}" rev-parse HEAD OUTPUT_VARIABLE RL_COMMIT
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT RL_COMMIT MATCHES "^[0-9a-f]+$")
    set(RL_COMMIT "unknown")
  endif()
endif()
execute_process(COMMAND "${PYTHON}" "${SRC}/vectors/tools/make_bundle.py" --suite-version --version "${VERSION}"
                OUTPUT_VARIABLE RL_SUITE_DATA_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_bundle.py --suite-version failed")
endif()
set(RL_VERSION "${VERSION}")
configure_file("${SRC}/tools/buildinfo/rl_build_info_gen.c.in" "${OUT}" @ONLY)
