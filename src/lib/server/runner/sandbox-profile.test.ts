// The sandbox's profile (bubblewrap's argv), dbt's installation it binds, the warehouse settings
// it follows, the folder gate, the runner settings, and the sealing of secrets.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mayRunAgainstWarehouse } from '../access';
import { deriveSecretKey, openSecret, sealSecret } from '../secret-box';
import { runnerConfigFromEnv } from './config';
import { bwrapArgv, installationOf, sandboxed, sandboxStartError, seccompFilter, SandboxUnavailable } from './dbt-process';
import { compileSeccomp } from './seccomp';
import { renderProfile, warehouseFolders, warehouseNetwork } from './profiles';

const spec = (network: boolean) => ({ bwrap: '/usr/bin/bwrap', installs: ['/opt/dbt'], readOnly: ['/srv/fixtures'], jobRoot: '/tmp/jobs/j1', cwd: '/tmp/jobs/j1/project', network, seccompFd: 3 });
const merged = new Map<string, string | null>([
	['/bin', 'usr/bin'],
	['/lib', 'usr/lib'],
	['/lib64', 'usr/lib64'],
	['/sbin', 'usr/sbin']
]);
/** The sources of every bind, read-only or not. */
const binds = (argv: string[], kinds: string[]) => argv.flatMap((a, i) => (kinds.includes(a) ? [argv[i + 1]] : []));

