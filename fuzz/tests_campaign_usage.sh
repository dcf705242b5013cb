#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: tests_campaign_usage.sh SOURCE_DIR
# fuzz/campaign.sh on a missing or empty option value (fuzz/README.md; project): exit 2 naming the
# option, before any build or run. '--out=' started a campaign writing into the source tree, and
# '--out' last stopped on "$2: unbound variable" (exit 1).
src=$1
failures=0
for args in "--out" "--out=" "--seconds" "--engine=" "--fork=" "--jobs"; do
    opt=${args%%=*}
    # shellcheck disable=SC2086
    timeout 20 bash "$src/fuzz/campaign.sh" $args >/dev/null 2>err.$$
    rc=$?
    if [ "$rc" -eq 2 ] && grep -qx "campaign: missing value after $opt" err.$$; then
        echo "ok   campaign.sh $args: missing value after $opt"
    else
        failures=$((failures + 1)); echo "FAIL campaign.sh $args: exit $rc: $(head -n 1 err.$$)"
    fi
done
rm -f err.$$
echo "campaign usage: $failures failed"
[ "$failures" -eq 0 ]
