// The live progress reader on REAL recorded dbt JSON logs: fed in random chunk sizes it must
// produce exactly what one whole-file pass produces, and its relations must be the paths the
// manifest ingest gives the same nodes.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { parseManifest } from '../ingest/manifest';
import { followLog, LineSplitter } from './log-tail';
import { nodeEventOf, ProgressTracker } from './node-events';

const WAREHOUSES = {
	postgres: { name: 'main', defaultDatabase: 'postgres' },
	duckdb: { name: 'main', defaultDatabase: 'duckdb' }
};

/** Every JSON log among the fixtures, with the manifest beside it and its warehouse. */
function fixtureLogs(): { name: string; file: string; manifest: string; warehouse: { name: string; defaultDatabase: string } }[] {
	const out = [];
	const pg = fixture('openlineage-json-logs-postgres-1.8.2');
	for (const dir of readdirSync(pg, { withFileTypes: true })) {
		if (!dir.isDirectory()) continue;
		for (const f of readdirSync(path.join(pg, dir.name)).filter((f) => f.endsWith('.jsonl'))) {
			out.push({ name: `postgres/${dir.name}/${f}`, file: path.join(pg, dir.name, f), manifest: path.join(pg, dir.name, 'manifest.json'), warehouse: WAREHOUSES.postgres });
		}
	}
	const duck = fixture('openlineage-json-logs-duckdb-1.10.15');
	out.push({ name: 'duckdb/dbt.log.jsonl', file: path.join(duck, 'dbt.log.jsonl'), manifest: path.join(duck, 'manifest.json'), warehouse: WAREHOUSES.duckdb });
	return out;
}

