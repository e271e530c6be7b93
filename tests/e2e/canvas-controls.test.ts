// The canvas as a dbt user reads it, in Debian's Chromium against the built app and its demo
// data: left to right by default with a top-down toggle the browser remembers, readable card
// text on first open (also for a folder too big to fit), depth controls on a selection, lenses
// with a legend, the keyboard (arrows along edges, Esc, `/`), and the view exported as SVG and
// PNG. Every journey leaves a screenshot in test-results/screenshots.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, deployProducers, deployProject, openCanvas, seededRuns, shot, signedInContext, smallestCardTextPx, watchErrors } from './support';

/** Each card's box on screen, by path. */
async function cardBoxes(page: Page): Promise<Map<string, { x: number; y: number; w: number; h: number }>> {
	const rows = (await page.evaluate(`[...document.querySelectorAll('[data-testid=card]')].map((el) => {
		const r = el.getBoundingClientRect();
		return [el.getAttribute('data-path'), { x: r.x, y: r.y, w: r.width, h: r.height }];
	})`)) as [string, { x: number; y: number; w: number; h: number }][];
	return new Map(rows);
}

/** Paths of the cards at full opacity while something is focused (the lit ones). */
async function litPaths(page: Page): Promise<string[]> {
	return (await page.evaluate(`[...document.querySelectorAll('.svelte-flow__node')]
		.filter((n) => n.querySelector('[data-testid=card]') && getComputedStyle(n).opacity === '1')
		.map((n) => n.querySelector('[data-testid=card]').getAttribute('data-path')).sort()`)) as string[];
}

const STG = 'main/analytics/stg_orders';
const ORDERS = 'main/analytics/orders';

