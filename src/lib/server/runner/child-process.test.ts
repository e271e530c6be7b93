// Stopping a child stops everything it started: cancellation and the deadline kill the whole
// process group (grandchildren included), SIGTERM escalates to SIGKILL, and nothing survives a
// normal exit either.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConsoleLines, runProcess } from './child-process';
import { withLimits } from './dbt-process';

const node = process.execPath;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
/** Running (a zombie waiting for a reaper that may never come, in a container, counts as dead). */
const alive = (pid: number) => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
};

/** A child that starts a grandchild, prints its pid, and never exits. */
const WITH_GRANDCHILD = `
const { spawn } = require('node:child_process');
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('grandchild ' + g.pid);
${'/*IGNORE*/'}
setInterval(() => {}, 1000);
`;

function grandchildPid(lines: string[]): number {
	const l = lines.find((x) => x.startsWith('grandchild '));
	return Number(l?.split(' ')[1]);
}

describe('runProcess', () => {
	it('cancellation kills the child and its grandchild: no orphan remains', async () => {
		const lines: string[] = [];
		const abort = new AbortController();
		const p = runProcess(
			{ bin: node, argv: ['-e', WITH_GRANDCHILD], cwd: process.cwd(), env },
			{ deadline: Date.now() + 60_000, signal: abort.signal, killGraceMs: 2000 },
			{ onLine: (l) => lines.push(l) }
		);
		await expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThan(0);
		const g = grandchildPid(lines);
		expect(alive(g)).toBe(true);
		abort.abort('canceled');
		const out = await p;
		expect(out.end).toBe('aborted');
		expect(out.escalated).toBe(false);
		await expect.poll(() => alive(g), { timeout: 5000 }).toBe(false);
	});

	it('the deadline kills a child that ignores SIGTERM, escalating to SIGKILL after the grace period', async () => {
		const lines: string[] = [];
		const script = WITH_GRANDCHILD.replace('/*IGNORE*/', "process.on('SIGTERM', () => console.log('ignoring SIGTERM'));");
		const out = await runProcess(
			{ bin: node, argv: ['-e', script], cwd: process.cwd(), env },
			{ deadline: Date.now() + 1500, signal: new AbortController().signal, killGraceMs: 500 },
			{ onLine: (l) => lines.push(l) }
		);
		expect(out.end).toBe('deadline');
		expect(out.escalated).toBe(true);
		expect(out.signal).toBe('SIGKILL');
		expect(lines).toContain('ignoring SIGTERM');
		await expect.poll(() => alive(grandchildPid(lines)), { timeout: 5000 }).toBe(false);
	});

	it('a grandchild left behind by a child that exited is killed with it', async () => {
		const lines: string[] = [];
		const script = `const { spawn } = require('node:child_process');
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('grandchild ' + g.pid); g.unref(); process.exit(0);`;
		const out = await runProcess(
			{ bin: node, argv: ['-e', script], cwd: process.cwd(), env },
			{ deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 },
			{ onLine: (l) => lines.push(l) }
		);
		expect(out).toMatchObject({ end: 'exited', exitCode: 0 });
		await expect.poll(() => alive(grandchildPid(lines)), { timeout: 5000 }).toBe(false);
	});

	it('passes only the environment it is given', async () => {
		process.env.TRIBUTARY_SECRET_PROBE = 'must-not-leak';
		try {
			const out = await runProcess(
				{ bin: node, argv: ['-e', 'console.log(JSON.stringify(process.env))'], cwd: process.cwd(), env: { ...env, ONLY: 'this' } },
				{ deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 },
				{ captureStdout: 1 << 20 }
			);
			const seen = JSON.parse(out.stdout!);
			expect(seen.ONLY).toBe('this');
			expect(seen.TRIBUTARY_SECRET_PROBE).toBeUndefined();
		} finally {
			delete process.env.TRIBUTARY_SECRET_PROBE;
		}
	});

	it('hands the child the bytes of each extra descriptor, whole and closed (as bubblewrap reads its filter); one that never reads does no harm', async () => {
		const big = Buffer.alloc(300_000, 7);
		const read = "const fs = require('fs'); for (const fd of [3, 4]) { const b = fs.readFileSync(fd); console.log(fd, b.length, b[0], b.at(-1)); }";
		const out = await runProcess(
			{ bin: node, argv: ['-e', read], cwd: process.cwd(), env, extraFds: [Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), big] },
			{ deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 },
			{ captureStdout: 1 << 16 }
		);
		expect(out.exitCode).toBe(0);
		expect(out.stdout).toBe('3 8 1 8\n4 300000 7 7\n');
		const ignored = await runProcess(
			{ bin: node, argv: ['-e', 'process.exit(3)'], cwd: process.cwd(), env, extraFds: [big] },
			{ deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 }
		);
		expect(ignored.end).toBe('exited');
		expect(ignored.exitCode).toBe(3);
	});

	it('reports a program that cannot be started', async () => {
		const out = await runProcess(
			{ bin: '/nonexistent/dbt', argv: [], cwd: process.cwd(), env, extraFds: [Buffer.from('filter')] },
			{ deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 }
		);
		expect(out.end).toBe('spawn_error');
		expect(out.spawnError).toMatch(/ENOENT/);
	});
});

describe('resource limits', () => {
	it('no core dumps ever, and the address-space cap when one is set; the program still runs as itself', async () => {
		const probe = "console.log(require('fs').readFileSync('/proc/self/limits', 'utf8')); console.log('pid ' + process.pid)";
		const spec = withLimits(node, ['-e', probe], { memoryMb: 8192 });
		const out = await runProcess({ ...spec, cwd: process.cwd(), env }, { deadline: Date.now() + 30_000, signal: new AbortController().signal, killGraceMs: 500 }, { captureStdout: 1 << 16 });
		expect(out.exitCode).toBe(0);
		expect(out.stdout).toMatch(/Max core file size\s+0\s+0/);
		expect(out.stdout).toMatch(new RegExp(`Max address space\\s+${8192 * 1024 * 1024}\\s`));
		// `exec`: the process the group leader started is dbt itself, not a shell above it.
		expect(out.stdout).toContain(`pid ${out.pgid}`);
	});
});

describe('ConsoleLines', () => {
	it('cuts an over-long line once and keeps the next ones', () => {
		const c = new ConsoleLines(10);
		const enc = (s: string) => new TextEncoder().encode(s);
		const got = [...c.push(enc('short\n0123456789abcdef')), ...c.push(enc('ghij\nnext\r\n')), ...c.push(enc('tail'), true)];
		expect(got).toEqual(['short', '0123456789 … [line cut at 10 characters]', 'next', 'tail']);
	});
});
