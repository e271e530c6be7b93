// Every canvas page opens fitted and unobstructed, in Chromium against the built app and the demo
// workspace: the cards the page frames (the whole graph when it reads at 11 px, else what matters:
// a run's failures and their neighbours, a preview's changes, a deep link's node) lie inside the
// canvas, under none of its panels (toolbar, minimap, zoom buttons), the page's toolbar or a side
// pane, and their text renders at 11 px or more. What must be framed is named here from the page
// itself (a failed card, an added model, the linked node), not taken from the canvas's own claim.
// Screenshots at 1440×900 and 1280×720 go to docs/screenshots/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import { apiLogin, launchBrowser, startApp, type RunningApp } from './server';
import { Api, deployProject, openCanvas, scratchFile, seededRuns, signedInContext, useDemoBrowser, watchErrors } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');
const SIZES = [
	{ width: 1440, height: 900 },
	{ width: 1280, height: 720 }
] as const;

interface FrameCheck {
	/** The ids the canvas frames (its `data-framed`). */
	framed: string[];
	/** Cards of the cut, and whether the whole cut is framed. */
	cards: number;
	/** Framed cards missing from the DOM, outside the canvas, or under something. */
	bad: string[];
	/** The smallest framed card text, in screen pixels. */
	textPx: number;
}

/**
 * Checks the canvas's framed set as drawn: each framed card is in the DOM, inside the canvas
 * element, and clear of every panel over the flow, the page's toolbar and the side panes.
 */
async function checkFrame(page: Page): Promise<FrameCheck> {
	return (await page.evaluate(`(() => {
		const canvas = document.querySelector('[data-testid=canvas]');
		const box = canvas.getBoundingClientRect();
		const framed = JSON.parse(canvas.getAttribute('data-framed') || '[]');
		const covers = [
			...canvas.querySelectorAll('.svelte-flow__panel'),
			...document.querySelectorAll('[data-testid=canvas-dock], .view > .toolbar, [data-testid=details-pane], .grid > .side, .canvas .impact-slot')
		].map((el) => ({ el: el.className || el.getAttribute('data-testid'), r: el.getBoundingClientRect() })).filter((c) => c.r.width > 0 && c.r.height > 0);
		const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
		const bad = [];
		let textPx = Infinity;
		for (const id of framed) {
			const node = [...canvas.querySelectorAll('.svelte-flow__node')].find((n) => n.getAttribute('data-id') === id);
			if (!node) { bad.push(id + ': not drawn'); continue; }
			const r = node.getBoundingClientRect();
			if (r.left < box.left - 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) bad.push(id + ': outside the canvas');
			for (const c of covers) if (hit(r, c.r)) bad.push(id + ': under ' + c.el);
			const card = node.querySelector('[data-testid=card], [data-testid=group-card]');
			if (!card) continue;
			const zoom = r.width / card.offsetWidth;
			for (const el of card.querySelectorAll('span')) {
				if (!el.textContent.trim() || el.getBoundingClientRect().width === 0) continue;
				textPx = Math.min(textPx, parseFloat(getComputedStyle(el).fontSize) * zoom);
			}
		}
		return { framed, cards: Number(canvas.getAttribute('data-cards')), bad, textPx };
	})()`)) as FrameCheck;
}

/** The canvas node id of the card showing `relationPath` (a card of its own, drawn or not). */
async function nodeIdOf(page: Page, relationPath: string): Promise<string | null> {
	return page.evaluate(`(() => {
		const card = document.querySelector('[data-testid=card][data-path=${JSON.stringify(relationPath)}]');
		return card?.closest('.svelte-flow__node')?.getAttribute('data-id') ?? null;
	})()`) as Promise<string | null>;
}

/**
 * At both sizes, a fresh load (the first view is what is checked, not a resize of it): the
 * framed set is drawn clear of everything, readable, holds `must` (each a node id or a function
 * naming them on the page), and is the whole cut when `whole`. Screenshots as `name`.
 */
