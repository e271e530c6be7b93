// Provisioning engines: the cross-process lock (two provisioners of one key build it once), an
// interrupted build never used and rebuilt by the next, the least recently used engines removed
// beyond TRIBUTARY_ENGINE_KEEP but never one in use, the machine's pip configuration handed to
// uv, and a clear sentence when there is no Python. The real installs use dbt-core 1.11 + duckdb
// (the older minor the runner's tests pin) into engine directories of their own.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineCache, EngineUnavailable, engineSettingsFromEnv, findPython, pipIndexSettings } from '../../src/lib/server/runner/engine/provision';
import { acquireFileLock } from '../../src/lib/server/runner/engine/file-lock';
import { CORE_OLDER, describeRealDbt } from '../support/real-dbt';

const scratch = mkdtempSync(path.join(tmpdir(), 'tributary-engines-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `scripts/provision-engines.ts` in a process of its own (a worker, as far as the lock knows). */
function provisioner(dir: string, engine: string): { done: Promise<{ code: number | null; out: string }>; kill: () => void; out: () => string } {
	const child = spawn('npx', ['tsx', 'scripts/provision-engines.ts', '--dir', dir, '--engine', engine], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	child.stdout.on('data', (d) => (out += d));
	child.stderr.on('data', (d) => (out += d));
	const done = new Promise<{ code: number | null; out: string }>((resolve) => child.on('close', (code) => resolve({ code, out })));
	return { done, kill: () => process.kill(-child.pid!, 'SIGKILL'), out: () => out };
}

describe('engine bookkeeping', () => {
	function fakeEngine(dir: string, key: string, usedAgoS: number): void {
		mkdirSync(path.join(dir, key, 'bin'), { recursive: true });
		writeFileSync(path.join(dir, key, 'bin', 'dbt'), '#!/bin/sh\n');
		writeFileSync(path.join(dir, key, 'tributary-engine.json'), JSON.stringify({ key, core: '1.0.0', adapter_type: 'duckdb', adapter_package: 'dbt-duckdb', adapter_version: '1.0.0', python_version: '3.11.0', python_series: '3.11' }));
		mkdirSync(path.join(dir, '.used'), { recursive: true });
		writeFileSync(path.join(dir, '.used', key), '');
		const t = new Date(Date.now() - usedAgoS * 1000);
		utimesSync(path.join(dir, '.used', key), t, t);
	}

	it('removes the least recently used engines beyond TRIBUTARY_ENGINE_KEEP, never one a job is using', async () => {
		const dir = path.join(scratch, 'lru');
		for (const [key, ago] of [['a', 400], ['b', 300], ['c', 200], ['d', 100]] as const) fakeEngine(dir, key, ago);
		const cache = new EngineCache({ ...engineSettingsFromEnv({ ...process.env, TRIBUTARY_ENGINE_DIR: dir }), keep: 2 });
		const release = await cache.use({ key: 'a' }, 'job-holding-a');
		const removed = await cache.evict();
		// a is the oldest but in use: b and c go instead.
		expect(removed.sort()).toEqual(['b', 'c']);
		expect(readdirSync(dir).filter((n) => !n.startsWith('.')).sort()).toEqual(['a', 'd']);
		await release();
		// Using a made it the most recently used: once released, the next eviction (keep 1) takes d.
		const one = new EngineCache({ ...cache.settings, keep: 1 });
		expect(await one.evict()).toEqual(['d']);
	});

	it('a lock held by another process is waited for, and released when that process dies', async () => {
		const file = path.join(scratch, 'locks', 'k.lock');
		mkdirSync(path.dirname(file), { recursive: true });
		const holder = spawn('flock', ['-x', file, 'sleep', '30'], { detached: true, stdio: 'ignore' });
		await new Promise((r) => setTimeout(r, 300));
		let waited = false;
		const acquiring = acquireFileLock(file, { onWait: () => (waited = true), waitNoticeMs: 100 });
		await new Promise((r) => setTimeout(r, 500));
		expect(waited).toBe(true);
		process.kill(-holder.pid!, 'SIGKILL');
		const lock = await acquiring;
		await lock.release();
	});

	it('hands pip\'s configuration to uv: index, extra indexes (best version across them), find-links, proxy, certificate', async () => {
		const conf = path.join(scratch, 'pip.conf');
		writeFileSync(conf, '[global]\nindex-url = https://pypi.example/simple\nextra-index-url = https://a.example/simple https://b.example/simple\nfind-links = /srv/wheels\nproxy = http://proxy.example:3128\ncert = /etc/ssl/custom.pem\n');
		const python = (await findPython({ python: 'python3', pathVar: process.env.PATH ?? '' })).executable;
		const { args, env } = await pipIndexSettings(python, { PATH: process.env.PATH ?? '', PIP_CONFIG_FILE: conf, HOME: scratch });
		expect(args).toEqual(expect.arrayContaining(['--index-url', 'https://pypi.example/simple', '--extra-index-url', 'https://a.example/simple', '--extra-index-url', 'https://b.example/simple', '--index-strategy', 'unsafe-best-match', '--find-links', '/srv/wheels']));
		expect(env).toMatchObject({ HTTPS_PROXY: 'http://proxy.example:3128', SSL_CERT_FILE: '/etc/ssl/custom.pem' });
	});

	it('no Python: one sentence saying what is missing and how to install it', async () => {
		await expect(findPython({ python: 'python3-not-installed-here', pathVar: process.env.PATH ?? '' })).rejects.toThrow(EngineUnavailable);
		await expect(findPython({ python: 'python3-not-installed-here', pathVar: process.env.PATH ?? '' })).rejects.toThrow(
			/^Running dbt needs Python 3\.10 or newer on the worker, and python3-not-installed-here was not found on its PATH: install it \(Debian: `apt-get install python3 python3-venv`\)/
		);
	});
});

describeRealDbt('provisioning real engines across processes', () => {
	it(
		'two workers provisioning one engine at once build it once; the second waits and uses it',
		async () => {
			const dir = path.join(scratch, 'race');
			const [a, b] = [provisioner(dir, `${CORE_OLDER}:duckdb`), provisioner(dir, `${CORE_OLDER}:duckdb`)];
			const [ra, rb] = await Promise.all([a.done, b.done]);
			expect(ra.code, ra.out).toBe(0);
			expect(rb.code, rb.out).toBe(0);
			const builds = `${ra.out}\n${rb.out}`.split('\n').filter((l) => /^\s*provisioning engine /.test(l));
			expect(builds).toHaveLength(1);
			expect(`${ra.out}\n${rb.out}`).toMatch(/waiting for another worker provisioning|already installed|provisioned by another worker meanwhile/);
			expect(readdirSync(dir).filter((n) => n.startsWith('dbt-core-'))).toHaveLength(1);
		},
		20 * 60_000
	);

	it(
		'a provisioner killed mid-install leaves nothing that is used; the next one removes it and builds the engine',
		async () => {
			const dir = path.join(scratch, 'killed');
			const p = provisioner(dir, `${CORE_OLDER}:duckdb`);
			// Killed once uv is installing into the build folder.
			for (let i = 0; i < 1200 && !(existsSync(path.join(dir, '.building')) && readdirSync(path.join(dir, '.building')).some((n) => n.startsWith('dbt-core-'))); i++) {
				await new Promise((r) => setTimeout(r, 100));
			}
			p.kill();
			await p.done;
			expect(readdirSync(dir).filter((n) => n.startsWith('dbt-core-'))).toEqual([]);
			const leftovers = readdirSync(path.join(dir, '.building'));
			expect(leftovers.length).toBeGreaterThan(0);
			const again = await provisioner(dir, `${CORE_OLDER}:duckdb`).done;
			expect(again.code, again.out).toBe(0);
			expect(again.out).toMatch(/provisioned in/);
			expect(readdirSync(path.join(dir, '.building')).filter((n) => leftovers.includes(n))).toEqual([]);
			expect(readdirSync(dir).filter((n) => n.startsWith('dbt-core-'))).toHaveLength(1);
		},
		20 * 60_000
	);
});
