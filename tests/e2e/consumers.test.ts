// The consumer layer in Debian's Chromium against the built app: jaffle-shop 1.12's semantic
// models, metrics and saved queries (and an exposure, tests/support/consumer-manifests.ts) drawn
// right of the models in their own shapes; a metric's details pane with its definition and the
// columns it reads; a column trace from order_items.product_price ending in the `revenue` metric
// and the Finance dashboard, and its impact list naming them. Screenshots go to docs/screenshots (the docs show them).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jaffleWithExposure } from '../support/consumer-manifests';
import { describeFixtures, fixture } from '../support/fixtures';
import { screenshotDir } from './server';
import { openCanvas, shot, useDemoBrowser, watchErrors } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');
const PROJECT = 'f/metrics/jaffle';

async function docShot(page: import('playwright-core').Page, name: string): Promise<void> {
	await shot(page, name);
	mkdirSync(DOCS_SHOTS, { recursive: true });
	copyFileSync(path.join(screenshotDir, `${name}.png`), path.join(DOCS_SHOTS, `${name}.png`));
}

describeFixtures('the consumer layer (chromium, built app)', () => {
	describe('jaffle-shop with metrics and an exposure', () => {
		const demo = useDemoBrowser();

		it('draws metrics and the exposure right of the models, details a metric, and ends a trace in them', async () => {
			await demo.api.ok('POST', '/api/w/demo/folders', { name: 'metrics', readers: [], writers: [] });
			const index = fixture('constructed-index', 'jaffle-shop-1.12', 'index');
			const form = new FormData();
			form.set('path', PROJECT);
			form.set('manifest', new Blob([jaffleWithExposure()]), 'manifest.json');
			form.set('column_lineage', new Blob([new Uint8Array(readFileSync(`${index}/dbt.column_lineage.parquet`))]), 'dbt.column_lineage.parquet');
			form.set('node_columns', new Blob([new Uint8Array(readFileSync(`${index}/dbt.node_columns.parquet`))]), 'dbt.node_columns.parquet');
			await demo.api.ok('POST', '/api/w/demo/scripts/dbt/deploy', form);
			const graph = await demo.api.ok('GET', '/api/w/demo/assets/graph?folder=metrics');
			const orderItems = (graph.assets as { path: string; dbt?: { unique_id: string } }[]).find((a) => a.dbt?.unique_id === 'model.jaffle_shop.order_items')!.path;

			const page = await demo.member.newPage();
			await page.setViewportSize({ width: 1600, height: 1000 });
			const errors = watchErrors(page);
			await openCanvas(page, `${demo.app.url}/w/demo/pipeline/metrics`);
			await page.getByTestId('fit-all').click();
			const consumerCards = page.locator('.svelte-flow__node[data-id^="consumer:"]');
			await expect.poll(() => consumerCards.count(), { timeout: 30_000 }).toBeGreaterThan(10);
			const revenueId = `consumer:${PROJECT}/metric.jaffle_shop.revenue`;
			const dashId = `consumer:${PROJECT}/exposure.jaffle_shop.finance_dashboard`;
			const card = (id: string) => page.locator(`.svelte-flow__node[data-id="${id}"]`);
			await expect.poll(() => card(dashId).count()).toBe(1);
			expect(await card(revenueId).locator('.card').getAttribute('class')).toContain('kind-metric');
			expect(await card(dashId).locator('.card').getAttribute('class')).toContain('kind-exposure');
			// Right of the models: the exposure's card is right of the relation it reads.
			const xOf = (id: string) => card(id).evaluate((el) => el.getBoundingClientRect().left);
			expect(await xOf(dashId)).toBeGreaterThan(await xOf(`dbt:${orderItems}`));
			expect(await xOf(revenueId)).toBeGreaterThan(await xOf(`dbt:${orderItems}`));
			await docShot(page, 'consumer-layer-canvas');

			// A metric's details: its definition and the columns it reads.
			await card(revenueId).locator('.card').evaluate((el) => (el as HTMLElement).click());
			const details = page.getByTestId('consumer-details');
			await details.waitFor({ timeout: 30_000 });
			expect(await page.getByTestId('metric-definition').textContent()).toContain('product_price');
			expect(await page.getByTestId('consumer-columns').textContent()).toContain('order_items.product_price');
			await docShot(page, 'consumer-metric-details');

			// The exposure: owner, URL, maturity.
			await card(dashId).locator('.card').evaluate((el) => (el as HTMLElement).click());
			await expect.poll(() => details.getAttribute('data-kind')).toBe('exposure');
			const text = await details.textContent();
			expect(text).toContain('finance@example.com');
			expect(text).toContain('https://bi.example.com/finance');
			expect(text).toContain('high');

			// The trace of order_items.product_price ends in the revenue metric and the Finance dashboard.
			await page.goto(`${demo.app.url}/w/demo/pipeline/metrics?select=${encodeURIComponent(`dbt:${orderItems}`)}&column=product_price`);
			const ends = page.getByTestId('trace-ends-in');
			await ends.waitFor({ timeout: 60_000 });
			const endText = await ends.textContent();
			expect(endText).toContain('Revenue');
			expect(endText).toContain('Finance dashboard');
			expect(await ends.locator('[data-kind=metric]').count()).toBeGreaterThan(3);
			await docShot(page, 'consumer-trace-ends-in-metric');

			// Its impact list says what the change breaks past the relations.
			await page.getByTestId('trace-impact').click();
			const breaks = page.getByTestId('impact-consumers');
			await breaks.waitFor({ timeout: 60_000 });
			const breakText = await breaks.textContent();
			expect(breakText).toContain('Revenue');
			expect(breakText).toContain('Finance dashboard');
			await docShot(page, 'consumer-impact-list');
			expect(errors).toEqual([]);
		}, 240_000);
	});
});