async function fittedAtBothSizes(page: Page, url: string, name: string, o: { must?: (page: Page) => Promise<string[]>; ready?: (page: Page) => Promise<void> } = {}) {
	mkdirSync(DOCS_SHOTS, { recursive: true });
	for (const size of SIZES) {
		await page.setViewportSize(size);
		await openCanvas(page, url);
		await o.ready?.(page);
		// The panels measured after mount may move the view once; let that land.
		await page.waitForTimeout(500);
		const f = await checkFrame(page);
		expect(f.framed.length, `${name} ${size.width}: something framed`).toBeGreaterThan(0);
		expect(f.bad, `${name} ${size.width}: framed cards drawn badly`).toEqual([]);
		expect(f.textPx, `${name} ${size.width}: smallest framed text`).toBeGreaterThanOrEqual(11);
		for (const id of (await o.must?.(page)) ?? []) expect(f.framed, `${name} ${size.width}: ${id} framed`).toContain(id);
		await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}-${size.width}.png`) });
	}
	await page.setViewportSize(SIZES[0]);
}

describe('canvases open fitted and unobstructed (chromium, built app, demo workspace)', () => {
	const stage = useDemoBrowser();

	it('the pipeline page: the whole graph when it reads at 11 px, else the densest part, clear of the panels', async () => {
		const page = await stage.member.newPage();
		const errors = watchErrors(page);
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/pipeline/demo`, 'canvas-fit-pipeline');
		const f = await checkFrame(page);
		// More than a token few cards: the frame is a working view, not one card at a time.
		expect(f.framed.length).toBeGreaterThan(5);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('a deep link frames its node, and opening or closing the pane keeps it in view', async () => {
		const page = await stage.member.newPage();
		const errors = watchErrors(page);
		const orders = 'dbt:main/analytics/orders';
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/pipeline/demo?select=${encodeURIComponent(orders)}`, 'canvas-fit-deep-link', { must: async () => [orders] });
		// Close the pane (Esc) and select another card: each stays framed.
		await page.keyboard.press('Escape');
		await page.waitForTimeout(400);
		expect((await checkFrame(page)).bad).toEqual([]);
		// Another relation framed on the right-hand side (where the pane opens) is clicked.
		const rightmost = (await page.evaluate(`(() => {
			const framed = JSON.parse(document.querySelector('[data-testid=canvas]').getAttribute('data-framed'));
			const nodes = [...document.querySelectorAll('.svelte-flow__node')].filter((n) => framed.includes(n.getAttribute('data-id')) && n.querySelector('[data-testid=card]') && n.getAttribute('data-id') !== ${JSON.stringify(orders)});
			nodes.sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right);
			return nodes[0]?.getAttribute('data-id') ?? null;
		})()`)) as string | null;
		expect(rightmost).not.toBeNull();
		const other = rightmost!;
		await page.locator(`.svelte-flow__node[data-id="${other}"] [data-testid=card]`).click();
		await page.getByTestId('details-pane').waitFor();
		await page.waitForTimeout(500);
		const within = await page.evaluate(`(() => {
			const canvas = document.querySelector('[data-testid=canvas]').getBoundingClientRect();
			const node = [...document.querySelectorAll('.svelte-flow__node')].find((n) => n.getAttribute('data-id') === ${JSON.stringify(other)}).getBoundingClientRect();
			const pane = document.querySelector('[data-testid=details-pane]').getBoundingClientRect();
			return node.left >= canvas.left && node.right <= canvas.right && node.top >= canvas.top && node.bottom <= canvas.bottom && node.right <= pane.left;
		})()`);
		expect(within).toBe(true);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('a failed run frames its failed nodes with their neighbours, clear of the result pane', async () => {
		const runId = (await seededRuns(stage.api)).failed;
		const page = await stage.member.newPage();
		const errors = watchErrors(page);
		const failedIds = (p: Page) => p.locator('.svelte-flow__node:has(.card.st-failed)').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/run/${runId}`, 'canvas-fit-run-failed', {
			ready: async (p) => {
				await expect.poll(() => p.getByTestId('run-status').textContent()).toBe('failure');
				await expect.poll(() => p.locator('.card.st-failed').count()).toBeGreaterThan(0);
			},
			must: failedIds
		});
		expect((await failedIds(page)).length).toBeGreaterThan(0);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it("a preview's run page frames what it adds, removes and modifies", async () => {
		const preview = (await seededRuns(stage.api)).preview;
		const page = await stage.member.newPage();
		const errors = watchErrors(page);
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/run/${preview}`, 'canvas-fit-preview', {
			ready: async (p) => {
				await expect.poll(() => p.locator('[data-testid=diff-summary]').textContent(), { timeout: 20_000 }).toContain('1 added');
			},
			// The seed's preview adds store_daily_revenue (tests/e2e/diff.test.ts checks the diff itself).
			must: async (p) => {
				await expect.poll(() => nodeIdOf(p, 'main/analytics/store_daily_revenue'), { timeout: 10_000 }).not.toBeNull();
				return [(await nodeIdOf(p, 'main/analytics/store_daily_revenue'))!];
			}
		});
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it('a public share link of the failed run opens framed on its failures too', async () => {
		const runId = (await seededRuns(stage.api)).failed;
		const link = await stage.api.ok('GET', `/api/w/demo/jobs/share/${runId}?kind=public`);
		const stranger = await stage.browser.newContext({ viewport: SIZES[0] });
		const page = await stranger.newPage();
		const errors = watchErrors(page);
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/run/${runId}?view_token=${link.token}`, 'canvas-fit-share-link', {
			ready: async (p) => {
				await expect.poll(() => p.locator('.card.st-failed').count()).toBeGreaterThan(0);
			},
			must: (p) => p.locator('.svelte-flow__node:has(.card.st-failed)').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!))
		});
		expect(errors).toEqual([]);
		await stranger.close();
	}, 120_000);

	it("the project page's diff frames the changed models", async () => {
		const page = await stage.member.newPage();
		const errors = watchErrors(page);
		await fittedAtBothSizes(page, `${stage.app.url}/w/demo/dbt/f/demo/shop`, 'canvas-fit-project-diff', {
			ready: async (p) => {
				await expect.poll(() => p.locator('[data-testid=diff-summary]').textContent(), { timeout: 20_000 }).toMatch(/added/);
			},
			must: async (p) => {
				const id = await nodeIdOf(p, 'main/analytics/store_daily_revenue');
				return id ? [id] : [];
			}
		});
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);
});

