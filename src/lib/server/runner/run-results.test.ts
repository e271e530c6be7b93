// Settlement from every real run_results fixture (v2–v6, dbt-core and Fusion): the expected
// counts are computed here from the raw JSON with DESIGN.md §7's table, never by the code under test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFixtures, FIXTURES } from '../../../../tests/support/fixtures';
import { IngestError } from '../dbt-files/errors';
import { classifyStatus, failureSummary, mergeNodes, parseRunResults, runResultOf, settlementPlan, totalsOf } from './run-results';

/** Every run_results*.json under the fixtures folder. */
function runResultsFixtures(): string[] {
	const out: string[] = [];
	const walk = (dir: string) => {
		for (const e of readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (/run_results.*\.json$/.test(e.name)) out.push(p);
		}
	};
	walk(FIXTURES);
	return out.sort();
}

// DESIGN.md §7, restated for the test.
const TABLE: Record<string, string> = {
	success: 'passed',
	pass: 'passed',
	error: 'failed',
	fail: 'failed',
	'runtime error': 'failed',
	'partial success': 'failed',
	warn: 'warned',
	skipped: 'skipped',
	'no-op': 'no_op'
};

describeFixtures('run_results fixtures', () => {
	const files = runResultsFixtures();

	it('covers v2 to v6, dbt-core and Fusion, with warn, skipped, no-op, error and fail among them', () => {
		const versions = new Set<string>();
		const statuses = new Set<string>();
		for (const f of files) {
			const raw = JSON.parse(readFileSync(f, 'utf8'));
			versions.add(/v(\d+)\.json/.exec(raw.metadata.dbt_schema_version)![1]);
			for (const r of raw.results) statuses.add(r.status);
		}
		expect([...versions].sort()).toEqual(['2', '4', '5', '6']);
		for (const s of ['success', 'pass', 'error', 'fail', 'warn', 'skipped', 'no-op']) expect(statuses).toContain(s);
		expect(files.some((f) => f.includes('fusion'))).toBe(true);
	});

	for (const file of runResultsFixtures()) {
		const name = path.relative(FIXTURES, file);
		it(`${name}: totals, outcomes and rows as the raw JSON says`, () => {
			const raw = JSON.parse(readFileSync(file, 'utf8'));
			const parsed = parseRunResults(readFileSync(file, 'utf8'), { strict: true });
			const r = runResultOf(parsed, 'build', {});
			const expected = { total: 0, success: 0, error: 0, warn: 0, skipped: 0 };
			for (const x of raw.results) {
				expected.total++;
				const o = TABLE[String(x.status).toLowerCase()] ?? 'unknown';
				if (o === 'passed') expected.success++;
				else if (o === 'warned') expected.warn++;
				else if (o === 'skipped' || o === 'no_op') expected.skipped++;
				else expected.error++;
			}
			expect(r.totals).toEqual(expected);
			expect(r.nodes.map((n) => n.unique_id)).toEqual(raw.results.map((x: { unique_id: string }) => x.unique_id));
			raw.results.forEach((x: Record<string, any>, i: number) => {
				const n = r.nodes[i];
				expect(n.status).toBe(x.status);
				expect(n.outcome).toBe(TABLE[String(x.status).toLowerCase()] ?? 'unknown');
				const rows = x.adapter_response?.rows_affected;
				if (typeof rows === 'number' && rows >= 0) expect(n.rows_affected).toBe(rows);
				else expect(n.rows_affected).toBeUndefined();
				expect(n.relation_name).toBe(x.relation_name || undefined);
				if (typeof x.failures === 'number') expect(n.failures).toBe(x.failures);
			});
			expect(r.engine).toBe(String(raw.metadata.dbt_version).startsWith('2.') ? 'dbt-fusion' : 'dbt-core');
			expect(r.engine_version).toBe(raw.metadata.dbt_version);
		});
	}

	it('settles only relations, through the relation → asset path function', () => {
		const file = files.find((f) => f.includes('jaffle-shop-1.9-bigquery-build'))!;
		const parsed = parseRunResults(readFileSync(file, 'utf8'));
		const plan = settlementPlan(parsed.nodes, { name: 'main', defaultDatabase: null });
		const raw = JSON.parse(readFileSync(file, 'utf8'));
		const withRelation = raw.results.filter((x: any) => x.relation_name);
		expect(plan.updates.length + plan.untouched.length).toBe(withRelation.length);
		expect(plan.updates.every((u) => u.assetPath.startsWith('main/') && u.assetPath.split('/').length === 3)).toBe(true);
		// BigQuery's backticked project is a database that differs from the (unknown) default.
		expect(plan.updates[0].assetPath).toMatch(/^main\/[^/]+\.[^/]+\/[^/]+$/);
	});

	it('a Fusion build: skipped models are untouched, not failed', () => {
		const file = files.find((f) => f.includes('fusion'))!;
		const parsed = parseRunResults(readFileSync(file, 'utf8'));
		const skipped = parsed.nodes.filter((n) => n.outcome === 'skipped').map((n) => n.unique_id);
		expect(skipped).toHaveLength(3);
		const byId = new Map(skipped.map((u) => [u, `main/x/${u.split('.').pop()}`]));
		const plan = settlementPlan(parsed.nodes, { name: 'main', defaultDatabase: null }, byId);
		for (const p of byId.values()) expect(plan.untouched).toContain(p);
		expect(plan.updates.some((u) => u.status === 'failed')).toBe(false);
	});

	it('warn tests count as warnings, not errors (tuva 1.3.1, v4)', () => {
		const file = files.find((f) => f.includes('tuva-1.3.1'))!;
		const r = runResultOf(parseRunResults(readFileSync(file, 'utf8')), 'build', {});
		expect(r.totals.warn).toBe(4);
		expect(r.totals.error).toBe(0);
		expect(failureSummary(r.nodes)).toBeNull();
	});

	it('names the failed nodes in the failure summary (legacy 1.0.0 build with an error)', () => {
		const file = files.find((f) => f.includes('legacy-run-results-model-error'))!;
		const parsed = parseRunResults(readFileSync(file, 'utf8'));
		const failed = parsed.nodes.filter((n) => n.outcome === 'failed');
		const s = failureSummary(parsed.nodes)!;
		expect(s).toContain(`${failed.length} dbt node did not succeed`);
		for (const n of failed) expect(s).toContain(`${n.unique_id} [error]`);
	});
});

