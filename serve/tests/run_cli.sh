#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Command line of `rl-testbed serve`: every bad value refused with exit 2 and
# the option or key named; config file errors name the file and the line or
# field; a bind failure exits 1; --help and a good config file exit 0.
# usage: run_cli.sh RL_TESTBED
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
data="$here/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/../../tools/rl-testbed/testdata/cli_lib.sh"

k=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
expect "help" 0 out "usage: rl-testbed serve" -- serve --help
expect "no tenant" 2 err "no tenant: give --tenant" -- serve
expect "bad credential" 2 err "--tenant: bad credential:" -- serve --tenant rl-none1qqqq
expect "unknown option" 2 err "unknown option '--bogus'" -- serve --tenant $k --bogus 1
expect "missing value" 2 err "missing value after '--log'" -- serve --tenant $k --log
expect "stray argument" 2 err "unexpected argument 'extra'" -- serve --tenant $k extra
expect "drop above 1" 2 err "--server 'drop=1.5': drop: bad value '1.5' (want a probability in [0, 1])" -- serve --tenant $k --server drop=1.5
expect "port above 65535" 2 err "port: bad value '70000' (want a port 0..65535" -- serve --tenant $k --server port=70000
expect "unknown server key" 2 err "unknown server key 'colour'" -- serve --tenant $k --server colour=1
expect "not key=value" 2 err "'port' is not key=value" -- serve --tenant $k --server port
expect "delay min above max" 2 err "delay: bad value 'uniform:20:5'" -- serve --tenant $k --server delay=uniform:20:5
expect "delay kind" 2 err "delay: bad value 'normal:5'" -- serve --tenant $k --server delay=normal:5
expect "steer mode" 2 err "steer: bad value 'left' (want keep, change or random:P)" -- serve --tenant $k --server steer=left
expect "node above 32767" 2 err "node: bad value '40000' (want 0..32767)" -- serve --tenant $k --server node=40000
expect "start before 2025" 2 err "start: bad value '1000' (want Unix seconds >= 1735689600)" -- serve --tenant $k --server start=1000
expect "restart_after 0" 2 err "restart_after: bad value '0'" -- serve --tenant $k --server restart_after=0
expect "negative number" 2 err "freshness: bad value '-5'" -- serve --tenant $k --server freshness=-5
expect "rate cap 0" 2 err "--rate-cap: bad value '0' (want datagrams per second, 1..10000000)" -- serve --tenant $k --rate-cap 0
expect "memory cap text" 2 err "--memory-cap: bad value 'lots' (want MiB, 4..65536)" -- serve --tenant $k --memory-cap lots
expect "max pending 0" 2 err "--max-pending: bad value '0'" -- serve --tenant $k --max-pending=0
expect "seed sign" 2 err "--seed: bad value '-1'" -- serve --tenant $k --seed -1
expect "duration 0" 2 err "--duration: bad value '0' (want seconds > 0)" -- serve --tenant $k --duration 0
expect "listen name" 2 err "--listen: 'localhost' is not a numeric IPv4 or IPv6 address" -- serve --tenant $k --listen localhost
expect "dns name" 2 err "--dns-name: 'a..b' is not a host name" -- serve --tenant $k --dns-name a..b
expect "same listener and node twice" 2 err "servers 0 and 1: the same server_id (start, listener 3, node 1)" -- serve --tenant $k --server listener=3,node=1 --server listener=3,node=1
expect "same port twice" 2 err "servers 0 and 1: both on port 40000" -- serve --tenant $k --server port=40000 --server port=40000
expect "same server_id twice" 2 err "servers 0 and 1: the same server_id (start, listener 7, node 12345)" -- serve --tenant $k --server id=264543142129721 --server id=264543142129721
expect "config missing" 2 err "--config: $tmp/none.json: unable to open" -- serve --config "$tmp/none.json"
expect "config syntax" 2 err "--config: $data/syntax.json:3:" -- serve --config "$data/syntax.json"
expect "config member" 2 err "--config: $data/bad_member.json: servers[1].drop: drop: bad value '1.5'" -- serve --config "$data/bad_member.json"
expect "config unknown member" 2 err "--config: $data/unknown.json: colour: unknown member" -- serve --config "$data/unknown.json"
expect "config tenant" 2 err "--config: $data/bad_tenant.json: tenants[1]: --tenant: bad credential:" -- serve --config "$data/bad_tenant.json"
expect "bind failure" 1 err "cannot bind UDP 192.0.2.1 port 0:" -- serve --tenant $k --listen 192.0.2.1
expect "good config" 0 out "server 0: server_id 264543142129721 port " -- serve --config "$data/good.json"
expect "good config: second server from start/listener/node" 0 out "server 1: server_id 264543142182924 port " -- serve --config "$data/good.json"
expect "good config: stops after its duration" 0 out "serve: stopped (duration) after" -- serve --config "$data/good.json"
# issue 20 item 12: one rule for the command line and the config file.
expect "server key twice" 2 err "--server 'port=0,port=1': port: given twice in one server spec" -- serve --tenant $k --server port=0,port=1
expect "empty server spec" 2 err "--server '': empty server spec (want key=value,...; e.g. port=0)" -- serve --tenant $k --server ""
expect "empty server item" 2 err "--server 'port=0,': empty item in 'port=0,'" -- serve --tenant $k --server port=0,
expect "rate cap 1e3" 2 err "--rate-cap: bad value '1e3' (want datagrams per second, 1..10000000)" -- serve --tenant $k --rate-cap 1e3
expect "config rate_cap 1e3" 2 err "--config: $data/real_rate_cap.json: rate_cap: --rate-cap: bad value '1000.0'" -- serve --config "$data/real_rate_cap.json"

# issue 20 item 9: --log-max-bytes.
expect "log max bytes below 4096" 2 err "--log-max-bytes: bad value '100' (want bytes, 4096..2^50, or 0 = no limit)" -- serve --tenant $k --log "$tmp/l.log" --log-max-bytes 100
expect "log max bytes on stdout" 2 err "--log-max-bytes (or \"log_max_bytes\" in --config): needs --log FILE (the log on stdout is not rotated)" -- serve --tenant $k --log - --log-max-bytes 8192
expect "log max bytes without a log" 2 err "--log-max-bytes (or \"log_max_bytes\" in --config): needs --log FILE" -- serve --tenant $k --log-max-bytes 8192
# project: the message names the config member too, when the bound came from
# the file and the command line sends the log to stdout.
printf '{"tenants": "%s", "log": "%s", "log_max_bytes": 8192}\n' "$k" "$tmp/c.log" >"$tmp/max.json"
expect "config log_max_bytes, --log -" 2 err "\"log_max_bytes\" in --config): needs --log FILE" -- serve --config "$tmp/max.json" --log -

# issue 20 item 11: three serve processes started at once (in the same second,
# as a rule) get three server_ids (node = process id modulo 32768).
for i in 1 2 3; do
    "$bin" serve --tenant $k --listen 127.0.0.1 --duration 1 >"$tmp/ids$i.out" 2>&1 &
done
wait
ids=$(sed -n 's/^server 0: server_id \([0-9]*\) .*/\1/p' "$tmp"/ids[123].out | sort -u | wc -l)
checks=$((checks + 1))
if [ "$ids" -eq 3 ]; then echo "ok   three processes, three server_ids"; else failures=$((failures + 1)); echo "FAIL three processes, three server_ids ($ids distinct)"; cat "$tmp"/ids[123].out; fi

echo "serve cli: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