describe('canvas controls (chromium, built app, demo workspace)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;
	let member: BrowserContext;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		await deployProducers(api);
		await api.ok('POST', '/api/w/demo/folders', { name: 'wide', readers: [], writers: [] });
		await deployProject(api, await generateProject({ models: 400, columnEdges: 2000, seed: 3 }), 'f/wide/p400', { withProject: false });
		browser = await launchBrowser();
		member = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 300_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('opens the demo left to right; top-down is a toggle the browser remembers', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		const g = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo');
		const refs = (g.dbt_edges as { from_asset_path: string; to_asset_path: string }[]).map((e) => [e.from_asset_path, e.to_asset_path] as const);
		// How many of the ref() edges between cards on screen point along the flow, and how many there are.
		const along = async (direction: 'LR' | 'TB') => {
			const b = await cardBoxes(page);
			const shown = refs.filter(([s, t]) => b.has(s) && b.has(t));
			const ok = shown.filter(([s, t]) => (direction === 'LR' ? b.get(t)!.x >= b.get(s)!.x + b.get(s)!.w - 1 : b.get(t)!.y >= b.get(s)!.y + b.get(s)!.h - 1));
			return { ok: ok.length, shown: shown.length };
		};
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await expect.poll(async () => (await cardBoxes(page)).size).toBeGreaterThan(5);
		let lr = await along('LR');
		expect(lr.shown).toBeGreaterThan(5);
		expect(lr.ok).toBe(lr.shown);
		expect((await along('TB')).ok).toBeLessThan(lr.shown);
		expect(await page.getByRole('button', { name: 'Left → right' }).getAttribute('aria-pressed')).toBe('true');
		await shot(page, 'canvas-left-to-right');

		await page.getByRole('button', { name: 'Top ↓ down' }).click();
		await expect.poll(() => page.getByRole('button', { name: 'Top ↓ down' }).getAttribute('aria-pressed')).toBe('true');
		await expect.poll(async () => {
			const tb = await along('TB');
			return tb.shown > 3 && tb.ok === tb.shown;
		}).toBe(true);
		await expect.poll(() => page.locator('.busy').count()).toBe(0);
		await shot(page, 'canvas-top-down');
		// A new page of this browser comes laid out top-down from the server.
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		expect(await page.getByRole('button', { name: 'Top ↓ down' }).getAttribute('aria-pressed')).toBe('true');
		const tb = await along('TB');
		expect(tb.shown).toBeGreaterThan(3);
		expect(tb.ok).toBe(tb.shown);
		await page.getByRole('button', { name: 'Left → right' }).click();
		await expect.poll(async () => {
			lr = await along('LR');
			return lr.shown > 3 && lr.ok === lr.shown;
		}).toBe(true);
		expect(errors).toEqual([]);
		await page.close();
	});

	it('opens readable at 1440×900: card text at 11 px or more, the demo and a 400-model folder alike; fit all still fits', async () => {
		const page = await member.newPage();
		for (const [folder, name] of [
			['demo', 'canvas-readable-demo'],
			['wide', 'canvas-readable-400']
		]) {
			await openCanvas(page, `${app.url}/w/demo/pipeline/${folder}`);
			await page.waitForTimeout(300);
			const t = await smallestCardTextPx(page);
			expect(t.cards, folder).toBeGreaterThan(3);
			expect(t.px, `${folder}: smallest card text at zoom ${t.zoom}`).toBeGreaterThanOrEqual(11);
			await shot(page, name);
		}
		// The 400-model folder cannot fit readably: fit all zooms out to show every card.
		const before = (await cardBoxes(page)).size;
		await page.getByTestId('fit-all').click();
		await expect.poll(async () => (await smallestCardTextPx(page)).zoom).toBeLessThan(1);
		expect(Number(await page.getByTestId('canvas').getAttribute('data-cards'))).toBeGreaterThanOrEqual(before);
		await shot(page, 'canvas-fit-all-400');
		await page.close();
	});

	it('cards show name, materialization and test state at a glance', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		const card = page.locator(`[data-testid=card][data-path="${ORDERS}"]`);
		await expect.poll(() => card.locator('.name').textContent()).toBe('orders');
		expect(await card.locator('.chip.mat').textContent()).toMatch(/table|view|incremental/);
		// The folder's latest run of the shop is the failed one: orders failed, so dbt skipped its
		// tests. They read as skipped (·), not as passed from the earlier successful run.
		const tests = card.getByTestId('card-tests');
		expect(await tests.getAttribute('data-tests')).toBe('skip');
		expect(await tests.textContent()).toMatch(/^·\d+/);
		await page.close();
	});

	it('depth controls light 1, 2, 3 or all hops each way and focus the canvas on them', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		// The demo folder holds two projects: the first view frames one region, Fit all shows both.
		await page.getByTestId('fit-all').click();
		await page.locator(`[data-testid=card][data-path="${STG}"]`).click();
		const depth = page.getByTestId('depth');
		await depth.waitFor();
		// A small folder starts at all of it.
		expect(await depth.locator('[data-depth="down-all"]').getAttribute('aria-pressed')).toBe('true');
		await expect.poll(() => litPaths(page)).toContain(ORDERS);
		// Choosing a depth frames what it lights: all of it, on screen.
		await depth.locator('[data-depth="down-all"]').click();
		await page.waitForTimeout(500);
		const all = await litPaths(page);
		await depth.locator('[data-depth="down-1"]').click();
		await expect.poll(() => depth.locator('[data-depth="down-1"]').getAttribute('aria-pressed')).toBe('true');
		await expect.poll(async () => (await litPaths(page)).length).toBeLessThan(all.length);
		const one = await litPaths(page);
		expect(one).toContain(STG);
		expect(one).toContain(ORDERS);
		await shot(page, 'canvas-depth-1');
		await depth.locator('[data-depth="down-2"]').click();
		await expect.poll(async () => (await litPaths(page)).length).toBeGreaterThan(one.length);
		await depth.locator('[data-depth="down-all"]').click();
		await expect.poll(() => litPaths(page)).toEqual(all);
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a big folder opens at one hop around the selection', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/wide`);
		await page.locator('[data-testid=card]').first().click();
		const depth = page.getByTestId('depth');
		await depth.waitFor();
		expect(await depth.locator('[data-depth="up-1"]').getAttribute('aria-pressed')).toBe('true');
		expect(await depth.locator('[data-depth="down-1"]').getAttribute('aria-pressed')).toBe('true');
		await shot(page, 'canvas-400-one-hop');
		await page.close();
	});

	it('lenses colour the cards by type, materialization, run status and tests, with a legend', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		const lens = page.getByTestId('lens');
		const legend = page.getByTestId('legend');
		await lens.selectOption('type');
		await expect.poll(() => legend.textContent()).toMatch(/model\s*\d+/);
		expect(await legend.textContent()).toMatch(/lake table\s*\d+/);
		// The demo's three producer scripts: two over the shop, one over the roastery.
		expect(await legend.textContent()).toMatch(/producer script\s*3/);
		expect(await page.locator(`[data-testid=card][data-path="${ORDERS}"]`).getAttribute('data-lens')).toBe('model');
		// The legend's counts add up to the cards drawn.
		const counts = (await legend.locator('.n').allTextContents()).map(Number);
		expect(counts.reduce((a, b) => a + b, 0)).toBe(Number(await page.getByTestId('canvas').getAttribute('data-cards')));
		await shot(page, 'canvas-lens-type');
		await lens.selectOption('materialization');
		await expect.poll(() => page.locator(`[data-testid=card][data-path="${ORDERS}"]`).getAttribute('data-lens')).toMatch(/table|view|incremental/);
		// The folder's run lens: what the latest run of f/demo/shop (a seeded recorded run) left each relation in.
		await lens.selectOption('run');
		await expect.poll(() => legend.textContent()).toMatch(/(failed|built \/ passed)\s*\d+/);
		expect(await page.locator('[data-testid=card][data-lens=failed], [data-testid=card][data-lens=built]').count()).toBeGreaterThan(0);
		await shot(page, 'canvas-lens-latest-run');
		await lens.selectOption('tests');
		// The latest run's test results, the worst per relation; relations without tests apart.
		await expect.poll(() => legend.textContent()).toMatch(/(a test failed|a test warned|tests passed)\s*\d+/);
		expect(await legend.textContent()).toMatch(/no tests\s*\d+/);
		expect(await page.locator('[data-testid=card][data-lens=fail], [data-testid=card][data-lens=warn], [data-testid=card][data-lens=pass]').count()).toBeGreaterThan(0);
		await shot(page, 'canvas-lens-tests');

		// The run page's lens: a failed run shows its failure.
		const runs = await seededRuns(api);
		await openCanvas(page, `${app.url}/w/demo/run/${runs.failed}`);
		await page.getByTestId('lens').selectOption('run');
		await expect.poll(() => page.getByTestId('legend').textContent()).toMatch(/failed\s*\d+/);
		expect(await page.locator('[data-testid=card][data-lens=failed]').count()).toBeGreaterThan(0);
		await shot(page, 'canvas-lens-run');
		await page.close();
	});

	it('the keyboard: arrows move the selection along edges, Esc closes the pane, / focuses the search', async () => {
		const page = await member.newPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		// The demo folder holds two projects: the first view frames one region, Fit all shows both.
		await page.getByTestId('fit-all').click();
		await page.locator(`[data-testid=card][data-path="${STG}"]`).click();
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getAttribute('data-path')).toBe(STG);
		// Blur the card so keys go to the page, as after any click on the canvas.
		await page.evaluate(`document.activeElement && document.activeElement.blur()`);
		await page.keyboard.press('ArrowRight');
		// stg_orders feeds orders (and perhaps others): the selection moved downstream.
		const g = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo');
		const downstream = (g.dbt_edges as { from_asset_path: string; to_asset_path: string }[]).filter((e) => e.from_asset_path === STG).map((e) => e.to_asset_path);
		await expect.poll(() => pane.getAttribute('data-path')).not.toBe(STG);
		expect(downstream).toContain(await pane.getAttribute('data-path'));
		await shot(page, 'canvas-keyboard-step');
		await page.keyboard.press('ArrowLeft');
		await expect.poll(() => pane.getAttribute('data-path')).toBe(STG);
		await page.keyboard.press('Escape');
		await expect.poll(() => page.getByTestId('details-pane').count()).toBe(0);
		await page.keyboard.press('/');
		await expect.poll(() => page.evaluate(`document.activeElement && document.activeElement.getAttribute('type')`)).toBe('search');
		await page.close();
	});

	it('exports the view as SVG and PNG', async () => {
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await page.getByTestId('fit-all').click();
		for (const [id, name] of [
			['export-svg', 'canvas.svg'],
			['export-png', 'canvas.png']
		]) {
			const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(id).click()]);
			expect(dl.suggestedFilename()).toBe(name);
			const file = path.join(screenshotDir, `export-${name}`);
			await dl.saveAs(file);
			const bytes = readFileSync(file);
			if (name.endsWith('.svg')) {
				const text = bytes.toString('utf8');
				expect(text).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
				// The cards' own text is in the drawing, as text, and the edges as stroked paths.
				expect(text).toMatch(/<text[^>]*>stg_orders<\/text>/);
				expect(text).toMatch(/<g class="edges" fill="none" stroke="#[0-9a-f]+"/);
				expect(text).not.toMatch(/foreignObject/i);
			} else {
				expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
				// Width from the IHDR chunk: the whole graph's width at twice the pixels.
				expect(bytes.readUInt32BE(16)).toBeGreaterThan(1000);
				expect(bytes.readUInt32BE(20)).toBeGreaterThan(400);
			}
		}
		expect(errors).toEqual([]);
		await page.close();
	});
});
