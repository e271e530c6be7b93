// The settings page in real Chromium against the built app: the instance admin signs in with the
// password generated at first start, changes it, signs out and back in with the new one (the
// old one no longer works); edits a folder's readers with the keyboard only; revokes a token.
// Screenshots at 1440×900 and 1280×720 go to docs/screenshots/ (docs/pages.md shows them).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchErrors } from './support';
import { apiLogin, gotoHydrated, launchBrowser, NO_KEEP_ALIVE, startApp, type RunningApp } from './server';

const DOCS_SHOTS = path.resolve('docs/screenshots');
const SIZES = [
	{ width: 1440, height: 900 },
	{ width: 1280, height: 720 }
];
const NEW_PASSWORD = 'a new password for the admin';

describe('the settings page (chromium, built app, embedded database)', () => {
	let app: RunningApp;
	let browser: Browser;
	let page: Page;
	let errors: string[];
	let generated: string;

	const api = async (cookie: string, method: string, url: string, body?: unknown) => {
		const r = await fetch(`${app.url}${url}`, {
			method,
			headers: { ...NO_KEEP_ALIVE, cookie, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body)
		});
		return { status: r.status, body: await r.json() };
	};

	beforeAll(async () => {
		// No password given: the first start generates one and prints it once.
		app = await startApp({ TRIBUTARY_DEMO: '0', TRIBUTARY_ADMIN_PASSWORD: '' });
		const m = /Created instance admin 'admin' with password: (\S+)/.exec(app.output());
		expect(m, app.output()).not.toBeNull();
		generated = m![1];
		const cookie = await apiLogin(app.url, 'admin', generated);
		for (const [method, url, body] of [
			['POST', '/api/workspaces', { id: 'acme', name: 'Acme Analytics' }],
			['POST', '/api/w/acme/users', { username: 'alice', password: 'alice-password-1' }],
			['POST', '/api/w/acme/users', { username: 'bob', password: 'bob-password-1' }],
			['POST', '/api/w/acme/groups', { name: 'analysts', members: ['bob'] }],
			['POST', '/api/w/acme/folders', { name: 'analytics', readers: ['g/analysts'], writers: ['u/admin'] }],
			['POST', '/api/w/acme/folders', { name: 'finance', readers: [], writers: ['u/alice'] }],
			['POST', '/api/w/acme/warehouses', { name: 'main', settings: { type: 'duckdb', path: 'analytics.duckdb', threads: 4, secrets: { MOTHERDUCK_TOKEN: 'md-secret' } } }]
		] as const) {
			const r = await api(cookie, method, url, body);
			expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
		}
		browser = await launchBrowser();
		page = await browser.newPage({ viewport: SIZES[0] });
		errors = watchErrors(page);
		mkdirSync(DOCS_SHOTS, { recursive: true });
	});

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	const signIn = async (password: string) => {
		await gotoHydrated(page, `${app.url}/login?next=/w/acme/settings`);
		await page.getByLabel('Username').fill('admin');
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
	};
	const sessionCookie = async () => {
		const c = (await page.context().cookies()).find((x) => x.name === 'tributary_session');
		return `${c!.name}=${c!.value}`;
	};

	it('the generated password is changed on the page; signed out, the new one signs in and the old one does not', async () => {
		await signIn(generated);
		await page.waitForURL(`${app.url}/w/acme/settings`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		// The page asks for the change first of all.
		const generatedNotice = page.getByRole('status').filter({ hasText: 'the password generated when this instance first started' });
		expect(await generatedNotice.count()).toBe(1);
		// A mismatch is shown beside its field, and nothing changes.
		await page.getByLabel('Current password').fill(generated);
		await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
		await page.getByLabel('New password again').fill(`${NEW_PASSWORD}!`);
		await page.getByRole('button', { name: 'Change password' }).click();
		await expect.poll(() => page.locator('#pw-confirm-error').textContent()).toBe('confirm_password: does not match the new password');
		expect(await page.getByLabel('New password again').getAttribute('aria-invalid')).toBe('true');
		await page.getByLabel('Current password').fill(generated);
		await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
		await page.getByLabel('New password again').fill(NEW_PASSWORD);
		await page.getByRole('button', { name: 'Change password' }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Password changed.' }).count()).toBe(1);
		// Still signed in (a fresh session), then signed out.
		await page.reload();
		expect(new URL(page.url()).pathname).toBe('/w/acme/settings');
		expect(await generatedNotice.count()).toBe(0);
		await page.getByRole('button', { name: 'Sign out' }).click();
		await page.waitForURL((u) => u.pathname === '/login');
		await signIn(generated);
		await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid username or password/i);
		await signIn(NEW_PASSWORD);
		await page.waitForURL(`${app.url}/w/acme/settings`);
		expect((await fetch(`${app.url}/api/auth/login`, { method: 'POST', headers: { ...NO_KEEP_ALIVE, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: generated }) })).status).toBe(401);
	});

	it("a folder's readers are edited with the keyboard alone, and the API reads the change", async () => {
		await gotoHydrated(page, `${app.url}/w/acme/settings`);
		const summary = page.locator('summary', { hasText: 'Edit readers and writers of f/finance' });
		await summary.focus();
		await page.keyboard.press('Enter');
		const alice = page.getByRole('checkbox', { name: 'alice reads f/finance' });
		const analysts = page.getByRole('checkbox', { name: 'group analysts reads f/finance' });
		await alice.waitFor();
		expect(await alice.isChecked()).toBe(false);
		await alice.focus();
		await page.keyboard.press('Space');
		await page.keyboard.press('Tab'); // alice writes
		await page.keyboard.press('Tab'); // bob reads
		await page.keyboard.press('Tab'); // bob writes
		await page.keyboard.press('Tab'); // group analysts reads
		expect(await analysts.evaluate((el) => el === document.activeElement)).toBe(true);
		await page.keyboard.press('Space');
		const save = page.getByRole('button', { name: 'Save f/finance' });
		await save.focus();
		await page.keyboard.press('Enter');
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved f/finance: 2 readers, 1 writer.' }).count()).toBe(1);
		const folders = await api(await sessionCookie(), 'GET', '/api/w/acme/folders');
		expect(folders.body.find((f: { name: string }) => f.name === 'finance')).toEqual({ name: 'finance', readers: ['g/analysts', 'u/alice'], writers: ['u/alice'] });
		await expect.poll(() => page.locator('tr', { hasText: 'f/finance' }).first().textContent()).toContain('g/analysts, u/alice');
	});

	it('a token is revoked from its row, and stops working', async () => {
		const minted = await api(await sessionCookie(), 'POST', '/api/w/acme/tokens', { label: 'ci-deploy', scopes: ['assets:read'] });
		expect(minted.status).toBe(201);
		const bearer = { ...NO_KEEP_ALIVE, authorization: `Bearer ${minted.body.token}` };
		expect((await fetch(`${app.url}/api/w/acme/tokens`, { headers: bearer })).status).toBe(403);
		expect((await fetch(`${app.url}/api/whoami`, { headers: bearer })).status).toBe(200);
		await gotoHydrated(page, `${app.url}/w/acme/settings`);
		await page.getByRole('button', { name: 'Revoke ci-deploy', exact: true }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Revoked ci-deploy.' }).count()).toBe(1);
		await expect.poll(() => page.getByRole('button', { name: 'Revoke ci-deploy', exact: true }).count()).toBe(0);
		expect((await fetch(`${app.url}/api/whoami`, { headers: bearer })).status).toBe(401);
		// A member's token, from the admin's list of every member's tokens.
		const alice = await apiLogin(app.url, 'alice', 'alice-password-1');
		const hers = await api(alice, 'POST', '/api/w/acme/tokens', { label: 'alice-laptop' });
		expect(hers.status).toBe(201);
		const herBearer = { ...NO_KEEP_ALIVE, authorization: `Bearer ${hers.body.token}` };
		expect((await fetch(`${app.url}/api/whoami`, { headers: herBearer })).status).toBe(200);
		await gotoHydrated(page, `${app.url}/w/acme/settings`);
		await page.getByRole('button', { name: 'Revoke alice-laptop of alice' }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Revoked alice-laptop.' }).count()).toBe(1);
		expect((await fetch(`${app.url}/api/whoami`, { headers: herBearer })).status).toBe(401);
		// A token for the screenshots' list.
		expect((await api(alice, 'POST', '/api/w/acme/tokens', { label: 'alice-notebook', scopes: ['assets:read'] })).status).toBe(201);
	});

	it('screenshots at 1440×900 and 1280×720, the page and a warehouse open as a form; no errors in the console', async () => {
		await gotoHydrated(page, `${app.url}/w/acme/settings`);
		for (const size of SIZES) {
			await page.setViewportSize(size);
			await page.evaluate(() => window.scrollTo(0, 0));
			await page.screenshot({ path: path.join(DOCS_SHOTS, `settings-${size.width}.png`) });
		}
		await page.setViewportSize(SIZES[0]);
		await page.locator('summary', { hasText: 'Edit readers and writers of f/analytics' }).click();
		await page.locator('details.card summary', { hasText: 'main' }).click();
		const wh = page.locator('details.card', { hasText: 'main' }).first();
		expect(await wh.getByLabel('Adapter type').inputValue()).toBe('duckdb');
		expect(await wh.getByLabel('New value of MOTHERDUCK_TOKEN').inputValue()).toBe('');
		await page.getByRole('heading', { name: 'Folders' }).scrollIntoViewIfNeeded();
		await page.getByRole('heading', { name: 'Folders' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
		await page.screenshot({ path: path.join(DOCS_SHOTS, 'settings-forms-1440.png') });
		expect(await page.content()).not.toContain('md-secret');
		expect(errors).toEqual([]);
	});
});
