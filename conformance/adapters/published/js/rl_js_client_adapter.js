#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Adapter (conformance/ADAPTER.md) for the published JavaScript client
// ratelimitly-com/rl-js-client, written as its maintainers would: every answer
// comes from the functions the client's own RClient methods call (client.js
// exports WireProtocol, CanonicalIds, RequestPolicy, HaSchedule, RClient;
// api_key_codec.js decodeApiKey), nothing is computed here.
//
//     RL_JS_CLIENT=<checkout> rl-testbed vectors --client "node rl_js_client_adapter.js"
//
// (conformance/adapters/published/run.sh sets RL_JS_CLIENT.) Node.js only, no
// package. The client has no random, clock or id hooks, so three things are
// replaced while one datagram is built, and nothing else:
//   - crypto.randomBytes: the vector's unique_id, then its AES nonce;
//   - Date.now: the vector's time_stamp_ms;
//   - CanonicalIds.bucketId / latencyTrackerId: the client's request API takes
//     bucket and tracker NAMES and derives the ids itself; a vector gives ids,
//     so the adapter passes a marker name and the derivation returns that id.
// The id derivations themselves are judged by the bucket_id and tracker_id
// kinds. Its RClient sends over real sockets on real timers and resolves
// real DNS: no HA case can be driven without replacing them, so hello says so.
'use strict';

const crypto = require('crypto');
const path = require('path');
const readline = require('readline');

const CHECKOUT = path.resolve(process.env.RL_JS_CLIENT || '.');
const rl = require(path.join(CHECKOUT, 'client.js'));
const { decodeApiKey } = require(path.join(CHECKOUT, 'api_key_codec.js'));

const PROTOCOL = 'ratelimitly-adapter/1';
let VERSION = 'unknown';
try {
    VERSION = require(path.join(CHECKOUT, 'package.json')).version;
} catch (_) { /* a checkout without package.json */ }

class Rejected extends Error {
    constructor(cls, stage, reason) {
        super(reason);
        this.cls = cls;
        this.stage = stage;
    }
}

class Unsupported extends Error {}

// The client's errors -> (class, stage); the stages are the steps of
// conformance/ADAPTER.md "Steps" (key, ids, discovery, request, report,
// response, policy). Key problems are AuthenticationError
// (or a plain Error from decodeApiKey) with no class; ProtocolError and Node's
// RangeError (a value that does not fit its wire field) refuse a request;
// for a datagram ProtocolError is malformed, AuthenticationError auth, and
// anything else (a short read, a failed AES tag) is thrown and swallowed alike
// by RClient's onMessage, so it has no class.
function classify(stage, err) {
    if (stage === 'request' || stage === 'report' || stage === 'policy') {
        return err instanceof rl.ProtocolError || err instanceof RangeError || err instanceof TypeError ? 'range' : null;
    }
    if (stage === 'response') {
        if (err instanceof rl.ProtocolError) return 'malformed';
        if (err instanceof rl.AuthenticationError) return 'auth';
    }
    return null;
}

function refuse(stage, err, what) {
    if (err instanceof Rejected || err instanceof Unsupported) throw err;
    throw new Rejected(classify(stage, err), stage, `${what}: ${err && err.name}: ${err && err.message}`);
}

function attempt(stage, what, fn) {
    try {
        return fn();
    } catch (err) {
        return refuse(stage, err, what);
    }
}

// ---------------------------------------------------------------------------
// The replacements listed above, active only inside withHost().

function withHost({ randomHex = [], nowMs = null }, fn) {
    const saved = { randomBytes: crypto.randomBytes, now: Date.now,
        bucketId: rl.CanonicalIds.bucketId, trackerId: rl.CanonicalIds.latencyTrackerId };
    const queue = randomHex.map((h) => Buffer.from(h, 'hex'));
    crypto.randomBytes = (n) => {
        const next = queue.shift();
        if (!next || next.length !== n) throw new Error(`adapter random source: no ${n}-byte draw queued`);
        return next;
    };
    if (nowMs !== null) Date.now = () => Number(nowMs);
    rl.CanonicalIds.bucketId = function (name, ...rest) {
        return name && name.adapterId ? name.adapterId : saved.bucketId.call(this, name, ...rest);
    };
    rl.CanonicalIds.latencyTrackerId = function (name, ...rest) {
        return name && name.adapterId ? name.adapterId : saved.trackerId.call(this, name, ...rest);
    };
    try {
        return fn();
    } finally {
        crypto.randomBytes = saved.randomBytes;
        Date.now = saved.now;
        rl.CanonicalIds.bucketId = saved.bucketId;
        rl.CanonicalIds.latencyTrackerId = saved.trackerId;
    }
}

const idName = (hex) => ({ adapterId: Buffer.from(hex, 'hex'), toString: () => hex });

// ---------------------------------------------------------------------------
// The client under test: one function per vector kind.

function nameOf(inp) {
    return inp.name_utf8 !== undefined ? inp.name_utf8 : Buffer.from(inp.name_hex, 'hex');
}

