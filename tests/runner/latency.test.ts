// A node event written to dbt's JSON log becomes a readable progress row while the run goes on,
// with the runner's default reader interval (200 ms), on both databases. The stand-in stamps each
// event with the moment it writes it; the test reads progress rows through the repo as fast as
// it can and prints the distribution (the figure belongs to the benchmarks, not to an assertion).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { progressOf } from '../../src/lib/server/repo/jobs';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, PG_LOGS, WS, type RunnerWorld } from '../support/runner-world';

const BUILD = path.join(PG_LOGS, 'build');

describeFixtures('progress latency', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			process.env.TRIBUTARY_KEEP_JOB_DIRS = '1';
			database = await backend.open();
			w = await buildRunnerWorld(database, { config: { logPollMs: 200, logFlushMs: 500 } });
		}, 120_000);
		afterAll(async () => {
			delete process.env.TRIBUTARY_KEEP_JOB_DIRS;
			await w?.close();
		});

		it('a node event becomes a progress row while the run goes on, and no final state is lost', async () => {
			await w.deploy('latency', { commands: { build: { mode: 'latency', log: path.join(BUILD, 'dbt.log.jsonl'), gapMs: 250 } } });
			const id = await w.run('latency', { command: 'build' });
			const seen = new Map<string, number>();
			for (;;) {
				const now = Date.now();
				for (const r of await progressOf(database, WS, id)) {
					const k = `${r.assetPath}|${r.status}`;
					if (!seen.has(k)) seen.set(k, now);
				}
				const job = await database.rows<{ status: string }>((await import('drizzle-orm')).sql`select status from job where id = ${id}::uuid`);
				if (job[0].status !== 'running' && job[0].status !== 'queued') break;
				await new Promise((r) => setTimeout(r, 2));
			}
			const log = readFileSync(path.join(w.jobsDir, id, 'logs', 'build', 'dbt.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
			const latencies: number[] = [];
			let finished = 0;
			for (const ev of log) {
				const rel = ev.data.node_info.node_relation.relation_name.split('"."').map((x: string) => x.replaceAll('"', ''));
				const done = ev.info.name !== 'NodeStart';
				const at = seen.get(`main/${rel[1]}/${rel[2]}|${done ? 'materialized' : 'running'}`);
				if (done) {
					// A final state is never lost; a `running` one read in the same batch as its
					// finish is written over before it is ever a row, which is not a delay.
					expect(at, JSON.stringify(ev.info)).toBeDefined();
					finished++;
				}
				if (at !== undefined) latencies.push(at - Date.parse(ev.info.ts));
			}
			latencies.sort((a, b) => a - b);
			const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))];
			process.stdout.write(
				`[measure] ${backend.name}: event written → progress row readable, ${latencies.length} events: ` +
					`min ${latencies[0]} ms, median ${pct(50)} ms, p95 ${pct(95)} ms, max ${latencies.at(-1)} ms (reader interval 200 ms)\n`
			);
			expect(finished).toBe(log.length / 2);
			// Live, not settled at the end: some node was seen running while the job ran. How fast is
			// the benchmark's question (bench/README.md "event latency"), not this test's.
			expect(log.filter((ev) => ev.info.name === 'NodeStart').some((ev) => {
				const rel = ev.data.node_info.node_relation.relation_name.split('"."').map((x: string) => x.replaceAll('"', ''));
				return seen.has(`main/${rel[1]}/${rel[2]}|running`);
			})).toBe(true);
		}, 120_000);
	});
});
