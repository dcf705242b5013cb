#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - run rl-testbed against one published Ratelimitly client through its
# adapter in this folder (README.md here). Kept out of CI: it needs the
# client's own checkout, which this project never ships.
#
#   conformance/adapters/published/run.sh CLIENT CHECKOUT [SUBCOMMAND] [RL-TESTBED ARGS...]
#
#   CLIENT      python | c | js
#   CHECKOUT    a checkout of ratelimitly-com/rl-python-client, rl-c-client or
#               rl-js-client (for c: built with the client's own `make librclient.a`)
#   SUBCOMMAND  vectors (default), conformance, dialect, or interop (python and js:
#               python/rl_python_client_interop.py or js/rl_js_client_interop.js
#               as the driver, docs/interop.md)
#
# Environment: RL_TESTBED (default build/default/tools/rl-testbed/rl-testbed
# of this tree), CC (default cc), RL_ADAPTER_TRANSLATE_KEYS=1 (c and python:
# hand the client its own key layout, README.md "Key translation").
# Exit status: rl-testbed's, or 2 on a usage error.
set -eu

usage() {
    echo "usage: $0 python|c|js CHECKOUT [vectors|conformance|dialect|interop] [rl-testbed args...]" >&2
    exit 2
}

[ $# -ge 2 ] || usage
client=$1
checkout=$(cd "$2" 2>/dev/null && pwd) || { echo "$0: $2: not a directory" >&2; exit 2; }
shift 2
sub=vectors
case ${1:-} in vectors|conformance|dialect|interop) sub=$1; shift ;; esac
[ "$sub" != interop ] || [ "$client" != c ] || { echo "$0: interop: the c client has no driver here" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
testbed=${RL_TESTBED:-$root/build/default/tools/rl-testbed/rl-testbed}
[ -x "$testbed" ] || { echo "$0: $testbed: no rl-testbed (build this tree first, or set RL_TESTBED)" >&2; exit 2; }

case $client in
python)
    [ -d "$checkout/src/ratelimitly" ] || { echo "$0: $checkout: no src/ratelimitly (not rl-python-client?)" >&2; exit 2; }
    RL_PYTHON_CLIENT=$checkout
    export RL_PYTHON_CLIENT
    cmd="python3 '$here/python/rl_python_client_adapter.py'"
    [ "$sub" != interop ] || cmd="python3 '$here/python/rl_python_client_interop.py'"
    ;;
c)
    [ -f "$checkout/include/r_client.h" ] || { echo "$0: $checkout: no include/r_client.h (not rl-c-client?)" >&2; exit 2; }
    [ -f "$checkout/librclient.a" ] || {
        echo "$0: $checkout/librclient.a: build the client first, as its README says (make librclient.a)" >&2
        exit 2
    }
    # Only the adapter is compiled here, against the user's build of the client.
    out=${TMPDIR:-/tmp}/rl_c_client_adapter.$$
    trap 'rm -f "$out"' EXIT
    ${CC:-cc} -std=c11 -O1 -Wall -Wextra -I"$checkout/include" -o "$out" "$here/c/rl_c_client_adapter.c" "$here/c/rl_c_client_ha.c" \
        "$checkout/librclient.a" -ljansson -lcrypto -lresolv -pthread
    version=$(git -C "$checkout" describe --always --dirty 2>/dev/null || cat "$checkout/VERSION" 2>/dev/null || echo unknown)
    cmd="'$out' '$version'"
    ;;
js)
    [ -f "$checkout/client.js" ] || { echo "$0: $checkout: no client.js (not rl-js-client?)" >&2; exit 2; }
    RL_JS_CLIENT=$checkout
    export RL_JS_CLIENT
    cmd="node '$here/js/rl_js_client_adapter.js'"
    [ "$sub" != interop ] || cmd="node '$here/js/rl_js_client_interop.js'"
    ;;
*) usage ;;
esac

# The data directory is this tree (vectors/, conformance/cases/), wherever the caller stands.
cd "$root"
set +e
if [ "$sub" = interop ]; then
    "$testbed" interop --driver "$cmd" "$@"
else
    "$testbed" "$sub" --client "$cmd" "$@"
fi
status=$?
exit $status
