#!/bin/bash
# SPDX-License-Identifier: MIT
# rl-testbed interop on bad input (docs/interop.md): usage errors and broken
# case files exit 2 naming the problem; a driver that does not start is a named
# failure (exit 1); the reference driver answers bad messages with an error
# and keeps going.
# usage: run_cli.sh RL_TESTBED DRIVER SOURCE_DIR
set -u
tb=$1 drv=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
case1=$src/conformance/cases/rule4_oldest_selected_immediately.json

expect() { # want_status pattern description command...
    local want=$1 pattern=$2 what=$3
    shift 3
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" != "$want" ] || ! grep -q -- "$pattern" "$tmp/out"; then
        echo "FAIL $what: exit $rc (want $want), output lacks \"$pattern\":"
        cat "$tmp/out"
        fails=$((fails + 1))
    else
        echo "ok   $what"
    fi
}

expect 0 "usage: rl-testbed interop" "--help" "$tb" interop --help
expect 2 "--auth wants a list of none, cookie, aes" "--auth bogus" "$tb" interop --auth bogus "$case1"
expect 2 "--family wants 4, 6 or 4,6" "--family 5" "$tb" interop --family 5 "$case1"
expect 2 "unknown option" "--bogus" "$tb" interop --bogus
expect 2 "missing value after '--driver'" "--driver without a command" "$tb" interop "$case1" --driver
expect 2 "--driver wants a value, got an empty string" "--driver ''" "$tb" interop --driver '' "$case1"
# a --json path that cannot be written stops before any run (not after the matrix)
expect 2 "cannot create JSON file $tmp/no-dir/r.json" "--json in a missing folder" \
    "$tb" interop --json "$tmp/no-dir/r.json" "$case1"
if grep -q "^interop: [0-9]" "$tmp/out"; then
    echo "FAIL --json in a missing folder ran cases first"
    fails=$((fails + 1))
fi
expect 2 "no-such-case.json" "a missing case file" "$tb" interop "$tmp/no-such-case.json"
sed 's/"kind": "downgraded"/"kind": "sideways"/' "$src/conformance/interop/cases/downgraded_oldest_ignored_aes.json" \
    >"$tmp/bad_event.json"
expect 2 'interop_events\[0\]' "an unknown interop event kind" "$tb" interop "$tmp/bad_event.json"
own=$src/conformance/interop/cases
sed 's/"discovery": "dns"/"discovery": "mdns"/' "$own/dns_three_members_oldest_selected.json" >"$tmp/bad_disc.json"
expect 2 'discovery: want "dns" or "static"' "an unknown discovery" "$tb" interop "$tmp/bad_disc.json"
sed 's/"discovery": "dns",//' "$own/dns_restarted_server_untrusted.json" >"$tmp/targets_static.json"
expect 2 'dns_targets: want an object' "dns_targets without DNS discovery" "$tb" interop "$tmp/targets_static.json"
sed 's/"B": "s-4194304002"/"Z": "s-1"/' "$own/dns_restarted_server_untrusted.json" >"$tmp/targets_name.json"
expect 2 'dns_targets.Z: want a server' "dns_targets naming no server" "$tb" interop "$tmp/targets_name.json"
sed 's/"server": "B", "before"/"server": "Q", "before"/' "$own/dns_restart_new_id_is_youngest.json" >"$tmp/restart.json"
expect 2 'restart: want' "a restart of no server" "$tb" interop "$tmp/restart.json"
sed 's/"join": "D"/"join": "Q"/' "$own/dns_member_joins_oldest_selected.json" >"$tmp/join.json"
expect 2 'join: want the name of a server' "a join of no server" "$tb" interop "$tmp/join.json"
expect 1 "create: the driver exited with status 1" "a driver that exits at once" "$tb" interop --driver false --family 4 --auth none "$case1"
expect 1 "interop tolerances: timing -10 ms/+40% of U (U = 100 ms), completion race 10 ms, testbed script 5 ms; run time [0-9]*\\.[0-9] s" \
    "the closing note gives the tolerances and the run time" "$tb" interop --driver false --family 4 --auth none "$case1"
