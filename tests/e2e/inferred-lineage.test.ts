// Inferred column lineage as a first start shows it, in Debian's Chromium against the built app
// and its demo data: the roastery project was deployed as dbt-core leaves target/ (compiled SQL
// and a catalog, no column index), so its lineage comes from the lineage job the in-process
// worker runs. Its details pane says "inferred from SQL", the trace crosses from the inferred
// dbt edges into the producer that reads it, and a model inference could not analyse says why.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROASTERY_OUTCOMES, roasteryProducers } from '../../src/lib/server/demo/generator';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, openCanvas, shot, signedInContext, watchErrors } from './support';

const ACCOUNTS = 'main/wholesale/account_revenue';
const LAKE = 'main/wholesale_city_revenue';
const pathOf = (uniqueId: string) => `main/wholesale/${uniqueId.split('.').pop()}`;

/** Clicks a relation's card, opening its group first when the card is inside a closed one. */
async function select(page: Page, path: string): Promise<void> {
	const card = page.locator(`[data-testid=card][data-path="${path}"]`);
	await card.click();
	await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path')).toBe(path);
}

describe('inferred column lineage on the demo roastery (chromium, built app)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;
	let admin: BrowserContext;

	beforeAll(async () => {
		// The default per-model budget, as a newcomer runs it: it must not turn a two-line model into
		// "too complex to analyse" on a loaded machine (the budget itself has its own tests).
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		browser = await launchBrowser();
		admin = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it("the start's worker infers the roastery's lineage: the lineage job ends with every model's outcome counted", async () => {
		const jobs = (await api.ok('GET', '/api/w/demo/jobs/list?kind=lineage')) as { id: string; script_path: string }[];
		expect(jobs.map((j) => j.script_path)).toEqual(['f/demo/roastery']);
		let job: { status: string; result: { models?: Record<string, number> } | null; logs: string };
		const deadline = Date.now() + 60_000;
		do {
			job = await api.ok('GET', `/api/w/demo/jobs/get/${jobs[0].id}`);
			if (job.status === 'success' || job.status === 'failure') break;
			await new Promise((r) => setTimeout(r, 200));
		} while (Date.now() < deadline);
		expect(job.status, job.logs).toBe('success');
		expect(job.result?.models).toMatchObject({ partial: 1, failed: 1, skipped: 1 });
		expect(job.result!.models!.analyzed).toBeGreaterThan(5);
	});

	it('a model of the roastery shows "inferred from SQL" on the pane and the trace, and the trace reaches the producer reading it', async () => {
		const page = await admin.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await select(page, ACCOUNTS);
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getByTestId('lineage-provenance').textContent(), { timeout: 30_000 }).toBe('inferred from SQL');
		await expect.poll(() => pane.getByTestId('trace-provenance').textContent(), { timeout: 30_000 }).toBe('inferred from SQL');
		// No outcome notice for an analyzed model: the trace itself is the answer.
		expect(await pane.getByTestId('lineage-outcome').count()).toBe(0);
		expect(await pane.getByTestId('lineage-inferring').count()).toBe(0);

		// Upstream: the staging model and the source the SQL reads; downstream: the producer's lake table.
		const trace = pane.getByTestId('column-trace');
		await expect.poll(() => trace.locator(`.col[data-asset="main/wholesale/stg_wholesale_orders"][data-column="revenue"]`).count()).toBe(1);
		expect(await trace.locator('.col[data-asset="main/roastery_raw/wholesale_orders"][data-column="price_per_bag_cents"]').count()).toBe(1);
		const lake = trace.locator(`.col[data-asset="${LAKE}"][data-column="revenue"]`);
		expect(await lake.count()).toBe(1);
		expect(roasteryProducers[0].content).toContain(`ducklake://${LAKE}`);

		// Tracing the lake column lights the inferred dbt chain behind it, back to the raw source.
		await lake.click();
		await expect.poll(() => lake.getAttribute('aria-pressed')).toBe('true');
		for (const [asset, column] of [
			[ACCOUNTS, 'revenue'],
			['main/wholesale/stg_wholesale_orders', 'revenue'],
			['main/roastery_raw/wholesale_orders', 'bags'],
			['main/roastery_raw/wholesale_orders', 'price_per_bag_cents']
		]) {
			expect(await trace.locator(`.col:not(.dim)[data-asset="${asset}"][data-column="${column}"]`).count(), `${asset}.${column}`).toBe(1);
		}
		expect(await trace.locator(`.col.dim[data-asset="${ACCOUNTS}"][data-column="account_name"]`).count()).toBe(1);
		await shot(page, 'inferred-lineage-trace');
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a model inference could not analyse says why: the parser message with its position; a partial one lists its untraced columns', async () => {
		const page = await admin.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/roastery`);
		const pane = page.getByTestId('details-pane');

		await select(page, pathOf(ROASTERY_OUTCOMES.failed));
		const failed = pane.getByTestId('lineage-outcome');
		await expect.poll(() => failed.getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
		const text = (await failed.textContent()) ?? '';
		expect(text).toContain("This model's compiled SQL could not be analysed.");
		// The parser's message, which names the line and column in the compiled SQL.
		expect(text).toMatch(/line \d+, column \d+/);
		// The outcome says why; the pane never says the model simply has no lineage.
		expect(await pane.getByTestId('trace-empty').count()).toBe(0);
		await shot(page, 'inferred-lineage-failed');

		await select(page, pathOf(ROASTERY_OUTCOMES.partial));
		const partial = pane.getByTestId('lineage-outcome');
		await expect.poll(() => partial.getAttribute('data-state'), { timeout: 30_000 }).toBe('partial');
		expect(await partial.locator('.outcome-text').textContent()).toBe('2 columns could not be traced.');
		const untraced = await pane.getByTestId('lineage-untraced').locator('li').allTextContents();
		expect(untraced.map((t) => t.split(':')[0]).sort()).toEqual(['rate_date', 'revenue_eur']);
		for (const t of untraced) expect(t).toContain('demo.finance.fx_rates');
		// What could be traced is drawn, inferred.
		await expect.poll(() => pane.getByTestId('trace-provenance').textContent()).toBe('inferred from SQL');
		expect(await pane.locator(`.col[data-asset="${pathOf(ROASTERY_OUTCOMES.partial)}"][data-column="account_name"]`).count()).toBe(1);
		await shot(page, 'inferred-lineage-partial');

		// The shop's lineage is dbt's own index: no "inferred" label there.
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		await select(page, 'main/analytics/orders');
		await expect.poll(() => pane.locator('.col').count(), { timeout: 30_000 }).toBeGreaterThan(5);
		expect(await pane.getByTestId('lineage-provenance').count()).toBe(0);
		expect(await pane.getByTestId('trace-provenance').count()).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	});
});

describe('before any worker has run the lineage job (chromium, built app without its worker)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;

	beforeAll(async () => {
		// A deployment whose workers run elsewhere and have not claimed the job yet.
		app = await startApp({ TRIBUTARY_WORKER: '0' });
		api = new Api(app.url, await apiLogin(app.url));
		browser = await launchBrowser();
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('the pane says "inferring column lineage…" (waiting for a worker), never that there is no lineage, and keeps asking', async () => {
		const ctx = await signedInContext(browser, app.url, api.cookie);
		const page = await ctx.newPage();
		const errors = watchErrors(page);
		let reads = 0;
		page.on('request', (r) => {
			if (new URL(r.url()).pathname === '/w/demo/relation') reads++;
		});
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/roastery`);
		await select(page, ACCOUNTS);
		const pane = page.getByTestId('details-pane');
		const inferring = pane.getByTestId('lineage-inferring');
		await expect.poll(() => inferring.textContent(), { timeout: 30_000 }).toContain('Inferring column lineage…');
		expect(await inferring.textContent()).toMatch(/waiting for a worker · \d+ models to infer/);
		expect(await pane.getByTestId('lineage-provenance').textContent()).toBe('inferred from SQL');
		expect(await pane.getByTestId('trace-empty').count()).toBe(0);
		expect(await pane.getByTestId('lineage-outcome').count()).toBe(0);
		// It follows the job: the description is read again while the job waits.
		await expect.poll(() => reads, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
		await shot(page, 'inferred-lineage-waiting');
		expect(errors).toEqual([]);
		await ctx.close();
	});
});
