// Reviewing a change, in Debian's Chromium against the built app and its demo data: the seeded
// preview's run page lists what it changes against the newest deployed version, colours the
// canvas, and opens a breaking change's readers in one click; the project page compares two
// refs picked. Expectations come from the API's own diff of the same refs, which
// tests/api/graph-diff.test.ts checks against real fixtures. Screenshots in test-results/screenshots.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import type { GraphDiff } from '../../src/lib/types/graph-diff';
import { indexRows, writeColumns, writeLineage } from '../support/index-parquet';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, deployProducers, openCanvas, seededRuns, shot, signedInContext, watchErrors } from './support';

describe('review a change (chromium, built app, demo workspace)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;
	let member: BrowserContext;
	let preview: string;
	let diff: GraphDiff;
	/** A preview of the demo's change that also drops `orders.amount`, which a producer reads. */
	let breakingPreview: string;
	let breakingDiff: GraphDiff;

	async function uploadBreakingPreview(): Promise<string> {
		const project = await generateProject({ change: true });
		const orders = 'model.coffee_shop.orders';
		const manifest = structuredClone(project.manifest) as { nodes: Record<string, { columns: Record<string, unknown> }> };
		delete manifest.nodes[orders].columns.amount;
		const columns = (await indexRows(project.nodeColumnsParquet)).filter((r) => !(r.unique_id === orders && r.column_name === 'amount'));
		const lineage = (await indexRows(project.columnLineageParquet)).filter(
			(r) => !(r.from_node_unique_id === orders && r.from_column_name === 'amount') && !(r.to_node_unique_id === orders && r.to_column_name === 'amount')
		);
		const form = new FormData();
		form.set('path', 'f/demo/shop');
		form.set('descriptor', 'profile:\n  warehouse: main\ncolumn_lineage: true\n');
		form.set('manifest', new Blob([JSON.stringify(manifest)]), 'manifest.json');
		form.set('column_lineage', new Blob([writeLineage(lineage) as Uint8Array<ArrayBuffer>]), 'dbt.column_lineage.parquet');
		form.set('node_columns', new Blob([writeColumns(columns) as Uint8Array<ArrayBuffer>]), 'dbt.node_columns.parquet');
		return (await api.ok('POST', '/api/w/demo/scripts/dbt/preview', form)).job_id;
	}

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		await deployProducers(api);
		preview = (await seededRuns(api)).preview;
		diff = await api.ok('GET', `/api/w/demo/dbt/diff?path=f/demo/shop&to=${preview}`);
		breakingPreview = await uploadBreakingPreview();
		breakingDiff = await api.ok('GET', `/api/w/demo/dbt/diff?path=f/demo/shop&to=${breakingPreview}`);
		browser = await launchBrowser();
		member = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it("the seed's preview adds a model and retypes a column nothing reads; the second one drops a column a producer reads", () => {
		expect(diff.models.added).toEqual(['model.coffee_shop.store_daily_revenue']);
		expect(diff.columns!.retyped.map((c) => `${c.asset_path}.${c.column}`)).toEqual(['main/analytics/stores.revenue']);
		expect(diff.classification).toBe('non_breaking');
		const amount = breakingDiff.columns!.removed.find((c) => c.asset_path === 'main/analytics/orders' && c.column === 'amount')!;
		expect(amount.impact!.some((i) => i.via.includes('f/demo/producers/daily_revenue'))).toBe(true);
		expect(breakingDiff.classification).toBe('breaking');
	});

	it("a preview's run page lists its changes grouped and colours the canvas with a legend", async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${preview}`);
		const panel = page.locator('[data-testid=diff-panel]');
		await expect.poll(() => panel.locator('[data-testid=diff-summary]').textContent(), { timeout: 20_000 }).toContain('1 added');
		await expect.poll(() => panel.locator('[data-testid=diff-item][data-class=added]').count()).toBe(1);
		await expect.poll(() => panel.locator('[data-testid=diff-item][data-class=non_breaking]').count()).toBe(1);
		// The added relation's card (or the closed group holding it) is outlined in the legend's colour.
		await expect.poll(() => page.evaluate(() => document.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.cssText.includes('--diff-added'))))).toBe(true);
		await shot(page, 'diff-preview-run-page');
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it("a breaking change's readers, producers included, are one click away", async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${breakingPreview}`);
		const panel = page.locator('[data-testid=diff-panel]');
		await expect.poll(() => panel.locator('[data-testid=diff-item][data-class=breaking]').count(), { timeout: 20_000 }).toBeGreaterThan(0);
		await shot(page, 'diff-breaking-run-page');
		await panel.locator('[data-testid=diff-item][data-class=breaking]', { hasText: 'orders' }).locator('.impact-toggle').click();
		const impact = panel.locator('[data-testid=diff-impact]');
		await expect.poll(() => impact.textContent()).toMatch(/this change removes `orders\.amount`, which \d+ downstream columns? and the producers? `f\/demo\/producers\/daily_revenue`/);
		await expect.poll(() => impact.locator('.readers li').count()).toBeGreaterThan(0);
		await shot(page, 'diff-breaking-impact');
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('the project page compares the newest version with the newest preview, and with any ref picked', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/dbt/f/demo/shop`);
		const panel = page.locator('[data-testid=diff-panel]');
		// The newest preview is the breaking one.
		await expect.poll(() => panel.locator('[data-testid=diff-summary]').textContent(), { timeout: 20_000 }).toContain('breaking');
		await shot(page, 'diff-project-page');
		await page.locator('[data-testid=compare-to]').selectOption(preview);
		await expect.poll(() => panel.locator('[data-testid=diff-summary]').textContent()).toContain('non-breaking');
		// A preview against itself: nothing changed.
		await page.locator('[data-testid=compare-from]').selectOption(preview);
		await expect.poll(() => panel.locator('[data-testid=diff-summary]').textContent()).toContain('no change');
		await shot(page, 'diff-project-page-same');
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);
});
