// A recorded run of the demo project, through the CLI (`bin/record.js`, what `npx tributary
// record` runs) against the BUILT app, read back through the run page's API: jobs/get,
// jobs/run_progress, jobs/dbt_graph and jobs/dbt_column_lineage.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject, writeProjectDir, type GeneratedProject } from '../../src/lib/server/demo/generator';
import { apiLogin, startApp, type RunningApp } from './server';

const run = promisify(execFile);

describe('npx tributary record: a CI run of the demo project', () => {
	let app: RunningApp;
	let cookie: string;
	let token: string;
	let dir: string;
	let project: GeneratedProject;

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_WORKER: '0' });
		expect(app.output()).toContain('Seeded the demo workspace');
		cookie = await apiLogin(app.url);
		const t = await fetch(`${app.url}/api/w/demo/tokens`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'ci', scopes: ['jobs:run:f/demo/*'] })
		});
		expect(t.status).toBe(201);
		token = (await t.json()).token;
		// The seeded project itself, as a CI checkout leaves it after `dbt build`.
		project = await generateProject();
		dir = mkdtempSync(path.join(tmpdir(), 'tributary-record-'));
		await writeProjectDir(project, dir);
	}, 120_000);
	afterAll(async () => {
		await app?.stop();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	const get = async (url: string) => {
		const r = await fetch(`${app.url}${url}`, { headers: { cookie } });
		expect(r.status, url).toBe(200);
		return r.json();
	};

	it('uploads run_results, manifest and the JSON log, and the run page API shows the run', async () => {
		const { stdout, stderr } = await run(
			process.execPath,
			['bin/record.js', path.join(dir, 'target'), '--path', 'f/demo/shop', '--url', app.url, '--token', token],
			{ env: { PATH: process.env.PATH } }
		);
		expect(stderr).toContain('run_results.json');
		expect(stderr).toContain('logs/dbt.log');
		expect(stdout).toMatch(/^recorded run of f\/demo\/shop: (success|failure)/);
		expect(stdout).toContain("its graph is its version's");
		const id = /job ([0-9a-f-]{36})/.exec(stdout)![1];

		const results = (project.runResults as { results: { unique_id: string; status: string; relation_name?: string | null }[] }).results;
		const job = await get(`/api/w/demo/jobs/get/${id}`);
		expect(job).toMatchObject({ kind: 'recorded', script_path: 'f/demo/shop', created_by: 'admin' });
		expect(job.result.totals.total).toBe(results.length);
		expect(job.logs).toContain('── the recorded log ──');

		const nodes = (project.manifest as { nodes: Record<string, { relation_name?: string | null }> }).nodes;
		const built = results.filter((x) => (x.relation_name || nodes[x.unique_id]?.relation_name) && ['success', 'error'].includes(x.status));
		const progress = await get(`/api/w/demo/jobs/run_progress/${id}`);
		expect(progress).toHaveLength(built.length);
		expect(progress.some((p: { status: string }) => p.status === 'running')).toBe(false);

		const graph = await get(`/api/w/demo/jobs/dbt_graph/${id}`);
		const paths = new Set(graph.assets.map((a: { path: string }) => a.path));
		for (const p of progress) expect(paths).toContain(p.asset_path);
		const pick = project.meta.components[0];
		const lineage = await get(`/api/w/demo/jobs/dbt_column_lineage/${id}?asset_path=${encodeURIComponent(pick.assetPath)}`);
		expect(lineage.edges.length).toBeGreaterThan(0);
	});

	it('refuses a token without jobs:run, with the server\'s message', async () => {
		const t = await fetch(`${app.url}/api/w/demo/tokens`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'read-only', scopes: ['jobs:read'] })
		});
		const readOnly = (await t.json()).token;
		const r = await run(process.execPath, ['bin/record.js', path.join(dir, 'target'), '--path', 'f/demo/shop', '--url', app.url, '--token', readOnly], {
			env: { PATH: process.env.PATH }
		}).catch((e) => e);
		expect(r.code).toBe(1);
		expect(r.stderr).toMatch(/record failed \(403\): this token lacks the scope jobs:run:f\/demo\/shop/);
	});
});
