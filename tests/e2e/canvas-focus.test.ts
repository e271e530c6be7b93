// Focus on a column, in Chromium against the built app and its demo data at 1440×900: with a
// column traced in the details pane, one toggle on the canvas (a button, or F) leaves only the
// cards the column's path runs through, laid out left to right and fitted in the canvas's free
// area with readable text; toggled back, the canvas has the viewport and the selection it had.
// And the widened trace of a wide lineage opens at a readable zoom around the traced column,
// its Fit button showing it whole. What the path holds is read from the pane's own trace (its
// lit columns and scripts), not from the canvas's claim. Screenshots go to docs/screenshots/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openCanvas, openDemoRelation, smallestCardTextPx, useDemoBrowser, watchErrors } from './support';

const ORDERS = 'dbt:main/analytics/orders';
const DOCS_SHOTS = path.resolve('docs/screenshots');
const docShot = async (page: Page, name: string) => {
	mkdirSync(DOCS_SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}.png`) });
};

interface Drawn {
	/** The `data-path` of every card drawn. */
	paths: string[];
	edges: number;
	/** Cards outside the canvas or under one of its panels, the dock or the details pane. */
	bad: string[];
}

/** The canvas's cards as drawn, each checked against the free area (the flow less its panels, the dock and the pane). */
async function drawnCards(page: Page): Promise<Drawn> {
	return (await page.evaluate(`(() => {
		const canvas = document.querySelector('[data-testid=canvas] .tributary-canvas');
		const box = canvas.getBoundingClientRect();
		const covers = [...canvas.querySelectorAll('.svelte-flow__panel'), ...document.querySelectorAll('[data-testid=canvas-dock], [data-testid=details-pane], [data-testid=columns-bar]')]
			.map((el) => ({ el: el.className || el.getAttribute('data-testid'), r: el.getBoundingClientRect() }))
			.filter((c) => c.r.width > 0 && c.r.height > 0);
		const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
		const paths = [], bad = [];
		for (const node of canvas.querySelectorAll('.svelte-flow__node:not(.svelte-flow__node-frame)')) {
			const card = node.querySelector('[data-testid=card], [data-testid=group-card]');
			const name = card?.getAttribute('data-path') ?? node.getAttribute('data-id');
			paths.push(name);
			const r = node.getBoundingClientRect();
			if (r.left < box.left - 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) bad.push(name + ': outside the canvas');
			for (const c of covers) if (hit(r, c.r)) bad.push(name + ': under ' + c.el);
		}
		return { paths: paths.sort(), edges: canvas.querySelectorAll('.svelte-flow__edge').length, bad };
	})()`)) as Drawn;
}

/** The pane's trace as lit by its traced column: the relations holding a lit column, and the lit scripts. */
async function litPath(pane: Locator): Promise<string[]> {
	return pane.getByTestId('column-trace').evaluate((root) => {
		const out = new Set<string>();
		for (const el of root.querySelectorAll('.col:not(.dim)')) out.add(el.getAttribute('data-asset')!);
		for (const el of root.querySelectorAll('[data-testid=trace-script]:not(.dim)')) out.add(el.getAttribute('data-path')!);
		return [...out].sort();
	});
}

const transform = (page: Page) => page.locator('.svelte-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);

/** A lit row of the widened trace: where it is on screen and the size its text renders at. */
interface Row {
	column: string;
	asset: string;
	left: number;
	right: number;
	top: number;
	bottom: number;
	textPx: number;
	traced: boolean;
}

async function wideRows(wide: Locator): Promise<{ frame: { left: number; right: number; top: number; bottom: number }; rows: Row[] }> {
	return wide.evaluate((root) => {
		const f = root.querySelector('[data-testid=trace-frame]')!.getBoundingClientRect();
		const rows = [...root.querySelectorAll<HTMLElement>('[data-testid=trace-frame] .col:not(.dim)')].map((el) => {
			const r = el.getBoundingClientRect();
			return {
				column: el.getAttribute('data-column')!,
				asset: el.getAttribute('data-asset')!,
				left: r.left,
				right: r.right,
				top: r.top,
				bottom: r.bottom,
				// The font size times the plane's scale (its rendered height over its layout height).
				textPx: parseFloat(getComputedStyle(el).fontSize) * (r.height / el.offsetHeight),
				traced: el.classList.contains('traced')
			};
		});
		return { frame: { left: f.left, right: f.right, top: f.top, bottom: f.bottom }, rows };
	});
}

const within = (r: { left: number; right: number; top: number; bottom: number }, f: { left: number; right: number; top: number; bottom: number }) =>
	r.left >= f.left - 1 && r.right <= f.right + 1 && r.top >= f.top - 1 && r.bottom <= f.bottom + 1;

describe('focus on a column (chromium, built app, demo workspace)', () => {
	const demo = useDemoBrowser();

	it('focuses the canvas on a traced column\'s path, fitted and readable, and toggles back to the view it had', async () => {
		const { page, pane, errors } = await openDemoRelation(demo, ORDERS);

		// Nothing traced yet: the toggle is there, disabled, and says why.
		const toggle = page.getByTestId('canvas-focus');
		expect(await toggle.isDisabled()).toBe(true);
		expect(await toggle.getAttribute('aria-pressed')).toBe('false');
		expect(await page.getByTestId('canvas-focus-wrap').getAttribute('title')).toMatch(/trace a column first/i);
		expect(await toggle.getAttribute('aria-keyshortcuts')).toBe('F');

		// Traced from the pane's table (which widens the trace), then back to the pane: the canvas is in view again.
		await pane.locator('[data-testid=column-name][data-column=status]').click();
		const wide = page.getByTestId('wide-trace');
		await wide.waitFor();
		await wide.getByTestId('widen-trace').click();
		await expect.poll(() => wide.count()).toBe(0);
		await expect.poll(() => toggle.isDisabled()).toBe(false);
		expect(await toggle.getAttribute('title')).toMatch(/only the path of orders\.status/i);
		const expected = await litPath(pane);
		expect(expected).toContain('main/analytics/orders');

		const before = { transform: await transform(page), cards: (await drawnCards(page)).paths, selected: await pane.getAttribute('data-path') };
		expect(before.cards.length).toBeGreaterThan(expected.length);

		await toggle.click();
		const canvas = page.getByTestId('canvas');
		await expect.poll(() => canvas.getAttribute('data-focused')).toBe('true');
		expect(await toggle.getAttribute('aria-pressed')).toBe('true');
		await expect.poll(() => toggle.getAttribute('aria-busy')).toBe('false');
		// Only the path's cards, once the view has settled on them.
		await expect.poll(async () => (await drawnCards(page)).paths, { timeout: 20_000 }).toEqual(expected);
		await docShot(page, 'canvas-focus-1440');
		await expect.poll(async () => (await drawnCards(page)).bad).toEqual([]);
		const drawn = await drawnCards(page);
		expect(drawn.edges).toBeGreaterThanOrEqual(expected.length - 1);
		expect((await smallestCardTextPx(page)).px).toBeGreaterThanOrEqual(11);
		// Left to right: the traced relation is not the leftmost card when the column has an upstream.
		const xs = await page.locator('[data-testid=card]').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().left));
		expect(new Set(xs.map(Math.round)).size).toBeGreaterThan(1);

		// Back by keyboard, from the page (not a text field): the same viewport, selection and cards.
		await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => undefined);
		await page.keyboard.press('f');
		await expect.poll(() => canvas.getAttribute('data-focused')).toBe('false');
		expect(await toggle.getAttribute('aria-pressed')).toBe('false');
		await expect.poll(() => transform(page)).toBe(before.transform);
		expect(await pane.getAttribute('data-path')).toBe(before.selected);
		await expect.poll(async () => (await drawnCards(page)).paths).toEqual(before.cards);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('focuses on a column traced on a card, with no pane open: the whole path fits, readable', async () => {
		const page = await demo.member.newPage();
		await page.setViewportSize({ width: 1440, height: 900 });
		const errors = watchErrors(page);
		await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo`);
		await page.getByTestId('fit-all').click();
		const orders = page.locator(`.svelte-flow__node[data-id="${ORDERS}"]`);
		await orders.locator('[data-testid=expand-columns]').click();
		const row = orders.locator('[data-testid=card-columns] .row[data-column=customer_id]');
		await row.waitFor({ timeout: 30_000 });
		await row.click();
		await expect.poll(() => page.getByTestId('canvas-trace').getAttribute('data-edges').then(Number), { timeout: 30_000 }).toBeGreaterThan(0);
		expect(await page.getByTestId('details-pane').count()).toBe(0);
		// The path as the canvas's own trace lights it: every card with a lit row.
		const expected = await page.evaluate(`[...new Set([...document.querySelectorAll('[data-testid=card-columns]')].filter((el) => el.querySelector('.row.lit')).map((el) => el.getAttribute('data-path')))].sort()`);
		expect((expected as string[]).length).toBeGreaterThan(2);
		const before = await transform(page);

		await page.keyboard.press('f');
		const canvas = page.getByTestId('canvas');
		await expect.poll(() => canvas.getAttribute('data-focused')).toBe('true');
		// Laid out and its view settled (the toggle is busy until then).
		await expect.poll(() => page.getByTestId('canvas-focus').getAttribute('aria-busy')).toBe('false');
		await expect.poll(async () => (await drawnCards(page)).paths, { timeout: 20_000 }).toEqual(expected);
		await expect.poll(async () => (await drawnCards(page)).bad).toEqual([]);
		expect((await smallestCardTextPx(page)).px).toBeGreaterThanOrEqual(11);
		// The trace is drawn across the cards at their new places.
		expect(Number(await page.getByTestId('canvas-trace').getAttribute('data-edges'))).toBeGreaterThan(0);
		await docShot(page, 'canvas-focus-card-1440');

		await page.getByTestId('canvas-focus').click();
		await expect.poll(() => canvas.getAttribute('data-focused')).toBe('false');
		await expect.poll(() => transform(page)).toBe(before);
		expect(await page.getByTestId('details-pane').count()).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('opens the widened trace of a wide lineage readable around the traced column; Fit shows it whole', async () => {
		const { page, pane, errors } = await openDemoRelation(demo, ORDERS);
		await pane.locator('[data-testid=column-name][data-column=amount]').click();
		const wide = page.getByTestId('wide-trace');
		await wide.waitFor();
		const frame = wide.getByTestId('trace-frame');
		await expect.poll(async () => (await wideRows(wide)).rows.some((r) => r.traced)).toBe(true);
		await page.waitForTimeout(300);
		await docShot(page, 'trace-readable-1440');
		const opened = await wideRows(wide);
		const traced = opened.rows.find((r) => r.traced)!;
		expect(traced.column).toBe('amount');
		expect(traced.asset).toBe('main/analytics/orders');
		// Readable: the traced column's text and that of every lit row on screen at 11 px or more.
		for (const r of opened.rows.filter((x) => within(x, opened.frame))) expect(r.textPx).toBeGreaterThanOrEqual(10.95);
		expect(Number(await frame.getAttribute('data-zoom'))).toBeGreaterThanOrEqual(1);
		// The traced column in view with its relation's name, and lit columns of the next lane beside it (its
		// direct neighbours: here those downstream, nearer than its upstream two lanes to the left).
		expect(within(traced, opened.frame)).toBe(true);
		const head = await wide.locator('[data-testid=trace-frame] .asset.selected .head').evaluate((el) => {
			const r = el.getBoundingClientRect();
			return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
		});
		expect(within(head, opened.frame)).toBe(true);
		const shown = opened.rows.filter((r) => within(r, opened.frame) && !r.traced);
		expect(shown.filter((r) => r.left >= traced.right).length).toBeGreaterThan(1);

		// A wide trace: the whole of it does not read at 11 px, so Fit shows it smaller, every box inside.
		await wide.getByTestId('trace-fit').click();
		const fitted = Number(await frame.getAttribute('data-zoom'));
		expect(fitted).toBeLessThan(1);
		const cut = await wide.evaluate((root) => {
			const f = root.querySelector('[data-testid=trace-frame]')!.getBoundingClientRect();
			return [...root.querySelectorAll('[data-testid=trace-frame] .asset, [data-testid=trace-frame] .script')].filter((el) => {
				const r = el.getBoundingClientRect();
				return r.left < f.left - 1 || r.right > f.right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1;
			}).length;
		});
		expect(cut).toBe(0);
		await docShot(page, 'trace-fitted-1440');
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);
});