function bucket_id(inp) {
    const id = attempt('ids', 'CanonicalIds.bucketId',
        () => rl.CanonicalIds.bucketId(nameOf(inp), inp.window_size_ms, inp.rate_limit));
    return { id_hex: id.toString('hex') };
}

function tracker_id(inp) {
    // The client's tracker id takes no buffer_size (client.js CanonicalIds.latencyTrackerId).
    const id = attempt('ids', 'CanonicalIds.latencyTrackerId',
        () => rl.CanonicalIds.latencyTrackerId(nameOf(inp), inp.ttl_ms, inp.max_samples, inp.min_sample_threshold));
    return { id_hex: id.toString('hex') };
}

function api_key(inp) {
    const k = attempt('key', 'decodeApiKey', () => decodeApiKey(inp.key));
    const client = attempt('key', 'createClient', () => rl.createClient(inp.key));
    const dnsName = client.config.tenant.dnsName;
    client.destroy();
    const out = { auth: k.authMethod, key_id: k.keyId.toString() };
    if (k.authMethod !== 'none') out.secret_hex = Buffer.from(k.authSecret).toString('hex');
    // decodeApiKey returns no quota word: quota_word is left out.
    out.quotas = Object.fromEntries(Object.entries(k.quotas).map(([f, v]) => [f, String(v)]));
    out.default_dns_name = dnsName;
    return out;
}

function tenantFor(key, steering) {
    const k = attempt('key', 'decodeApiKey', () => decodeApiKey(key));
    const method = k.authMethod === 'none' ? rl.AuthMethod.NONE
        : k.authMethod === 'cookie' ? rl.AuthMethod.COOKIE : rl.AuthMethod.AES_GCM;
    const tenant = new rl.TenantConfig('adapter.invalid', k.keyId, method, key, null, Boolean(steering));
    attempt('key', 'WireProtocol._tenantQuotas', () => rl.WireProtocol._tenantQuotas(tenant));
    return tenant;
}

function draws(inp) {
    return [inp.unique_id_hex].concat(inp.nonce_hex ? [inp.nonce_hex] : []);
}

function rate_request_packet(inp) {
    const tenant = tenantFor(inp.key, inp.steering_feedback);
    const resources = inp.resources.map((r) =>
        new rl.ResourceRequest(idName(r.bucket_id_hex), r.window_size_ms, r.rate_limit, r.tokens_requested));
    // LatencyGuard has no buffer_size: the client cannot send one.
    const guards = inp.guards.map((g) => new rl.LatencyGuard({ latencyTrackerName: idName(g.tracker_id_hex),
        thresholdMs: g.latency_threshold, ttlMs: g.ttl_ms, maxSamples: g.max_samples,
        minSampleThreshold: g.min_sample_threshold }));
    const packet = withHost({ randomHex: draws(inp), nowMs: inp.time_stamp_ms }, () => attempt('request',
        'WireProtocol.createRateRequest', () => rl.WireProtocol.createRateRequest(tenant, resources, guards,
            inp.metrics_label_utf8 || null, inp.dedup_ttl_ms)));
    return { packet_hex: packet.toString('hex') };
}

function latency_report_packet(inp) {
    const tenant = tenantFor(inp.key, inp.steering_feedback);
    const blocks = inp.reports.map((r) => new rl.ServiceLatencyBlock({ latencyTrackerName: idName(r.tracker_id_hex),
        observedLatency: r.observed_latency, ttlMs: r.ttl_ms, maxSamples: r.max_samples,
        minSampleThreshold: r.min_sample_threshold }));
    const packet = withHost({ randomHex: draws(inp), nowMs: inp.time_stamp_ms }, () => attempt('report',
        'WireProtocol.createLatencyReport', () => rl.WireProtocol.createLatencyReport(tenant, blocks)));
    // createLatencyReport returns null (nothing sent) only for an empty list.
    return packet === null ? { sent: false } : { packet_hex: packet.toString('hex') };
}

