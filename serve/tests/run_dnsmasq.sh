#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --dnsmasq and --zone output of `rl-testbed serve`: the exact text of both
# files, then the dnsmasq snippet served by dnsmasq on a loopback port (started
# here, stopped after) and queried with dig: the SRV record names
# s-<server_id>.<name> at the server's port, and the target resolves to the
# listen addresses (r-client.md 3.1 "DNS SRV Setup").
# usage: run_dnsmasq.sh RL_TESTBED   (needs dnsmasq and dig: scripts/install-deps.sh)
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
dns_pid=""
trap 'cleanup_serve; [ -n "$dns_pid" ] && kill "$dns_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
for tool in dnsmasq dig; do
    command -v "$tool" >/dev/null || { echo "FAIL $tool not installed (scripts/install-deps.sh)"; exit 1; }
done

k=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
start_serve zone --tenant "$k" --dns-name rl.test --dnsmasq "$tmp/records.conf" --zone "$tmp/rl.test.zone" \
    --server id=264543142129721 --server id=264543142129722
p0=$(server_port zone 0)
p1=$(server_port zone 1)

cat >"$tmp/want.conf" <<EOT
# rl-testbed serve: records of 2 server(s) for rl.test (dnsmasq --conf-file)
srv-host=_ratelimitly._udp.rl.test,s-264543142129721.rl.test,$p0,0,0
srv-host=_ratelimitly._udp.rl.test,s-264543142129722.rl.test,$p1,0,0
host-record=s-264543142129721.rl.test,127.0.0.1
host-record=s-264543142129721.rl.test,::1
host-record=s-264543142129722.rl.test,127.0.0.1
host-record=s-264543142129722.rl.test,::1
EOT
cat >"$tmp/want.zone" <<EOT
; rl-testbed serve: records of 2 server(s) for rl.test
\$ORIGIN rl.test.
\$TTL 60
@ IN SOA ns hostmaster 1 3600 600 86400 60
@ IN NS ns
ns IN A 127.0.0.1
ns IN AAAA ::1
_ratelimitly._udp IN SRV 0 0 $p0 s-264543142129721
_ratelimitly._udp IN SRV 0 0 $p1 s-264543142129722
s-264543142129721 IN A 127.0.0.1
s-264543142129721 IN AAAA ::1
s-264543142129722 IN A 127.0.0.1
s-264543142129722 IN AAAA ::1
EOT
check "dnsmasq snippet: exact text" cmp "$tmp/want.conf" "$tmp/records.conf"
check "zone file: exact text" cmp "$tmp/want.zone" "$tmp/rl.test.zone"

# dnsmasq on a free loopback port, answering only from the snippet.
start_dnsmasq "$tmp/records.conf"
check "dnsmasq started" [ -n "$dns_pid" ]
q() { dig @127.0.0.1 -p "$dport" +short +time=5 +tries=3 "$@" | sort; } # a hang guard, not a measurement
srv=$(q SRV _ratelimitly._udp.rl.test | tr '\n' ';')
want=$(printf '0 0 %s s-264543142129721.rl.test.\n0 0 %s s-264543142129722.rl.test.\n' "$p0" "$p1" | sort | tr '\n' ';')
check "SRV answer" [ "$srv" = "$want" ]
check "A of a target" [ "$(q A s-264543142129721.rl.test)" = "127.0.0.1" ]
check "AAAA of a target" [ "$(q AAAA s-264543142129722.rl.test)" = "::1" ]

# A restart rewrites both files with the new server_id (and the next serial).
kill -HUP "$srv_pid"
wait_line zone "server 1: restarted (SIGHUP)"
new0=$(sed -n 's/^server 0: restarted (SIGHUP), server_id \([0-9]*\) .*/\1/p' "$tmp/zone.out")
check "restart: snippet names the new server_id" grep -q "^srv-host=_ratelimitly._udp.rl.test,s-$new0.rl.test,$p0,0,0\$" "$tmp/records.conf"
check "restart: zone serial 3 after two rewrites" grep -q '^@ IN SOA ns hostmaster 3 ' "$tmp/rl.test.zone"
stop_serve zone

echo "serve dnsmasq: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