/** A small deterministic PRNG: failures reproduce. */
function rng(seed: number) {
	let s = seed >>> 0;
	return () => {
		s = (s * 1664525 + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

function chunked(bytes: Uint8Array, rand: () => number): Uint8Array[] {
	const out: Uint8Array[] = [];
	for (let i = 0; i < bytes.length; ) {
		// Mostly small pieces (mid-line, mid-character), now and then a large one.
		const n = rand() < 0.1 ? 1 + Math.floor(rand() * 65536) : 1 + Math.floor(rand() * 300);
		out.push(bytes.subarray(i, i + n));
		i += n;
	}
	return out;
}

/** Expected final states, computed here from the raw events (not through the code under test's parser). */
function expectedFinalStates(text: string): Map<string, string> {
	const byRelation = new Map<string, string>();
	for (const line of text.split('\n')) {
		if (!line.trim()) continue;
		const doc = JSON.parse(line);
		const ni = doc.data?.node_info;
		const rel = ni?.node_relation?.relation_name;
		if (!rel || doc.info.name !== 'NodeFinished') continue;
		const s = ni.node_status;
		byRelation.set(rel, s === 'success' || s === 'pass' ? 'materialized' : s === 'error' || s === 'fail' ? 'failed' : 'other');
	}
	return byRelation;
}

describeFixtures('live progress on recorded dbt JSON logs', () => {
	for (const log of fixtureLogs()) {
		describe(log.name, () => {
			const bytes = new Uint8Array(readFileSync(log.file));
			const text = new TextDecoder().decode(bytes);
			const wholeSplitter = new LineSplitter();
			const whole = [...wholeSplitter.push(bytes), ...wholeSplitter.end()];
			const wholeTracker = new ProgressTracker();
			const wholeChanges = wholeTracker.applyLines(whole, log.warehouse);

			it('random chunk sizes give the same lines and the same progress as one whole-file pass', () => {
				expect(whole.length).toBe(text.split('\n').filter((l) => l !== '').length);
				for (const seed of [1, 2, 3, 42, 1234]) {
					const splitter = new LineSplitter();
					const tracker = new ProgressTracker();
					const lines: string[] = [];
					const changes = [];
					for (const c of [...chunked(bytes, rng(seed)), null]) {
						const got = c === null ? splitter.end() : splitter.push(c);
						lines.push(...got);
						changes.push(...tracker.applyLines(got, log.warehouse));
					}
					expect(lines).toEqual(whole);
					expect(changes).toEqual(wholeChanges);
					expect([...tracker.states]).toEqual([...wholeTracker.states]);
				}
			});

			it('ends each relation in the state its NodeFinished event says', () => {
				const expected = expectedFinalStates(text);
				const got = new Map<string, string>();
				for (const line of whole) {
					const doc = JSON.parse(line);
					const rel = doc.data?.node_info?.node_relation?.relation_name;
					if (!rel || doc.info.name !== 'NodeFinished') continue;
					const e = nodeEventOf(line, log.warehouse);
					got.set(rel, e ? wholeTracker.states.get(e.assetPath)!.status : 'other');
				}
				expect(got).toEqual(expected);
				expect(wholeTracker.states.size).toBe(new Set([...expected.keys()]).size);
			});

			it('lands every relation on the asset path the manifest ingest gives its node', () => {
				const manifestPaths = new Set(
					parseManifest(readFileSync(log.manifest, 'utf8'), { warehouse: log.warehouse.name, defaultDatabase: log.warehouse.defaultDatabase })
						.nodes.map((n) => n.assetPath)
						.filter(Boolean)
				);
				for (const p of wholeTracker.states.keys()) expect(manifestPaths, p).toContain(p);
			});
		});
	}

	it('the build log: 8 relations materialized with row counts, none left running', () => {
		const bytes = readFileSync(fixture('openlineage-json-logs-postgres-1.8.2', 'build', 'dbt.log.jsonl'));
		const t = new ProgressTracker();
		const s = new LineSplitter();
		t.applyLines([...s.push(bytes), ...s.end()], WAREHOUSES.postgres);
		const states = [...t.states.values()];
		expect(states.filter((s) => s.status === 'materialized')).toHaveLength(8);
		expect(states.filter((s) => s.status === 'running')).toHaveLength(0);
		expect(t.states.get('main/public/raw_customers')?.rowCount).toBe(100);
	});

	it('a failed model carries dbt\'s message', () => {
		const bytes = readFileSync(fixture('openlineage-json-logs-postgres-1.8.2', 'run', 'failed_run.log.jsonl'));
		const t = new ProgressTracker();
		t.applyLines(new LineSplitter().push(bytes), WAREHOUSES.postgres);
		expect(t.states.get('main/public/orders')).toMatchObject({ status: 'failed' });
		expect(t.states.get('main/public/orders')?.error).toMatch(/^Database Error in model orders/);
	});
});

describe('LineSplitter', () => {
	it('skips a line over the limit, whole, and keeps what follows it intact', () => {
		const s = new LineSplitter(100);
		const long = 'x'.repeat(1000);
		const input = new TextEncoder().encode(`first\n${long}\nsecond\nthird`);
		const lines: string[] = [];
		for (const c of chunked(input, rng(7))) lines.push(...s.push(c));
		lines.push(...s.push(new TextEncoder().encode('\n')));
		expect(lines).toEqual(['first', 'second', 'third']);
		expect(s.skipped).toBe(1);
	});

	it('decodes a multi-byte character cut by a chunk boundary', () => {
		const bytes = new TextEncoder().encode('naïve → ok\n');
		for (let cut = 1; cut < bytes.length; cut++) {
			const s = new LineSplitter();
			expect([...s.push(bytes.subarray(0, cut)), ...s.push(bytes.subarray(cut))]).toEqual(['naïve → ok']);
		}
	});
});

describe('followLog', () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'tributary-follow-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it('follows a file written in pieces, waits for a missing one, and starts over when it shrinks', async () => {
		const file = path.join(dir, 'dbt.log');
		const seen: string[] = [];
		const f = followLog(file, (lines) => void seen.push(...lines), { intervalMs: 5, maxReadBytes: 64 });
		await new Promise((r) => setTimeout(r, 30));
		writeFileSync(file, '');
		const rand = rng(11);
		const first = Array.from({ length: 50 }, (_, i) => `{"n": ${i}, "pad": "${'p'.repeat(i * 3)}"}`);
		const text = first.map((l) => `${l}\n`).join('');
		for (let i = 0; i < text.length; ) {
			const n = 1 + Math.floor(rand() * 90);
			appendFileSync(file, text.slice(i, i + n));
			i += n;
			if (rand() < 0.3) await new Promise((r) => setTimeout(r, 6));
		}
		await expect.poll(() => seen.length, { timeout: 5000 }).toBe(50);
		// Rewritten from the start, shorter than before: offsets from before mean nothing now.
		truncateSync(file, 0);
		await new Promise((r) => setTimeout(r, 40));
		appendFileSync(file, 'again 1\nagain 2\npartial');
		await expect.poll(() => seen.length, { timeout: 5000 }).toBe(52);
		appendFileSync(file, ' line\n');
		await f.finish();
		expect(seen).toEqual([...first, 'again 1', 'again 2', 'partial line']);
		expect(f.stats().resets).toBe(1);
	});

	it('reads a line when the file changes, not when its interval comes round', async () => {
		// The file is missing at first (its folder is there: the runner watches once dbt made it).
		const file = path.join(dir, 'later', 'dbt.log');
		mkdirSync(path.dirname(file));
		const seen: string[] = [];
		const f = followLog(file, (lines) => void seen.push(...lines), { intervalMs: 60_000 });
		try {
			await new Promise((r) => setTimeout(r, 100));
			appendFileSync(file, 'first\n');
			// With only the interval, nothing would be read for a minute.
			await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['first']);
			appendFileSync(file, 'second\nthird\n');
			await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['first', 'second', 'third']);
		} finally {
			await f.stop();
		}
	});
});