expect 1 "interop: 0 passed, 1 failed" "the closing line of a failed run" \
    "$tb" interop --driver false --family 4 --auth none "$case1"

# A broken driver gets a named error and the run ends (docs/interop.md "Driver protocol").
one="--family 4 --auth none $case1"
expect 1 'create: the driver wrote a line that is not a JSON object: "starting"' "a banner line before the answer" \
    "$tb" interop --driver 'echo starting; cat >/dev/null' $one
expect 1 'check: the driver exited with status 3' "a driver that exits during the check" \
    "$tb" interop --driver 'read l; echo "{\"ok\":true}"; read l; exit 3' $one
expect 1 'check: the driver wrote a line nobody asked for' "an extra line after the create answer" \
    "$tb" interop --driver "read l; printf '{\"ok\":true}\\n{\"ok\":true}\\n'; cat >/dev/null" $one
# A driver that hangs at create: named, and nothing it started outlives the run
# (sh -c forks the command: the whole process group is stopped).
expect 1 'create: no answer within 10000 ms' "a driver that hangs at create" \
    "$tb" interop --driver "sleep 300 & echo \$! >$tmp/hang.pid; wait" $one
alive() { # running, not a zombie waiting for its new parent to reap it
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st#Z}" = "$st" ]
}
for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$(cat "$tmp/hang.pid")" || break; sleep 0.2; done
if alive "$(cat "$tmp/hang.pid")"; then
    echo "FAIL a hung driver's child outlives the run"
    kill "$(cat "$tmp/hang.pid")"
    fails=$((fails + 1))
else
    echo "ok   a hung driver's child is stopped with it"
fi

# Reports: JUnit names the run with its mode and family, JSON has the schema and the failing check.
"$tb" interop --driver false --family 4 --auth none --junit "$tmp/r.xml" --json "$tmp/r.json" "$case1" >/dev/null 2>&1
expect 0 'name="rule4_oldest_selected_immediately\[none,ipv4\]"' "JUnit testcase name" cat "$tmp/r.xml"
expect 0 '<failure' "JUnit failure" cat "$tmp/r.xml"
expect 0 '"schema": "ratelimitly-interop-results/v1"' "JSON schema" cat "$tmp/r.json"
expect 0 '"name": "outcome"' "JSON failing check" cat "$tmp/r.json"
# project: the case id is whole in JSON and JUnit (33 characters here, more than a 32-byte field holds)
expect 0 '"case": "rule4_oldest_selected_immediately",' "JSON case id whole" cat "$tmp/r.json"

# The reference driver: an error answer per bad message, then it goes on.
printf '%s\n' 'not json' '{"op":"check","resources":[],"guards":[]}' '{"op":"fly"}' \
    '{"op":"create","servers":[]}' '{"op":"close"}' | "$drv" >"$tmp/answers" 2>&1
want='{"ok":false,"error":"not a JSON object with an op"}
{"ok":false,"error":"check: no client"}
{"ok":false,"error":"unknown op"}
{"ok":false,"error":"create: key missing"}
{"ok":true}'
if [ "$(cat "$tmp/answers")" != "$want" ]; then
    echo "FAIL driver answers to bad messages:"
    cat "$tmp/answers"
    fails=$((fails + 1))
else
    echo "ok   driver answers to bad messages"
fi
# A driver that declines every case plays nothing: no green verdict (project,
# as conformance: "gate: no test ran", exit 1).
pydrv="python3 $src/conformance/interop/drivers/python/rl_interop_driver.py"
expect 1 "gate: no test ran" "a driver that declines every case" \
    "$tb" interop --auth cookie --family 4 --driver "$pydrv" "$own/dns_three_members_oldest_selected.json"
# A check with nothing to judge is said to be N/A, never a PASS (docs/interop.md:
# a driver that does not name the selected server).
expect 0 "  selected     N/A    decision; not judged: the driver does not name the selected server" \
    "a check with nothing to judge is N/A" "$tb" interop --auth cookie --family 4 \
    --driver "$pydrv | sed -u 's/, \"server_id\": \"[0-9]*\"//'" "$own/silent_round_then_oldest.json"
[ "$fails" = 0 ] && echo "interop cli: all passed"
exit $((fails > 0))
