// The CLI against the built app: the app seeds its demo workspace on first start, and the CLI
// deploys the project's own generated dbt project (a target/ directory on disk) into it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject, writeProjectDir } from '../../src/lib/server/demo/generator';
import { apiLogin, startApp, type RunningApp } from './server';

const run = promisify(execFile);

describe('npx tributary deploy|preview against a running app', () => {
	let app: RunningApp;
	let token: string;
	let dir: string;
	let expectedNodes: number;
	let expectedColumnEdges: number;

	beforeAll(async () => {
		app = await startApp();
		expect(app.output()).toContain('Seeded the demo workspace');
		const cookie = await apiLogin(app.url);
		const t = await fetch(`${app.url}/api/w/demo/tokens`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'ci', scopes: ['scripts:write:f/demo/*'] })
		});
		expect(t.status).toBe(201);
		token = (await t.json()).token;
		const project = await generateProject({ seed: 7 });
		dir = mkdtempSync(path.join(tmpdir(), 'tributary-cli-'));
		await writeProjectDir(project, dir);
		const m = project.manifest as { nodes: Record<string, { resource_type: string }>; sources: object; unit_tests?: object };
		expectedNodes =
			Object.values(m.nodes).filter((n) => n.resource_type !== 'operation').length +
			Object.keys(m.sources).length +
			Object.keys(m.unit_tests ?? {}).length;
		expectedColumnEdges = project.meta.columnEdges.total;
	});

	afterAll(async () => {
		await app?.stop();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	it('deploys a target directory with its index and project files, and prints the counts', async () => {
		const { stdout, stderr } = await run(
			process.execPath,
			['bin/tributary.js', 'deploy', path.join(dir, 'target'), '--path', 'f/demo/from_cli', '--url', app.url, '--token', token],
			{ env: { PATH: process.env.PATH } }
		);
		expect(stdout).toMatch(/deployed f\/demo\/from_cli version [0-9a-f]{16}/);
		expect(stdout).toContain(`nodes ${expectedNodes}`);
		expect(stdout).toContain(`column edges ${expectedColumnEdges}`);
		expect(stderr).toContain('manifest.json');
		expect(stderr).toMatch(/project\s+[\d.]+ MB tar\.gz/);
		expect(stderr).toContain('uploaded');
	});

	it('previews through the same client, reading the URL and token from the environment', async () => {
		const { stdout } = await run(process.execPath, ['bin/tributary.js', 'preview', path.join(dir, 'target'), '--path', 'f/demo/from_cli'], {
			env: { PATH: process.env.PATH, TRIBUTARY_URL: app.url, TRIBUTARY_TOKEN: token }
		});
		expect(stdout).toContain('preview of f/demo/from_cli stored');
		expect(stdout).toMatch(/\/w\/demo\/run\/[0-9a-f-]{36}/);
	});

	it('exits non-zero with the server message when refused', async () => {
		const outside = run(
			process.execPath,
			['bin/tributary.js', 'deploy', path.join(dir, 'target'), '--path', 'f/elsewhere/x', '--url', app.url, '--token', token],
			{ env: { PATH: process.env.PATH } }
		);
		await expect(outside).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/deploy failed \(403\).*scripts:write/) });
		// A folder that is neither a target/ nor a project (a project's folder is deployed as source).
		const neither = path.join(dir, 'models');
		const missing = run(process.execPath, ['bin/tributary.js', 'deploy', neither, '--path', 'f/demo/x', '--url', app.url, '--token', token], {
			env: { PATH: process.env.PATH }
		});
		await expect(missing).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no manifest.json here (is this a dbt target/ directory? or a project directory, with dbt_project.yml') });
	});
});
