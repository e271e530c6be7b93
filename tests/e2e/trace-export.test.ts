// The column trace where the user looks, and export that is what it says, in Debian's Chromium
// against the built app and its demo data at 1440×900: a column name clicked in the details
// pane's table traces it over the canvas, readable and whole with Fit, producer scripts drawn as
// boxes, nothing under the pane; "Focus on column" keeps only the path and gives the view back (by keyboard
// too); the impact table breaks identifiers only at their seams. The canvas exported as SVG is a
// vector drawing of the whole graph (no foreignObject, every card's name as text), as a PNG the
// whole graph at twice the pixels, and as the selection alone when asked. The files are saved
// beside the screenshots, and the SVG is drawn by Chromium as an image to be looked at.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshotDir } from './server';
import { openCanvas, openDemoRelation, shot, useDemoBrowser, watchErrors } from './support';

const ORDERS = 'dbt:main/analytics/orders';

/** Boxes (assets, scripts, column rows) of the widened trace lying outside its frame. */
async function outsideFrame(wide: Locator): Promise<number> {
	return wide.evaluate((root) => {
		const f = root.querySelector('[data-testid=trace-frame]')!.getBoundingClientRect();
		let out = 0;
		for (const el of root.querySelectorAll('[data-testid=trace-frame] .asset, [data-testid=trace-frame] .script')) {
			const r = el.getBoundingClientRect();
			if (r.left < f.left - 1 || r.right > f.right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1) out++;
		}
		return out;
	});
}

/** What a downloaded SVG holds, as Chromium's XML parser reads it. */
async function parseSvg(page: Page, text: string) {
	return page.evaluate((t) => {
		const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
		const count = (sel: string) => doc.querySelectorAll(sel).length;
		return {
			error: doc.querySelector('parsererror')?.textContent ?? null,
			root: doc.documentElement.localName,
			width: Number(doc.documentElement.getAttribute('width')),
			height: Number(doc.documentElement.getAttribute('height')),
			font: doc.documentElement.getAttribute('font-family'),
			foreign: count('foreignObject'),
			cards: count('g.card'),
			rects: count('rect'),
			paths: count('path'),
			edges: count('g.edges path'),
			texts: [...doc.querySelectorAll('text')].map((e) => e.textContent ?? '')
		};
	}, text);
}

async function download(page: Page, testId: string, name: string): Promise<Buffer> {
	const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
	const file = path.join(screenshotDir, name);
	await dl.saveAs(file);
	return readFileSync(file);
}

