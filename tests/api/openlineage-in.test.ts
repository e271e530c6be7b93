// The OpenLineage receiver through the real routes, on both databases: events written as the
// spec's examples write them, validated by the official schemas (../shared/reference/openlineage),
// the namespace mapping, the gates (outsider, member without the folder, reader, token scope),
// the bounds (body, gzip bomb, column edges, rate) and bad input, each refused with nothing stored.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { SenderRate, setSenderRate } from '../../src/lib/server/openlineage-in/rate';
import { ApiClient } from '../support/api';
import { pageEventOf, pageOutcome } from '../support/pages';
import * as settings from '../../src/routes/w/[ws]/settings/+page.server';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildOlWorld, columnLineage, LINEAGE_URL, runEvent, send, storedCounts, WS, type OlWorld } from '../support/openlineage-in-world';

const ETL_NS = 'airflow://prod';
const S3 = { namespace: 's3://lake-bucket', name: '/raw/orders.parquet' };
const OUT = { namespace: 's3://lake-bucket', name: '/clean/orders.parquet' };

describeFixtures('OpenLineage in: the receiver', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: OlWorld;
		let alice: ApiClient;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildOlWorld(database);
			alice = await w.token('alice', ['lineage:write']);
		}, 120_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const job = (name: string) => ({ namespace: ETL_NS, name });

		describe('the namespace mapping', () => {
			it('an event of an unmapped namespace is a 403 naming the namespace, and nothing is stored', async () => {
				const before = await storedCounts(database);
				const r = await send(alice, runEvent({ job: job('unmapped.task'), inputs: [S3] }));
				expect(r.status).toBe(403);
				expect(r.body.error).toContain('"airflow://prod" is not mapped to a folder');
				expect(await storedCounts(database)).toEqual(before);
			});

			it('only a workspace admin maps a namespace, onto an existing folder', async () => {
				expect((await w.c.alice.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: ETL_NS, folder: 'etl' })).status).toBe(403);
				const nofolder = await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: ETL_NS, folder: 'nope' });
				expect(nofolder.status).toBe(400);
				expect(nofolder.body.error).toContain('no folder nope');
				const r = await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: ETL_NS, folder: 'etl' });
				expect(r.status).toBe(201);
				expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: 'spark://cluster', folder: 'secret' })).status).toBe(201);
				const list = await w.c.root.get(`/api/w/${WS}/openlineage/namespaces`);
				expect(list.body).toEqual([
					{ namespace: ETL_NS, folder: 'etl' },
					{ namespace: 'spark://cluster', folder: 'secret' }
				]);
				expect((await w.c.bob.get(`/api/w/${WS}/openlineage/namespaces`)).status).toBe(403);
			});

			it('a mapped namespace is received: 201, the run and the job stored', async () => {
				const runId = randomUUID();
				const r = await send(alice, runEvent({ runId, job: job('daily.load_orders'), inputs: [S3], outputs: [OUT] }));
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				expect(r.body.status).toBe('stored');
				expect(r.body.job).toBe('f/etl/prod/daily_load_orders');
				const [run] = await database.rows<{ status: string; kind: string; script_path: string }>(
					sql`select status, kind, script_path from job where kind = 'openlineage' and args->'openlineage'->>'run_id' = ${runId}`
				);
				expect(run).toEqual({ status: 'success', kind: 'openlineage', script_path: 'f/etl/prod/daily_load_orders' });
				expect(r.body.run).toMatch(new RegExp(`^/w/${WS}/run/[0-9a-f-]{36}$`));
			});

			it('the settings page maps a namespace under the same gate and input rules', async () => {
				const act = async (who: ApiClient, form: Record<string, string>) =>
					pageOutcome(settings.actions.saveNamespace((await pageEventOf(who, `/w/${WS}/settings?/saveNamespace`, { ws: WS }, form)) as never));
				const refused = await act(w.c.alice, { namespace: 'page://ns', folder: 'etl' });
				expect(refused.status).toBe(403);
				const ok = await act(w.c.root, { namespace: 'page://ns', folder: 'etl' });
				expect(ok.data.done).toBe('page://ns writes into f/etl.');
				const page = await pageOutcome(settings.load((await pageEventOf(w.c.root, `/w/${WS}/settings`, { ws: WS })) as never));
				expect(page.data.admin.namespaces).toContainEqual({ namespace: 'page://ns', folder: 'etl' });
				expect((await act(w.c.root, { namespace: 'page://ns', folder: '' })).data.done).toContain('Removed');
				expect((await act(w.c.root, { namespace: 'page://ns', folder: 'nope' })).status).toBe(400);
			});

			it('the workspace default folder takes namespaces nobody mapped', async () => {
				expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: '*', folder: 'etl' })).status).toBe(201);
				const r = await send(alice, runEvent({ job: { namespace: 'dagster://x', name: 'asset_job' }, outputs: [OUT] }));
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				expect(r.body.job).toBe('f/etl/x/asset_job');
				expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: '*', folder: null })).body.removed).toBe(true);
				expect((await send(alice, runEvent({ job: { namespace: 'dagster://y', name: 'asset_job' } }))).status).toBe(403);
			});
		});

		describe('gates', () => {
			const event = () => runEvent({ job: job('gated.task'), inputs: [S3] });

			it('no credentials: 401; a stranger (another workspace, its own token): 404 as for any workspace it is not in', async () => {
				const before = await storedCounts(database);
				expect((await send(w.c.anon, event())).status).toBe(401);
				const eve = await w.token('eve', ['lineage:write'], 'other');
				const r = await send(eve, event());
				expect(r.status).toBe(404);
				expect(r.body.error).toBe('no such workspace');
				expect(JSON.stringify(r.body)).not.toContain('etl');
				expect(await storedCounts(database)).toEqual(before);
			});

			it('a member who cannot read the folder is not told its name; a reader is told it needs write access', async () => {
				const before = await storedCounts(database);
				const carol = await send(w.c.carol, event());
				expect(carol.status).toBe(403);
				expect(carol.body.error).toContain('airflow://prod');
				expect(carol.body.error).not.toContain('etl');
				const bob = await send(w.c.bob, event());
				expect(bob.status).toBe(403);
				expect(bob.body.error).toContain('folder etl, which you may read but not write');
				// alice writes etl, not secret: a namespace mapped there is refused without naming it.
				const secret = await send(alice, runEvent({ job: { namespace: 'spark://cluster', name: 'job' } }));
				expect(secret.status).toBe(403);
				expect(secret.body.error).not.toContain('secret');
				expect(await storedCounts(database)).toEqual(before);
			});

			it('a token needs lineage:write (and its paths must cover the job); a session needs none', async () => {
				const reader = await w.token('alice', ['assets:read']);
				const r = await send(reader, event());
				expect(r.status).toBe(403);
				expect(r.body.error).toBe('this token lacks the scope lineage:write');
				const elsewhere = await w.token('alice', ['lineage:write:f/etl/other/*']);
				const r2 = await send(elsewhere, event());
				expect(r2.status).toBe(403);
				expect(r2.body.error).toContain('lineage:write:f/etl/prod/gated_task');
				const narrow = await w.token('alice', ['lineage:write:f/etl/prod/*']);
				expect((await send(narrow, event())).status).toBe(201);
				expect((await send(w.c.alice, event())).status).toBe(201);
			});

			it('the receiver remembers a token briefly, yet a grant taken away or a token revoked through the app is refused at once', async () => {
				const minted = await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'remembered', scopes: ['lineage:write'] });
				expect(minted.status).toBe(201);
				const t = new ApiClient().withBearer(minted.body.token);
				expect((await send(t, event())).status).toBe(201);
				expect((await send(t, event())).status).toBe(201);
				// alice loses write on etl (still reads it): her next event is refused as a reader's.
				expect((await w.c.root.post(`/api/w/${WS}/folders`, { name: 'etl', readers: ['u/bob', 'u/alice'], writers: [] })).status).toBe(200);
				try {
					const r = await send(t, event());
					expect(r.status).toBe(403);
					expect(r.body.error).toContain('folder etl, which you may read but not write');
				} finally {
					expect((await w.c.root.post(`/api/w/${WS}/folders`, { name: 'etl', readers: ['u/bob'], writers: ['u/alice'] })).status).toBe(200);
				}
				expect((await send(t, event())).status).toBe(201);
				expect((await w.c.alice.call('DELETE', `/api/w/${WS}/tokens/${minted.body.id}`)).status).toBe(200);
				const before = await storedCounts(database);
				expect((await send(t, event())).status).toBe(401);
				expect(await storedCounts(database)).toEqual(before);
			});
		});

		describe('the store', () => {
			it('the same event twice: stored once, one run, answered 201 both times', async () => {
				const e = runEvent({ job: job('twice'), inputs: [S3], outputs: [OUT] });
				const first = await send(alice, e);
				expect(first.status).toBe(201);
				const before = await storedCounts(database);
				// Keys in another order: the same event.
				const reordered = Object.fromEntries(Object.entries(e).reverse());
				const second = await send(alice, reordered);
				expect(second.status).toBe(201);
				expect(second.body.status).toBe('duplicate');
				expect(await storedCounts(database)).toEqual(before);
			});

			it('a COMPLETE for a run never started is accepted; its START arriving later starts it without reopening it', async () => {
				const runId = randomUUID();
				const complete = runEvent({ type: 'COMPLETE', runId, time: '2026-12-01T10:05:00Z', job: job('late_start'), outputs: [OUT] });
				expect((await send(alice, complete)).status).toBe(201);
				const start = runEvent({ type: 'START', runId, time: '2026-12-01T10:00:00Z', job: job('late_start'), outputs: [OUT] });
				expect((await send(alice, start)).status).toBe(201);
				const [run] = await database.rows<{ status: string; started: string; completed: string; n: number }>(
					sql`select status, started_at::text as started, completed_at::text as completed,
					           (select count(*)::int from openlineage_event e where e.run_id = ${runId}::uuid) as n
					      from job where args->'openlineage'->>'run_id' = ${runId}`
				);
				expect(run.status).toBe('success');
				expect(new Date(run.started).toISOString()).toBe('2026-12-01T10:00:00.000Z');
				expect(new Date(run.completed).toISOString()).toBe('2026-12-01T10:05:00.000Z');
				expect(Number(run.n)).toBe(2);
			});

			it('a gzip body (the client compressing) is received like a plain one', async () => {
				const r = await send(alice, runEvent({ job: job('gzipped'), outputs: [OUT] }), { gzip: true });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				expect(r.body.job).toBe('f/etl/prod/gzipped');
			});

			it('facets the schemas do not know are kept as they came', async () => {
				const custom = { _producer: 'https://example.com/x', _schemaURL: 'https://example.com/x.json#/$defs/X', anything: { deep: [1, 2, 3] } };
				const e = runEvent({ job: { ...job('custom_facet'), facets: { myOrgOwner: custom } }, runFacets: { spark_properties: custom } });
				expect((await send(alice, e)).status).toBe(201);
				const [row] = await database.rows<{ body: any }>(sql`select body from openlineage_event where job_name = 'custom_facet'`);
				const body = typeof row.body === 'string' ? JSON.parse(row.body) : row.body;
				expect(body.job.facets.myOrgOwner).toEqual(custom);
				expect(body.run.facets.spark_properties).toEqual(custom);
			});

			it('more column edges than the cap: the first ones stored, a warning on the job', async () => {
				const saved = process.env.TRIBUTARY_OPENLINEAGE_MAX_EDGES;
				process.env.TRIBUTARY_OPENLINEAGE_MAX_EDGES = '5';
				try {
					const fields: Record<string, [typeof S3, string, string][]> = {};
					for (let i = 0; i < 8; i++) fields[`c${i}`] = [[S3, `c${i}`, 'IDENTITY']];
					const r = await send(alice, runEvent({ job: job('wide'), inputs: [S3], outputs: [{ ...OUT, facets: { columnLineage: columnLineage(fields) } }] }));
					expect(r.status, JSON.stringify(r.body)).toBe(201);
					expect(r.body.warnings[0]).toContain('8 column edges is over the limit of 5');
					const [n] = await database.rows<{ n: number }>(sql`select count(*)::int as n from producer_column_lineage where script_path = 'f/etl/prod/wide'`);
					expect(Number(n.n)).toBe(5);
					const [j] = await database.rows<{ warnings: unknown }>(sql`select warnings from openlineage_job where name = 'wide'`);
					expect(JSON.stringify(j.warnings)).toContain('over the limit of 5');
				} finally {
					if (saved === undefined) delete process.env.TRIBUTARY_OPENLINEAGE_MAX_EDGES;
					else process.env.TRIBUTARY_OPENLINEAGE_MAX_EDGES = saved;
				}
			});

			it('a sender over its rate is answered 429 with Retry-After, and its event is not stored', async () => {
				const saved = { rate: process.env.TRIBUTARY_OPENLINEAGE_RATE, burst: process.env.TRIBUTARY_OPENLINEAGE_BURST };
				process.env.TRIBUTARY_OPENLINEAGE_RATE = '1';
				process.env.TRIBUTARY_OPENLINEAGE_BURST = '2';
				let now = 0;
				const old = setSenderRate(new SenderRate(() => now));
				try {
					const limited = await w.token('alice', ['lineage:write']);
					expect((await send(limited, runEvent({ job: job('rate1') }))).status).toBe(201);
					expect((await send(limited, runEvent({ job: job('rate2') }))).status).toBe(201);
					const before = await storedCounts(database);
					const r = await send(limited, runEvent({ job: job('rate3') }));
					expect(r.status).toBe(429);
					expect(r.headers.get('retry-after')).toBe('1');
					expect(await storedCounts(database)).toEqual(before);
					// Another token has its own bucket; and after a second this one has room again.
					expect((await send(alice, runEvent({ job: job('rate4') }))).status).toBe(201);
					now += 1000;
					expect((await send(limited, runEvent({ job: job('rate3') }))).status).toBe(201);
				} finally {
					setSenderRate(old);
					for (const [k, v] of [['TRIBUTARY_OPENLINEAGE_RATE', saved.rate], ['TRIBUTARY_OPENLINEAGE_BURST', saved.burst]] as const) {
						if (v === undefined) delete process.env[k];
						else process.env[k] = v;
					}
				}
			});
		});

		describe('bad input: a clear 4xx naming what is wrong, nothing stored', () => {
			const refuse = async (status: number, contains: string, body: unknown, opts: Parameters<typeof send>[2] = {}) => {
				const before = await storedCounts(database);
				const r = await send(alice, body, opts);
				expect(r.status, JSON.stringify(r.body)).toBe(status);
				expect(r.body.error).toContain(contains);
				expect(await storedCounts(database)).toEqual(before);
			};
			const good = () => runEvent({ job: job('bad_input'), inputs: [S3], outputs: [OUT] });

			it('not JSON', () => refuse(400, 'the body is not JSON', '{"eventType": "START",'));
			it('a JSON value that is not an object', () => refuse(400, '$: an OpenLineage event is a JSON object', '[1, 2]'));
			it('a wrong Content-Type', () => refuse(415, 'Content-Type must be application/json', good(), { contentType: 'text/plain' }));
			it('an unknown Content-Encoding', async () => {
				const before = await storedCounts(database);
				const r = await alice.call('POST', LINEAGE_URL, { raw: { body: JSON.stringify(good()), contentType: 'application/json' }, headers: { 'content-encoding': 'br' } });
				expect(r.status).toBe(415);
				expect(await storedCounts(database)).toEqual(before);
			});
			it('broken gzip', async () => {
				const before = await storedCounts(database);
				const r = await alice.call('POST', LINEAGE_URL, { raw: { body: 'not gzip at all', contentType: 'application/json' }, headers: { 'content-encoding': 'gzip' } });
				expect(r.status).toBe(400);
				expect(r.body.error).toContain('not valid gzip');
				expect(await storedCounts(database)).toEqual(before);
			});
			it('a body over TRIBUTARY_OPENLINEAGE_MAX_BYTES is a 413 before it is parsed', async () => {
				const saved = process.env.TRIBUTARY_OPENLINEAGE_MAX_BYTES;
				process.env.TRIBUTARY_OPENLINEAGE_MAX_BYTES = '2000';
				try {
					await refuse(413, 'over the limit of 2,000 bytes (TRIBUTARY_OPENLINEAGE_MAX_BYTES)', `${' '.repeat(3000)}{}`);
				} finally {
					if (saved === undefined) delete process.env.TRIBUTARY_OPENLINEAGE_MAX_BYTES;
					else process.env.TRIBUTARY_OPENLINEAGE_MAX_BYTES = saved;
				}
			});
			it('a gzip bomb: the decompressed size is bounded like the body (413)', async () => {
				// 64 MB of spaces around an event: ~64 KB compressed, far over the 5 MB default once inflated.
				const bomb = gzipSync(Buffer.concat([Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from(JSON.stringify(good()))]));
				expect(bomb.byteLength).toBeLessThan(200_000);
				const before = await storedCounts(database);
				const r = await alice.call('POST', LINEAGE_URL, { raw: { body: bomb as BodyInit, contentType: 'application/json' }, headers: { 'content-encoding': 'gzip' } });
				expect(r.status).toBe(413);
				expect(r.body.error).toContain('the decompressed body');
				expect(await storedCounts(database)).toEqual(before);
			});
			it('missing eventTime', () => {
				const e = good();
				delete e.eventTime;
				return refuse(400, '$.eventTime: is required', e);
			});
			it('missing run and job', () => {
				const e = good();
				delete e.run;
				delete e.job;
				return refuse(400, 'an event has run and job (a RunEvent)', e);
			});
			it('missing job', () => {
				const e = good();
				delete e.job;
				return refuse(400, '$.job: is required', e);
			});
			it('missing run.runId', () => refuse(400, '$.run.runId: is required', { ...good(), run: {} }));
			it('an unknown eventType', () => refuse(400, '$.eventType: must be one of START, RUNNING, COMPLETE, ABORT, FAIL, OTHER', { ...good(), eventType: 'FINISHED' }));
			it('a run id that is not a UUID', () => refuse(400, '$.run.runId: must be a uuid', { ...good(), run: { runId: 'run-42' } }));
			it('an eventTime that is not a date-time', () => refuse(400, '$.eventTime: must be a date-time', { ...good(), eventTime: 'yesterday' }));
			it('a dataset name of 100 KB', () => refuse(400, '$.outputs[0].name: 102,400 bytes is over the limit of 1,024', { ...good(), outputs: [{ namespace: 's3://b', name: 'x'.repeat(102_400) }] }));
			it('a facet nested 1,000 deep', () => {
				let deep: unknown = 'bottom';
				for (let i = 0; i < 1000; i++) deep = { d: deep };
				const e = good();
				e.run.facets = { nested: { _producer: 'https://example.com', _schemaURL: 'https://example.com/s', d: deep } };
				return refuse(400, 'nested deeper than 64 levels', e);
			});
			it('a known facet that breaks its schema names the facet path', () => {
				const e = good();
				e.outputs[0].facets = { columnLineage: { _producer: 'https://example.com', _schemaURL: 'https://example.com/s' } };
				return refuse(400, '$.outputs[0].facets.columnLineage.fields: is required', e);
			});
			it('a facet without the base facet fields', () => {
				const e = good();
				e.job.facets = { owner: { team: 'x' } };
				return refuse(400, '$.job.facets.owner._producer: is required', e);
			});
			it('a NUL character (Postgres cannot store it)', () => refuse(400, '$.job.name: contains a NUL character', { ...good(), job: job('a\u0000b') }));
			it('an empty job name', () => refuse(400, '$.job.name: must not be empty', { ...good(), job: job('') }));
		});
	});
});
