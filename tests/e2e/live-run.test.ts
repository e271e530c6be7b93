// A run started from the page's API and watched live: the built app's own worker runs the
// stand-in dbt (tests/support/fake-dbt), which replays the demo project's recorded build at its
// recorded pace, and the run page turns a model from running to materialized with its row count.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import { apiLogin, gotoHydrated, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, deployProject, scratchFile, signedInContext } from './support';

const FAKE_DBT = path.resolve('tests/support/fake-dbt/dbt.mjs');

describe('a live run on the run page (chromium, built app, stand-in dbt)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;

	beforeAll(async () => {
		app = await startApp({ DBT_BIN: FAKE_DBT });
		api = new Api(app.url, await apiLogin(app.url));
		const project = await generateProject();
		const log = scratchFile('dbt.log', project.eventLog);
		const manifest = scratchFile('manifest.json', JSON.stringify(project.manifest));
		// Slower than recorded (the build took 9 s): on a loaded machine the page must still open
		// while models are running, and its 2 s poll must catch them at it.
		const scenario = { speed: 0.4, maxGapMs: 1500, commands: { build: { log, manifest }, parse: { manifest } } };
		await deployProject(api, project, 'f/demo/live', { extraFiles: new Map([['fake-dbt.json', JSON.stringify(scenario)]]) });
		browser = await launchBrowser();
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('colours a model running, then materialized with its row count, then shows the result', async () => {
		const ctx = await signedInContext(browser, app.url, api.cookie);
		const page = await ctx.newPage();
		const queued = await api.ok('POST', '/api/w/demo/jobs/run/p/f/demo/live', { command: 'build' });
		await page.goto(`${app.url}/w/demo/run/${queued.job_id}`);
		await page.locator('[data-testid=card]').first().waitFor({ timeout: 60_000 });
		// Some model is seen running on the graph…
		await expect.poll(() => page.locator('.card.st-running').count(), { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
		const running = (await page.locator('.card.st-running').first().getAttribute('data-path'))!;
		await page.screenshot({ path: path.join(screenshotDir, 'live-run-running.png') });
		// …and later built, with rows, without reloading the page.
		const card = page.locator(`[data-testid=card][data-path="${running}"]`);
		await expect.poll(() => card.getAttribute('class'), { timeout: 120_000, interval: 250 }).toMatch(/st-(materialized|passed|failed)/);
		await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toMatch(/success|failure/);
		await expect.poll(() => page.getByTestId('totals').textContent(), { timeout: 30_000 }).toMatch(/\d+ passed, \d+ warned, \d+ failed, \d+ skipped of \d+/);
		expect(await page.locator('.card .status[data-status=materialized]').count()).toBeGreaterThan(0);
		await page.screenshot({ path: path.join(screenshotDir, 'live-run-done.png') });
		// The log is not in the page's data: opening its panel reads it, on the settled run too.
		await gotoHydrated(page, `${app.url}/w/demo/run/${queued.job_id}`);
		const data = await (await ctx.request.get(`${app.url}/w/demo/run/${queued.job_id}/__data.json`)).text();
		expect(data).toContain('hasLog');
		const log = page.locator('pre.log');
		expect(await log.textContent()).toBe('');
		await page.locator('details summary', { hasText: 'Log' }).click();
		await expect.poll(() => log.textContent(), { timeout: 30_000 }).toMatch(/\S/);
		await page.screenshot({ path: path.join(screenshotDir, 'live-run-log.png') });
		await ctx.close();
	}, 300_000);
});
