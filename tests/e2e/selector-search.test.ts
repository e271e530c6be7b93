// The canvas search box as a data engineer uses it, in Debian's Chromium against the built app
// and its demo data: dbt's selector syntax, then column selectors lighting a column's upstream
// and downstream across dbt models, the producer script and the lake table it writes; a
// selector that does not parse marked where it breaks; a column that matches nothing leaving
// the canvas as it was. Every step leaves a screenshot in test-results/screenshots.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openCanvas, shot, useDemoBrowser, watchErrors } from './support';

const ORDERS = 'dbt:main/analytics/orders';

/** Node ids of the canvas cards drawn at full opacity, and whether any card is dimmed. */
async function litCards(page: Page): Promise<{ lit: string[]; dimmed: number }> {
	return page.evaluate(() => {
		const lit: string[] = [];
		let dimmed = 0;
		for (const el of document.querySelectorAll<HTMLElement>('.tributary-canvas .svelte-flow__node:not(.svelte-flow__node-frame)')) {
			if (Number(getComputedStyle(el).opacity) > 0.6) lit.push(el.dataset.id ?? '');
			else dimmed++;
		}
		return { lit: lit.sort(), dimmed };
	});
}

describe('the search box: dbt selectors and column selectors (chromium, built app, demo workspace)', () => {
	const demo = useDemoBrowser();

	it('selects as dbt does, lights a column trace across models and producers, and says where a selector breaks', async () => {
		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		const columnRequests: string[] = [];
		page.on('request', (r) => {
			if (r.url().includes('/assets/column_lineage')) columnRequests.push(new URL(r.url()).searchParams.get('asset_path') ?? '');
		});
		await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo`);
		// The demo opens framed on a readable region; "Fit all" puts every card on screen to count.
		await page.getByTestId('fit-all').click();
		for (const lake of ['main/daily_revenue', 'main/monthly_city_revenue']) await expect.poll(() => page.locator(`[data-testid=card][data-path="${lake}"]`).count()).toBe(1);
		const box = page.getByRole('searchbox', { name: /search relations/i });
		const status = page.getByTestId('search-status');
		const before = await litCards(page);
		expect(before.dimmed).toBe(0);

		// A bare word is dbt's: exactly the model of that name.
		await box.fill('orders');
		await expect.poll(() => status.textContent()).toMatch(/^\s*1 selected · Enter to go/);
		await expect.poll(async () => (await litCards(page)).lit).toEqual([ORDERS]);

		// A column selector: the column, everything it feeds, across the producer into the lake.
		await box.fill('orders.amount+');
		await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/\d+ selected · \d+ columns/);
		expect(columnRequests).toContain('main/analytics/orders');
		// Settled: the trace lit, the rest dimmed (between two selections every card is briefly lit).
		await expect
			.poll(async () => {
				const c = await litCards(page);
				return c.dimmed > 0 && c.lit.some((id) => id.startsWith('ducklake:'));
			})
			.toBe(true);
		const down = await litCards(page);
		expect(down.lit).toContain(ORDERS);
		expect(down.lit.some((id) => id.startsWith('ducklake:'))).toBe(true);
		expect(down.lit.some((id) => id.startsWith('script:'))).toBe(true);
		expect(down.lit).not.toContain('dbt:main/analytics/stg_orders');
		expect(down.dimmed).toBeGreaterThan(0);
		const listed = await page.getByTestId('search-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-column')));
		expect(listed).toContain('orders.amount');
		expect(listed).toContain('daily_revenue.revenue');
		await shot(page, 'search-column-downstream');

		// Upstream instead: the staging columns it is computed from, and no lake table.
		await box.fill('+orders.amount');
		await expect
			.poll(
				async () => {
					const c = await litCards(page);
					return c.dimmed > 0 && c.lit.includes('dbt:main/analytics/stg_orders');
				},
				{ timeout: 30_000 }
			)
			.toBe(true);
		const up = await litCards(page);
		expect(up.lit.some((id) => id.startsWith('ducklake:'))).toBe(false);
		await shot(page, 'search-column-upstream');

		// Depth-limited both ways: one hop down, two up — a subset of the two full traces.
		await box.fill('2+orders.amount+1');
		await expect.poll(() => status.textContent()).toMatch(/\d+ selected · \d+ columns/);
		await expect.poll(async () => (await litCards(page)).lit.length).toBeLessThan(new Set([...up.lit, ...down.lit]).size);
		const near = await litCards(page);
		expect(near.lit).toContain(ORDERS);
		for (const id of near.lit) expect(up.lit.includes(id) || down.lit.includes(id)).toBe(true);
		expect(near.lit.length).toBeLessThan(new Set([...up.lit, ...down.lit]).size);
		await shot(page, 'search-column-depth');

		// A selector that does not parse: the message names the position and marks it.
		await box.fill('orders.amount+ tag:');
		const error = page.getByTestId('search-error');
		await expect.poll(() => error.textContent()).toMatch(/at character 20: "tag:" needs a value/);
		expect(await error.getAttribute('data-position')).toBe('19');
		await expect.poll(async () => (await litCards(page)).dimmed).toBe(0);
		await shot(page, 'search-parse-error');

		// A column that matches nothing: "no match", and the canvas as it was.
		await box.fill('orders.no_such_column');
		await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/no match/);
		await expect.poll(() => litCards(page)).toEqual(before);
		await shot(page, 'search-no-match');

		// The fallback: one plain word dbt selects nothing with is a name search.
		await box.fill('stg_pay');
		await expect.poll(() => status.textContent()).toMatch(/by name · Enter to go/);
		await box.press('Enter');
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path')).toMatch(/^main\/analytics\/stg_pay/);
		expect(errors).toEqual([]);
		await page.close();
	}, 180_000);
});
