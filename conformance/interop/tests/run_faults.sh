#!/bin/bash
# SPDX-License-Identifier: MIT
# Broken drivers (docs/interop.md "Broken drivers"): the reference driver with
# one deliberate fault each (RL_INTEROP_FAULT) fails exactly the checks of the
# rule it breaks, and with no fault passes the same case.
# usage: run_faults.sh RL_TESTBED FAULT_DRIVER SOURCE_DIR
set -u
tb=$1 drv=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cases=$src/conformance/cases
own=$src/conformance/interop/cases

# fault  auth  case  the failing checks, sorted (spec sentence of each in docs/interop.md)
table="no_fanout cookie $cases/rule4_oldest_selected_immediately.json fanout
replay_all cookie $cases/rule4_oldest_selected_immediately.json completion
replay_at_deadline cookie $cases/rule4_oldest_selected_immediately.json deadline
new_uid cookie $cases/rule4_oldest_selected_immediately.json unique_id
accept_none aes $own/downgraded_oldest_ignored_aes.json completion,decision_time,response_auth,selected
key_bytes cookie $cases/rule4_oldest_selected_immediately.json framing,key_material
ignore_steering cookie $cases/steering_keep_port_false_from_selected.json steering
stale_dns cookie $own/dns_restart_new_id_is_youngest.json completion,decision_time
stale_dns cookie $own/dns_member_joins_oldest_selected.json completion,decision_time,fanout,selected"

failing_checks() { # JSON results -> the failing check names of the one run, sorted, comma-separated
    python3 -c 'import json,sys
runs=[r for r in json.load(open(sys.argv[1]))["runs"] if r["result"]!="skip"]
print(",".join(sorted(c["name"] for r in runs for c in r["checks"] if not c["pass"])))' "$1"
}

while read -r fault auth case want; do
    RL_INTEROP_FAULT=$fault "$tb" interop --driver "$drv" --auth "$auth" --family 4 --quiet --json "$tmp/$fault.json" \
        "$case" >"$tmp/$fault.out" 2>&1
    rc=$?
    got=$(failing_checks "$tmp/$fault.json")
    if [ "$rc" != 1 ] || [ "$got" != "$want" ]; then
        echo "FAIL $fault: exit $rc, failing checks \"$got\", want exit 1 and \"$want\""
        cat "$tmp/$fault.out"
        fails=$((fails + 1))
    else
        echo "ok   $fault fails exactly: $got"
    fi
    if ! env -u RL_INTEROP_FAULT "$tb" interop --driver "$drv" --auth "$auth" --family 4 --quiet "$case" \
        >"$tmp/$fault.clean" 2>&1; then
        echo "FAIL $fault: the same driver without the fault does not pass $case"
        cat "$tmp/$fault.clean"
        fails=$((fails + 1))
    fi
done <<<"$table"

# An unknown fault name is refused by the driver, and the run says so.
RL_INTEROP_FAULT=bogus "$tb" interop --driver "$drv" --family 4 --auth none "$cases/rule4_oldest_selected_immediately.json" \
    >"$tmp/bogus.out" 2>&1
if [ $? != 1 ] || ! grep -q 'create: the driver exited with status 2' "$tmp/bogus.out"; then
    echo "FAIL bogus fault: want exit 1 and the create failure named"
    cat "$tmp/bogus.out"
    fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "interop faults: all passed"
exit $((fails > 0))