describe('trace from a column and export (chromium, built app, demo workspace)', () => {
	const demo = useDemoBrowser();

	it('traces a column of the pane\'s table over the canvas, readable and whole with Fit, scripts as boxes; focus keeps only its path and gives the view back', async () => {
		const { page, pane, errors } = await openDemoRelation(demo, ORDERS);

		// The column table's name is the way in: one click traces it over the canvas.
		const name = pane.locator('[data-testid=column-name][data-column=amount]');
		await name.click();
		const wide = page.getByTestId('wide-trace');
		await wide.waitFor();
		expect(await name.getAttribute('aria-pressed')).toBe('true');
		expect(await wide.locator('.col.traced').getAttribute('data-column')).toBe('amount');
		expect(await wide.getByTestId('trace-traced').textContent()).toBe('amount');
		// Opened readable in its own frame (the whole trace does not read at 11 px: canvas-focus.test.ts
		// checks that framing), Fit shows it whole; beside the pane rather than under it.
		const frame = wide.getByTestId('trace-frame');
		await expect.poll(async () => Number(await frame.getAttribute('data-zoom'))).toBeGreaterThanOrEqual(1);
		await wide.getByTestId('trace-fit').click();
		await expect.poll(() => outsideFrame(wide)).toBe(0);
		const frameBox = (await frame.boundingBox())!;
		const paneBox = (await pane.boundingBox())!;
		expect(frameBox.x + frameBox.width).toBeLessThanOrEqual(paneBox.x + 1);
		// The producer script writing the lake table from orders.amount is a box, lit on the path.
		const scripts = wide.getByTestId('trace-script');
		expect(await scripts.count()).toBeGreaterThan(0);
		expect(await wide.locator('[data-testid=trace-script]:not(.dim)').count()).toBeGreaterThan(0);
		// A long name is whole on hover.
		for (const t of await wide.locator('.col').evaluateAll((els) => els.map((e) => [e.getAttribute('data-column'), e.getAttribute('title')]))) {
			expect(t[1]).toContain(t[0]);
		}
		const before = { cols: await wide.locator('.col').count(), assets: await wide.locator('.asset').count(), zoom: Number(await frame.getAttribute('data-zoom')) };
		const lit = await wide.locator('.col:not(.dim)').count();
		expect(lit).toBeLessThan(before.cols);
		await shot(page, 'trace-from-column-1440');

		// Pan and zoom are the frame's own, by keyboard as by pointer.
		await frame.focus();
		await page.keyboard.press('+');
		expect(Number(await frame.getAttribute('data-zoom'))).toBeGreaterThan(before.zoom);
		await page.keyboard.press('0');
		expect(Number(await frame.getAttribute('data-zoom'))).toBeCloseTo(before.zoom, 3);
		// The arrows pan the trace, not the canvas's selection behind it.
		await page.keyboard.press('ArrowLeft');
		expect(await pane.getAttribute('data-path')).toBe('main/analytics/orders');
		await page.keyboard.press('0');

		// Focus: only the path, laid out anew and fitted.
		const focus = wide.getByTestId('trace-focus');
		expect(await focus.getAttribute('aria-label')).toMatch(/focus on this column/i);
		await focus.click();
		await expect.poll(() => wide.getByTestId('column-trace').getAttribute('data-focused')).toBe('true');
		expect(await focus.getAttribute('aria-pressed')).toBe('true');
		expect(await wide.locator('.col').count()).toBe(lit);
		expect(await wide.locator('.col.dim').count()).toBe(0);
		expect(await wide.locator('.asset').count()).toBeLessThanOrEqual(before.assets);
		// Opened readable as the trace is, and whole with Fit.
		await expect.poll(async () => Number(await frame.getAttribute('data-zoom'))).toBeGreaterThanOrEqual(1);
		await wide.getByTestId('trace-fit').click();
		await expect.poll(() => outsideFrame(wide)).toBe(0);
		// Left to right: each lit column's upstream sits left of it.
		const xs = await wide.locator('.asset').evaluateAll((els) => els.map((e) => (e as HTMLElement).offsetLeft));
		expect(new Set(xs).size).toBeGreaterThan(1);
		await shot(page, 'trace-focus-1440');

		// Toggled back by keyboard: the whole trace, at the zoom it had.
		await focus.focus();
		await page.keyboard.press('Enter');
		await expect.poll(() => wide.getByTestId('column-trace').getAttribute('data-focused')).toBe('false');
		expect(await wide.locator('.col').count()).toBe(before.cols);
		expect(Number(await frame.getAttribute('data-zoom'))).toBeCloseTo(before.zoom, 3);

		// The impact table: identifiers break at their seams only.
		await wide.getByTestId('trace-impact').click();
		const panel = page.getByTestId('impact-panel');
		await expect.poll(() => panel.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
		const cells = panel.locator('tbody td.mono');
		expect(await cells.count()).toBeGreaterThan(0);
		const style = await cells.first().evaluate((el) => ({ wb: getComputedStyle(el).wordBreak, ow: getComputedStyle(el).overflowWrap, wbr: el.querySelectorAll('wbr').length }));
		expect(style).toEqual({ wb: 'normal', ow: 'normal', wbr: expect.any(Number) });
		expect(await panel.locator('tbody td.mono wbr').count()).toBeGreaterThan(0);
		await shot(page, 'trace-impact-1440');
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('exports the whole graph as a vector SVG and a sharp PNG, and the selection alone when asked', async () => {
		const page = await demo.member.newPage();
		await page.setViewportSize({ width: 1440, height: 900 });
		const errors = watchErrors(page);
		await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo`);
		// Zoomed in on one corner: the export must still hold the whole graph, not the viewport.
		const cards = Number(await page.getByTestId('canvas').getAttribute('data-cards'));
		await page.getByTestId('fit-all').click();
		await expect.poll(() => page.locator('[data-testid=card]').count()).toBe(cards);
		const names = await page.locator('[data-testid=card] .name').allTextContents();
		await page.locator('.svelte-flow__pane').hover();
		for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -400);

		const svgText = (await download(page, 'export-svg', 'export-demo.svg')).toString('utf8');
		const svg = await parseSvg(page, svgText);
		expect(svg.error).toBeNull();
		expect(svg.root).toBe('svg');
		expect(svg.foreign).toBe(0);
		expect(svg.font).toMatch(/system-ui.*sans-serif/);
		expect(svg.cards).toBe(cards);
		expect(svg.rects).toBeGreaterThanOrEqual(2 * cards);
		expect(svg.edges).toBeGreaterThan(cards / 2);
		for (const n of names) expect(svg.texts).toContain(n);
		expect(Buffer.byteLength(svgText)).toBeLessThan(500_000);

		const png = await download(page, 'export-png', 'export-demo.png');
		expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
		// The whole drawing at twice its size: wider than the window, text sharp.
		expect(png.readUInt32BE(16)).toBe(Math.round(svg.width * 2));
		expect(png.readUInt32BE(20)).toBe(Math.round(svg.height * 2));
		expect(png.readUInt32BE(16)).toBeGreaterThan(1440);

		// The selection: orders and its lineage only.
		await page.getByTestId('fit-all').click();
		await page.locator(`.svelte-flow__node[data-id="${ORDERS}"]`).click();
		await page.getByTestId('export-scope').selectOption('selection');
		const sel = await parseSvg(page, (await download(page, 'export-svg', 'export-demo-selection.svg')).toString('utf8'));
		expect(sel.texts).toContain('orders');
		expect(sel.cards).toBeGreaterThan(1);
		expect(sel.cards).toBeLessThan(cards);
		const selPng = await download(page, 'export-png', 'export-demo-selection.png');
		expect(selPng.readUInt32BE(16)).toBe(Math.round(sel.width * 2));
		expect(errors).toEqual([]);

		// Looked at: the SVG drawn by Chromium as an image (as GitHub's image view shows it).
		const view = await demo.member.newPage();
		await view.setViewportSize({ width: Math.ceil(svg.width), height: Math.ceil(svg.height) });
		await view.setContent(`<body style="margin:0"><img src="data:image/svg+xml;base64,${Buffer.from(svgText).toString('base64')}"></body>`);
		await view.locator('img').evaluate((img: HTMLImageElement) => img.decode());
		expect(await view.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(Math.round(svg.width));
		await shot(view, 'export-demo-svg-rendered');
		await view.close();
		await page.close();
	}, 120_000);
});
