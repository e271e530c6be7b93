// The receiver under a burst, on both databases: events sent all at once are written in batches
// (several events in one transaction), and what they leave is what one-by-one storing leaves:
// each event its own answer (201 stored, 201 duplicate, 403), every run's state from all of its
// events whatever batch they fell in, the job's facets, the datasets' schemas, the newest
// COMPLETE's lineage (a changed shape takes the one-by-one path within the burst), and a refused
// event in a batch leaving nothing behind.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { buildPrincipal, grantOf } from '../../src/lib/server/access';
import { openLineageBatchStats, receive } from '../../src/lib/server/openlineage-in/batch';
import { parseEvent } from '../../src/lib/server/openlineage-in/event';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildOlWorld, columnLineage, errorFacet, runEvent, schemaFacet, send, sqlFacet, WS, type OlWorld } from '../support/openlineage-in-world';

const NS = 'airflow://burst';
const SRC = { namespace: 's3://burst', name: 'in/a.parquet' };
const SRC2 = { namespace: 's3://burst', name: 'in/b.parquet' };
const DST = { namespace: 's3://burst', name: 'out/a.parquet' };
const JOB = { namespace: NS, name: 'burst.copy' };
const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString();
const output = (from: typeof SRC) => ({ ...DST, facets: { columnLineage: columnLineage({ id: [[from, 'id', 'IDENTITY']] }) } });

