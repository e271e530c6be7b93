// The system-call filter as the kernel would run it: the encoded program is decoded and
// interpreted here (classic BPF, the subset seccomp accepts), against every denied call, the
// argument tests, the other architectures' calls, and every other call number, which must pass.
// The number tables are checked against the kernel's own headers when this machine has them.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
	ALLOWED_PERSONALITIES,
	ALLOWED_SOCKET_FAMILIES,
	AUDIT_ARCH,
	BPF,
	CLONE_NAMESPACE_FLAGS,
	compileSeccomp,
	ERRNO,
	SECCOMP_RET_ALLOW,
	SECCOMP_RET_ERRNO,
	SECCOMP_RULES,
	seccompArchOf,
	SYSCALL_NUMBERS,
	TERMINAL_INJECTION_IOCTLS,
	type SeccompArch
} from './seccomp';

/** Runs a seccomp program (the bytes bubblewrap reads) on one call: the kernel's verdict. */
function verdict(program: Buffer, call: { arch: number; nr: number; args?: bigint[] }): number {
	const data = Buffer.alloc(64);
	data.writeInt32LE(call.nr | 0, 0);
	data.writeUInt32LE(call.arch >>> 0, 4);
	(call.args ?? []).forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, a), 16 + 8 * i));
	expect(program.length % 8).toBe(0);
	const n = program.length / 8;
	let acc = 0;
	for (let pc = 0; pc < n; ) {
		const code = program.readUInt16LE(pc * 8);
		const jt = program.readUInt8(pc * 8 + 2);
		const jf = program.readUInt8(pc * 8 + 3);
		const k = program.readUInt32LE(pc * 8 + 4);
		pc++;
		switch (code) {
			case BPF.LD_W_ABS:
				// The kernel's checker takes only aligned word loads inside seccomp_data.
				if (k % 4 !== 0 || k + 4 > 64) throw new Error(`load at ${k}`);
				acc = data.readUInt32LE(k);
				break;
			case BPF.JEQ_K:
				pc += acc === k ? jt : jf;
				break;
			case BPF.JGE_K:
				pc += acc >= k ? jt : jf;
				break;
			case BPF.JSET_K:
				pc += (acc & k) !== 0 ? jt : jf;
				break;
			case BPF.RET_K:
				return k;
			default:
				throw new Error(`opcode 0x${code.toString(16)} at ${pc - 1}`);
		}
		if (pc > n) throw new Error('jump past the end');
	}
	throw new Error('fell off the end of the program');
}

const ARCHES: SeccompArch[] = ['x86_64', 'aarch64'];
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_ARM = 0x40000028;
const errno = (e: number) => SECCOMP_RET_ERRNO | e;
const u64 = (hi: number, lo: number) => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);

