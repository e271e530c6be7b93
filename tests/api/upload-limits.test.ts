// What one upload may store is bounded (issue 14, finding 8): a manifest by bytes and nodes, a
// producer script by bytes and annotations; over a bound is a 413 naming the limit and the
// value found, and nothing is stored. The bounds come from the environment, set small here so
// the real jaffle-shop manifest (1.0 MB) and a small script cross them.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildLineageWorld, WS, type LineageWorld } from '../support/lineage-world';

const MANIFEST = `${fixture('jaffle-shop-1.12-duckdb-docs-generate')}/manifest.json`;
const LIMIT_VARS = ['TRIBUTARY_MAX_MANIFEST_MB', 'TRIBUTARY_MAX_MANIFEST_NODES', 'TRIBUTARY_MAX_PRODUCER_KB', 'TRIBUTARY_MAX_PRODUCER_ANNOTATIONS'];

function deployForm(path: string, manifest: Uint8Array): FormData {
	const f = new FormData();
	f.set('path', path);
	f.set('manifest', new Blob([manifest as Uint8Array<ArrayBuffer>]), 'manifest.json');
	return f;
}

/** A producer script with `n` column annotations. */
const producer = (n: number, filler = 0) =>
	[
		'-- materialize ducklake://main/limited',
		...Array.from({ length: n }, (_, i) => `-- column c${i} <- dbt://main/analytics/orders.amount`),
		`-- ${'x'.repeat(filler)}`,
		'select 1 as c0'
	].join('\n');

// The real jaffle-shop manifest is read while collecting: without the fixtures, nothing is.
describeFixtures('upload limits', () => {
	describe.each(testBackends())('upload limits ($name)', (backend) => {
		let w: LineageWorld;
		const manifestBytes = new Uint8Array(readFileSync(MANIFEST));
		const raw = JSON.parse(new TextDecoder().decode(manifestBytes));
		// Counted from the file itself: every entry of nodes, sources and unit_tests.
		const rawNodes = Object.keys(raw.nodes).length + Object.keys(raw.sources ?? {}).length + Object.keys(raw.unit_tests ?? {}).length;

		const versionsAt = async (path: string) => (await w.database.rows<{ n: number }>(sql`select count(*)::int as n from script where workspace = ${WS} and path = ${path}`))[0].n;

		beforeAll(async () => {
			w = await buildLineageWorld(await backend.open());
		}, 120_000);

		afterEach(() => {
			for (const v of LIMIT_VARS) delete process.env[v];
		});

		afterAll(async () => {
			w?.restoreEnv();
			await w?.database.close();
		});

		it.each(['deploy', 'preview'])('a manifest over the node limit: %s answers 413 naming it, nothing stored', async (kind) => {
			process.env.TRIBUTARY_MAX_MANIFEST_NODES = String(rawNodes - 1);
			const r = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/${kind}`, { form: deployForm('f/analytics/limited', manifestBytes) });
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toBe(`manifest.json: ${rawNodes.toLocaleString('en-US')} nodes is over the limit of ${(rawNodes - 1).toLocaleString('en-US')} nodes (TRIBUTARY_MAX_MANIFEST_NODES)`);
			expect(await versionsAt('f/analytics/limited')).toBe(0);
		});

		it('a manifest over the byte limit answers 413 naming it and the limit (refused as it streams in)', async () => {
			process.env.TRIBUTARY_MAX_MANIFEST_MB = '0.5';
			const r = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: deployForm('f/analytics/limited', manifestBytes) });
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toBe(
				'manifest.json: more than 0.5 MB, over the manifest size limit of 0.5 MB (TRIBUTARY_MAX_MANIFEST_MB); refused there, the rest of the upload unread'
			);
			expect(await versionsAt('f/analytics/limited')).toBe(0);
		});

		it('the same manifest at its exact node count deploys', async () => {
			process.env.TRIBUTARY_MAX_MANIFEST_NODES = String(rawNodes);
			const r = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: deployForm('f/analytics/limited', manifestBytes) });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(await versionsAt('f/analytics/limited')).toBe(1);
		});

		it('a producer over the annotation limit answers 413 naming it and the count found, nothing stored', async () => {
			process.env.TRIBUTARY_MAX_PRODUCER_ANNOTATIONS = '5';
			const refused = await w.c.alice.post(`/api/w/${WS}/scripts/sql/deploy`, { path: 'f/analytics/limited_sql', content: producer(6) });
			expect(refused.status, JSON.stringify(refused.body)).toBe(413);
			expect(refused.body.error).toBe('content: 7 annotations is over the limit of 5 (TRIBUTARY_MAX_PRODUCER_ANNOTATIONS)');
			expect(await versionsAt('f/analytics/limited_sql')).toBe(0);
			const ok = await w.c.alice.post(`/api/w/${WS}/scripts/sql/deploy`, { path: 'f/analytics/limited_sql', content: producer(4) });
			expect(ok.status, JSON.stringify(ok.body)).toBe(201);
		});

		it('a producer over the byte limit answers 413 naming it and the size found', async () => {
			process.env.TRIBUTARY_MAX_PRODUCER_KB = '2';
			const content = producer(1, 3000);
			const r = await w.c.alice.post(`/api/w/${WS}/scripts/sql/deploy`, { path: 'f/analytics/limited_big', content });
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toBe(`content: ${Math.ceil(content.length / 1024)} KB is over the producer script limit of 2 KB (TRIBUTARY_MAX_PRODUCER_KB)`);
			expect(await versionsAt('f/analytics/limited_big')).toBe(0);
		});
	});
});
