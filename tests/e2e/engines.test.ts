// Engines as a team and an operator meet them, through the built app:
//   - `npx tributary deploy ./my_project` from a checkout with no dbt: the source alone is
//     uploaded, the deploy job parses it with the pinned engine, and the version goes live;
//   - a worker with no Python: the Run API answers at once, in one sentence, what is missing and
//     how to install it; the project page says the same beside its Run button; a deploy of
//     artifacts still goes live, unpinned, with that sentence as its warning.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import { describeRealDbt } from '../support/real-dbt';
import { apiLogin, gotoHydrated, launchBrowser, startApp, type RunningApp } from './server';
import { Api, signedInContext } from './support';

const run = promisify(execFile);

describeRealDbt('npx tributary deploy <project dir>: the source alone, parsed by the server (built app, real dbt-core)', () => {
	let app: RunningApp;
	let api: Api;
	let dir: string;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		const project = await generateProject({ seed: 11 });
		dir = mkdtempSync(path.join(tmpdir(), 'tributary-cli-source-'));
		for (const [rel, text] of project.projectFiles) {
			mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
			writeFileSync(path.join(dir, rel), text);
		}
	}, 180_000);

	afterAll(async () => {
		await app?.stop();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	it('uploads the project, follows the deploy job to its lock, and the version is live', async () => {
		const t = await api.ok('POST', '/api/w/demo/tokens', { label: 'ci', scopes: ['scripts:write:f/demo/*', 'scripts:read:f/demo/*', 'jobs:read:f/demo/*'] });
		const { stdout, stderr } = await run(process.execPath, ['bin/tributary.js', 'deploy', dir, '--path', 'f/demo/from_source', '--url', app.url, '--token', t.token], {
			env: { PATH: process.env.PATH },
			timeout: 900_000
		});
		expect(stderr).toContain('no manifest.json: uploading the source alone');
		expect(stdout).toMatch(/uploaded f\/demo\/from_source version ([0-9a-f]{16}) in [\d.]+s; deploy job [0-9a-f-]{36} parses it/);
		expect(stderr).toMatch(/\| \$ dbt parse/);
		expect(stdout).toMatch(/pinned: dbt-core 1\.12\.\d+ \+ duckdb [\d.]+, Python 3\.\d+\.\d+; the version is live/);
		const hash = /version ([0-9a-f]{16})/.exec(stdout)![1];
		const version = await api.ok('GET', `/api/w/demo/scripts/dbt/version/${hash}`);
		expect(version).toMatchObject({ live: true, path: 'f/demo/from_source', has_project_files: true });
		const graph = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo&asset_kinds=dbt');
		// The server's parse made the graph: the project's models are on it, from this version.
		const mine = graph.assets.filter((a: { dbt?: { script_path: string; script_hash: string | null } }) => a.dbt?.script_path === 'f/demo/from_source');
		expect(mine.length).toBeGreaterThan(5);
		expect(mine.every((a: { dbt: { script_hash: string } }) => a.dbt.script_hash === hash)).toBe(true);
	}, 1_200_000);
});

describe('a worker with no Python (built app)', () => {
	let app: RunningApp;
	let api: Api;
	let browser: Browser;

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_PYTHON: 'python3-not-installed-here' });
		api = new Api(app.url, await apiLogin(app.url));
		browser = await launchBrowser();
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	const SENTENCE = /^Running dbt needs Python 3\.10 or newer on the worker, and python3-not-installed-here was not found on its PATH: install it \(Debian: `apt-get install python3 python3-venv`\)/;

	it('the Run API answers 503 with one sentence saying what to install, and queues nothing', async () => {
		const before = await api.ok('GET', '/api/w/demo/jobs/list?script_path=f/demo/shop');
		const r = await api.call('POST', '/api/w/demo/jobs/run/p/f/demo/shop', { command: 'build' });
		expect(r.status).toBe(503);
		expect(r.body.error).toMatch(SENTENCE);
		const after = await api.ok('GET', '/api/w/demo/jobs/list?script_path=f/demo/shop');
		expect(JSON.stringify(after)).toBe(JSON.stringify(before));
	});

	it('the project page says it beside the Run button', async () => {
		const ctx = await signedInContext(browser, app.url, api.cookie);
		const page = await ctx.newPage();
		await gotoHydrated(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		await expect.poll(() => page.getByTestId('run-problem').textContent()).toMatch(SENTENCE);
		await ctx.close();
	});

	it('a deploy with project files goes live unpinned, the sentence as its warning', async () => {
		const project = await generateProject({ seed: 12 });
		const form = new FormData();
		form.set('path', 'f/demo/no_python');
		form.set('manifest', new Blob([JSON.stringify(project.manifest)]), 'manifest.json');
		const { projectTarGz } = await import('../../src/lib/server/demo/generator');
		form.set('project', new Blob([new Uint8Array(await projectTarGz(project))]), 'project.tar.gz');
		const d = await api.ok('POST', '/api/w/demo/scripts/dbt/deploy', form);
		expect(d.live).toBe(false);
		let pin: { status: string; result: { warnings: string[]; live: boolean; lock: unknown } };
		for (;;) {
			pin = await api.ok('GET', `/api/w/demo/jobs/get/${d.pin.job_id}?logs=false`);
			if (pin.status !== 'queued' && pin.status !== 'running') break;
			await new Promise((r) => setTimeout(r, 250));
		}
		expect(pin.status).toBe('success');
		expect(pin.result.live).toBe(true);
		expect(pin.result.lock).toBeNull();
		expect(pin.result.warnings.join('\n')).toMatch(/not pinned: Running dbt needs Python 3\.10 or newer/);
		expect((await api.ok('GET', `/api/w/demo/scripts/dbt/version/${d.hash}`)).live).toBe(true);
	});
});
