// Columns on the canvas as a data engineer uses them, in Debian's Chromium against the built app
// and its demo data: a card expanded into its typed columns in the relation's order; a column
// traced on the canvas itself, across dbt models, the producer script and the lake table it
// writes; its impact list, and the list downloaded as CSV; the scan lens, fetched only when
// turned on and kept out of the trace; the details pane's trace widened over the canvas, fitted
// into its frame (no lane cut at an edge). Every step leaves a screenshot in test-results/screenshots.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openCanvas, openDemoRelation, shot, useDemoBrowser, watchErrors } from './support';

const ORDERS = 'dbt:main/analytics/orders';
const node = (id: string) => `.svelte-flow__node[data-id="${id}"]`;

/** Trace boxes cut by the scroller's left edge (a lane half scrolled away). */
async function cutAtLeft(page: Page, scope: string): Promise<number> {
	return page.locator(`${scope} [data-testid=column-trace] .scroll`).evaluate((el) => {
		const left = el.scrollLeft;
		let cut = 0;
		for (const a of el.querySelectorAll<HTMLElement>('.asset')) {
			const x = a.offsetLeft;
			if (x < left && x + a.offsetWidth > left) cut++;
		}
		return cut;
	});
}

describe('columns on the canvas (chromium, built app, demo workspace)', () => {
	const demo = useDemoBrowser();

	it('expands a card into its columns, traces one across a producer into the lake, lists its impact and downloads it', async () => {
		const page = await demo.member.newPage();
		await page.setViewportSize({ width: 1440, height: 900 });
		const errors = watchErrors(page);
		const scanRequests: string[] = [];
		page.on('request', (r) => {
			if (r.url().includes('include=scan')) scanRequests.push(r.url());
		});
		await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo`);
		// The demo folder holds two projects; the first view frames one region of it.
		await page.getByTestId('fit-all').click();

		// Expand: the relation's analyzed columns, typed, in its own order.
		await page.locator(`${node(ORDERS)} [data-testid=expand-columns]`).click();
		const rows = page.locator(`${node(ORDERS)} [data-testid=card-columns] .row[data-column]`);
		await expect.poll(() => rows.count(), { timeout: 30_000 }).toBeGreaterThan(2);
		const details = (await (await page.request.get(`${demo.app.url}/w/demo/relation?path=main/analytics/orders`)).json()) as { column_schema: { name: string; type: string }[] };
		const names = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-column')));
		expect(names).toEqual(details.column_schema.map((c) => c.name).slice(0, names.length));
		const types = await rows.locator('.type').allTextContents();
		expect(types.filter(Boolean).length).toBe(names.length);
		// The card kept its laid-out size: nothing moved.
		expect(await page.locator(node(ORDERS)).evaluate((el) => el.getBoundingClientRect().height)).toBeLessThan(100);
		await shot(page, 'canvas-card-expanded');

		// Trace `amount`: drawn on the canvas, through the producer script's card into the lake table.
		await rows.and(page.locator('[data-column=amount]')).click();
		await expect.poll(() => page.getByTestId('canvas-trace').getAttribute('data-edges').then(Number), { timeout: 30_000 }).toBeGreaterThan(1);
		const lakeRows = page.locator('.svelte-flow__node[data-id^="ducklake:"] [data-testid=card-columns] .row.lit');
		await expect.poll(() => lakeRows.count(), { timeout: 30_000 }).toBeGreaterThan(0);
		expect(await page.locator('.svelte-flow__node[data-id^="dbt:main/analytics/stg_"] [data-testid=card-columns] .row.lit').count()).toBeGreaterThan(0);
		expect(await page.locator('[data-testid=canvas-trace] path').count()).toBeGreaterThan(0);
		await expect.poll(() => page.getByTestId('canvas-traced').textContent()).toMatch(/orders\.amount · \d+ columns/);
		const tracedEdges = Number(await page.getByTestId('canvas-trace').getAttribute('data-edges'));
		// The page is left without a selection: the trace is the canvas's own, not the details pane's.
		expect(await page.getByTestId('details-pane').count()).toBe(0);
		await shot(page, 'canvas-column-trace');

		// The impact list: everything downstream with depth, kind chain and producers on the way.
		await page.getByTestId('open-impact').click();
		const panel = page.getByTestId('impact-panel');
		await expect.poll(() => panel.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
		const impactRows = panel.locator('tbody tr');
		expect(await impactRows.count()).toBeGreaterThan(0);
		const lakeLine = impactRows.filter({ hasText: 'lake' }).first();
		expect(await lakeLine.locator('.via').textContent()).not.toBe('');
		const depths = await impactRows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-depth'))));
		expect(depths).toEqual([...depths].sort((a, b) => a - b));
		expect(depths[0]).toBe(1);
		await shot(page, 'canvas-impact-list');

		const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('impact-csv').click()]);
		expect(download.suggestedFilename()).toBe('impact-downstream-orders.amount.csv');
		const csv = readFileSync((await download.path())!, 'utf8').trim().split('\n');
		expect(csv[0]).toMatch(/depth/);
		expect(csv.length - 1).toBe(await impactRows.count());

		// Upstream: the staging columns it is computed from.
		await panel.getByRole('button', { name: 'Upstream' }).click();
		await expect.poll(() => panel.locator('tbody tr').first().textContent(), { timeout: 30_000 }).toMatch(/stg_/);
		await panel.getByRole('button', { name: /close the impact list/i }).click();
		expect(await panel.count()).toBe(0);

		// The scan lens: asked for only now, drawn apart, the trace unchanged.
		expect(scanRequests).toEqual([]);
		await page.locator(`${node('dbt:main/analytics/stg_orders')} [data-testid=expand-columns]`).click();
		await page.getByTestId('scan-lens').check();
		await expect.poll(() => scanRequests.length, { timeout: 30_000 }).toBeGreaterThan(0);
		// orders joins its inputs on their keys: those key columns reach it by scan.
		await expect.poll(() => page.getByTestId('canvas-trace').getAttribute('data-scan-edges').then(Number), { timeout: 30_000 }).toBeGreaterThan(0);
		const scanShown = Number(await page.getByTestId('canvas-trace').getAttribute('data-scan-edges'));
		expect(await page.getByTestId('scan-count').textContent()).toContain(`${scanShown} scan edge`);
		expect(await page.locator('[data-testid=canvas-trace] path.scan').count()).toBe(1);
		expect(Number(await page.getByTestId('canvas-trace').getAttribute('data-edges'))).toBe(tracedEdges);
		await shot(page, 'canvas-scan-lens');
		await page.getByTestId('scan-lens').uncheck();
		expect(await page.locator('[data-testid=canvas-trace] path.scan').count()).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('widens the details pane\'s trace over the canvas, with no lane cut at the left', async () => {
		const { page, pane, errors } = await openDemoRelation(demo, ORDERS);
		expect(await cutAtLeft(page, '[data-testid=details-pane]')).toBe(0);
		await shot(page, 'trace-in-pane');
		await pane.getByTestId('widen-trace').click();
		const wide = page.getByTestId('wide-trace');
		await wide.waitFor();
		const canvasBox = (await page.getByTestId('canvas').boundingBox())!;
		const wideBox = (await wide.boundingBox())!;
		expect(wideBox.width).toBeGreaterThan(canvasBox.width - 2);
		expect(await pane.getByTestId('trace-widened').count()).toBe(1);
		// Widened, the trace opens readable around the relation's columns; Fit shows it whole: no box cut at any edge.
		await expect.poll(async () => Number(await wide.getByTestId('trace-frame').getAttribute('data-zoom'))).toBeGreaterThanOrEqual(1);
		await wide.getByTestId('trace-fit').click();
		await expect
			.poll(() =>
				wide.evaluate((root) => {
					const f = root.querySelector('[data-testid=trace-frame]')!.getBoundingClientRect();
					return [...root.querySelectorAll('[data-testid=trace-frame] .asset')].filter((el) => {
						const r = el.getBoundingClientRect();
						return r.left < f.left - 1 || r.right > f.right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1;
					}).length;
				})
			)
			.toBe(0);
		await wide.locator('.col.own').first().click();
		expect(await wide.locator('.col.traced').count()).toBe(1);
		await shot(page, 'trace-widened');
		// The traced column's impact list opens from the trace too, above it.
		await wide.getByTestId('trace-impact').click();
		const panel = page.getByTestId('impact-panel');
		await expect.poll(() => panel.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
		await expect.poll(() => panel.locator('h3').textContent()).toMatch(/orders\./);
		await panel.getByRole('button', { name: /close the impact list/i }).click();
		await wide.getByTestId('widen-trace').click();
		expect(await wide.count()).toBe(0);
		await expect.poll(() => pane.getByTestId('column-trace').count()).toBe(1);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);
});
