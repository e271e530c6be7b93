// The newcomer presses Run on the demo project and watches real dbt-core build it live: the built
// app with its own worker, no DBT_BIN, the demo's embedded DuckDB warehouse, the engine the first
// run provisions (from the suite's shared engine cache when .ci/run filled it). The run page
// colours models while dbt builds them, and ends with what dbt itself reported: one
// relationships test fails, one accepted_values test warns, what depends on the failure is skipped.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRealDbt } from '../support/real-dbt';
import { apiLogin, gotoHydrated, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, signedInContext } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');

describeRealDbt('the demo project runs for real (chromium, built app, real dbt-core)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		browser = await launchBrowser();
		mkdirSync(screenshotDir, { recursive: true });
		mkdirSync(DOCS_SHOTS, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('Run on the project page: models turn running, then built, on the run page while dbt works', async () => {
		const ctx = await signedInContext(browser, app.url, api.cookie);
		const page = await ctx.newPage();
		await page.setViewportSize({ width: 1440, height: 900 });
		await gotoHydrated(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		await expect.poll(() => page.getByTestId('engine-lock').textContent()).toMatch(/first run installs and pins|pinned/);
		await page.getByRole('button', { name: 'Run', exact: true }).click();
		await page.waitForURL(/\/w\/demo\/run\/[0-9a-f-]{36}/, { timeout: 60_000 });
		const id = new URL(page.url()).pathname.split('/').at(-1)!;
		await page.locator('[data-testid=card]').first().waitFor({ timeout: 120_000 });
		// Provisioning (a cache hit in CI), the sandbox and dbt's start take a while; then models run.
		await expect.poll(() => page.locator('.card.st-running').count(), { timeout: 600_000, interval: 250 }).toBeGreaterThan(0);
		await page.screenshot({ path: path.join(DOCS_SHOTS, 'demo-real-run-live.png') });
		await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 600_000, interval: 500 }).toMatch(/success|failure/);
		const job = await api.ok('GET', `/api/w/demo/jobs/get/${id}`);
		expect(job.status, job.logs).toBe('failure');
		expect(job.logs).toMatch(/engine: dbt-core 1\.12\.\d+/);
		expect(job.logs).toMatch(/pinned this version to dbt-core 1\.12\.\d+ \+ duckdb/);
		const nodes = job.result.nodes as { unique_id: string; status: string }[];
		expect(nodes.filter((n) => n.status === 'fail').map((n) => n.unique_id)).toEqual([expect.stringMatching(/relationships_stg_orders_customer_id/)]);
		expect(nodes.filter((n) => n.status === 'warn').map((n) => n.unique_id)).toEqual([expect.stringMatching(/accepted_values_stg_payments_payment_method/)]);
		expect(nodes.filter((n) => n.unique_id.startsWith('model.') && n.status === 'success').length).toBeGreaterThan(5);
		expect(await page.locator('.card.st-materialized').count()).toBeGreaterThan(0);
		await page.screenshot({ path: path.join(DOCS_SHOTS, 'demo-real-run-done.png') });
		// The version is pinned by that first run: the project page says to what.
		await gotoHydrated(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		await expect.poll(() => page.getByTestId('engine-lock').textContent()).toMatch(/dbt-core 1\.12\.\d+\s+\+\s+duckdb/);
		await ctx.close();
	}, 1_200_000);
});
