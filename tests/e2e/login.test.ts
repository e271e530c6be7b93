// A user journey in real Chromium against the built app: sign in through the login page and
// land on the workspace home. Also: the process exits promptly on SIGTERM.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin, gotoHydrated, launchBrowser, screenshotDir, startApp, stopProcess, type RunningApp } from './server';

describe('signing in (chromium, built app, embedded database)', () => {
	let app: RunningApp;
	let browser: Browser;

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_DEMO: '0' });
		const cookie = await apiLogin(app.url);
		const r = await fetch(`${app.url}/api/workspaces`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ id: 'acme', name: 'Acme Analytics' })
		});
		expect(r.status).toBeLessThan(300);
		const f = await fetch(`${app.url}/api/w/acme/folders`, {
			method: 'POST',
			headers: { cookie, 'content-type': 'application/json' },
			body: JSON.stringify({ name: 'finance', readers: [], writers: [] })
		});
		expect(f.status).toBeLessThan(300);
		browser = await launchBrowser();
		mkdirSync(screenshotDir, { recursive: true });
	});

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('a wrong password shows one generic message', async () => {
		const page = await browser.newPage();
		await gotoHydrated(page, `${app.url}/login`);
		await page.getByLabel('Username').fill('admin');
		await page.getByLabel('Password').fill('not the password');
		await page.getByRole('button', { name: 'Sign in' }).click();
		await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid username or password/i);
		expect(new URL(page.url()).pathname).toBe('/login');
		await page.close();
	});

	it('repeated failures are refused for a while with 429, and the form says so', async () => {
		// Another username than the tests' own: this pair's wait must not slow the other journeys.
		const page = await browser.newPage();
		await gotoHydrated(page, `${app.url}/login`);
		// The enhanced form posts with fetch; kit answers 200 with the action's status inside.
		const answers: { status: number; retryAfter?: string }[] = [];
		page.on('response', async (r) => {
			if (r.request().method() !== 'POST') return;
			answers.push({ status: JSON.parse(await r.text()).status, retryAfter: r.headers()['retry-after'] });
		});
		// Five free failures, then waits of 1 s, 2 s, 4 s…: on a loaded machine an attempt may take
		// longer than the first wait, so keep guessing until one is refused.
		for (let i = 0; i < 12 && !answers.some((a) => a.status === 429); i++) {
			await page.getByLabel('Username').fill('guessed');
			await page.getByLabel('Password').fill(`guess number ${i}`);
			await page.getByRole('button', { name: 'Sign in' }).click();
			await expect.poll(() => answers.length).toBe(i + 1);
		}
		const statuses = answers.map((a) => a.status);
		expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
		expect(statuses.at(-1)).toBe(429);
		expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
		expect(Number(answers.at(-1)!.retryAfter)).toBeGreaterThanOrEqual(1);
		await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/too many failed sign-ins; try again in \d+ seconds?/);
		// The API shares the throttle: the same username from the same address is refused there too.
		let api: Response | null = null;
		for (let i = 0; i < 5 && api?.status !== 429; i++) {
			api = await fetch(`${app.url}/api/auth/login`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ username: 'guessed', password: 'one more guess' })
			});
			expect([401, 429]).toContain(api.status);
		}
		expect(api!.status).toBe(429);
		expect(Number(api!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		await page.close();
	});

	it('what is typed before the page hydrates stays typed', async () => {
		// A slow connection: the form is on screen (server-rendered) while the scripts still load.
		const page = await browser.newPage();
		let releaseScripts!: () => void;
		const scriptsHeld = new Promise<void>((resolve) => (releaseScripts = resolve));
		await page.route('**/_app/immutable/**', async (route) => {
			await scriptsHeld;
			await route.continue();
		});
		await page.goto(`${app.url}/login`, { waitUntil: 'commit' });
		await page.getByLabel('Username').fill('admin');
		expect(await page.locator('html[data-hydrated]').count()).toBe(0);
		releaseScripts();
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		expect(await page.getByLabel('Username').inputValue()).toBe('admin');
		await page.close();
	});

	it('signs in through the login page and sees the workspace home', async () => {
		const page = await browser.newPage();
		const errors: string[] = [];
		page.on('pageerror', (e) => errors.push(e.message));
		page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
		await gotoHydrated(page, `${app.url}/`);
		expect(new URL(page.url()).pathname).toBe('/login');
		await page.getByLabel('Username').fill('admin');
		await page.getByLabel('Password').fill('correct horse battery staple');
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.waitForURL(/\/w\/acme/);
		await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Acme Analytics');
		await expect.poll(() => page.getByText('finance').count()).toBeGreaterThan(0);
		await page.screenshot({ path: path.join(screenshotDir, 'workspace-home.png'), fullPage: true });
		const cookies = await page.context().cookies();
		const session = cookies.find((c) => c.name === 'tributary_session');
		expect(session?.httpOnly).toBe(true);
		expect(errors).toEqual([]);
		await page.close();
	});
});

describe('shutdown', () => {
	it('exits 0 on SIGTERM when idle, without waiting out the grace period', async () => {
		const app = await startApp({ TRIBUTARY_DEMO: '0' });
		// Touch the database so the pool is open when the signal arrives.
		await apiLogin(app.url);
		const t0 = Date.now();
		const code = await stopProcess(app.proc);
		const elapsed = Date.now() - t0;
		await app.stop();
		expect(code).toBe(0);
		// Idle, nothing is left to wait for: the stop does not sit out the 10 s default grace.
		expect(elapsed).toBeLessThan(8000);
	}, 120_000);
});