describe('the sandbox profile', () => {
	it.each([false, true])('network %s: an unprivileged user in its own namespaces, only the job directory writable', (network) => {
		const argv = bwrapArgv(spec(network), '/bin/sh', ['-c', 'exec "$0"', 'dbt'], merged);
		expect(argv.slice(0, 4)).toEqual(['--unshare-user', '--uid', '65534', '--gid']);
		for (const f of ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--remount-ro']) expect(argv).toContain(f);
		expect(argv).toContain(network ? '--share-net' : '--unshare-net');
		expect(argv).not.toContain(network ? '--unshare-net' : '--share-net');
		expect(argv.slice(argv.indexOf('--cap-drop'), argv.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
		expect(binds(argv, ['--bind'])).toEqual(['/tmp/jobs/j1']);
		const ro = binds(argv, ['--ro-bind', '--ro-bind-try']);
		expect(ro).toEqual(expect.arrayContaining(['/usr', '/etc/ssl', '/opt/dbt', '/srv/fixtures']));
		for (const never of ['/', '/etc', '/etc/shadow', '/etc/passwd', '/root', '/opt', '/home', '/var']) expect(ro).not.toContain(never);
		expect(ro.includes('/etc/resolv.conf')).toBe(network);
		// The merged-/usr links are links again, not binds.
		expect(argv.join(' ')).toContain('--symlink usr/bin /bin');
		// The tmpfs comes before the binds that may live under /tmp; the command after `--`.
		expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf('/tmp/jobs/j1'));
		expect(argv.slice(argv.indexOf('--'))).toEqual(['--', '/bin/sh', '-c', 'exec "$0"', 'dbt']);
	});

	it('no user namespace inside, and the system-call filter read from the descriptor given', () => {
		const argv = bwrapArgv(spec(false), '/bin/sh', [], merged);
		expect(argv).toContain('--disable-userns');
		// bubblewrap requires --unshare-user with --disable-userns.
		expect(argv.indexOf('--unshare-user')).toBeLessThan(argv.indexOf('--disable-userns'));
		expect(argv.slice(argv.indexOf('--seccomp'), argv.indexOf('--seccomp') + 2)).toEqual(['--seccomp', '3']);
		expect(argv.filter((a) => a === '--seccomp' || a === '--add-seccomp-fd')).toHaveLength(1);
		expect(argv.indexOf('--seccomp')).toBeLessThan(argv.indexOf('--'));
	});

	it("a sandboxed command carries this architecture's filter for descriptor 3", async () => {
		const cmd = await sandboxed({ bin: '/bin/sh', argv: ['-c', 'true'] }, { bwrapPath: null, dbtBin: '/bin/sh', pathVar: '/usr/bin:/bin', jobRoot: '/tmp/j', cwd: '/tmp/j', network: false, readOnly: [] });
		expect(cmd.argv.slice(cmd.argv.indexOf('--seccomp'), cmd.argv.indexOf('--seccomp') + 2)).toEqual(['--seccomp', '3']);
		expect(cmd.extraFds).toHaveLength(1);
		expect(Buffer.from(cmd.extraFds[0]).equals(compileSeccomp(process.arch === 'arm64' ? 'aarch64' : 'x86_64'))).toBe(true);
	});

	it.each([
		['riscv64', 'LE'],
		['arm64', 'BE'],
		['ia32', 'LE']
	] as const)('a worker on %s (%s) has no filter: the job is refused, not run bare', (arch, order) => {
		expect(() => seccompFilter(arch, order)).toThrow(SandboxUnavailable);
		expect(() => seccompFilter(arch, order)).toThrow(/the sandbox could not start: the system-call filter knows x86_64 and aarch64 \(little-endian\), and this worker is .+\. Install Debian's bubblewrap 0\.8 or newer.*The job was not run\./);
	});

	it.each([
		[1, ['bwrap: Creating new namespace failed: Operation not permitted'], 'bwrap: Creating new namespace failed: Operation not permitted'],
		[1, ['', 'bwrap: setting up uid map: Permission denied'], 'bwrap: setting up uid map: Permission denied'],
		[1, ['Runtime Error: bwrap: is a word dbt may print later'], null],
		[2, ['bwrap: something'], null],
		[0, [], null]
	])('exit %s with stderr %j: sandbox start error %j', (exitCode, stderrTail, expected) => {
		expect(sandboxStartError({ exitCode, stderrTail })).toBe(expected);
	});
});

describe('the warehouse settings the sandbox follows', () => {
	it.each([
		[{ type: 'duckdb' }, false],
		[{ type: 'DuckDB' }, false],
		[{ type: 'postgres' }, true],
		[{ type: 'snowflake' }, true],
		[{}, true],
		[{ type: 'duckdb', network: true }, true],
		[{ type: 'bigquery', network: false }, false]
	])('%j → network %s', (settings, expected) => {
		expect(warehouseNetwork(settings)).toBe(expected);
	});

	it.each([
		[undefined, 'f/analytics/jaffle', true],
		[null, 'u/alice/x', true],
		[['analytics'], 'f/analytics/jaffle', true],
		[['analytics'], 'f/analytics/sub/deep', true],
		[['analytics'], 'f/finance/jaffle', false],
		[['analytics'], 'f/analyticsx/jaffle', false],
		[['analytics'], 'u/alice/jaffle', false],
		[['u/alice'], 'u/alice/jaffle', true],
		[['u/alice'], 'u/bob/jaffle', false],
		[[], 'f/analytics/jaffle', false],
		[['analytics'], 'not-a-path', false]
	])('folders %j, project %s → may run %s', (folders, scriptPath, expected) => {
		expect(mayRunAgainstWarehouse(warehouseFolders({ type: 'duckdb', folders }), scriptPath)).toBe(expected);
	});

	it("keeps the sandbox's settings out of profiles.yml", () => {
		const p = renderProfile({ name: 'main', defaultDatabase: null, settings: { type: 'duckdb', path: 'x.duckdb', network: true, folders: ['a'] }, secrets: {} }, 'p');
		expect(p.yaml).toContain('path: x.duckdb');
		expect(p.yaml).not.toMatch(/network|folders/);
	});
});

describe('sealed secrets', () => {
	const key = deriveSecretKey('material');
	const keys = { current: key, previous: [] };

	it('open where they were sealed, and only there', () => {
		const sealed = sealSecret(key, 'ws/main/password', 'hunter2');
		expect(sealed).not.toContain('hunter2');
		expect(openSecret(keys, 'ws/main/password', sealed)).toEqual({ value: 'hunter2', current: true });
		expect(() => openSecret(keys, 'ws/other/password', sealed)).toThrow(/ws\/other\/password does not open/);
		expect(() => openSecret({ current: deriveSecretKey('other'), previous: [] }, 'ws/main/password', sealed)).toThrow(/does not open/);
		expect(openSecret({ current: deriveSecretKey('new'), previous: [key] }, 'ws/main/password', sealed)).toEqual({ value: 'hunter2', current: false });
	});

	it('a tampered ciphertext does not open', () => {
		const sealed = sealSecret(key, 'p', 'hunter2');
		const flipped = sealed.slice(0, -3) + (sealed.at(-3) === 'A' ? 'B' : 'A') + sealed.slice(-2);
		expect(() => openSecret(keys, 'p', flipped)).toThrow(/does not open/);
	});

	it('a value stored before encryption is read as it is, and not current', () => {
		expect(openSecret(keys, 'p', 'plain')).toEqual({ value: 'plain', current: false });
	});

	it('the key is 32 bytes derived from its material, not the material itself', () => {
		expect(key.length).toBe(32);
		expect(key.equals(Buffer.from('material'))).toBe(false);
		expect(deriveSecretKey('material').equals(key)).toBe(true);
	});
});

describe("dbt's installation, bound read-only", () => {
	const root = mkdtempSync(path.join(tmpdir(), 'tributary-install-'));
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it('a virtualenv: the venv above bin/, and its base Python from pyvenv.cfg', async () => {
		mkdirSync(path.join(root, 'base', 'bin'), { recursive: true });
		writeFileSync(path.join(root, 'base', 'bin', 'python3'), '', { mode: 0o755 });
		mkdirSync(path.join(root, 'venv', 'bin'), { recursive: true });
		symlinkSync(path.join(root, 'base', 'bin', 'python3'), path.join(root, 'venv', 'bin', 'python'));
		writeFileSync(path.join(root, 'venv', 'pyvenv.cfg'), `home = ${path.join(root, 'base', 'bin')}\n`);
		writeFileSync(path.join(root, 'venv', 'bin', 'dbt'), `#!${path.join(root, 'venv', 'bin', 'python')}\nimport dbt\n`, { mode: 0o755 });
		// Reached through a symlink elsewhere (a pipx-style shim): the real path decides.
		symlinkSync(path.join(root, 'venv', 'bin', 'dbt'), path.join(root, 'dbt-shim'));
		expect(await installationOf(path.join(root, 'dbt-shim'), '/usr/bin:/bin')).toEqual([path.join(root, 'base'), path.join(root, 'venv')]);
	});

	it('a script run by `env node`: its own folder; node under /usr is bound anyway', async () => {
		mkdirSync(path.join(root, 'scripts'));
		writeFileSync(path.join(root, 'scripts', 'dbt.mjs'), '#!/usr/bin/env node\n', { mode: 0o755 });
		const node = await realpath(process.execPath);
		const expected = [path.join(root, 'scripts')];
		if (!node.startsWith('/usr/')) expected.push(path.basename(path.dirname(node)) === 'bin' ? path.dirname(path.dirname(node)) : path.dirname(node));
		expect(await installationOf(path.join(root, 'scripts', 'dbt.mjs'), `${path.dirname(process.execPath)}:/usr/bin`)).toEqual(expected.sort());
	});
});

describe('the runner settings of the sandbox', () => {
	it.each([
		[{}, 'bwrap'],
		[{ TRIBUTARY_SANDBOX: 'bwrap' }, 'bwrap'],
		[{ TRIBUTARY_SANDBOX: ' OFF ' }, 'off']
	])('%j → %s', (env, sandbox) => {
		expect(runnerConfigFromEnv(env).sandbox).toBe(sandbox);
	});

	it.each(['none', '0', 'false', 'bare'])('TRIBUTARY_SANDBOX=%s is refused (only "off" turns it off)', (v) => {
		expect(() => runnerConfigFromEnv({ TRIBUTARY_SANDBOX: v })).toThrow(/TRIBUTARY_SANDBOX must be "bwrap" \(the default\) or "off"/);
	});

	it('reads the bubblewrap path and the extra read-only paths', () => {
		const c = runnerConfigFromEnv({ TRIBUTARY_BWRAP: '/opt/bwrap', TRIBUTARY_SANDBOX_READ_ONLY: '/srv/a::/srv/b' });
		expect(c.bwrapPath).toBe('/opt/bwrap');
		expect(c.sandboxReadOnly).toEqual(['/srv/a', '/srv/b']);
		expect(runnerConfigFromEnv({}).bwrapPath).toBeNull();
	});
});
