// A NUL character (U+0000) is refused where it would reach the database (Postgres text and jsonb
// cannot hold it): a JSON body, a manifest, a run_results file, a descriptor are a 400 naming the
// file or the JSON path, with nothing stored; an index file holding one is left out with a
// warning naming it, as any unreadable index is. These were 500s (the API fuzz found the first).
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { indexRows, writeColumns, writeLineage } from '../support/index-parquet';
import { buildLineageWorld, WS, type LineageWorld } from '../support/lineage-world';

const DIR = 'jaffle-shop-1.12-duckdb-docs-generate';
const blob = (bytes: Uint8Array | string) => new Blob([bytes as Uint8Array<ArrayBuffer>]);

describeFixtures('NUL characters in input', () => {
	describe.each(testBackends())('NUL characters in input ($name)', (backend) => {
		let w: LineageWorld;
		const manifest = JSON.parse(readFileSync(fixture(DIR, 'manifest.json'), 'utf8'));
		const runResults = JSON.parse(readFileSync(fixture(DIR, 'run_results.json'), 'utf8'));
		const versionsAt = async (path: string) => (await w.database.rows<{ n: number }>(sql`select count(*)::int as n from script where workspace = ${WS} and path = ${path}`))[0].n;

		const deploy = (path: string, files: Record<string, Blob | string>) => {
			const f = new FormData();
			f.set('path', path);
			for (const [k, v] of Object.entries(files)) {
				if (typeof v === 'string') f.set(k, v);
				else f.set(k, v, `${k}.upload`);
			}
			return w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: f });
		};

		beforeAll(async () => {
			w = await buildLineageWorld(await backend.open());
		}, 120_000);

		afterAll(async () => {
			w?.restoreEnv();
			await w?.database.close();
		});

		it('a JSON body: 400 naming the JSON path, nothing stored', async () => {
			const r = await w.c.wsadmin.post(`/api/w/${WS}/warehouses`, { name: 'nul', settings: { type: 'duckdb', path: 'a\u0000b' } });
			expect([r.status, r.body.error]).toEqual([400, '$.settings.path: contains a NUL character (\\u0000), which cannot be stored']);
			expect((await w.c.wsadmin.get(`/api/w/${WS}/warehouses`)).body.map((x: { name: string }) => x.name)).not.toContain('nul');
		});

		it('a manifest: 400 naming the file and the byte, nothing stored', async () => {
			const m = structuredClone(manifest);
			m.nodes['model.jaffle_shop.orders'].description = 'one\u0000two';
			const r = await deploy('f/analytics/nul_manifest', { manifest: blob(JSON.stringify(m)) });
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(/^manifest: manifest\.upload holds a NUL character \(\\u0000\) at byte \d+, which cannot be stored$/);
			expect(await versionsAt('f/analytics/nul_manifest')).toBe(0);
		});

		it('a descriptor, even in a comment: 400, nothing stored', async () => {
			const r = await deploy('f/analytics/nul_descriptor', { descriptor: 'profile:\n  warehouse: main\n# a\u0000b\n', manifest: blob(JSON.stringify(manifest)) });
			// (The form sends its line breaks as CRLF, so the character's offset is the form's.)
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/^descriptor: holds a NUL character at character \d+, which cannot be stored$/);
			expect(await versionsAt('f/analytics/nul_descriptor')).toBe(0);
		});

		it('a run_results file of a recorded run: 400 naming it, no job', async () => {
			const rr = structuredClone(runResults);
			rr.results[0].message = 'x\u0000y';
			const f = new FormData();
			f.set('path', 'f/analytics/nul_run');
			f.set('run_results', blob(JSON.stringify(rr)), 'run_results.json');
			const jobsBefore = (await w.database.rows<{ n: number }>(sql`select count(*)::int as n from job`))[0].n;
			const r = await w.c.alice.call('POST', `/api/w/${WS}/jobs/record`, { form: f });
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(/^run_results: run_results\.json holds a NUL character \(\\u0000\) at byte \d+/);
			expect((await w.database.rows<{ n: number }>(sql`select count(*)::int as n from job`))[0].n).toBe(jobsBefore);
		});

		it('an index file: the graph is stored without it, with a warning naming the file and column', async () => {
			const idx = (f: string) => readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'index', f));
			const lineage = await indexRows(idx('dbt.column_lineage.parquet'));
			const columns = await indexRows(idx('dbt.node_columns.parquet'));
			for (const r of lineage) if (r.to_column_name === 'order_total') r.to_column_name = 'order\u0000total';
			for (const r of columns) if (r.column_name === 'order_total') r.column_name = 'order\u0000total';
			const r = await deploy('f/analytics/nul_index', {
				manifest: blob(JSON.stringify(manifest)),
				column_lineage: blob(writeLineage(lineage)),
				node_columns: blob(writeColumns(columns))
			});
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.column_edges).toBeNull();
			expect(r.body.warnings).toEqual(
				expect.arrayContaining([
					'column_lineage.upload (to_column_name): a value holds a NUL character (\\u0000), which cannot be stored; the graph is stored without column lineage',
					expect.stringMatching(/^node_columns\.upload \(column_name\): a value holds a NUL character/)
				])
			);
		});
	});
});
