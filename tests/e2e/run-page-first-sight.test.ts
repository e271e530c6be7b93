// The run page and the workspace page at first sight, in Chromium against the built app and the
// demo workspace: a failed run explains itself (a legend, a result pane whose every box stays
// inside it, no resume on a recorded run), a share-link viewer is told why it failed without a
// word of its SQL, and the workspace page lists the projects with the counts their project page
// shows. Screenshots at 1440×900 and 1280×720 go to docs/screenshots/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { canRunRealDbt } from '../support/real-dbt';
import { gotoHydrated } from './server';
import { openCanvas, seededRuns, useDemoBrowser, watchErrors } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');
const SIZES = [
	{ width: 1440, height: 900 },
	{ width: 1280, height: 720 }
] as const;

async function docShot(page: Page, name: string): Promise<void> {
	mkdirSync(DOCS_SHOTS, { recursive: true });
	for (const size of SIZES) {
		await page.setViewportSize(size);
		// Let the layout settle at the new size (the canvas refits on resize).
		await page.waitForTimeout(400);
		await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}-${size.width}.png`) });
	}
	await page.setViewportSize(SIZES[0]);
}

/**
 * Every box in the result pane that pokes out of it (right edge past the pane's), and every
 * table cell whose content is wider than the cell (clipped); outcome pills may truncate (their
 * title says it) and are not counted.
 */
async function overflowIn(page: Page): Promise<{ pane: { scroll: number; client: number }; outside: string[]; clipped: string[] }> {
	return page.evaluate(`(() => {
		const side = document.querySelector('[data-testid=results]').closest('.side');
		const edge = side.getBoundingClientRect().right;
		const outside = [];
		for (const el of side.querySelectorAll('*')) {
			const r = el.getBoundingClientRect();
			if (r.width === 0) continue;
			if (r.right > edge + 0.5) outside.push(el.tagName + '.' + el.className + ': ' + (el.textContent || '').slice(0, 60) + ' right ' + r.right + ' > ' + edge);
		}
		const clipped = [];
		for (const td of side.querySelectorAll('td')) {
			if (td.scrollWidth > td.clientWidth + 1) clipped.push((td.textContent || '').slice(0, 60) + ': ' + td.scrollWidth + ' > ' + td.clientWidth);
		}
		return { pane: { scroll: side.scrollWidth, client: side.clientWidth }, outside, clipped };
	})()`);
}

describe('the run page explains itself; the workspace page lists projects (chromium, built app, demo)', () => {
	const stage = useDemoBrowser();

	it('a failed run: a legend, a result pane that never overflows, no resume of a recorded run', async () => {
		const { app, api, member } = stage;
		const runId = (await seededRuns(api)).failed;
		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${runId}`);
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');

		// The legend names every node state and every test mark.
		const legend = page.getByTestId('run-legend');
		await expect.poll(() => legend.isVisible()).toBe(true);
		const legendText = await legend.textContent();
		for (const word of ['running', 'built', 'failed', 'warned', 'skipped', 'not in this run', 'all passed', 'a test failed', 'a test warned', 'a test was skipped']) {
			expect(legendText).toContain(word);
		}
		expect(await legend.locator('[data-test-mark]').allTextContents()).toEqual(['✓all passed', '✗a test failed', '!a test warned', '·a test was skipped']);

		// A card's test badge carries the mark its tests earned in THIS run, and no ✓ without a result.
		const badges = await page.locator('[data-testid=card-tests]').evaluateAll((els) => els.map((e) => ({ state: e.getAttribute('data-tests'), text: e.textContent ?? '' })));
		expect(badges.length).toBeGreaterThan(0);
		const marks: Record<string, string> = { pass: '✓', fail: '✗', warn: '!', skip: '·' };
		for (const b of badges) {
			if (b.state === 'none') expect(b.text).not.toMatch(/[✓✗!·]\d/);
			else expect(b.text.startsWith(marks[b.state!]), JSON.stringify(b)).toBe(true);
		}
		expect(badges.some((b) => b.state === 'fail')).toBe(true);

		// A member reads dbt's own message.
		await expect.poll(() => page.locator('tr.msg pre').first().textContent()).toMatch(/^Runtime Error in model \w+ \(models\/.*\)\n {2}Binder Error: Referenced column/);

		// Nothing in the result pane pokes out of it, at either size.
		for (const size of SIZES) {
			await page.setViewportSize(size);
			await page.waitForTimeout(300);
			const o = await overflowIn(page);
			expect(o.outside, `${size.width}: boxes outside the pane`).toEqual([]);
			expect(o.clipped, `${size.width}: clipped cells`).toEqual([]);
			expect(o.pane.scroll, `${size.width}: the pane scrolls sideways`).toBeLessThanOrEqual(o.pane.client);
		}
		await page.setViewportSize(SIZES[0]);
		// Long test names break at their words: each name cell holds its pieces split after _ and .
		const longName = page.locator('td.node .name').filter({ hasText: /^relationships_/ }).first();
		expect(await longName.locator('wbr').count()).toBeGreaterThan(2);

		// A recorded run ran elsewhere: never "Resume this run"; an offer, where the project can run
		// here, says what it will do before it is pressed.
		expect(await page.getByRole('button', { name: 'Resume this run' }).count()).toBe(0);
		const offer = page.getByTestId('run-offer');
		if (await offer.count()) {
			expect(await offer.textContent()).toBe('Run it here');
			expect(await page.getByTestId('run-offer-explains').textContent()).toMatch(/recorded elsewhere, so it cannot be resumed\. This starts dbt build of f\/demo\/shop/);
		}
		await docShot(page, 'run-failed');
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a share-link viewer of the failed run sees why it failed, and none of its SQL', async () => {
		const { app, api, browser } = stage;
		const runId = (await seededRuns(api)).failed;
		const link = await api.ok('GET', `/api/w/demo/jobs/share/${runId}?kind=public`);
		const stranger = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await stranger.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${runId}?view_token=${link.token}`);
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');
		const reasons = await page.getByTestId('failure-reason').allTextContents();
		expect(reasons).toContain('Runtime error in model orders: a referenced column was not found');
		// The result pane as the stranger sees it: no message, no quoted SQL, no file path.
		const pane = (await page.getByTestId('results').textContent()) ?? '';
		for (const secret of ['Binder Error', '_old', 'models/', 'Candidate bindings', 'FROM clause']) expect(pane).not.toContain(secret);
		expect(await page.locator('tr.msg pre').count()).toBe(0);
		expect(await page.getByTestId('messages-withheld').isVisible()).toBe(true);
		// Nothing to start from a link.
		expect(await page.getByTestId('run-offer').count()).toBe(0);
		const o = await overflowIn(page);
		expect(o.outside).toEqual([]);
		await docShot(page, 'run-shared-reason');
		expect(errors).toEqual([]);
		await stranger.close();
	});

	it('the workspace page lists the projects with the node counts of their project pages, and names its runs', async () => {
		const { app, member } = stage;
		const page = await member.newPage();
		const errors = watchErrors(page);
		await gotoHydrated(page, `${app.url}/w/demo`);
		const rows = page.locator('[data-testid=projects] tbody tr');
		await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
		const listed = await rows.evaluateAll((trs) =>
			trs.map((tr) => ({
				path: tr.getAttribute('data-path')!,
				language: tr.getAttribute('data-language')!,
				href: tr.querySelector('[data-testid=project-link]')?.getAttribute('href') ?? null,
				nodes: tr.querySelector('[data-testid=project-nodes]')?.getAttribute('data-nodes') ?? null,
				lastRun: tr.querySelector('[data-testid=project-last-run]')?.getAttribute('href') ?? null
			}))
		);
		const dbt = listed.filter((p) => p.language === 'dbt');
		const producers = listed.filter((p) => p.language !== 'dbt');
		expect(dbt.map((p) => p.path)).toContain('f/demo/shop');
		expect(producers.length).toBeGreaterThanOrEqual(2);
		// Every row of a kind links the same way.
		for (const p of dbt) expect(p.href).toBe(`/w/demo/dbt/${p.path}`);
		for (const p of producers) expect(p.href).toBe(`/w/demo/pipeline/${p.path.split('/')[1]}?select=${encodeURIComponent(`script:${p.path}`)}`);
		const shop = dbt.find((p) => p.path === 'f/demo/shop')!;
		expect(shop.lastRun).toMatch(/^\/w\/demo\/run\/[0-9a-f-]{36}$/);
		// Both tables stay inside the page column at either size.
		for (const size of SIZES) {
			await page.setViewportSize(size);
			const over = await page.evaluate(`(() => {
				const column = document.querySelector('main.page').getBoundingClientRect().right;
				return [...document.querySelectorAll('[data-testid=projects], [data-testid=recent-runs]')].map((t) => t.getBoundingClientRect().right - column).filter((d) => d > 0.5);
			})()`);
			expect(over, `${size.width}: tables past the page column`).toEqual([]);
		}
		await page.setViewportSize(SIZES[0]);
		await docShot(page, 'workspace-projects');

		// Recent runs are named by what they did and when, never by a bare id.
		const runLinks = await page.locator('[data-testid=run-link]').allTextContents();
		expect(runLinks.length).toBeGreaterThan(0);
		for (const label of runLinks) {
			expect(label).not.toMatch(/^[0-9a-f]{8}$/);
			expect(label).toMatch(/^[A-Za-z][\w -]* · \d{1,2} \w{3},? \d{2}:\d{2}$/);
		}

		// The first visit can start a real run from here (the demo runs on its embedded DuckDB)
		// where this server can start dbt; the button is not offered where it cannot.
		const run = page.locator('[data-testid=projects] tr[data-path="f/demo/shop"] [data-testid=project-run]');
		if (!canRunRealDbt) {
			expect(await run.count()).toBe(0);
		} else {
			expect(await run.getAttribute('title')).toMatch(/^dbt build of f\/demo\/shop \(version [0-9a-f]{12}\) here/);
			await run.click();
			await page.waitForURL(/\/w\/demo\/run\/[0-9a-f-]{36}$/, { timeout: 60_000 });
			const id = new URL(page.url()).pathname.split('/').at(-1)!;
			const job = await stage.api.ok('GET', `/api/w/demo/jobs/get/${id}`);
			expect(job).toMatchObject({ kind: 'run', script_path: 'f/demo/shop', args: { command: 'build' } });
			// Its live colouring is the real-run journey's (demo-real-run.test.ts); stop it here.
			await stage.api.ok('POST', `/api/w/demo/jobs/cancel/${id}`);
			await gotoHydrated(page, `${app.url}/w/demo`);
		}

		// The project page's live version says the same node count.
		await gotoHydrated(page, `${app.url}${shop.href}`);
		const current = page.locator('[data-testid=versions] tr.current td.num').first();
		await expect.poll(() => current.textContent()).toBe(shop.nodes);
		expect(Number(shop.nodes)).toBeGreaterThan(10);
		expect(errors).toEqual([]);
		await page.close();
	});
});
