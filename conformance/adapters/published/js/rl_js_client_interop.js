#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Interop driver (docs/interop.md) for the published JavaScript client
// ratelimitly-com/rl-js-client, written as its maintainers would: createClient,
// its RequestPolicy and HaSchedule, checkRateLimit, reportLatency and destroy;
// its clock, timers, sockets and random source are its own.
//
//     RL_JS_CLIENT=<checkout> rl-testbed interop --driver "node rl_js_client_interop.js"
//
// (conformance/adapters/published/run.sh js CHECKOUT interop does this.) The
// client takes servers only from a DNS SRV lookup (_refreshServers), so this
// driver fills its membership `servers` with the case's servers as that lookup
// would (ids through its own _parseServerIdFromTarget, oldest first) and marks
// the lookup fresh (`lastDnsRefresh`); in a DNS case (docs/interop.md "DNS") it
// discovers them itself, RCLIENT_DNS_SERVER set to the testbed's dnsmasq. Its request API takes bucket and tracker
// names and derives the ids itself: a request without names passes the ids'
// hex as names (the testbed judges no id). It has no preference schedule.
'use strict';

const path = require('path');
const readline = require('readline');

const rl = require(path.join(path.resolve(process.env.RL_JS_CLIENT || '.'), 'client.js'));

function create(msg) {
    const p = msg.policy;
    const g = p.replay_gap;
    const growth = g.kind === 'linear' ? g.linear_step_units : g.kind === 'exponential' ? g.exponential_factor : 0;
    const requestPolicy = new rl.RequestPolicy({ unitMs: p.unit_ms, replayCount: p.replay_count,
        replayGap: new rl.HaSchedule(g.kind, g.initial_units, g.max_units, growth),
        finalReceiveUnits: p.final_receive_units, completionDelivery: p.completion_delivery });
    if (msg.dns) { // its own SRV discovery, through the resolver its RCLIENT_DNS_SERVER names
        process.env.RCLIENT_DNS_SERVER = msg.dns.resolver;
        return rl.createClient(msg.key, msg.dns.name, { requestPolicy });
    }
    const client = rl.createClient(msg.key, 'interop.invalid', { requestPolicy });
    client.servers = msg.servers
        .map((s) => ({ ip: s.address, port: s.port,
            serverId: client._parseServerIdFromTarget(`s-${s.server_id}.interop.invalid`) }))
        .filter((s) => s.serverId !== null)
        .sort((a, b) => rl.RClient.serverStartSecondsFromId(a.serverId) -
            rl.RClient.serverStartSecondsFromId(b.serverId) || a.serverId - b.serverId);
    client.lastDnsRefresh = Date.now();
    return client;
}

async function check(client, msg) {
    const resources = msg.resources.map((r) =>
        new rl.ResourceRequest(r.name || r.bucket_id, r.window_size_ms, r.rate_limit, r.tokens));
    const guards = msg.guards.map((g) => new rl.LatencyGuard({ latencyTrackerName: g.name || g.tracker_id,
        thresholdMs: g.threshold_ms, ttlMs: g.ttl_ms, maxSamples: g.max_samples,
        minSampleThreshold: g.min_sample_threshold }));
    try {
        const result = await client.checkRateLimit(resources, guards);
        return { ok: true, decision: result.success ? 'allowed' : 'denied', server_id: String(result.serverId),
            at_ms: Date.now() };
    } catch (err) { // TimeoutError at the horizon, or a send error: the client's failure outcome
        return { ok: true, decision: 'failed', server_id: null, at_ms: Date.now(),
            error: `${err.name}: ${err.message}` };
    }
}

async function report(client, msg) {
    await client.reportLatency(msg.reports.map((r) => new rl.ServiceLatencyBlock({
        latencyTrackerName: r.name || r.tracker_id, observedLatency: r.latency_ms, ttlMs: r.ttl_ms,
        maxSamples: r.max_samples, minSampleThreshold: r.min_sample_threshold })));
    return { ok: true };
}

async function main() {
    let client = null;
    for await (const line of readline.createInterface({ input: process.stdin, terminal: false })) {
        const msg = JSON.parse(line);
        let out;
        try {
            if (msg.op === 'create') {
                client = create(msg);
                out = { ok: true };
            } else if (msg.op === 'check') {
                out = await check(client, msg);
            } else if (msg.op === 'report') {
                out = await report(client, msg);
            } else {
                client.destroy();
                out = { ok: true };
            }
        } catch (err) { // the client's own refusal, named
            out = { ok: false, error: `${err.name}: ${err.message}` };
        }
        process.stdout.write(JSON.stringify(out) + '\n');
        if (msg.op === 'close') break;
    }
}

main();
