// Deep links as a user shares them, in Debian's Chromium against the built app and its demo
// data: `?select=<node id>&column=<column>` opens the pipeline and the run page on a relation
// with a column traced, the address bar follows clicks (replaceState) and reloads to the same
// state, a share link keeps its token beside them, and a link naming what this viewer's graph
// does not hold (missing, hidden, or hostile markup) opens the page with one notice.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/lib/server/demo/generator';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, deployProject, openCanvas, seededRuns, shot, signedInContext, watchErrors } from './support';

const ORDERS = 'dbt:main/analytics/orders';
const NOT_FOUND_RELATION = 'The linked relation was not found in this graph.';

const link = (base: string, params: Record<string, string>) => {
	const u = new URL(base);
	for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
	return u.href;
};

/** The pane's trace has exactly `column` of `asset` pressed, every other column not. */
async function expectTraced(pane: Locator, asset: string, column: string): Promise<void> {
	const col = pane.locator(`.col[data-asset="${asset}"][data-column="${column}"]`);
	await expect.poll(() => col.getAttribute('aria-pressed')).toBe('true');
	expect(await pane.locator('.col[aria-pressed="true"]').count()).toBe(1);
	const all = await pane.locator('.col').count();
	expect(all).toBeGreaterThan(5);
	expect(await pane.locator('.col[aria-pressed="false"]').count()).toBe(all - 1);
}

const params = (page: Page) => new URL(page.url()).searchParams;

/** A link's traced column opens on screen, not below the pane's fold or the trace's scroll. */
const onScreen = (col: Locator) =>
	col.evaluate((el) => {
		const r = el.getBoundingClientRect();
		const s = el.closest('.scroll')!.getBoundingClientRect();
		return r.top >= Math.max(0, s.top) && r.bottom <= Math.min(innerHeight, s.bottom) && r.left >= s.left && r.right <= s.right;
	});

