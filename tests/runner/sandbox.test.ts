// dbt runs inside bubblewrap by default: a stand-in dbt that attacks the machine the way project
// code could (tests/support/fake-dbt/attacker.mjs) finds nothing of the server, on both
// databases, and every system call of its Python half (tests/support/sandbox-syscalls.py) that
// would reach the kernel's wider surfaces is refused; the network follows the warehouse; a
// warehouse refuses projects outside its folders; and a sandbox that cannot start (or cannot
// apply its system-call filter) fails the job, never running dbt bare. bubblewrap is required
// (CI installs it): without it these tests fail rather than skip.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { SANDBOX_OFF_WARNING } from '../../src/lib/server/runner/config';
import { BPF, encodeSeccomp, SECCOMP_DATA, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO } from '../../src/lib/server/runner/seccomp';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { templatePath } from '../support/pglite-template';
import { buildRunnerWorld, FAKE_DBT, WS, type RunnerWorld } from '../support/runner-world';

const BWRAP = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
if (!BWRAP) throw new Error("bwrap is not installed: dbt runs need it by default (apt-get install bubblewrap)");

/** Host pids of live processes whose working directory is inside a job directory. */
function inJobDirs(root: string): number[] {
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

/** `attack <what>: <outcome>` lines of a job log. */
const attacks = (logs: string) => logs.split('\n').filter((l) => l.startsWith('attack '));

const SHARE_SECRET = 'server-share-link-secret-material';
const ADMIN_PASSWORD = 'server-admin-password-material';

// The runner world deploys a real recorded manifest.
describe.skipIf(!needFixtures('the sandbox')).each(testBackends())('the sandbox on $name', (backend) => {
	let database: Database;
	let w: RunnerWorld;
	let appPort: net.Server;
	let port = 0;
	const attackerDir = mkdtempSync(path.join(tmpdir(), 'tributary-attacker-'));
	const attacker = path.join(attackerDir, 'dbt');
	const hostTmp = mkdtempSync(path.join(tmpdir(), 'tributary-host-'));
	const hostSecret = path.join(hostTmp, 'server-secret.txt');
	const saved = { secret: process.env.TRIBUTARY_SECRET, db: process.env.DATABASE_URL };

	beforeAll(async () => {
		// Outside the app's directory, as a dbt installation would be.
		copyFileSync(path.resolve('tests/support/fake-dbt/attacker.mjs'), attacker);
		copyFileSync(path.resolve('tests/support/sandbox-syscalls.py'), path.join(attackerDir, 'sandbox-syscalls.py'));
		writeFileSync(hostSecret, 'only the server may read this');
		database = await backend.open();
		w = await buildRunnerWorld(database);
		// What the server holds in its environment while it runs jobs.
		process.env.TRIBUTARY_SECRET = SHARE_SECRET;
		process.env.DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tributary';
		// A listener standing for the app's own port; the attacker hangs up at once, which resets the socket.
		appPort = net
			.createServer((s) => {
				s.on('error', () => {});
				s.end('the app');
			})
			.listen(0, '127.0.0.1');
		await new Promise((r) => appPort.once('listening', r));
		port = (appPort.address() as net.AddressInfo).port;
		const warehouses: [string, Record<string, unknown>][] = [
			['local', { type: 'duckdb', path: 'local.duckdb' }],
			['cloud', { type: 'postgres', host: '127.0.0.1', user: 'dbt', dbname: 'postgres', schema: 'public' }],
			['local_online', { type: 'duckdb', path: 'local.duckdb', network: true }],
			['cloud_offline', { type: 'postgres', host: '127.0.0.1', user: 'dbt', dbname: 'postgres', schema: 'public', network: false }],
			['finance_only', { type: 'duckdb', path: 'f.duckdb', folders: ['finance'] }],
			['data_only', { type: 'duckdb', path: 'd.duckdb', folders: ['data'] }]
		];
		for (const [name, settings] of warehouses) {
			const r = await w.admin.post(`/api/w/${WS}/warehouses`, { name, settings: { ...settings, secrets: { password: `${name}-warehouse-secret` } } });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
		}
	}, 120_000);
	afterAll(async () => {
		for (const [k, v] of [['TRIBUTARY_SECRET', saved.secret], ['DATABASE_URL', saved.db]] as const) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
		appPort?.close();
		await w?.close();
		rmSync(attackerDir, { recursive: true, force: true });
		rmSync(hostTmp, { recursive: true, force: true });
	});

	/** Deploys the attacker's targets into `f/data/<name>` building into `warehouse`, runs it with the attacker as dbt; answers the job. */
	async function attack(name: string, warehouse: string, targets: Record<string, unknown>) {
		await w.deploy(name, { attack: targets } as never, { descriptor: `profile:\n  warehouse: ${warehouse}\n` });
		const saved = w.config.dbtBin;
		w.config.dbtBin = attacker;
		try {
			return await w.waitJob(await w.run(name, { command: 'build' }));
		} finally {
			w.config.dbtBin = saved;
		}
	}

	it('in the default configuration, every attack of project code fails', async () => {
		const outside = path.join(path.dirname(w.jobsDir), `written-by-a-run-${backend.name}`);
		const sibling = path.join(w.jobsDir, 'another-job-dir');
		const targets = {
			dataDirs: [path.resolve('data'), '/var/lib/postgresql', path.dirname(templatePath()), hostTmp],
			appDir: path.resolve('.'),
			writePaths: [outside, sibling, path.resolve('build', 'evil.js'), '/usr/local/evil', '/etc/evil'],
			ports: [
				['127.0.0.1', port],
				['127.0.0.1', 5432]
			]
		};
		const job = await attack('attack', 'local', targets);
		const lines = attacks(job.logs);
		// Two environ reads, the /proc scan, 4 data dirs + the app + /root + /etc listed, 2 reads, 5 writes, 2 connections.
		expect(lines, job.logs).toHaveLength(3 + 7 + 2 + 5 + 2);
		for (const l of lines) expect(l, job.logs).toMatch(/^attack [^:]+(:\d+)?: denied /);
		expect(lines).toContain(`attack connect 127.0.0.1:${port}: denied ECONNREFUSED`);
		expect(lines).toContain('attack read /etc/shadow: denied ENOENT');
		expect(lines).toContain(`attack list ${path.resolve('.')}: denied ENOENT`);
		expect(lines).toContainEqual(expect.stringMatching(/^attack read \/proc\/1\/environ: denied \(only this run's own variables: .*HOME/));
		for (const secret of [SHARE_SECRET, ADMIN_PASSWORD, process.env.DATABASE_URL!, process.env.TRIBUTARY_ENCRYPTION_KEY!, 'local-warehouse-secret']) {
			expect(job.logs).not.toContain(secret);
		}
		for (const p of [outside, sibling, path.resolve('build', 'evil.js'), '/usr/local/evil', '/etc/evil']) expect(existsSync(p), p).toBe(false);
		expect(job.logs).toContain('sandbox: bubblewrap, uid 65534, no new namespaces, system calls filtered, only the job directory writable, no network (warehouse "local")');
	});

	it("project code's system calls into the kernel's wider surfaces are refused, and the ordinary ones still work", async () => {
		const job = await attack('syscalls', 'local', { syscalls: true });
		const lines = attacks(job.logs);
		const outcomes = new Map(
			lines.map((l) => {
				const m = /^attack (.+?): (.*)$/.exec(l)!;
				return [m[1], m[2]];
			})
		);
		const expected: Record<string, string> = {
			// What `unshare -Ur id` answered before: uid 0 in a user namespace of its own.
			'unshare(CLONE_NEWUSER)': 'denied EPERM',
			'unshare -Ur id': 'denied EPERM (unshare: unshare failed: Operation not permitted)',
			'clone(CLONE_NEWUSER)': 'denied EPERM',
			'clone3(CLONE_NEWUSER)': 'denied ENOSYS',
			'setns(own user namespace)': 'denied EPERM',
			'mount tmpfs in a new user namespace': 'denied EPERM (unshare)',
			'mount tmpfs': 'denied EPERM',
			'fsopen(tmpfs)': 'denied EPERM',
			'ptrace(PTRACE_ATTACH) a child': 'denied EPERM',
			"process_vm_readv a child's memory": 'denied EPERM',
			'add_key(user key)': 'denied EPERM',
			'keyctl(join a new session keyring)': 'denied EPERM',
			request_key: 'denied EPERM',
			'bpf(BPF_PROG_LOAD)': 'denied EPERM',
			'perf_event_open(task clock)': 'denied EPERM',
			'userfaultfd(user mode only)': 'denied EPERM',
			io_uring_setup: 'denied EPERM',
			'personality(ADDR_NO_RANDOMIZE)': 'denied EPERM',
			'syslog(kernel log size)': 'denied EPERM',
			'socket(AF_VSOCK)': 'denied EAFNOSUPPORT',
			'socket(AF_PACKET)': 'denied EAFNOSUPPORT',
			'socket(AF_ALG)': 'denied EAFNOSUPPORT'
		};
		if (process.arch === 'x64') expected['i386 unshare(CLONE_NEWUSER) through int 0x80'] = 'denied ENOSYS';
		for (const [what, outcome] of Object.entries(expected)) expect(outcomes.get(what), `${what}\n${job.logs}`).toBe(outcome);
		// The stand-in's own file and process attacks besides: 2 environ reads, the /proc scan, /root and /etc listed, /etc/shadow read.
		expect(lines, job.logs).toHaveLength(Object.keys(expected).length + 6);
		const controls = job.logs.split('\n').filter((l: string) => l.startsWith('control '));
		expect(controls, job.logs).toEqual(['control fork: ok', 'control thread: ok', 'control subprocess: ok', 'control unix and ip sockets: ok', 'control personality query: ok']);
		expect(job.logs).toContain('syscall attacks done');
		expect(job.logs).toContain('attacks done');
	});

	it.each([
		['local', 'duckdb, default', false],
		['cloud', 'postgres, default', true],
		['local_online', 'duckdb, network: true', true],
		['cloud_offline', 'postgres, network: false', false]
	])('the network follows the warehouse: %s (%s) → %s', async (warehouse, _what, online) => {
		const job = await attack(`net_${warehouse}`, warehouse, { ports: [['127.0.0.1', port]] });
		// Without the network the sandbox has a loopback of its own, where nothing listens.
		expect(attacks(job.logs).filter((l) => l.startsWith('attack connect')), job.logs).toEqual([`attack connect 127.0.0.1:${port}: ${online ? 'ALLOWED connected' : 'denied ECONNREFUSED'}`]);
	});

	it('a warehouse refuses projects outside its folders before dbt starts', async () => {
		const refused = await attack('folder_refused', 'finance_only', { ports: [] });
		expect(refused.status).toBe('failure');
		expect(refused.result.error).toMatch(/the warehouse "finance_only" may be used only by projects in "finance", and f\/data\/folder_refused is not among them.*dbt was not started/);
		expect(refused.logs).not.toContain('attacks done');
		expect(refused.logs).not.toContain('engine:');
		const allowed = await attack('folder_allowed', 'data_only', { ports: [] });
		expect(allowed.logs).toContain('attacks done');
	});

	it("only the job directory is writable, and the server's files are out of sight (the replaying stand-in)", async () => {
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
		await expect.poll(async () => (await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body.logs, { timeout: 20_000 }).toMatch(/grandchild pid \d+/);
		expect(inJobDirs(w.jobsDir).length).toBeGreaterThan(1);
		await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
		expect((await w.waitJob(id)).status).toBe('canceled');
		await expect.poll(() => inJobDirs(w.jobsDir), { timeout: 10_000 }).toEqual([]);
	});

	describe('a sandbox that cannot start fails the job, and dbt never runs bare', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'tributary-bwrap-'));
		// A real kernel refusal: the outer bubblewrap forbids user namespaces to what it runs.
		const denying = path.join(dir, 'bwrap-denied');
		writeFileSync(denying, `#!/bin/sh\nexec ${BWRAP} --unshare-user --disable-userns --ro-bind / / --dev /dev --proc /proc -- ${BWRAP} "$@"\n`, { mode: 0o755 });
		// A kernel without seccomp filters, as bubblewrap meets it: an outer filter answers EINVAL to
		// prctl(PR_SET_SECCOMP), what a kernel built without CONFIG_SECCOMP_FILTER answers.
		const noFilters = path.join(dir, 'bwrap-no-seccomp');
		const PRCTL = process.arch === 'arm64' ? 167 : 157;
		const PR_SET_SECCOMP = 22;
		const EINVAL = 22;
		const refuseFilters = encodeSeccomp([
			{ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: SECCOMP_DATA.nr },
			{ code: BPF.JEQ_K, jt: 0, jf: 3, k: PRCTL },
			{ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: SECCOMP_DATA.argLow(0) },
			{ code: BPF.JEQ_K, jt: 0, jf: 1, k: PR_SET_SECCOMP },
			{ code: BPF.RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EINVAL },
			{ code: BPF.RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW }
		]);
		writeFileSync(path.join(dir, 'refuse-filters.bpf'), refuseFilters);
		writeFileSync(noFilters, `#!/bin/sh\nexec ${BWRAP} --unshare-user --ro-bind / / --bind /proc /proc --dev /dev --seccomp 9 -- ${BWRAP} "$@" 9<${path.join(dir, 'refuse-filters.bpf')}\n`, { mode: 0o755 });
		afterAll(() => rmSync(dir, { recursive: true, force: true }));

		it.each([
			['the bubblewrap binary is missing', path.join(dir, 'no-such-bwrap'), /the sandbox could not start: TRIBUTARY_BWRAP=.*no-such-bwrap does not exist or is not executable\. Install Debian's bubblewrap.*TRIBUTARY_SANDBOX=off.*The job was not run\./],
			['namespaces are denied', denying, /the sandbox could not start: bwrap: .*namespace.*Install Debian's bubblewrap.*TRIBUTARY_SANDBOX=off/],
			['the kernel cannot apply the system-call filter', noFilters, /the sandbox could not start: bwrap: Unable to set up system call filtering as requested: prctl\(PR_SET_SECCOMP\) reported EINVAL.*seccomp filters; or set TRIBUTARY_SANDBOX=off.*The job was not run\./]
		])('%s', async (_what, bwrapPath, message) => {
			await w.deploy('unsandboxable', { commands: { build: { mode: 'probe-sandbox', writePaths: ['models/new.sql'] } } });
			w.config.bwrapPath = bwrapPath;
			try {
				const job = await w.waitJob(await w.run('unsandboxable', { command: 'build' }));
				expect(job.status).toBe('failure');
				expect(job.result.error).toMatch(message);
				expect(job.logs).not.toContain('fake-dbt argv');
				expect(job.logs).not.toContain('probe write');
				expect((await w.progress(job.id)).some((r) => r.status === 'running')).toBe(false);
			} finally {
				w.config.bwrapPath = null;
			}
		});
	});

	it('a run killed by the memory limit ends failed with the reason, nothing left running', async () => {
		await w.deploy('memory', { commands: { build: { mode: 'probe-sandbox', writePaths: ['models/new.sql'] } } });
		w.config.memoryMb = 64;
		try {
			const job = await w.waitJob(await w.run('memory', { command: 'build' }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/dbt exited with (signal SIG[A-Z]+|exit code \d+): it crashed, as a process does on running out of memory under the 64 MB cap of TRIBUTARY_DBT_MEMORY_MB/);
			expect((await w.progress(job.id)).some((r) => r.status === 'running')).toBe(false);
		} finally {
			w.config.memoryMb = null;
		}
	});

	it('TRIBUTARY_SANDBOX=off runs bare, and says so loudly in the job log', async () => {
		await w.deploy('probe_off', { commands: { build: { mode: 'probe-sandbox', readPaths: [hostSecret] } } });
		w.config.sandbox = 'off';
		try {
			const job = await w.waitJob(await w.run('probe_off', { command: 'build' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain(SANDBOX_OFF_WARNING);
			expect(job.logs).toContain(`probe read ${hostSecret}: ok`);
		} finally {
			w.config.sandbox = 'bwrap';
		}
	});
});