// What RClient._sendRateRequest's onMessage does with a datagram: the server id
// must parse as a safe integer and belong to the SRV membership (ids as
// _parseServerIdFromTarget reads s-<id> targets), then parseRateResponse with
// the in-flight request id and, when the vector gives it, the request's blocks.
function rate_response(inp) {
    const tenant = tenantFor(inp.key, true);
    const data = Buffer.from(inp.packet_hex, 'hex');
    const request = inp.request || { resources: [], guards: [] };
    const resources = request.resources.map((r) =>
        new rl.ResourceRequest(idName(r.bucket_id_hex), r.window_size_ms, r.rate_limit, r.tokens_requested));
    const guards = request.guards.map((g) => new rl.LatencyGuard({ latencyTrackerName: idName(g.tracker_id_hex),
        thresholdMs: g.latency_threshold, ttlMs: g.ttl_ms, maxSamples: g.max_samples,
        minSampleThreshold: g.min_sample_threshold }));
    const trusted = new Set(inp.trusted_server_ids
        .map((id) => rl.RClient.prototype._parseServerIdFromTarget.call(null, `s-${id}.adapter.invalid`))
        .filter((id) => id !== null));
    const serverId = rl.RClient.prototype._extractResponseServerId.call(null, data);
    if (serverId === null || !trusted.has(serverId)) {
        throw new Rejected(null, 'response', `onMessage drops it: server id ${serverId} is not in the membership ` +
            `(_extractResponseServerId / _parseServerIdFromTarget)`);
    }
    const parsed = withHost({}, () => attempt('response', 'WireProtocol.parseRateResponse', () =>
        rl.WireProtocol.parseRateResponse(data, tenant, resources, guards,
            Buffer.from(inp.request_unique_id_hex, 'hex'))));
    const success = parsed.guardResults.every((g) => g.passed) &&
        parsed.resourceResults.every((r) => r.tokensDeficit === 0);
    // ResourceResult and GuardResult name the request's block at the same position
    // (null without a request), not the id on the wire.
    const named = (name, field, out) => (name && name.adapterId ? { [field]: name.toString(), ...out } : out);
    return {
        server_id: String(parsed.serverId), keep_port: parsed.steeringFeedback, success,
        resources: parsed.resourceResults.map((r) => named(r.bucketName, 'bucket_id_hex',
            { tokens_deficit: r.tokensDeficit, actual_rate: r.actualRate })),
        guards: parsed.guardResults.map((g) => named(g.latencyTrackerName, 'tracker_id_hex',
            { current_latency: g.currentLatencyMs })),
    };
}

function srv_target(inp) {
    const id = rl.RClient.prototype._parseServerIdFromTarget.call(null, inp.target);
    if (id === null) {
        throw new Rejected(null, 'discovery', '_parseServerIdFromTarget returned null (the record is skipped)');
    }
    return { server_id: String(id) };
}

function ha_schedule(inp) {
    // RequestPolicy has no preference schedule P(k): preference_ms is left out.
    const p = inp.policy;
    const g = p.replay_gap;
    const growth = g.kind === 'linear' ? g.linear_step_units : g.kind === 'exponential' ? g.exponential_factor : 0;
    const policy = attempt('policy', 'RequestPolicy', () => new rl.RequestPolicy({ unitMs: p.unit_ms,
        replayCount: p.replay_count, replayGap: new rl.HaSchedule(g.kind, g.initial_units, g.max_units, growth),
        finalReceiveUnits: p.final_receive_units, completionDelivery: p.completion_delivery }));
    const ttl = attempt('policy', 'RequestPolicy.horizonMs', () => policy.horizonMs(inp.dedup_ttl_ms_max));
    const rounds = [];
    for (let k = 0; k <= policy.replayCount; k++) rounds.push(policy.unitMs * policy.replayGap.units(k));
    return { ttl_ms: ttl, round_ms: rounds };
}

const KINDS = { bucket_id, tracker_id, api_key, rate_request_packet, latency_report_packet, rate_response,
    srv_target, ha_schedule };

// ---------------------------------------------------------------------------
// The protocol (as in conformance/adapters/python/rl_adapter.py).

// What the client is (ADAPTER.md "What a client declares", revision 2):
// - decodeApiKey takes rl-none, rl-cookie and rl-aes (api_key_codec.js
//   ALLOWED_METHODS), each in format version 1;
// - decodeApiKey returns no quota word; the results name the request's block
//   at the same position, which the adapter reports as the block's id;
// - RequestPolicy has no preference schedule P(k) (client.js);
// - no HA case: RClient sends over real sockets on real timers, resolves real
//   DNS and has no cancel entry point (only destroy).
const DECLARED = {
    auth_modes: ['none', 'cookie', 'aes'],
    key_formats: ['rl-none', 'rl-cookie', 'rl-aes'],
    unproduced_fields: { api_key: ['quota_word'], ha_schedule: ['preference_ms'] },
    ha: { cases: false },
};

function hello() {
    return { protocol: PROTOCOL, revision: 2, client: { name: 'rl-js-client', version: VERSION },
        capabilities: { vector_kinds: Object.keys(KINDS).sort(), error_classes: true, ...DECLARED } };
}

function vector(req) {
    const fn = KINDS[req.kind];
    if (!fn) return { status: 'unsupported', reason: 'kind not implemented' };
    try {
        return { status: 'accepted', output: fn(req.input) };
    } catch (err) {
        if (err instanceof Rejected) return { status: 'rejected', error: err.cls, stage: err.stage, reason: err.message };
        if (err instanceof Unsupported) return { status: 'unsupported', reason: err.message };
        return { status: 'bad_input', reason: `${err.name}: ${err.message}` };
    }
}

function answer(req) {
    if (req.op === 'hello') return hello();
    if (req.op === 'vector') return vector(req);
    return { protocol_error: `op ${JSON.stringify(req.op)} not implemented by this adapter` };
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on('line', (line) => {
    let ans;
    try {
        const req = JSON.parse(line);
        ans = answer(req);
        ans.id = req.id;
    } catch (err) {
        ans = { id: null, protocol_error: `request is not JSON: ${err.message}` };
    }
    process.stdout.write(JSON.stringify(ans) + '\n');
});
