// The first thing anyone does: start the app exactly as the README says and sign in through
// the form. No ORIGIN, no TRIBUTARY_* variables, nothing but PORT (and the PATH and HOME any
// shell has), the password read from what the start printed, and the demo data the start seeds.
// The app runs from a folder laid out like a fresh checkout (links to this one's build, scripts,
// migrations and modules), so its `./data` is new and no other test's or developer's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, gotoHydrated, launchBrowser, screenshotDir, stopProcess } from './server';

const CHECKOUT_ENTRIES = ['build', 'scripts', 'drizzle', 'node_modules', 'package.json'];

/** The machine's first non-loopback IPv4 address, if it has one. */
function lanAddress(): string | undefined {
	for (const addresses of Object.values(networkInterfaces())) {
		const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
		if (found) return found.address;
	}
	return undefined;
}

async function waitForListening(proc: ChildProcess, output: () => string): Promise<void> {
	const deadline = Date.now() + 90_000;
	while (!/Listening on/.test(output())) {
		if (proc.exitCode !== null) throw new Error(`the app exited with ${proc.exitCode}:\n${output()}`);
		if (Date.now() > deadline) throw new Error(`the app did not listen within 90 s:\n${output()}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

async function signInThroughForm(page: Page, origin: string, password: string): Promise<void> {
	await gotoHydrated(page, `${origin}/`);
	expect(new URL(page.url()).pathname).toBe('/login');
	await page.getByLabel('Username').fill('admin');
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL(/\/w\/demo/, { timeout: 30_000 });
	await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Demo shop');
}

describe('a newcomer starts the app as the README says and signs in (chromium)', () => {
	let checkout: string;
	let proc: ChildProcess;
	let output = '';
	let port: number;
	let password: string;
	let browser: Browser;
	let otherSite: Server;
	let otherPort: number;

	beforeAll(async () => {
		checkout = mkdtempSync(path.join(tmpdir(), 'tributary-newcomer-'));
		for (const entry of CHECKOUT_ENTRIES) symlinkSync(path.resolve(entry), path.join(checkout, entry));
		port = await freePort();
		// `npm run serve` is `npm start` without the rebuild (npm test has just built the app).
		proc = spawn('npm', ['run', 'serve'], {
			cwd: checkout,
			env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port) },
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true
		});
		proc.stdout!.on('data', (d) => (output += d));
		proc.stderr!.on('data', (d) => (output += d));
		await waitForListening(proc, () => output);
		password = /Created instance admin 'admin' with password: (\S+)/.exec(output)?.[1] ?? '';
		expect(password, output).not.toBe('');
		browser = await launchBrowser();
		mkdirSync(screenshotDir, { recursive: true });
		// Another site on this machine: same host name, another port, so the browser's
		// SameSite=Lax cookie rides along and only the Origin check stands in the way.
		otherPort = await freePort();
		otherSite = createServer((req, res) => {
			res.setHeader('content-type', 'text/html');
			res.end(`<!doctype html><html><body>
				<form id="login" method="post" action="http://localhost:${port}/login?/login">
					<input name="username" value="admin"><input name="password" value="${password}">
				</form>
				<script>
					window.writeWithCookies = (id) => fetch('http://localhost:${port}/api/workspaces', {
						method: 'POST', mode: 'no-cors', credentials: 'include',
						headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ id, name: id })
					}).then(() => 'sent', (e) => String(e));
				</script>
			</body></html>`);
		});
		await new Promise<void>((resolve) => otherSite.listen(otherPort, '127.0.0.1', resolve));
	});

	afterAll(async () => {
		await browser?.close();
		otherSite?.close();
		if (proc) {
			// npm runs node as its child: signal the whole group.
			if (proc.exitCode === null && proc.pid) process.kill(-proc.pid, 'SIGTERM');
			await stopProcess(proc);
		}
		if (checkout) rmSync(checkout, { recursive: true, force: true });
	});

	it('prints the admin password once, framed with where to sign in', () => {
		expect(output.match(/with password:/g)).toHaveLength(1);
		expect(output).toMatch(new RegExp(`│ Created instance admin 'admin' with password: \\S+\n│ Sign in at http://localhost:${port}/login`));
	});

	const hosts = ['localhost', '127.0.0.1', ...(lanAddress() ? ['the LAN address'] : [])];
	it.each(hosts)('signs in through the form at http://%s', async (host) => {
		const origin = `http://${host === 'the LAN address' ? lanAddress() : host}:${port}`;
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await context.newPage();
		const errors: string[] = [];
		page.on('pageerror', (e) => errors.push(e.message));
		await signInThroughForm(page, origin, password);
		await page.screenshot({ path: path.join(screenshotDir, `newcomer-signed-in-${host.replace(/\W+/g, '-')}.png`) });
		const session = (await context.cookies(origin)).find((c) => c.name === 'tributary_session');
		expect(session?.httpOnly).toBe(true);
		// Plain http: a Secure cookie would be dropped by the browser everywhere but localhost.
		expect(session?.secure).toBe(false);
		expect(errors).toEqual([]);
		await context.close();
	});

	it('refuses a cross-site form post and a cookie-carrying write from another site', async () => {
		const context = await browser.newContext();
		const page = await context.newPage();
		await signInThroughForm(page, `http://localhost:${port}`, password);
		// The same write from the app's own page goes through, so the refusal below is the
		// Origin check and not a malformed request.
		const own = await page.evaluate(async () => {
			const r = await fetch('/api/workspaces', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ id: 'own', name: 'own' }) });
			return r.status;
		});
		expect(own).toBe(201);

		const attacker = await context.newPage();
		await attacker.goto(`http://localhost:${otherPort}/`);
		expect(await attacker.evaluate(() => (window as unknown as { writeWithCookies: (id: string) => Promise<string> }).writeWithCookies('evil'))).toBe('sent');
		const [answer] = await Promise.all([attacker.waitForNavigation(), attacker.evaluate(() => (document.getElementById('login') as HTMLFormElement).submit())]);
		expect(answer?.status()).toBe(403);
		expect(await attacker.textContent('body')).toContain('cross-site request refused');

		const workspaces = await page.evaluate(async () => (await (await fetch('/api/whoami')).json()).workspaces.map((w: { id: string }) => w.id));
		expect(workspaces).toContain('own');
		expect(workspaces).not.toContain('evil');
		await context.close();
	});

	it('accepts a login form post that carries no Origin (curl, older browsers)', async () => {
		const r = await fetch(`http://127.0.0.1:${port}/login?/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ username: 'admin', password }),
			redirect: 'manual'
		});
		expect(r.headers.get('set-cookie')).toMatch(/^tributary_session=\w+/);
		expect(r.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
	});
});
