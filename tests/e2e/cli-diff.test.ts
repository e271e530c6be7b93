// `npx tributary preview … --fail-on … --format …` against the built app and its demo data: the
// preview's lineage diff against the newest deployed version, the exit status CI gates on, the
// pull-request comment, and the usage error for an unknown level. The targets are the demo
// generator's changed project, and a copy of it that also drops a column a producer reads.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject, writeProjectDir } from '../../src/lib/server/demo/generator';
import { indexRows, writeColumns, writeLineage } from '../support/index-parquet';
import { apiLogin, startApp, type RunningApp } from './server';

const run = promisify(execFile);

describe('npx tributary preview --fail-on / --format (built app, demo workspace)', () => {
	let app: RunningApp;
	let token: string;
	let changed: string;
	let breaking: string;
	const dirs: string[] = [];

	const cli = (target: string, ...args: string[]) =>
		run(process.execPath, ['bin/tributary.js', 'preview', path.join(target, 'target'), '--path', 'f/demo/shop', '--no-project', ...args], {
			env: { PATH: process.env.PATH, TRIBUTARY_URL: app.url, TRIBUTARY_TOKEN: token }
		});

	beforeAll(async () => {
		app = await startApp();
		const cookie = await apiLogin(app.url);
		const t = await fetch(`${app.url}/api/w/demo/tokens`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'ci', scopes: ['scripts:write:f/demo/*', 'scripts:read:f/demo/*', 'assets:read', 'jobs:read'] })
		});
		expect(t.status).toBe(201);
		token = (await t.json()).token;
		const project = await generateProject({ change: true });
		changed = mkdtempSync(path.join(tmpdir(), 'tributary-cli-diff-'));
		breaking = mkdtempSync(path.join(tmpdir(), 'tributary-cli-diff-'));
		dirs.push(changed, breaking);
		await writeProjectDir(project, changed);
		await writeProjectDir(project, breaking);
		// The same change, and `orders.amount` dropped: the demo producer daily_revenue reads it.
		const orders = 'model.coffee_shop.orders';
		const manifest = structuredClone(project.manifest) as { nodes: Record<string, { columns: Record<string, unknown> }> };
		delete manifest.nodes[orders].columns.amount;
		writeFileSync(path.join(breaking, 'target/manifest.json'), JSON.stringify(manifest));
		const cols = (await indexRows(project.nodeColumnsParquet)).filter((r) => !(r.unique_id === orders && r.column_name === 'amount'));
		const lineage = (await indexRows(project.columnLineageParquet)).filter(
			(r) => !(r.from_node_unique_id === orders && r.from_column_name === 'amount') && !(r.to_node_unique_id === orders && r.to_column_name === 'amount')
		);
		writeFileSync(path.join(breaking, 'target/index/dbt.node_columns.parquet'), writeColumns(cols));
		writeFileSync(path.join(breaking, 'target/index/dbt.column_lineage.parquet'), writeLineage(lineage));
	}, 180_000);

	afterAll(async () => {
		await app?.stop();
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});

	it('prints the diff summary and exits 0 when nothing reaches the --fail-on level', async () => {
		const { stdout } = await cli(changed, '--fail-on', 'breaking');
		expect(stdout).toContain('preview of f/demo/shop stored');
		expect(stdout).toMatch(/diff against latest \(version [0-9a-f]{16}\): non-breaking/);
		expect(stdout).toContain('models: 1 added, 0 removed, 1 modified');
		expect(stdout).toContain('+ model.coffee_shop.store_daily_revenue');
		expect(stdout).toContain('~ main/analytics/stores.revenue DOUBLE -> DECIMAL(18,2): read by nothing');
	});

	it('exits 1 when the preview has a breaking change, naming its readers', async () => {
		const refused = cli(breaking, '--fail-on', 'breaking');
		await expect(refused).rejects.toMatchObject({
			code: 1,
			stdout: expect.stringMatching(/- main\/analytics\/orders\.amount: read by \d+ columns and producer f\/demo\/producers\/daily_revenue/),
			stderr: expect.stringContaining('the preview has a breaking change (--fail-on breaking)')
		});
		// The same preview without a level never fails.
		const { stdout } = await cli(breaking);
		expect(stdout).toMatch(/: breaking\n/);
	});

	it('--format markdown prints a pull-request comment with tables and a link to the preview page', async () => {
		const { stdout } = await cli(breaking, '--format', 'markdown', '--fail-on', 'never');
		expect(stdout).toContain('### 🔴 Lineage diff of `f/demo/shop`: breaking');
		expect(stdout).toMatch(new RegExp(`\\[Open the preview\\]\\(${app.url.replace(/[.]/g, '\\.')}/w/demo/run/[0-9a-f-]{36}\\)`));
		expect(stdout).toContain('| model | change | classification | why |');
		expect(stdout).toContain('| `model.coffee_shop.store_daily_revenue` | added | | |');
		expect(stdout).toMatch(/\| `model\.coffee_shop\.orders` \| columns \| breaking \| this change removes `orders\.amount`/);
		expect(stdout).toMatch(/\| `main\/analytics\/orders\.amount` \| removed \| \d+ columns and producer f\/demo\/producers\/daily_revenue/);
		// Markdown only: the upload's counts are not in the comment.
		expect(stdout).not.toContain('typed nodes');
	});

	it('a token without scripts:read gets the shape only, and says so', async () => {
		const cookie = await apiLogin(app.url);
		const t = await fetch(`${app.url}/api/w/demo/tokens`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'ci-shape', scopes: ['scripts:write:f/demo/*', 'assets:read', 'jobs:read'] })
		});
		const shapeToken = (await t.json()).token as string;
		const refused = run(process.execPath, ['bin/tributary.js', 'preview', path.join(breaking, 'target'), '--path', 'f/demo/shop', '--no-project', '--fail-on', 'breaking'], {
			env: { PATH: process.env.PATH, TRIBUTARY_URL: app.url, TRIBUTARY_TOKEN: shapeToken }
		});
		// The classification still gates; what it is about is withheld.
		await expect(refused).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('shape only: columns and reasons are left out') });
	});

	it('an unknown --fail-on level exits 2 with the usage, before uploading anything', async () => {
		const bad = cli(changed, '--fail-on', 'catastrophic');
		await expect(bad).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--fail-on: unknown level "catastrophic"[\s\S]*usage: tributary/) });
		const badFormat = cli(changed, '--format', 'html');
		await expect(badFormat).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--format: unknown format "html"') });
	});
});
