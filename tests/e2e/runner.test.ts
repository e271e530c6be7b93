// One dbt job through the BUILT app (`npm start`'s in-process worker, embedded database) with
// DBT_BIN pointing at the stand-in: progress rows visible through jobs/run_progress while it
// runs, the result at the end; the time from a node event to its row over HTTP. (SIGTERM with a
// job in flight: shutdown.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { describeFixtures } from '../support/fixtures';
import { FAKE_DBT, PG_LOGS, type Scenario } from '../support/runner-world';
import { apiLogin, startApp, type RunningApp } from './server';

const BUILD = path.join(PG_LOGS, 'build');

async function call(app: RunningApp, cookie: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
	const init: RequestInit = { method, headers: { cookie } };
	if (body instanceof FormData) init.body = body;
	else if (body !== undefined) {
		init.body = JSON.stringify(body);
		(init.headers as Record<string, string>)['content-type'] = 'application/json';
	}
	const r = await fetch(`${app.url}${url}`, init);
	const text = await r.text();
	return { status: r.status, body: text ? JSON.parse(text) : null };
}

async function setUp(app: RunningApp, scenarios: Record<string, Scenario>): Promise<string> {
	const cookie = await apiLogin(app.url);
	expect((await call(app, cookie, 'POST', '/api/workspaces', { id: 'acme', name: 'Acme' })).status).toBeLessThan(300);
	expect((await call(app, cookie, 'POST', '/api/w/acme/folders', { name: 'data', readers: [], writers: [] })).status).toBeLessThan(300);
	const wh = await call(app, cookie, 'POST', '/api/w/acme/warehouses', {
		name: 'main',
		default_database: 'postgres',
		settings: { type: 'postgres', host: 'localhost', user: 'dbt', schema: 'public', secrets: { password: 'e2e-secret-password' } }
	});
	expect(wh.status).toBeLessThan(300);
	for (const [name, scenario] of Object.entries(scenarios)) {
		const form = new FormData();
		form.set('path', `f/data/${name}`);
		form.set('manifest', new Blob([readFileSync(path.join(BUILD, 'manifest.json'))]), 'manifest.json');
		const files = new Map([
			['dbt_project.yml', 'name: jaffle_shop\nversion: "1.0.0"\nconfig-version: 2\nprofile: jaffle_shop\n'],
			['fake-dbt.json', JSON.stringify(scenario)]
		]);
		form.set('project', new Blob([tarGz(files) as Uint8Array<ArrayBuffer>]), 'project.tar.gz');
		form.set('pin', 'at_first_run');
		const d = await call(app, cookie, 'POST', '/api/w/acme/scripts/dbt/deploy', form);
		expect(d.status, JSON.stringify(d.body)).toBe(201);
	}
	return cookie;
}

describeFixtures('a dbt job through the built app', () => {
	let app: RunningApp;
	let cookie: string;
	const jobsDir = mkdtempSync(path.join(tmpdir(), 'tributary-e2e-jobs-'));

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_DEMO: '0', DBT_BIN: FAKE_DBT, TRIBUTARY_JOBS_DIR: jobsDir, TRIBUTARY_WORKER_POLL_MS: '100', TRIBUTARY_KEEP_JOB_DIRS: '1' });
		cookie = await setUp(app, {
			build: { speed: 6, commands: { build: { log: path.join(BUILD, 'dbt.log.jsonl') } } },
			latency: { commands: { build: { mode: 'latency', log: path.join(BUILD, 'dbt.log.jsonl'), gapMs: 250 } } }
		});
	}, 120_000);
	afterAll(async () => {
		await app?.stop();
		rmSync(jobsDir, { recursive: true, force: true });
	});

	it('progress while it runs, the settled result at the end', async () => {
		const q = await call(app, cookie, 'POST', '/api/w/acme/jobs/run/p/f/data/build', { command: 'build' });
		expect(q.status, JSON.stringify(q.body)).toBe(201);
		const id = q.body.job_id;
		let whileRunning: { asset_path: string; status: string }[] = [];
		let job: any;
		for (;;) {
			job = (await call(app, cookie, 'GET', `/api/w/acme/jobs/get/${id}`)).body;
			const rows = (await call(app, cookie, 'GET', `/api/w/acme/jobs/run_progress/${id}`)).body;
			if (job.status === 'running' && rows.length > whileRunning.length) whileRunning = rows;
			if (job.status !== 'running' && job.status !== 'queued') break;
			await new Promise((r) => setTimeout(r, 50));
		}
		expect(whileRunning.length).toBeGreaterThan(0);
		expect(job.status).toBe('failure');
		expect(job.result).toMatchObject({ command: 'build', engine: 'dbt-core', totals: { total: 20, success: 19, error: 1, warn: 0, skipped: 0 } });
		const final = (await call(app, cookie, 'GET', `/api/w/acme/jobs/run_progress/${id}`)).body;
		expect(final.filter((r: any) => r.status === 'materialized')).toHaveLength(8);
		expect(final.some((r: any) => r.status === 'running')).toBe(false);
		expect(job.logs).not.toContain('e2e-secret-password');
	}, 60_000);

	it('a node event becomes readable over HTTP within the reader interval', async () => {
		const id = (await call(app, cookie, 'POST', '/api/w/acme/jobs/run/p/f/data/latency', { command: 'build' })).body.job_id;
		const seen = new Map<string, number>();
		for (;;) {
			const rows = (await call(app, cookie, 'GET', `/api/w/acme/jobs/run_progress/${id}`)).body;
			const now = Date.now();
			for (const r of rows) if (!seen.has(`${r.asset_path}|${r.status}`)) seen.set(`${r.asset_path}|${r.status}`, now);
			const job = (await call(app, cookie, 'GET', `/api/w/acme/jobs/get/${id}`)).body;
			if (job.status !== 'running' && job.status !== 'queued') break;
		}
		const log = readFileSync(path.join(jobsDir, id, 'logs', 'build', 'dbt.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
		const ms: number[] = [];
		for (const ev of log) {
			const [, schema, name] = ev.data.node_info.node_relation.relation_name.split('"."').map((x: string) => x.replaceAll('"', ''));
			const at = seen.get(`main/${schema}/${name}|${ev.info.name === 'NodeStart' ? 'running' : 'materialized'}`);
			if (at !== undefined) ms.push(at - Date.parse(ev.info.ts));
		}
		ms.sort((a, b) => a - b);
		process.stdout.write(`[measure] built app over HTTP: event written → row readable, ${ms.length} events: min ${ms[0]} ms, median ${ms[Math.floor(ms.length / 2)]} ms, max ${ms.at(-1)} ms\n`);
		expect(ms.length).toBeGreaterThan(log.length / 2);
		expect(ms[Math.floor(ms.length / 2)]).toBeLessThan(1000);
	}, 60_000);
});
