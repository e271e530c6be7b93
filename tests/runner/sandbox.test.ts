// TRIBUTARY_SANDBOX=bwrap: dbt runs inside bubblewrap, where only the job directory is writable
// and the server's files are not there at all. Skipped (loudly) where bubblewrap is not
// installed, and a failure in CI (.ci/run installs it); a worker configured for it but without it
// refuses the job rather than run it bare.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, type RunnerWorld } from '../support/runner-world';

const BWRAP = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
if (!BWRAP && process.env.CI) throw new Error('bwrap is not installed: the sandbox tests must run in CI (apt-get install bubblewrap)');
if (!BWRAP) process.stderr.write('[notice] skipping the bubblewrap sandbox tests: bwrap is not installed (apt-get install bubblewrap)\n');

/** Host pids of live processes whose working directory is inside a job directory. */
function inJobDirs(): number[] {
	const root = process.env.TRIBUTARY_JOBS_DIR!;
	const out: number[] = [];
	for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
			if (readlinkSync(`/proc/${pid}/cwd`).startsWith(root)) out.push(Number(pid));
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

// The runner world deploys a real recorded manifest.
describe.skipIf(!BWRAP || !needFixtures('the bubblewrap sandbox'))('the bubblewrap sandbox', () => {
	const backend = testBackends()[0];
	let h: Database;
	let w: RunnerWorld;
	const hostTmp = mkdtempSync(path.join(tmpdir(), 'tributary-host-'));
	const hostSecret = path.join(hostTmp, 'server-secret.txt');

	beforeAll(async () => {
		writeFileSync(hostSecret, 'only the server may read this');
		h = await backend.open();
		w = await buildRunnerWorld(h, { config: { sandbox: 'bwrap' } });
	}, 120_000);
	afterAll(async () => {
		await w?.close();
		rmSync(hostTmp, { recursive: true, force: true });
	});

	it('only the job directory is writable, and the server\'s files are out of sight', async () => {
		const outside = path.join(path.dirname(FAKE_DBT), 'written-from-the-sandbox');
		await w.deploy('probe', {
			commands: {
				build: {
					mode: 'probe-sandbox',
					writePaths: ['models/new.sql', outside, '/usr/local/evil'],
					readPaths: [hostSecret, path.resolve('package.json'), 'dbt_project.yml']
				}
			}
		});
		const job = await w.waitJob(await w.run('probe', { command: 'build' }));
		expect(job.status, job.logs).toBe('success');
		expect(job.logs).toContain('probe write models/new.sql: ok');
		expect(job.logs).toMatch(new RegExp(`probe write ${outside}: (EROFS|EACCES)`));
		expect(job.logs).toMatch(/probe write \/usr\/local\/evil: (EROFS|EACCES)/);
		expect(job.logs).toContain(`probe read ${hostSecret}: ENOENT`);
		expect(job.logs).toContain(`probe read ${path.resolve('package.json')}: ENOENT`);
		expect(job.logs).toContain('probe read dbt_project.yml: ok');
		expect(existsSync(outside)).toBe(false);
	});

	it('cancel stops the whole sandbox: no process is left in the job directory', async () => {
		await w.deploy('hang', { commands: { build: { mode: 'grandchild', hangAfter: 0 } } });
		const id = await w.run('hang', { command: 'build' });
		await expect.poll(async () => (await w.wendy.get(`/api/w/runs/jobs/get/${id}`)).body.logs, { timeout: 20_000 }).toMatch(/grandchild pid \d+/);
		expect(inJobDirs().length).toBeGreaterThan(1);
		await w.wendy.post(`/api/w/runs/jobs/cancel/${id}`);
		expect((await w.waitJob(id)).status).toBe('canceled');
		await expect.poll(() => inJobDirs(), { timeout: 10_000 }).toEqual([]);
	});

	it('configured for bubblewrap without it: the job is refused, never run bare', async () => {
		const bin = mkdtempSync(path.join(tmpdir(), 'tributary-path-'));
		symlinkSync(process.execPath, path.join(bin, 'node'));
		const saved = process.env.PATH;
		process.env.PATH = bin;
		try {
			const job = await w.waitJob(await w.run('probe', { command: 'build' }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/TRIBUTARY_SANDBOX=bwrap, but bubblewrap \(bwrap\) is not installed on this worker.*not run unsandboxed/);
			expect(job.logs).not.toContain('probe write');
		} finally {
			process.env.PATH = saved;
			rmSync(bin, { recursive: true, force: true });
		}
	});
});
