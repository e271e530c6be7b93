// The pages as a user meets them, in Debian's Chromium against the built app and its demo data:
// the pipeline canvas, a relation's details and column trace (and its loading state), a lake
// table's trace crossing into dbt, the selector search, a recorded run's page with its result
// table and share links, the same run opened through a public link with no session, and the
// project page. Every journey leaves a screenshot in test-results/screenshots.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { demoProducers, generateProject, roasteryProducers } from '../../src/lib/server/demo/generator';
import { Api, deployProducers, deployProject, openCanvas, seededRuns, shot, signedInContext, totalsLine, watchErrors } from './support';
import { canRunRealDbt } from '../support/real-dbt';

// Authored text of the demo project: a share-link viewer's page must contain none of it.
const AUTHORED = ["ref('stg_orders')", 'Orders with their item count', 'Customers with their order history', 'Primary key of the order'];

describe('pages (chromium, built app, demo workspace)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;
	let member: BrowserContext;
	let runs: Awaited<ReturnType<typeof seededRuns>>;
	/** The seeded failed run: the run page journeys open it. */
	let runId: string;
	let failedTotals: string;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		await deployProducers(api);
		runs = await seededRuns(api);
		runId = runs.failed;
		failedTotals = totalsLine(await generateProject({ seed: 2, failures: true }));
		browser = await launchBrowser();
		member = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('the workspace home links each folder to its pipeline and lists recent runs', async () => {
		const page = await member.newPage();
		await page.goto(`${app.url}/w/demo`);
		await expect.poll(() => page.locator('a[href="/w/demo/pipeline/demo"]').count()).toBe(1);
		await expect.poll(() => page.locator(`[data-testid=recent-runs] a[href="/w/demo/run/${runId}"]`).count()).toBe(1);
		await shot(page, 'home');
		await page.close();
	});

	it('the workspace home lists the seeded runs and the preview under Recent runs, with kind and status', async () => {
		const page = await member.newPage();
		await page.goto(`${app.url}/w/demo`);
		const row = (id: string) => page.locator('[data-testid=recent-runs] tr', { has: page.locator(`a[href="/w/demo/run/${id}"]`) });
		for (const [id, kind, status] of [
			[runs.succeeded, 'recorded', 'success'],
			[runs.failed, 'recorded', 'failure'],
			[runs.preview, 'preview', 'success']
		]) {
			await expect.poll(() => row(id).count()).toBe(1);
			const cells = await row(id).locator('td').allTextContents();
			// The run is named by what it did (a recorded build, a preview) and when; then its project and status.
			expect(cells[0], id).toMatch(kind === 'recorded' ? /^recorded build · / : /^preview · /);
			expect(cells.slice(1, 3), id).toEqual(['f/demo/shop', status]);
			expect(await row(id).locator(`.status.${status}`).count()).toBe(1);
		}
		await row(runs.preview).scrollIntoViewIfNeeded();
		await shot(page, 'home-recent-runs');
		await page.close();
	});

	it('browses the demo pipeline, selects a model, reads its columns, tests, SQL and trace, and traces a column', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		// The demo opens framed on a readable region; "Fit all" shows every card.
		await page.getByTestId('fit-all').click();
		// Producers before the lake tables they write, dbt relations, all as cards.
		await expect.poll(() => page.locator('[data-testid=card][data-path="main/daily_revenue"]').count()).toBe(1);
		await expect.poll(() => page.locator('.svelte-flow__node-runnable').count()).toBe(demoProducers.length + roasteryProducers.length);
		await shot(page, 'pipeline-demo');

		await page.locator('[data-testid=card][data-path="main/analytics/orders"]').click();
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getByTestId('relation-header').textContent()).toContain('models/marts/orders.sql');
		// Analyzed columns: typed, with the author's descriptions.
		const cols = pane.getByTestId('columns');
		await expect.poll(() => cols.textContent()).toMatch(/amount\s*DOUBLE\s*Order total including tax/);
		await expect.poll(() => pane.locator('h3', { hasText: /^columns$/ }).count()).toBe(1);
		// Tests as badges, warn apart from error.
		await expect.poll(() => pane.getByTestId('tests').locator('.badge.error').count()).toBeGreaterThan(0);
		await expect.poll(() => pane.getByTestId('tests').locator('.badge.warn').count()).toBeGreaterThan(0);
		await expect.poll(() => pane.getByTestId('sql').textContent()).toContain("ref('stg_orders')");
		await expect.poll(() => pane.getByTestId('trace-section').getAttribute('data-trace-state')).toBe('ready');
		const own = pane.locator('.col.own');
		expect(await own.count()).toBeGreaterThan(5);

		// Trace one column: its lineage stays, the rest dims.
		const amount = pane.locator('.col[data-asset="main/analytics/orders"][data-column="amount"]');
		await amount.click();
		await expect.poll(() => amount.getAttribute('class')).toMatch(/traced/);
		const dimmed = await pane.locator('.col.dim').count();
		const total = await pane.locator('.col').count();
		expect(dimmed).toBeGreaterThan(0);
		expect(dimmed).toBeLessThan(total);
		// Upstream of amount: the staging column it is computed from stays lit.
		expect(await pane.locator('.col:not(.dim)[data-asset="main/analytics/stg_orders"]').count()).toBeGreaterThan(0);
		// The canvas keeps the selection's lineage lit and dims the rest, by generated CSS (a
		// constructed style sheet: the page's CSP admits no inline <style>).
		expect(await page.evaluate(`document.adoptedStyleSheets.filter((s) => [...s.cssRules].some((r) => r.style?.opacity === '0.22')).length`)).toBe(1);
		await shot(page, 'trace-column');
		await pane.getByRole('button', { name: 'Clear trace' }).click();
		await expect.poll(() => pane.locator('.col.dim').count()).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	});

	it('shows "Loading column lineage" while the lineage is held back, never the empty state', async () => {
		const page = await member.newPage();
		let release!: () => void;
		const held = new Promise<void>((r) => (release = r));
		await page.route('**/api/w/demo/assets/column_lineage**', async (route) => {
			await held;
			await route.continue();
		});
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await page.getByTestId('fit-all').click();
		await page.locator('[data-testid=card][data-path="main/analytics/customers"]').click();
		const section = page.getByTestId('trace-section');
		await expect.poll(() => section.getAttribute('data-trace-state')).toBe('loading');
		await expect.poll(() => page.getByTestId('trace-loading').textContent()).toContain('Loading column lineage');
		// Held for a while: still loading, not "no lineage".
		const states = new Set<string | null>();
		for (let i = 0; i < 10; i++) {
			states.add(await section.getAttribute('data-trace-state'));
			await page.waitForTimeout(100);
		}
		expect([...states]).toEqual(['loading']);
		await shot(page, 'trace-loading');
		release();
		await expect.poll(() => section.getAttribute('data-trace-state')).toBe('ready');
		await page.close();
	});

	it('a lake table: its producer, and a trace that crosses into the dbt relations it derives from', async () => {
		const page = await member.newPage();
		const asked: string[] = [];
		page.on('request', (r) => r.url().includes('/assets/column_lineage') && asked.push(new URL(r.url()).searchParams.get('asset_path')!));
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await page.getByTestId('fit-all').click();
		await page.locator('[data-testid=card][data-path="main/daily_revenue"]').click();
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.textContent()).toContain('f/demo/producers/daily_revenue');
		await expect.poll(() => pane.getByTestId('trace-section').getAttribute('data-trace-state')).toBe('ready');
		// Both dbt relations the producer reads were asked for, not only the first.
		await expect.poll(() => [...new Set(asked)].sort()).toEqual(['main/analytics/orders', 'main/analytics/stores']);
		// dbt's own lineage joined on: columns upstream of the relations the producer reads.
		await expect.poll(() => pane.locator('.col[data-asset="main/analytics/stg_orders"]').count()).toBeGreaterThan(0);
		await pane.locator('.col[data-asset="main/daily_revenue"][data-column="revenue"]').click();
		expect(await pane.locator('.col:not(.dim)[data-asset="main/analytics/orders"][data-column="amount"]').count()).toBe(1);
		await shot(page, 'trace-lake-table');
		await page.close();
	});

	it('the search box: a name centres the relation, a dbt selector highlights a set', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		const box = page.getByRole('searchbox', { name: /search relations/i });
		await box.fill('+orders');
		await expect.poll(() => page.getByTestId('search-status').textContent()).toMatch(/^\s*\d+ selected/);
		const selected = Number((await page.getByTestId('search-status').textContent())!.trim().split(' ')[0]);
		expect(selected).toBeGreaterThan(3);
		await box.press('Enter');
		await shot(page, 'search-selector');
		await box.fill('tag:nothing_like_this');
		await expect.poll(() => page.getByTestId('search-status').textContent()).toContain('no match');
		await box.fill('stg_payments');
		await box.press('Enter');
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path')).toBe('main/analytics/stg_payments');
		await page.close();
	});

	it('a recorded run: statuses on the graph, the result table failed first, resume and share', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${runId}`);
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');
		await expect.poll(() => page.getByTestId('totals').textContent()).toBe(failedTotals);
		const first = page.locator('[data-testid=results] tbody tr').first();
		expect(await first.getAttribute('data-outcome')).toBe('failed');
		await expect.poll(() => page.locator('[data-testid=results] tr.msg').first().textContent()).toMatch(/Error/);
		// Coloured on the canvas: a failed model in red, built ones with their row counts.
		await expect.poll(() => page.locator('.card.st-failed').count()).toBeGreaterThan(0);
		await expect.poll(() => page.locator('.card .status[data-status=materialized]').count()).toBeGreaterThan(0);
		await shot(page, 'run-page');

		// A recorded run ran elsewhere: there is nothing here to resume (dbt retry needs this
		// server's run of it). Where the project can run here, "Run it here" queues a build of it
		// (answered here: the runner is not under test).
		expect(await page.getByRole('button', { name: 'Resume this run' }).count()).toBe(0);
		if (canRunRealDbt) {
			let posted: unknown = null;
			await page.route('**/api/w/demo/jobs/run/p/f/demo/shop', async (route) => {
				posted = route.request().postDataJSON();
				await route.fulfill({ status: 201, contentType: 'application/json', body: JSON.stringify({ job_id: runId, url: `/w/demo/run/${runId}` }) });
			});
			await page.getByRole('button', { name: 'Run it here' }).click();
			await expect.poll(() => posted).toEqual({ command: 'build' });
		} else {
			expect(await page.getByTestId('run-offer').count()).toBe(0);
		}

		await page.getByRole('button', { name: 'Share…' }).click();
		const dialog = page.getByRole('dialog', { name: 'Share this run' });
		await dialog.getByRole('button', { name: 'Create link' }).click();
		await expect.poll(() => dialog.getByTestId('share-member').inputValue()).toContain('view_token=');
		await dialog.getByLabel('Anyone with the link').check();
		await dialog.getByRole('button', { name: 'Create link' }).click();
		await expect.poll(() => dialog.getByTestId('share-public').inputValue()).toContain(`/w/demo/run/${runId}?view_token=`);
		await dialog.getByRole('button', { name: 'Close' }).click();
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a public link opens the run read-only without a session, with nothing the author wrote anywhere in the DOM', async () => {
		const link = await api.ok('GET', `/api/w/demo/jobs/share/${runId}?kind=public`);
		const stranger = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await stranger.newPage();
		const errors = watchErrors(page);
		const lineageAsked: string[] = [];
		page.on('request', (r) => /column_lineage/.test(r.url()) && lineageAsked.push(r.url()));
		await openCanvas(page, `${app.url}${link.url}`);
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');
		await expect.poll(() => page.getByTestId('totals').textContent()).toBe(failedTotals);
		await expect.poll(() => page.locator('.card.st-failed').count()).toBeGreaterThan(0);
		await expect.poll(() => page.getByTestId('restricted-run').textContent()).toContain('share link');
		// No way to act on the run from a link.
		expect(await page.getByRole('button', { name: /Resume|Share/ }).count()).toBe(0);

		await page.locator('[data-testid=card][data-path="main/analytics/orders"]').click();
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getByTestId('restricted').textContent()).toMatch(/share link/);
		await page.waitForTimeout(500);
		const html = await page.content();
		for (const text of AUTHORED) expect(html, text).not.toContain(text);
		expect(await page.locator('[data-testid=columns], [data-testid=sql], [data-testid=column-trace], [data-testid=trace-section]').count()).toBe(0);
		expect(lineageAsked).toEqual([]);
		await shot(page, 'run-public-link');
		expect(errors).toEqual([]);
		await stranger.close();
	});

	it('settings: an admin adds a member, a group, a folder grant and a warehouse; mints and revokes a token', async () => {
		const page = await member.newPage();
		await page.goto(`${app.url}/w/demo/settings`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		await page.locator('#member-username').fill('dana');
		await page.locator('#member-password').fill('dana-password-1');
		await page.getByRole('button', { name: 'Add member' }).click();
		await expect.poll(() => page.locator('section[aria-labelledby=members-h]').textContent()).toContain('dana');
		await page.locator('#group-name').fill('analysts');
		await page.locator('#group-members').fill('dana');
		await page.getByRole('button', { name: 'Save group' }).click();
		await expect.poll(() => page.locator('section[aria-labelledby=groups-h] td', { hasText: 'analysts' }).count()).toBeGreaterThan(0);
		// A new folder's readers are checkboxes, one per member and group.
		await page.getByText('New folder', { exact: true }).click();
		await page.locator('#folder-new-name').fill('sales');
		await page.getByLabel('group analysts reads the new folder').check();
		await page.getByRole('button', { name: 'Create folder' }).click();
		await expect.poll(() => page.locator('tr', { hasText: 'f/sales' }).first().textContent()).toContain('g/analysts');
		await page.getByText('Create or replace one as JSON').click();
		await page.locator('#whj-name').fill('lake');
		await page.locator('#whj-settings').fill('{"type": "duckdb", "secrets": {"password": "hunter2"}}');
		await page.locator('form[action="?/saveWarehouseJson"]').getByRole('button', { name: 'Save warehouse' }).click();
		await expect.poll(() => page.locator('section[aria-labelledby=warehouses-h] summary', { hasText: 'lake' }).first().textContent()).toContain('1 secret');
		expect(await page.content()).not.toContain('hunter2');
		// A refusal is said at the form, not thrown away.
		await page.locator('#group-name').fill('ghosts');
		await page.locator('#group-members').fill('nobody_here');
		await page.getByRole('button', { name: 'Save group' }).click();
		await expect.poll(() => page.locator('section[aria-labelledby=groups-h] [role=alert]').first().textContent()).toMatch(/nobody_here/);

		await page.locator('#token-label').fill('ci');
		await page.getByRole('button', { name: 'Create token' }).click();
		await expect.poll(() => page.getByText('Copy it now').count()).toBe(1);
		const own = page.locator('section', { has: page.locator('form[action="?/mintToken"]') });
		await own.locator('tr', { hasText: 'ci' }).getByRole('button', { name: /Revoke/ }).click();
		await expect.poll(() => own.locator('tbody tr', { hasText: 'ci' }).count()).toBe(0);
		await shot(page, 'settings');
		await page.close();
	});

	it('the project page: versions, the model graph, runs, and the run form', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		// The demo's earlier version and its current one.
		await expect.poll(() => page.getByTestId('versions').locator('tbody tr').count()).toBe(2);
		await expect.poll(() => page.getByTestId('runs').textContent()).toContain(runId.slice(0, 8));
		expect(await page.getByRole('button', { name: 'Run' }).isEnabled()).toBe(true);
		await page.locator('[data-testid=card][data-path="main/analytics/customers"]').click();
		await expect.poll(() => page.getByTestId('details-pane').getByTestId('columns').textContent()).toContain('customer_type');
		await shot(page, 'project-page');
		await page.close();
	});

	it('a version deployed from artifacts only says so, and cannot be run', async () => {
		await deployProject(api, await generateProject({ seed: 3 }), 'f/demo/artifacts_only', { withProject: false });
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/artifacts_only`);
		await expect.poll(() => page.getByTestId('artifacts-only').textContent()).toContain('Deployed from artifacts only');
		expect(await page.getByRole('button', { name: 'Run' }).isDisabled()).toBe(true);
		await page.close();
	});
});
