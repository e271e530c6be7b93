// The real OpenLineage Python client (openlineage-python 1.54.0, its HTTP transport, with and
// without gzip compression) sending to the receiver over HTTP, on both databases: its url set to
// .../api/w/{ws}/openlineage as the docs say (and with a trailing slash), its api key a Tributary
// token. What it sent lands as a producer on the real jaffle-shop's relation, with its run.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { startBridge } from '../support/http-bridge';
import { buildOlWorld, WS, type OlWorld } from '../support/openlineage-in-world';
import { needPython, openLineagePython, SEND_SCRIPT } from '../support/openlineage-python';

const run = promisify(execFile);

describeFixtures('OpenLineage in: the real Python client', () => {
	let python: string | null = null;
	beforeAll(async () => {
		const found = await openLineagePython();
		python = needPython(found, 'OpenLineage in: the real Python client') ? (found as { python: string }).python : null;
	}, 600_000);

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: OlWorld;
		let bridge: Awaited<ReturnType<typeof startBridge>>;
		let token: string;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildOlWorld(database);
			expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: 'spark://cluster-1', folder: 'etl' })).status).toBe(201);
			const r = await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'spark', scopes: ['lineage:write'] });
			token = r.body.token;
			bridge = await startBridge();
		}, 180_000);
		afterAll(async () => {
			await bridge?.close();
			w?.restoreEnv();
			await database?.close();
		});

		const send = async (url: string, key: string, compression: 'none' | 'gzip', scenario: string, job: string) => {
			const { stdout } = await run(python!, [SEND_SCRIPT, url, key, compression, scenario, job], { timeout: 120_000 });
			return stdout
				.trim()
				.split('\n')
				.map((l) => JSON.parse(l) as { run_id: string; status: number | string });
		};

		it.each([
			['none', '', 'plain_load'],
			['gzip', '/', 'gzip_load']
		] as const)('compression %s (url ending %j): START and COMPLETE stored, the job a producer writing the seed', async (compression, slash, job) => {
			if (!python) return;
			const from = bridge.seen.length;
			const sent = await send(`${bridge.url}/api/w/${WS}/openlineage${slash}`, token, compression, 'load', job);
			expect(sent.map((s) => s.status)).toEqual([201, 201]);
			// The client joined the url as documented, and compressed when told to.
			expect(bridge.seen.slice(from).map((s) => s.path)).toEqual(Array(2).fill(slash ? `/api/w/${WS}/openlineage/api/v1/lineage` : `/api/w/${WS}/api/v1/lineage`));
			expect(bridge.seen.slice(from).map((s) => s.encoding)).toEqual(Array(2).fill(compression === 'gzip' ? 'gzip' : null));
			const [r] = await database.rows<{ status: string; script_path: string; started: unknown; completed: unknown }>(
				sql`select status, script_path, started_at as started, completed_at as completed from job where args->'openlineage'->>'run_id' = ${sent[0].run_id}`
			);
			expect(r.status).toBe('success');
			expect(r.script_path).toBe(`f/etl/cluster-1/${job}`);
			expect(r.started).not.toBeNull();
			const g = await w.c.alice.get(`/api/w/${WS}/assets/graph?folder=etl`);
			const edges = g.body.edges.filter((e: any) => e.runnable_path === `f/etl/cluster-1/${job}`).map((e: any) => `${e.access} ${e.asset_kind}://${e.asset_path}`);
			expect(edges.sort()).toEqual(['r openlineage://s3://landing/customers.csv', 'w dbt://main/raw/raw_customers']);
			const producer = g.body.runnables.find((x: any) => x.path === `f/etl/cluster-1/${job}`);
			expect(producer.column_lineage).toEqual([
				{ asset_kind: 'dbt', asset_path: 'main/raw/raw_customers', column: 'id', inputs: [{ from_kind: 'openlineage', from_path: 's3://landing/customers.csv', from_column: 'cust_id', source: 'annotation', kind: 'copy' }] }
			]);
			const [stored] = await database.rows<{ body: any }>(sql`select body from openlineage_event where run_id = ${sent[0].run_id}::uuid and event_type = 'COMPLETE'`);
			const body = typeof stored.body === 'string' ? JSON.parse(stored.body) : stored.body;
			expect(body.producer).toContain('client/python');
			expect(body.job.facets.sql.query).toContain('INSERT INTO raw_customers');
		});

		it('a FAIL with its error facet; a wrong key and a token without lineage:write are refused, nothing stored', async () => {
			if (!python) return;
			const [failed] = await send(`${bridge.url}/api/w/${WS}/openlineage`, token, 'gzip', 'fail', 'failing_job');
			expect(failed.status).toBe(201);
			const [r] = await database.rows<{ status: string; err: string }>(sql`select status, result->>'error' as err from job where args->'openlineage'->>'run_id' = ${failed.run_id}`);
			expect(r).toEqual({ status: 'failure', err: 'boom' });
			const [bad] = await send(`${bridge.url}/api/w/${WS}/openlineage`, 'trib_not_a_real_token', 'none', 'fail', 'refused_job');
			expect(bad.status).toBe(401);
			const reader = await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'reader', scopes: ['assets:read'] });
			const [scoped] = await send(`${bridge.url}/api/w/${WS}/openlineage`, reader.body.token, 'none', 'fail', 'refused_job');
			expect(scoped.status).toBe(403);
			const [n] = await database.rows<{ n: number }>(sql`select count(*)::int as n from openlineage_event where job_name = 'refused_job'`);
			expect(Number(n.n)).toBe(0);
		});
	});
});