describeFixtures('OpenLineage in: bursts written in batches', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: OlWorld;
		let alice: ApiClient;
		let bob: ApiClient;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildOlWorld(database);
			expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: NS, folder: 'etl' })).status).toBe(201);
			alice = await w.token('alice', ['lineage:write']);
			// bob reads etl but may not write it.
			bob = await w.token('bob', ['lineage:write']);
			// The job exists (its first event creates it one by one), with the lineage SRC → DST.
			const first = await send(alice, runEvent({ job: JOB, time: at(0), inputs: [SRC], outputs: [output(SRC)] }));
			expect(first.status, JSON.stringify(first.body)).toBe(201);
		}, 120_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		it('a burst: each event answered on its own, runs, facets, schemas and lineage as if stored one by one', async () => {
			const before = openLineageBatchStats();
			const runs = Array.from({ length: 8 }, () => randomUUID());
			const failed = randomUUID();
			const events: { who: ApiClient; event: Record<string, unknown>; expect: number | 'duplicate' }[] = [];
			runs.forEach((runId, i) => {
				// COMPLETE before START for half of them: the order they arrive in does not matter.
				const start = { who: alice, event: runEvent({ type: 'START', runId, job: JOB, time: at(10 + i), inputs: [SRC], outputs: [output(SRC)] }), expect: 201 };
				const done = { who: alice, event: runEvent({ type: 'COMPLETE', runId, job: JOB, time: at(20 + i), inputs: [SRC], outputs: [output(SRC)] }), expect: 201 };
				events.push(...(i % 2 ? [done, start] : [start, done]));
			});
			const dup = runEvent({ type: 'RUNNING', runId: runs[0], job: { ...JOB, facets: { sql: sqlFacet('INSERT INTO a SELECT id FROM b') } }, time: at(15) });
			const dupAt = events.length;
			events.push({ who: alice, event: dup, expect: 201 }, { who: alice, event: structuredClone(dup), expect: 'duplicate' });
			events.push({ who: alice, event: runEvent({ type: 'FAIL', runId: failed, job: JOB, time: at(40), runFacets: { errorMessage: errorFacet('disk full', 'at Writer.java:1') } }), expect: 201 });
			// A dataset's schema from an input facet.
			events.push({ who: alice, event: runEvent({ type: 'START', runId: failed, job: JOB, time: at(39), inputs: [{ ...SRC, facets: { schema: schemaFacet([['id', 'BIGINT']]) } }] }), expect: 201 });
			// Refused in the middle of the burst: a reader of the folder, and an unmapped namespace.
			const refusedRun = randomUUID();
			events.push({ who: bob, event: runEvent({ type: 'START', runId: refusedRun, job: JOB, time: at(30) }), expect: 403 });
			events.push({ who: alice, event: runEvent({ type: 'START', runId: refusedRun, job: { namespace: 'airflow://nowhere', name: 'x' }, time: at(30) }), expect: 403 });
			// The newest COMPLETE reads another file: the job's lineage becomes SRC2 → DST.
			const changed = randomUUID();
			events.push({ who: alice, event: runEvent({ type: 'COMPLETE', runId: changed, job: JOB, time: at(50), inputs: [SRC2], outputs: [output(SRC2)] }), expect: 201 });

			const answers = await Promise.all(events.map((e) => send(e.who, e.event)));
			answers.forEach((r, i) => {
				const want = events[i].expect;
				expect(r.status, JSON.stringify(r.body)).toBe(want === 'duplicate' ? 201 : want);
				if (want === 201 && i !== dupAt) {
					expect(r.body.status).toBe('stored');
					expect(r.body.run).toMatch(new RegExp(`^/w/${WS}/run/[0-9a-f-]{36}$`));
				}
			});
			// Two equal events: one stored, the other its duplicate, whichever batch each fell in.
			expect([answers[dupAt].body.status, answers[dupAt + 1].body.status].sort()).toEqual(['duplicate', 'stored']);
			expect(openLineageBatchStats().batches).toBeGreaterThan(before.batches);
			expect(openLineageBatchStats().failed).toBe(before.failed);

			const rows = await database.rows<{ run_id: string; status: string; err: string | null; started: unknown; completed: unknown }>(
				sql`select args->'openlineage'->>'run_id' as run_id, status, result->>'error' as err, started_at as started, completed_at as completed
				      from job where kind = 'openlineage' and script_path = 'f/etl/burst/burst_copy'`
			);
			const byRun = new Map(rows.map((r) => [r.run_id, r]));
			for (const [i, r] of runs.entries()) {
				expect(byRun.get(r)?.status).toBe('success');
				expect(new Date(byRun.get(r)!.started as string).toISOString()).toBe(at(10 + i));
				expect(new Date(byRun.get(r)!.completed as string).toISOString()).toBe(at(20 + i));
			}
			expect(byRun.get(failed)).toMatchObject({ status: 'failure', err: 'disk full' });
			expect(byRun.get(changed)?.status).toBe('success');
			expect(byRun.has(refusedRun)).toBe(false);
			const [counts] = await database.rows<{ events: unknown; refused: unknown; dups: unknown }>(
				sql`select (select count(*) from openlineage_event where job_namespace = ${NS})::int as events,
				           (select count(*) from openlineage_event where run_id = ${refusedRun}::uuid)::int as refused,
				           (select count(*) from openlineage_event where run_id = ${runs[0]}::uuid and event_type = 'RUNNING')::int as dups`
			);
			// The job's first event, 16 of the runs, the RUNNING once, FAIL and its START, the changed COMPLETE.
			expect({ events: Number(counts.events), refused: Number(counts.refused), dups: Number(counts.dups) }).toEqual({ events: 1 + 16 + 1 + 2 + 1, refused: 0, dups: 1 });
			// Each run's progress: its output, in the run's final state.
			const progress = await database.rows<{ status: string }>(
				sql`select p.status from dbt_run_progress p join job j on j.id = p.job_id where j.args->'openlineage'->>'run_id' = any(${sql.param(runs)}::text[])`
			);
			expect(progress.map((p) => p.status)).toEqual(Array(runs.length).fill('materialized'));
			// The job's facets, the input's schema.
			const [job] = await database.rows<{ facets: unknown }>(sql`select facets from openlineage_job where namespace = ${NS} and name = ${JOB.name}`);
			const facets = typeof job.facets === 'string' ? JSON.parse(job.facets) : job.facets;
			expect(facets.sql.query).toBe('INSERT INTO a SELECT id FROM b');
			const [ds] = await database.rows<{ fields: unknown }>(sql`select fields from openlineage_dataset where namespace = ${SRC.namespace} and name = ${SRC.name}`);
			expect(typeof ds.fields === 'string' ? JSON.parse(ds.fields) : ds.fields).toEqual([{ name: 'id', type: 'BIGINT' }]);
			// The newest COMPLETE's lineage is the job's: SRC2 → DST, not SRC → DST.
			const g = await w.c.alice.get(`/api/w/${WS}/assets/graph?folder=etl`);
			const edges = g.body.edges.filter((e: any) => e.runnable_path === 'f/etl/burst/burst_copy').map((e: any) => `${e.access} ${e.asset_path}`);
			expect(edges.sort()).toEqual(['r s3://burst/in/b.parquet', 'w s3://burst/out/a.parquet']);
		});

		it('events handed over together are written as one batch, each answered as receiveEvent answers it', async () => {
			const [acct] = await database.rows<{ id: string }>(sql`select id::text as id from account where username = 'alice'`);
			const grant = grantOf(await buildPrincipal({ accountId: acct.id, username: 'alice', instanceAdmin: false, via: 'session' }, WS));
			const runIds = Array.from({ length: 10 }, () => randomUUID());
			const before = openLineageBatchStats();
			// Handed over in one tick: the first two start the two batch writers, the rest wait for one.
			const answers = await Promise.all(
				runIds.map((runId, i) => receive(database, grant, parseEvent(JSON.stringify(runEvent({ type: 'COMPLETE', runId, job: JOB, time: at(70 + i), inputs: [SRC2], outputs: [output(SRC2)] })))))
			);
			const after = openLineageBatchStats();
			expect(after.largest).toBeGreaterThanOrEqual(runIds.length - 2);
			expect(after.events - before.events).toBe(runIds.length);
			expect(after.failed).toBe(before.failed);
			expect(answers.map((a) => [a.status, a.job])).toEqual(Array(runIds.length).fill(['stored', 'f/etl/burst/burst_copy']));
			const rows = await database.rows<{ status: string }>(sql`select status from job where kind = 'openlineage' and args->'openlineage'->>'run_id' = any(${sql.param(runIds)}::text[])`);
			expect(rows.map((r) => r.status)).toEqual(Array(runIds.length).fill('success'));
			// The job's lineage mark moved to the newest of them (the same shape: no new version).
			const [job] = await database.rows<{ t: unknown }>(sql`select lineage_event_time as t from openlineage_job where namespace = ${NS} and name = ${JOB.name}`);
			expect(new Date(job.t as string).toISOString()).toBe(at(79));
		});

		it('the same burst again: every event a duplicate, nothing new stored', async () => {
			const runId = randomUUID();
			const evs = [runEvent({ type: 'START', runId, job: JOB, time: at(60) }), runEvent({ type: 'COMPLETE', runId, job: JOB, time: at(61) })];
			expect((await Promise.all(evs.map((e) => send(alice, e)))).map((r) => r.body.status)).toEqual(['stored', 'stored']);
			const [n0] = await database.rows<{ n: unknown }>(sql`select count(*)::int as n from openlineage_event`);
			const again = await Promise.all([...evs, ...evs].map((e) => send(alice, e)));
			expect(again.map((r) => [r.status, r.body.status])).toEqual(Array(4).fill([201, 'duplicate']));
			const [n1] = await database.rows<{ n: unknown }>(sql`select count(*)::int as n from openlineage_event`);
			expect(Number(n1.n)).toBe(Number(n0.n));
		});
	});
});