describe.each(ARCHES)('the seccomp filter on %s', (arch) => {
	const program = compileSeccomp(arch);
	const nr = SYSCALL_NUMBERS[arch];
	const run = (name: string, args: bigint[] = []) => verdict(program, { arch: AUDIT_ARCH[arch], nr: nr[name], args });

	it('denies each unconditional call with its errno, whatever the arguments', () => {
		const plain = SECCOMP_RULES.filter((r) => !r.when && nr[r.name] !== undefined);
		expect(plain.length).toBeGreaterThan(40);
		for (const r of plain) {
			for (const args of [[], [0n, 0n, 0n, 0n, 0n, 0n], [-1n, -1n, -1n, -1n, -1n, -1n], [0x10000000n, 1n]]) {
				expect(run(r.name, args), `${r.name}(${args.join(', ')})`).toBe(errno(r.errno));
			}
		}
	});

	it.each([
		['unshare', ERRNO.EPERM],
		['setns', ERRNO.EPERM],
		['mount', ERRNO.EPERM],
		['umount2', ERRNO.EPERM],
		['pivot_root', ERRNO.EPERM],
		['fsopen', ERRNO.EPERM],
		['fsmount', ERRNO.EPERM],
		['move_mount', ERRNO.EPERM],
		['open_tree', ERRNO.EPERM],
		['ptrace', ERRNO.EPERM],
		['keyctl', ERRNO.EPERM],
		['add_key', ERRNO.EPERM],
		['request_key', ERRNO.EPERM],
		['bpf', ERRNO.EPERM],
		['perf_event_open', ERRNO.EPERM],
		['userfaultfd', ERRNO.EPERM],
		['kexec_load', ERRNO.EPERM],
		['kexec_file_load', ERRNO.EPERM],
		['init_module', ERRNO.EPERM],
		['finit_module', ERRNO.EPERM],
		['delete_module', ERRNO.EPERM],
		['syslog', ERRNO.EPERM],
		['acct', ERRNO.EPERM],
		['swapon', ERRNO.EPERM],
		['swapoff', ERRNO.EPERM],
		['reboot', ERRNO.EPERM],
		['quotactl', ERRNO.EPERM],
		['nfsservctl', ERRNO.EPERM],
		['clone3', ERRNO.ENOSYS]
	])('%s → errno %i', (name, e) => {
		expect(nr[name], `${name} has a number on ${arch}`).toBeTypeOf('number');
		expect(run(name)).toBe(errno(e));
	});

	it('clone: denied with any namespace flag in the low word, allowed for fork and threads', () => {
		for (let bit = 0; bit < 32; bit++) {
			const flag = 2 ** bit;
			if (!(CLONE_NAMESPACE_FLAGS & flag)) continue;
			expect(run('clone', [BigInt(flag | 17)]), `flag 0x${flag.toString(16)}`).toBe(errno(ERRNO.EPERM));
			// Junk in the high word changes nothing: the kernel reads only the low 32 bits of the flags.
			expect(run('clone', [u64(0xffffffff, flag)])).toBe(errno(ERRNO.EPERM));
		}
		const SIGCHLD = 17;
		// glibc's fork, and pthread_create's flags (CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID).
		for (const flags of [SIGCHLD, 0x01200000 | SIGCHLD, 0x003d0f00, 0]) expect(run('clone', [BigInt(flags)]), `0x${flags.toString(16)}`).toBe(SECCOMP_RET_ALLOW);
		expect(run('clone', [u64(CLONE_NAMESPACE_FLAGS, SIGCHLD)])).toBe(SECCOMP_RET_ALLOW);
		expect(CLONE_NAMESPACE_FLAGS).toBe(0x7e020000);
	});

	it('personality: only the harmless values', () => {
		for (const p of ALLOWED_PERSONALITIES) expect(run('personality', [BigInt(p)]), `0x${p.toString(16)}`).toBe(SECCOMP_RET_ALLOW);
		// ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, ADDR_LIMIT_32BIT, PER_BSD, UNAME26.
		for (const p of [0x0040000, 0x0400000, 0x0100000, 0x0800000, 0x0006, 0x0020000, 0x0040008, 0xfffffffe]) {
			expect(run('personality', [BigInt(p)]), `0x${p.toString(16)}`).toBe(errno(ERRNO.EPERM));
		}
		// personality takes an unsigned int: what sits above it is not the value.
		expect(run('personality', [u64(1, 0)])).toBe(SECCOMP_RET_ALLOW);
		expect(run('personality', [u64(0, 0x0040000)])).toBe(errno(ERRNO.EPERM));
	});

	it('socket: Unix, IP and netlink only', () => {
		for (const f of ALLOWED_SOCKET_FAMILIES) expect(run('socket', [BigInt(f), 1n, 0n]), `family ${f}`).toBe(SECCOMP_RET_ALLOW);
		// AF_AX25, AF_PACKET, AF_ALG, AF_VSOCK, AF_XDP, AF_MAX-ish, -1.
		for (const f of [3, 17, 38, 40, 44, 45, 255, 0xffffffff]) expect(run('socket', [BigInt(f), 1n, 0n]), `family ${f}`).toBe(errno(ERRNO.EAFNOSUPPORT));
		expect(run('socket', [u64(1, 40)])).toBe(errno(ERRNO.EAFNOSUPPORT));
	});

	it('ioctl: no typing into a terminal, even with high bits set; other requests pass', () => {
		for (const cmd of TERMINAL_INJECTION_IOCTLS) {
			expect(run('ioctl', [0n, BigInt(cmd)])).toBe(errno(ERRNO.EPERM));
			expect(run('ioctl', [0n, u64(1, cmd)])).toBe(errno(ERRNO.EPERM));
		}
		// TCGETS, FIONREAD, FIONBIO, TIOCGWINSZ.
		for (const cmd of [0x5401, 0x541b, 0x5421, 0x5413]) expect(run('ioctl', [3n, BigInt(cmd)])).toBe(SECCOMP_RET_ALLOW);
	});

	it('every other call number passes, with any arguments', () => {
		const denied = new Set(SECCOMP_RULES.filter((r) => !r.when && nr[r.name] !== undefined).map((r) => nr[r.name]));
		let allowed = 0;
		for (let n = 0; n < 1024; n++) {
			if (denied.has(n)) continue;
			for (const args of [[], [0n, 3n, 0n]]) expect(verdict(program, { arch: AUDIT_ARCH[arch], nr: n, args }), `call ${n}`).toBe(SECCOMP_RET_ALLOW);
			allowed++;
		}
		expect(allowed).toBe(1024 - denied.size);
	});

	it("another architecture's calls never run: ENOSYS for every number", () => {
		const foreign = arch === 'x86_64' ? AUDIT_ARCH_I386 : AUDIT_ARCH_ARM;
		// i386: 20 getpid, 310 unshare, 26 ptrace, 166 vm86, 113 vm86old, 136 personality; arm: 20 getpid, 337 unshare.
		for (const n of [0, 20, 26, 113, 136, 166, 310, 337, 435]) expect(verdict(program, { arch: foreign, nr: n }), `call ${n}`).toBe(errno(ERRNO.ENOSYS));
		for (const other of ARCHES.filter((a) => a !== arch)) expect(verdict(program, { arch: AUDIT_ARCH[other], nr: 39 })).toBe(errno(ERRNO.ENOSYS));
	});

});

