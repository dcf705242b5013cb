#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: check-slurm.sh RL_TESTBED
#
# docs/sweep.md's Slurm array job on a real Slurm (issue 26): a single-node
# Slurm on loopback (Debian's slurm-wlm and munge, from scripts/install-deps.sh;
# slurmctld and slurmd with proctrack/linuxproc and task/none, so no cgroups),
# with its own munged, configuration, ports and state in a temporary directory.
# The sbatch script is the one docs/sweep.md shows, taken from the page, with
# 16 shards made 4 (--array=0-3, --shard auto/4); the sweep is
# sweep/tests/data/small.json. The shards are merged with `sweep merge` and the
# merged directory must equal one unsharded `sweep` run byte for byte, file by
# file. Every daemon started here is stopped by its process id. Needs root.
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/rl-slurm.XXXXXX) || exit 1
chmod 755 "$tmp"
pids=""
checks=0
failures=0
cleanup() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
ok() { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $1"; for f in "$@"; do
    [ -f "$f" ] && sed 's/^/    | /' "$f" | tail -20; done; }
for p in slurmctld slurmd munged sbatch squeue sinfo; do
    command -v "$p" >/dev/null || { echo "check-slurm: $p not found (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "check-slurm: needs root (slurmd runs jobs as their user)"; exit 1; }
t0=$SECONDS

# munge: a key and a socket of our own.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/work/logs"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$tmp/munge"
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/seed" >"$tmp/munge/out" 2>&1 &
pids="$pids $!"
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
if [ -S "$sock" ]; then ok "munged on $sock"; else fail "munged did not start" "$tmp/munge/out" "$tmp/munge/munged.log"; exit 1; fi

# Two free TCP ports on loopback.
read -r p1 p2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
conf=$tmp/slurm.conf
cat >"$conf" <<CONF
ClusterName=rltest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=n1 Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$conf
slurmctld -D -i -f "$conf" >"$tmp/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$conf" -N n1 >"$tmp/slurmd.out" 2>&1 &
pids="$pids $!"
state=""
for _ in $(seq 600); do
    state=$(sinfo -h -n n1 -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.1
done
if [ "$state" = idle ]; then ok "slurmctld and slurmd up, node n1 idle ($((SECONDS - t0)) s)"; else
    fail "node n1 not idle (state '$state')" "$tmp/slurmctld.log" "$tmp/slurmd.log" "$tmp/slurmctld.out" "$tmp/slurmd.out"; exit 1; fi

# The sbatch script of docs/sweep.md, from the page.
awk '/^A Slurm array job/ {f=1} f && /^```sh$/ {g=1; next} g && /^```$/ {exit} g {print}' "$src/docs/sweep.md" \
    >"$tmp/work/doc.sbatch"
sed 's|auto/16|auto/4|' "$tmp/work/doc.sbatch" >"$tmp/work/sweep.sbatch"
if grep -q '^#SBATCH --array' "$tmp/work/sweep.sbatch" || ! grep -q 'rl-testbed sweep sweep.json --shard auto/4' "$tmp/work/sweep.sbatch"; then
    fail "docs/sweep.md's sbatch script not found as expected" "$tmp/work/doc.sbatch"; exit 1; fi
ok "docs/sweep.md's sbatch script ($(wc -l <"$tmp/work/doc.sbatch") lines)"
# The sweep, its trace paths made absolute (they are relative to small.json).
python3 - "$src/sweep/tests/data/small.json" "$tmp/work/sweep.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
base = os.path.dirname(os.path.abspath(sys.argv[1]))
for i, t in enumerate(d["traces"]):
    if isinstance(t, str):
        d["traces"][i] = os.path.normpath(os.path.join(base, t))
    else:
        t["path"] = os.path.normpath(os.path.join(base, t["path"]))
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
mkdir -p "$tmp/bin"
ln -s "$bin" "$tmp/bin/rl-testbed"

t1=$SECONDS
job=$(cd "$tmp/work" && PATH="$tmp/bin:$PATH" sbatch --parsable --array=0-3 sweep.sbatch 2>"$tmp/sbatch.err")
if [ -n "$job" ]; then ok "sbatch --array=0-3: job $job"; else fail "sbatch" "$tmp/sbatch.err" "$tmp/slurmctld.log"; exit 1; fi
for _ in $(seq 1800); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.1
done
if [ -z "$(squeue -h -j "$job")" ]; then ok "array job done ($((SECONDS - t1)) s)"; else fail "array job still queued after 180 s" "$tmp/slurmctld.log"; fi
for i in 0 1 2 3; do
    if [ -f "$tmp/work/results/shard-$i/manifest.json" ] && grep -q . "$tmp/work/results/shard-$i/units.log"; then
        ok "shard $i written by task $i"; else fail "shard $i missing" "$tmp/work/logs/sweep-$i.out" "$tmp/slurmd.log"; fi
done

(cd "$tmp/work" && "$bin" sweep merge results/shard-* --out results/all) >"$tmp/merge.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "sweep merge results/shard-* --out results/all"; else fail "sweep merge (exit $rc)" "$tmp/merge.out"; fi
(cd "$tmp/work" && "$bin" sweep sweep.json --jobs 1 --quiet --out one) >"$tmp/one.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "one process: sweep sweep.json --out one"; else fail "one process (exit $rc)" "$tmp/one.out"; fi
n=$(cd "$tmp/work/one" && find . -type f | wc -l)
if [ "$n" -gt 0 ] && diff -r "$tmp/work/one" "$tmp/work/results/all" >"$tmp/diff" 2>&1; then
    ok "merged shards = one process, byte for byte ($n files: $(cd "$tmp/work/one" && ls | tr '\n' ' '))"; else
    fail "merged shards differ from one process" "$tmp/diff"; fi

# Stop the daemons (by process id) and check they are gone.
for p in $pids; do kill -TERM "$p" 2>/dev/null; done
for p in $pids; do wait "$p" 2>/dev/null; done
alive=""
for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
pids=""
if [ -z "$alive" ]; then ok "slurmctld, slurmd and munged stopped"; else fail "still running:$alive"; fi
echo "check-slurm: $checks checks, $failures failed ($((SECONDS - t0)) s)"
[ "$failures" -eq 0 ]
