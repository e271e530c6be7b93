// Issue 14, item 5 / finding 14, against the BUILT app: the security headers on a page, an API
// answer, an error page, a share-link page and its page data; and in Chromium, the pages still
// work under their Content-Security-Policy (kit's inline hydration script, xyflow's canvas, the
// login form) with no violation reported.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin, gotoHydrated, launchBrowser, startApp, type RunningApp } from './server';
import { Api, seededRuns } from './support';

const COMMON = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'same-origin',
	'x-frame-options': 'DENY'
};

/** The policy as directive → sources. */
function directives(csp: string | null): Record<string, string[]> {
	return Object.fromEntries(
		(csp ?? '')
			.split(';')
			.map((d) => d.trim().split(/\s+/))
			.filter((d) => d[0])
			.map(([name, ...sources]) => [name, sources])
	);
}

/** Records every CSP violation the page reports, from before its first script runs. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
	const fromConsole: string[] = [];
	page.on('console', (m) => /Content Security Policy/i.test(m.text()) && fromConsole.push(m.text()));
	await page.addInitScript(() => {
		const seen: string[] = [];
		(window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
		document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
	});
	return async () => [...fromConsole, ...(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations))];
}

describe('security headers (built app, chromium)', () => {
	let app: RunningApp;
	let api: Api;
	let browser: Browser;
	let shareUrl: string;

	beforeAll(async () => {
		app = await startApp();
		api = new Api(app.url, await apiLogin(app.url));
		const { failed } = await seededRuns(api);
		shareUrl = (await api.ok('GET', `/api/w/demo/jobs/share/${failed}?kind=public`)).url;
		browser = await launchBrowser();
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	const get = (p: string, cookie?: string) => fetch(`${app.url}${p}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });

	it.each<[string, (cookie: string) => string, number, 'page' | 'data']>([
		['the login page', () => '/login', 200, 'page'],
		['a signed-in page', () => '/w/demo/pipeline/demo', 200, 'page'],
		['an error page', () => '/w/demo/no-such-page', 404, 'page'],
		['a share-link page, without a session', () => shareUrl, 200, 'page'],
		['the share-link page data', () => shareUrl.replace('?', '/__data.json?'), 200, 'data'],
		['an API answer', () => '/api/w/demo/assets/graph?folder=demo&fields=shape', 200, 'data'],
		['an API error answer', () => '/api/w/demo/jobs/get/00000000-0000-0000-0000-000000000000', 404, 'data'],
		['a redirect to the sign-in page', () => '/w/demo', 303, 'data']
	])('%s', async (name, path, status, kind) => {
		const signedIn = !name.includes('share') && !name.includes('redirect') && name !== 'the login page';
		const r = await get(path(api.cookie), signedIn ? api.cookie : undefined);
		expect(r.status).toBe(status);
		for (const [k, v] of Object.entries(COMMON)) expect(r.headers.get(k), k).toBe(v);
		const csp = directives(r.headers.get('content-security-policy'));
		expect(csp['frame-ancestors']).toEqual(["'none'"]);
		if (kind === 'data') {
			expect(csp['default-src']).toEqual(["'none'"]);
			return;
		}
		// Only the app's own scripts, plus this answer's nonce for kit's inline hydration script.
		const scripts = csp['script-src'];
		expect(scripts).toContain("'self'");
		expect(scripts.filter((s) => s !== "'self'")).toEqual([expect.stringMatching(/^'nonce-[A-Za-z0-9+/=]{16,}'$/)]);
		expect(csp['style-src']).toEqual(["'self'"]);
		expect(csp['default-src']).toEqual(["'self'"]);
		expect(csp['object-src']).toEqual(["'none'"]);
		const html = await r.text();
		const nonce = scripts.find((s) => s.startsWith("'nonce-"))!.slice(7, -1);
		const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
		expect(inline.length).toBeGreaterThan(0);
		for (const [, attrs] of inline) expect(attrs).toContain(`nonce="${nonce}"`);
		// A fresh nonce per answer.
		const again = directives((await get(path(api.cookie), signedIn ? api.cookie : undefined)).headers.get('content-security-policy'));
		expect(again['script-src']).not.toEqual(scripts);
	});

	it('signing in through the form, the canvas and a share link all work with no CSP violation', async () => {
		const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await ctx.newPage();
		const violations = await watchViolations(page);
		await gotoHydrated(page, `${app.url}/login?next=${encodeURIComponent('/w/demo/pipeline/demo')}`);
		await page.getByLabel('Username').fill('admin');
		await page.getByLabel('Password').fill('correct horse battery staple');
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.waitForURL(/\/w\/demo\/pipeline\/demo/);
		// xyflow draws the cards in the browser and places them through style attributes.
		const cards = page.locator('[data-testid=card]');
		await cards.first().waitFor({ timeout: 60_000 });
		const boxes = await Promise.all([0, 1].map(async (i) => (await cards.nth(i).boundingBox())!));
		expect(boxes[0].width).toBeGreaterThan(20);
		expect(boxes[0].x !== boxes[1].x || boxes[0].y !== boxes[1].y).toBe(true);
		// The demo folder holds two projects; the first view frames one region of it.
		await page.getByTestId('fit-all').click();
		await page.locator('[data-testid=card][data-path="main/analytics/orders"]').click();
		await expect.poll(() => page.getByTestId('details-pane').count()).toBe(1);
		// The selection's highlight (a style generated in the browser) dims the cards outside it.
		const dimmed = () => page.$$eval('.svelte-flow__node', (els) => els.filter((e) => getComputedStyle(e).opacity === '0.22').length);
		await expect.poll(dimmed).toBeGreaterThan(0);
		expect(await violations()).toEqual([]);
		await ctx.close();

		const stranger = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const shared = await stranger.newPage();
		const sharedViolations = await watchViolations(shared);
		await shared.goto(`${app.url}${shareUrl}`);
		await expect.poll(() => shared.getByTestId('run-status').textContent()).toBe('failure');
		await shared.locator('[data-testid=card]').first().waitFor({ timeout: 60_000 });
		expect(await sharedViolations()).toEqual([]);
		await stranger.close();
	});

	it('a page cannot be framed by another site', async () => {
		const ctx = await browser.newContext();
		const page = await ctx.newPage();
		// Another site's page framing the sign-in form (clickjacking).
		await page.route('http://evil.test/**', (r) =>
			r.fulfill({ contentType: 'text/html', body: `<iframe src="${app.url}/login"></iframe>` })
		);
		await page.goto('http://evil.test/');
		const framed = () => page.frames().find((f) => f !== page.mainFrame());
		await expect.poll(() => framed()?.url() ?? '').toMatch(/^chrome-error:/);
		expect(await framed()!.locator('input[name=password]').count()).toBe(0);
		await ctx.close();
	});
});
