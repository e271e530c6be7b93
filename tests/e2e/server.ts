// Test equipment for the browser and CLI tests: the BUILT app (npm test builds it first) on a
// free port with a fresh embedded database, and Debian's chromium driven by playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ENGINE_DIR } from '../support/real-dbt';
import { SANDBOX_READ_ONLY } from '../support/sandbox-inputs';

export const CHROMIUM = '/usr/bin/chromium';

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const port = (s.address() as { port: number }).port;
			s.close(() => resolve(port));
		});
		s.on('error', reject);
	});
}

/**
 * Headers for the tests' own requests to the app: a fresh connection each time. Generating a big
 * project blocks the test's event loop for seconds (3000 models: ~10 s) with an idle pooled
 * connection, which the app closes after its 5 s keep-alive; fetch cannot see that while blocked
 * and writes the next request into the closed socket: EPIPE (or "other side closed").
 */
export const NO_KEEP_ALIVE = { connection: 'close' } as const;

export interface RunningApp {
	url: string;
	proc: ChildProcess;
	output: () => string;
	dataDir: string;
	stop(): Promise<number | null>;
}

/** A child process with everything it printed (stdout and stderr interleaved). */
export interface ChildWithOutput {
	proc: ChildProcess;
	output: () => string;
}

export function spawnWithOutput(args: string[], env: Record<string, string>): ChildWithOutput {
	let out = '';
	const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
	proc.stdout!.on('data', (d) => (out += d));
	proc.stderr!.on('data', (d) => (out += d));
	return { proc, output: () => out };
}

/** Polls `url` until it answers 200; fails at once when the process exits first. */
export async function waitForHttp(url: string, child: ChildWithOutput, timeoutMs = 90_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child.proc.exitCode !== null) throw new Error(`the process exited with ${child.proc.exitCode}:\n${child.output()}`);
		const status = await fetch(url, { headers: NO_KEEP_ALIVE }).then(
			(r) => r.status,
			() => 0
		);
		if (status === 200) return;
		if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s:\n${child.output()}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
	if (!existsSync('build/index.js')) throw new Error('build/ is missing: run `npm run build` (npm test does it first)');
	const port = await freePort();
	const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-e2e-'));
	const child = spawnWithOutput(['scripts/serve.js'], {
		PATH: process.env.PATH ?? '',
		HOME: process.env.HOME ?? '/tmp',
		PORT: String(port),
		HOST: '127.0.0.1',
		ORIGIN: `http://127.0.0.1:${port}`,
		TRIBUTARY_DATA_DIR: dataDir,
		TRIBUTARY_ADMIN_USER: 'admin',
		TRIBUTARY_ADMIN_PASSWORD: 'correct horse battery staple',
		// dbt runs sandboxed, as by default: the stand-in's recorded inputs are shown to it read-only.
		TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
		// Real engines are provisioned once for the whole suite (.ci/run fills this cache first).
		TRIBUTARY_ENGINE_DIR: ENGINE_DIR,
		...env
	});
	const url = `http://127.0.0.1:${port}`;
	await waitForHttp(`${url}/login`, child);
	return {
		url,
		proc: child.proc,
		dataDir,
		output: child.output,
		stop: async () => {
			const code = await stopProcess(child.proc);
			rmSync(dataDir, { recursive: true, force: true });
			return code;
		}
	};
}

export function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
	if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
	return new Promise((resolve) => {
		const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
		proc.once('exit', (code) => {
			clearTimeout(kill);
			resolve(code);
		});
		proc.kill(signal);
	});
}

export async function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--no-first-run',
			'--disable-sync',
			'--disable-quic'
		]
	});
}

/** Signs in through the API and returns the session cookie header. */
export async function apiLogin(url: string, username = 'admin', password = 'correct horse battery staple'): Promise<string> {
	const r = await fetch(`${url}/api/auth/login`, {
		method: 'POST',
		headers: { ...NO_KEEP_ALIVE, 'content-type': 'application/json' },
		body: JSON.stringify({ username, password })
	});
	if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
	const cookie = r.headers.get('set-cookie');
	if (!cookie) throw new Error('login set no cookie');
	return cookie.split(';')[0];
}

export const screenshotDir = path.resolve('test-results/screenshots');

/**
 * Opens `url` and waits until the app has hydrated (the root layout marks it): input typed
 * before then may be reset by hydration, which on a loaded machine comes after the load event.
 */
export async function gotoHydrated(page: Page, url: string): Promise<void> {
	await page.goto(url);
	await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
}