describe('the seccomp filter on x86_64 only', () => {
	const program = compileSeccomp('x86_64');
	const x86 = { arch: AUDIT_ARCH.x86_64 };

	it('uselib, modify_ldt, iopl and ioperm (which aarch64 lacks) are denied', () => {
		for (const name of ['uselib', 'modify_ldt', 'iopl', 'ioperm']) expect(verdict(program, { ...x86, nr: SYSCALL_NUMBERS.x86_64[name] }), name).toBe(errno(ERRNO.EPERM));
	});

	it('x32 calls (the x86_64 arch with bit 30 in the number) never run', () => {
		// x32's getpid, unshare and ptrace; the top of the range.
		for (const n of [0x40000000 + 39, 0x40000000 + 272, 0x40000000 + 521, 0x7fffffff]) expect(verdict(program, { ...x86, nr: n }), `call 0x${n.toString(16)}`).toBe(errno(ERRNO.ENOSYS));
	});
});

describe('the number tables', () => {
	it('calls from Linux 5.1 on have one number on both architectures', () => {
		for (const [name, n] of Object.entries(SYSCALL_NUMBERS.x86_64)) if (n >= 424) expect(SYSCALL_NUMBERS.aarch64[name], name).toBe(n);
		for (const [name, n] of Object.entries(SYSCALL_NUMBERS.aarch64)) if (n >= 424) expect(SYSCALL_NUMBERS.x86_64[name], name).toBe(n);
	});

	it('every rule names a call one of them has; aarch64 lacks only the x86 legacy calls', () => {
		for (const r of SECCOMP_RULES) expect(SYSCALL_NUMBERS.x86_64[r.name] ?? SYSCALL_NUMBERS.aarch64[r.name], r.name).toBeTypeOf('number');
		expect(SECCOMP_RULES.filter((r) => SYSCALL_NUMBERS.aarch64[r.name] === undefined).map((r) => r.name).sort()).toEqual(['ioperm', 'iopl', 'modify_ldt', 'uselib']);
		expect(SECCOMP_RULES.filter((r) => SYSCALL_NUMBERS.x86_64[r.name] === undefined)).toEqual([]);
		expect(new Set(SECCOMP_RULES.map((r) => r.name)).size).toBe(SECCOMP_RULES.length);
	});

	// linux-libc-dev's headers: the kernel's numbers, written down independently of this module.
	const HEADERS: [SeccompArch, string][] = [
		['x86_64', '/usr/include/x86_64-linux-gnu/asm/unistd_64.h'],
		['aarch64', '/usr/include/asm-generic/unistd.h']
	];
	const present = HEADERS.filter(([, file]) => existsSync(file));
	if (present.length === 0) {
		if (process.env.CI) throw new Error('the kernel headers are missing (apt-get install linux-libc-dev): the syscall tables cannot be checked');
		process.stderr.write('[notice] skipping the syscall table check: no /usr/include/asm-generic/unistd.h (linux-libc-dev)\n');
	}
	it.each(present)('%s matches %s', (arch, file) => {
		const header = new Map([...readFileSync(file, 'utf8').matchAll(/^#define __NR_(\w+)\s+(\d+)\s*$/gm)].map((m) => [m[1], Number(m[2])]));
		let checked = 0;
		for (const [name, n] of Object.entries(SYSCALL_NUMBERS[arch])) {
			if (header.has(name)) {
				expect(n, name).toBe(header.get(name));
				checked++;
			} else {
				// Newer than the headers: in the range every architecture shares.
				expect(n, `${name} is not in ${file}`).toBeGreaterThanOrEqual(424);
			}
		}
		expect(checked).toBeGreaterThan(40);
	});

	it.each([
		['x64', 'LE', 'x86_64'],
		['arm64', 'LE', 'aarch64'],
		['arm64', 'BE', null],
		['ia32', 'LE', null],
		['riscv64', 'LE', null]
	] as const)('node arch %s (%s) → %s', (nodeArch, endianness, expected) => {
		expect(seccompArchOf(nodeArch, endianness)).toBe(expected);
	});
});