describe('a live run opens framed on its running nodes (chromium, built app, stand-in dbt)', () => {
	let app: RunningApp;
	let api: Api;

	beforeAll(async () => {
		app = await startApp({ DBT_BIN: path.resolve('tests/support/fake-dbt/dbt.mjs') });
		api = new Api(app.url, await apiLogin(app.url));
		const project = await generateProject();
		const log = scratchFile('dbt.log', project.eventLog);
		const manifest = scratchFile('manifest.json', JSON.stringify(project.manifest));
		// Slow enough that the page opens while models run (as tests/e2e/live-run.test.ts).
		const scenario = { speed: 0.3, maxGapMs: 1500, commands: { build: { log, manifest }, parse: { manifest } } };
		await deployProject(api, project, 'f/demo/live', { extraFiles: new Map([['fake-dbt.json', JSON.stringify(scenario)]]) });
	}, 180_000);

	afterAll(async () => {
		await app?.stop();
	});

	it('the running nodes are framed as the run goes, clear of the panels', async () => {
		const browser = await launchBrowser();
		try {
			const ctx = await signedInContext(browser, app.url, api.cookie);
			const page = await ctx.newPage();
			const errors = watchErrors(page);
			mkdirSync(DOCS_SHOTS, { recursive: true });
			for (const size of SIZES) {
				const queued = await api.ok('POST', '/api/w/demo/jobs/run/p/f/demo/live', { command: 'build' });
				await page.setViewportSize(size);
				await openCanvas(page, `${app.url}/w/demo/run/${queued.job_id}`);
				await expect.poll(() => page.locator('.card.st-running').count(), { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
				await page.waitForTimeout(400);
				const f = await checkFrame(page);
				expect(f.bad, `${size.width}: framed cards drawn badly`).toEqual([]);
				expect(f.textPx).toBeGreaterThanOrEqual(11);
				// Whatever runs now is on screen: framed, or the whole cut is.
				const running = await page.locator('.svelte-flow__node:has(.card.st-running)').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
				const shownNow = await checkFrame(page);
				expect(running.some((id) => shownNow.framed.includes(id)), `${size.width}: a running node framed`).toBe(true);
				await page.screenshot({ path: path.join(DOCS_SHOTS, `canvas-fit-run-live-${size.width}.png`) });
				await api.ok('POST', `/api/w/demo/jobs/cancel/${queued.job_id}`);
			}
			expect(errors).toEqual([]);
			await ctx.close();
		} finally {
			await browser.close();
		}
	}, 300_000);
});