describe('deep links (chromium, built app, demo workspace)', () => {
	let app: RunningApp;
	let browser: Browser;
	let api: Api;
	let admin: BrowserContext;
	let runId: string;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		runId = (await seededRuns(api)).failed;
		browser = await launchBrowser();
		admin = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('a pipeline link opens the relation traced on its column; a click rewrites column=, a reload restores it, clearing and selecting drop it', async () => {
		const page = await admin.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, link(`${app.url}/w/demo/pipeline/demo`, { select: ORDERS, column: 'amount' }));
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getAttribute('data-path')).toBe('main/analytics/orders');
		await expect.poll(() => pane.getByTestId('relation-header').textContent()).toContain('models/marts/orders.sql');
		await expectTraced(pane, 'main/analytics/orders', 'amount');
		// The trace is lit: amount's upstream stays, the rest dims.
		expect(await pane.locator('.col.dim').count()).toBeGreaterThan(0);
		expect(await pane.locator('.col:not(.dim)[data-asset="main/analytics/stg_orders"]').count()).toBeGreaterThan(0);
		expect(await page.getByTestId('deep-link-notice').textContent()).toBe('');
		await shot(page, 'deep-link-pipeline');

		// Another column: the address bar says so, without a reload.
		await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
		await pane.locator('.col[data-asset="main/analytics/orders"][data-column="order_id"]').click();
		await expect.poll(() => params(page).get('column')).toBe('order_id');
		expect(params(page).get('select')).toBe(ORDERS);
		expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);

		// A column of another relation in the trace is named with its relation.
		await pane.locator('.col[data-asset="main/analytics/stg_orders"][data-column="order_id"]').first().click();
		await expect.poll(() => params(page).get('column')).toBe('dbt:main/analytics/stg_orders.order_id');
		const shared = page.url();

		await page.reload();
		await page.locator('[data-testid=card]').first().waitFor({ timeout: 60_000 });
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path')).toBe('main/analytics/orders');
		await expectTraced(page.getByTestId('details-pane'), 'main/analytics/stg_orders', 'order_id');
		await expect.poll(() => onScreen(page.locator('.col[data-asset="main/analytics/stg_orders"][data-column="order_id"]'))).toBe(true);
		expect(page.url()).toBe(shared);

		await page.getByTestId('details-pane').getByRole('button', { name: 'Clear trace' }).click();
		await expect.poll(() => params(page).has('column')).toBe(false);
		expect(params(page).get('select')).toBe(ORDERS);
		await pane.locator('.col[data-asset="main/analytics/orders"][data-column="amount"]').click();
		await expect.poll(() => params(page).get('column')).toBe('amount');
		await page.locator('[data-testid=card][data-path="main/analytics/customers"]').click();
		await expect.poll(() => params(page).get('select')).toBe('dbt:main/analytics/customers');
		expect(params(page).has('column')).toBe(false);
		expect(await page.locator('.col[aria-pressed="true"]').count()).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a run page link opens the same way, and a click rewrites it', async () => {
		const page = await admin.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, link(`${app.url}/w/demo/run/${runId}`, { select: ORDERS, column: 'amount' }));
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getAttribute('data-path')).toBe('main/analytics/orders');
		await expectTraced(pane, 'main/analytics/orders', 'amount');
		await expect.poll(() => onScreen(pane.locator('.col[data-asset="main/analytics/orders"][data-column="amount"]'))).toBe(true);
		await shot(page, 'deep-link-run');
		await pane.locator('.col[data-asset="main/analytics/orders"][data-column="order_id"]').click();
		await expect.poll(() => params(page).get('column')).toBe('order_id');
		expect(new URL(page.url()).pathname).toBe(`/w/demo/run/${runId}`);
		expect(errors).toEqual([]);
		await page.close();
	});

	it('a share link keeps working with select= and column=: its token stays, the column is ignored without a notice', async () => {
		const share = await api.ok('GET', `/api/w/demo/jobs/share/${runId}?kind=public`);
		const token = new URL(share.url, app.url).searchParams.get('view_token')!;
		const stranger = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await stranger.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, link(`${app.url}${share.url}`, { select: ORDERS, column: 'amount' }));
		await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('failure');
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getAttribute('data-path')).toBe('main/analytics/orders');
		await expect.poll(() => pane.getByTestId('restricted').textContent()).toMatch(/share link/);
		await page.waitForTimeout(500);
		expect(await page.getByTestId('deep-link-notice').textContent()).toBe('');
		expect(await page.locator('[data-testid=column-trace], .col').count()).toBe(0);
		await shot(page, 'deep-link-share');

		await page.getByTestId('fit-all').click();
		await page.locator('[data-testid=card][data-path="main/analytics/customers"]').click();
		await expect.poll(() => params(page).get('select')).toBe('dbt:main/analytics/customers');
		expect(params(page).get('view_token')).toBe(token);
		expect(params(page).has('column')).toBe(false);
		await page.reload();
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path'), { timeout: 60_000 }).toBe('main/analytics/customers');
		expect(errors).toEqual([]);
		await stranger.close();
	});

	it.each([
		['a node that does not exist', 'dbt:main/analytics/no_such_relation', 'deep-link-not-found'],
		['hostile markup', '"><img src=x>', 'deep-link-hostile'],
		['quotes, spaces and unicode', `it's a "caf\u00e9" \u{1F600}`, null]
	])('select= of %s: the page opens with its cards and the notice', async (_, select, screenshot) => {
		const page = await admin.newPage();
		const errors = watchErrors(page);
		// Typed into the address bar as is: the browser encodes it its own way (a space as %20).
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo?select=${select}&column=amount`);
		await expect.poll(() => page.getByTestId('deep-link-notice').textContent()).toBe(NOT_FOUND_RELATION);
		expect(await page.getByRole('status').filter({ hasText: NOT_FOUND_RELATION }).getAttribute('aria-live')).toBe('polite');
		expect(await page.locator('[data-testid=card]').count()).toBeGreaterThan(10);
		expect(await page.getByTestId('details-pane').count()).toBe(0);
		expect(await page.locator('img[src=x], img[src="x"]').count()).toBe(0);
		// Left as typed until the viewer selects something, which replaces it.
		expect(params(page).get('select')).toBe(select);
		if (screenshot) await shot(page, screenshot);
		// The demo folder holds two projects; the first view frames one region of it.
		await page.getByTestId('fit-all').click();
		await page.locator('[data-testid=card][data-path="main/analytics/orders"]').click();
		await expect.poll(() => params(page).get('select')).toBe(ORDERS);
		expect(params(page).has('column')).toBe(false);
		await expect.poll(() => page.getByTestId('deep-link-notice').textContent()).toBe('');
		expect(errors).toEqual([]);
		await page.close();
	});

	it('column= naming no column of the relation: the relation opens, nothing traced, the notice says the column', async () => {
		const page = await admin.newPage();
		await openCanvas(page, link(`${app.url}/w/demo/run/${runId}`, { select: ORDERS, column: '"><b>no</b>' }));
		const pane = page.getByTestId('details-pane');
		await expect.poll(() => pane.getAttribute('data-path')).toBe('main/analytics/orders');
		await expect.poll(() => page.getByTestId('deep-link-notice').textContent()).toBe('The linked column was not found in this graph.');
		expect(await pane.locator('.col[aria-pressed="true"]').count()).toBe(0);
		expect(await pane.locator('.col[aria-pressed="false"]').count()).toBeGreaterThan(5);
		await page.close();
	});

	it('a member who cannot read a folder gets for its relation exactly what a missing one gets', async () => {
		// A project in a folder only admins read, and a member who reads the demo folder.
		await api.ok('POST', '/api/w/demo/folders', { name: 'vault', readers: [], writers: [] });
		await deployProject(api, await generateProject({ models: 6, name: 'vault_project', seed: 9 }), 'f/vault/ledger');
		await api.ok('POST', '/api/w/demo/users', { username: 'erin', password: 'erin-password-1' });
		await api.ok('POST', '/api/w/demo/folders', { name: 'demo', readers: ['u/erin'], writers: [] });
		const vault = await api.ok('GET', '/api/w/demo/assets/graph?folder=vault&fields=shape');
		const secret = (vault.assets as { kind: string; path: string; dbt?: unknown }[]).find((a) => a.kind === 'dbt' && a.dbt)!;
		const hiddenId = `dbt:${secret.path}`;
		const missingId = `dbt:${secret.path.slice(0, secret.path.lastIndexOf('/'))}/no_such_relation`;
		// The admin's own pipeline of that folder opens on it: the relation exists.
		const adminPage = await admin.newPage();
		await openCanvas(adminPage, link(`${app.url}/w/demo/pipeline/vault`, { select: hiddenId }));
		await expect.poll(() => adminPage.getByTestId('details-pane').getAttribute('data-path')).toBe(secret.path);
		await adminPage.close();

		const cookie = await apiLogin(app.url, 'erin', 'erin-password-1');
		const erin = await signedInContext(browser, app.url, cookie);
		const seen: { notice: string | null; cards: (string | null)[]; pane: number; toolbar: string | null }[] = [];
		for (const select of [hiddenId, missingId]) {
			const page = await erin.newPage();
			const errors = watchErrors(page);
			await openCanvas(page, link(`${app.url}/w/demo/pipeline/demo`, { select }));
			await expect.poll(() => page.getByTestId('deep-link-notice').textContent()).toBe(NOT_FOUND_RELATION);
			seen.push({
				notice: await page.getByTestId('deep-link-notice').textContent(),
				cards: (await page.locator('[data-testid=card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).sort(),
				pane: await page.getByTestId('details-pane').count(),
				toolbar: await page.locator('.toolbar').textContent()
			});
			expect(await page.content()).not.toContain(secret.path);
			if (select === hiddenId) await shot(page, 'deep-link-hidden');
			expect(errors).toEqual([]);
			await page.close();
		}
		expect(seen[0]).toEqual(seen[1]);
		expect(seen[0].pane).toBe(0);

		// The server's page is the same too, byte for byte once the value itself and the timings
		// (and a per-response nonce, should there be one) are set aside.
		const html = async (select: string) => {
			const r = await fetch(link(`${app.url}/w/demo/pipeline/demo`, { select }), { headers: { cookie } });
			expect(r.status).toBe(200);
			return (await r.text())
				.replaceAll(select, '<value>')
				.replace(/(graphMs|layoutMs)"?:\s*\d+/g, '$1:0')
				.replace(/graph \d+ ms, layout \d+ ms/g, '')
				.replace(/nonce="[^"]*"/g, '');
		};
		expect(await html(hiddenId)).toBe(await html(missingId));
		await erin.close();
	});
});