describe('parseRunResults refusals', () => {
	it('refuses what is not a run_results file, naming the file', () => {
		expect(() => parseRunResults('{"results": ', { fileName: 'rr.json' })).toThrow(/rr\.json: is not valid JSON/);
		expect(() => parseRunResults('{"nodes": {}}', { strict: true })).toThrow(IngestError);
		expect(() => parseRunResults(JSON.stringify({ metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json' }, results: [] }), { strict: true })).toThrow(
			/is not a run_results file/
		);
		expect(() => parseRunResults(JSON.stringify({ metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v9.json' }, results: [] }), { strict: true })).toThrow(
			/v9.*v1 to v6/
		);
	});

	it('reads an unknown future version leniently when it is the worker\'s own', () => {
		const doc = { metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v9.json', dbt_version: '2.1.0' }, results: [{ unique_id: 'model.a.b', status: 'Reused' }] };
		const r = runResultOf(parseRunResults(JSON.stringify(doc)), 'build', {});
		expect(r.nodes[0].outcome).toBe('unknown');
		expect(r.totals.error).toBe(1);
	});
});

describe('outcomes', () => {
	it('maps dbt words case-insensitively, anything else to unknown', () => {
		expect(classifyStatus('Success')).toBe('passed');
		expect(classifyStatus('PASS')).toBe('passed');
		expect(classifyStatus('partial success')).toBe('failed');
		expect(classifyStatus('runtime error')).toBe('failed');
		expect(classifyStatus('no-op')).toBe('no_op');
		expect(classifyStatus('reused')).toBe('unknown');
		expect(classifyStatus('cancelled')).toBe('unknown');
	});

	it('merging a later phase overlays nodes: one row per node, the latest word wins', () => {
		const a = [
			{ unique_id: 'model.p.a', status: 'error', outcome: 'failed' as const, execution_time: 1 },
			{ unique_id: 'model.p.b', status: 'skipped', outcome: 'skipped' as const, execution_time: 0 }
		];
		const b = [
			{ unique_id: 'model.p.a', status: 'success', outcome: 'passed' as const, execution_time: 2 },
			{ unique_id: 'test.p.t', status: 'pass', outcome: 'passed' as const, execution_time: 0 }
		];
		const m = mergeNodes(a, b);
		expect(m.map((n) => `${n.unique_id}:${n.status}`)).toEqual(['model.p.a:success', 'model.p.b:skipped', 'test.p.t:pass']);
		expect(totalsOf(m)).toEqual({ total: 3, success: 2, error: 0, warn: 0, skipped: 1 });
	});
});
