// The sandbox's system-call filter: a classic-BPF seccomp program, built here (no libseccomp) and
// handed to bubblewrap, which installs it just before it executes dbt. It follows flatpak's
// default filter (common/flatpak-run.c, setup_seccomp): everything is allowed except the calls
// that reach kernel surfaces a dbt run never needs (new namespaces, mounts, tracing other
// processes, the keyring, BPF, perf, userfaultfd, module and kexec loading, NUMA page moves), and
// calls of another ABI than the native one (i386 through `int 0x80`, x32, 32-bit ARM), whose
// numbers the list does not cover.
//
// Pure module: no I/O. The program layout is linear, every jump short and forward:
//   load arch; not native → ENOSYS;  load nr; (x86_64) x32 bit set → ENOSYS;
//   per rule: nr matches → (arguments tested) → its errno;  otherwise ALLOW.

/** The architectures the filter knows: `uname -m` names. */
export type SeccompArch = 'x86_64' | 'aarch64';

/** The architecture of this process, as the kernel reports it to a filter, or null when the filter does not know it. */
export function seccompArchOf(nodeArch: string, endianness: 'BE' | 'LE'): SeccompArch | null {
	if (endianness !== 'LE') return null;
	if (nodeArch === 'x64') return 'x86_64';
	if (nodeArch === 'arm64') return 'aarch64';
	return null;
}

/** linux/audit.h: AUDIT_ARCH_* (machine | 64-bit | little-endian), what `seccomp_data.arch` holds. */
export const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };
/** arch/x86/include/uapi/asm/unistd.h: the x32 ABI's calls are the x86_64 arch with this bit in the number. */
export const X32_SYSCALL_BIT = 0x40000000;

/** linux/seccomp.h return actions. */
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;

/** asm-generic/errno-base.h and errno.h (the same on both architectures). */
export const ERRNO = { EPERM: 1, ENOSYS: 38, EAFNOSUPPORT: 97 } as const;

/**
 * The numbers of the calls the filter names, per architecture. x86_64 from the kernel's
 * arch/x86/entry/syscalls/syscall_64.tbl; aarch64 from include/uapi/asm-generic/unistd.h (arm64
 * uses the generic table; scripts/syscall.tbl since Linux 6.11). Calls added since Linux 5.1
 * (424 and up) have one number on every architecture. A call an architecture lacks is absent.
 */
export const SYSCALL_NUMBERS: Record<SeccompArch, Readonly<Record<string, number>>> = {
	x86_64: {
		ioctl: 16, socket: 41, clone: 56, ptrace: 101, syslog: 103, uselib: 134, personality: 135, modify_ldt: 154, pivot_root: 155,
		chroot: 161, acct: 163, mount: 165, umount2: 166, swapon: 167, swapoff: 168, reboot: 169, iopl: 172, ioperm: 173, init_module: 175,
		delete_module: 176, quotactl: 179, nfsservctl: 180, mbind: 237, set_mempolicy: 238, get_mempolicy: 239, kexec_load: 246,
		add_key: 248, request_key: 249, keyctl: 250, migrate_pages: 256, unshare: 272, move_pages: 279, perf_event_open: 298, setns: 308,
		process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, finit_module: 313, kexec_file_load: 320, bpf: 321, userfaultfd: 323,
		io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431,
		fsmount: 432, fspick: 433, clone3: 435, pidfd_getfd: 438, mount_setattr: 442, quotactl_fd: 443, set_mempolicy_home_node: 450,
		open_tree_attr: 467
	},
	aarch64: {
		ioctl: 29, umount2: 39, mount: 40, pivot_root: 41, nfsservctl: 42, chroot: 51, quotactl: 60, acct: 89, personality: 92, unshare: 97,
		kexec_load: 104, init_module: 105, delete_module: 106, syslog: 116, ptrace: 117, reboot: 142, socket: 198, add_key: 217,
		request_key: 218, keyctl: 219, clone: 220, swapon: 224, swapoff: 225, mbind: 235, get_mempolicy: 236, set_mempolicy: 237,
		migrate_pages: 238, move_pages: 239, perf_event_open: 241, setns: 268, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272,
		finit_module: 273, bpf: 280, userfaultfd: 282, kexec_file_load: 294, io_uring_setup: 425, io_uring_enter: 426,
		io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, clone3: 435,
		pidfd_getfd: 438, mount_setattr: 442, quotactl_fd: 443, set_mempolicy_home_node: 450, open_tree_attr: 467
	}
};

/** linux/sched.h: the clone flags that make a new namespace (CLONE_NEWTIME is 0x80, inside clone's exit-signal byte, so only unshare and clone3 take it: both are denied whole). */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** personality(2) values that change nothing that matters: PER_LINUX, PER_LINUX32 (uname's machine only), and 0xffffffff (a query). */
export const ALLOWED_PERSONALITIES = [0x0, 0x8, 0xffffffff];
/** The socket families a run may open: AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK (flatpak's list). */
export const ALLOWED_SOCKET_FAMILIES = [0, 1, 2, 10, 16];
/** asm-generic/ioctls.h: TIOCSTI (push input into a terminal) and TIOCLINUX (the virtual console's copy and paste). */
export const TERMINAL_INJECTION_IOCTLS = [0x5412, 0x541c];

/**
 * A denied call. `when` narrows it to some argument values; each test reads only an argument's
 * low 32 bits, which is all the kernel reads of these (clone's flags pass through
 * lower_32_bits, the others are `int`/`unsigned int`), so high bits cannot smuggle a value past.
 */
export interface SyscallRule {
	name: string;
	errno: number;
	when?: { arg: number; anyBitOf: number } | { arg: number; oneOf: number[] } | { arg: number; noneOf: number[] };
	/** Why, for the docs and a reader of this list. */
	why: string;
}

const EPERM = ERRNO.EPERM;
const each = (names: string[], why: string, errno: number = EPERM): SyscallRule[] => names.map((name) => ({ name, errno, why }));

export const SECCOMP_RULES: readonly SyscallRule[] = [
	...each(['unshare', 'setns'], 'new or other namespaces (a user namespace is root inside, with the kernel surface that opens)'),
	{ name: 'clone', errno: EPERM, when: { arg: 0, anyBitOf: CLONE_NAMESPACE_FLAGS }, why: 'a child in new namespaces (plain fork and threads pass)' },
	// seccomp cannot read clone3's flags (they are behind a pointer); ENOSYS makes glibc fall back to clone, which is filtered.
	{ name: 'clone3', errno: ERRNO.ENOSYS, why: 'its namespace flags cannot be seen; C libraries fall back to clone' },
	...each(['mount', 'umount2', 'pivot_root', 'chroot'], 'changing the file system view'),
	...each(['open_tree', 'open_tree_attr', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr'], 'the new mount API'),
	...each(['ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_getfd'], "reading or steering another process's memory, registers or files"),
	...each(['add_key', 'keyctl', 'request_key'], 'the kernel keyring'),
	...each(['bpf'], 'BPF programs and maps'),
	...each(['perf_event_open'], 'performance counters (a long record of kernel bugs)'),
	...each(['userfaultfd'], 'user page-fault handling (stalls the kernel at will: a tool of race exploits)'),
	...each(['io_uring_setup', 'io_uring_enter', 'io_uring_register'], 'io_uring (a large kernel surface; no dbt engine uses it)'),
	{ name: 'personality', errno: EPERM, when: { arg: 0, noneOf: ALLOWED_PERSONALITIES }, why: 'execution domains that turn off address randomisation or map page zero' },
	{ name: 'socket', errno: ERRNO.EAFNOSUPPORT, when: { arg: 0, noneOf: ALLOWED_SOCKET_FAMILIES }, why: 'socket families other than Unix, IP and netlink (vsock is not confined by a network namespace)' },
	{ name: 'ioctl', errno: EPERM, when: { arg: 1, oneOf: TERMINAL_INJECTION_IOCTLS }, why: 'typing into a terminal' },
	...each(['kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module', 'reboot', 'swapon', 'swapoff', 'acct', 'quotactl', 'quotactl_fd', 'syslog'], 'administering the machine (the kernel log included)'),
	...each(['mbind', 'set_mempolicy', 'get_mempolicy', 'migrate_pages', 'move_pages', 'set_mempolicy_home_node'], 'NUMA memory placement'),
	...each(['uselib', 'nfsservctl', 'modify_ldt', 'iopl', 'ioperm'], 'legacy calls and hardware port access')
];

/** One classic-BPF instruction (struct sock_filter). */
export interface BpfInstruction {
	code: number;
	jt: number;
	jf: number;
	k: number;
}

/** linux/filter.h opcodes. */
export const BPF = {
	LD_W_ABS: 0x20,
	JEQ_K: 0x15,
	JGE_K: 0x35,
	JSET_K: 0x45,
	RET_K: 0x06
} as const;

/** struct seccomp_data: nr (int), arch (u32), instruction_pointer (u64), args[6] (u64); little-endian, so an argument's low word comes first. */
export const SECCOMP_DATA = { nr: 0, arch: 4, argLow: (i: number) => 16 + 8 * i } as const;

const ld = (offset: number): BpfInstruction => ({ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: offset });
const jeq = (k: number, jt: number, jf: number): BpfInstruction => ({ code: BPF.JEQ_K, jt, jf, k: k >>> 0 });
const ret = (k: number): BpfInstruction => ({ code: BPF.RET_K, jt: 0, jf: 0, k: k >>> 0 });
const errno = (e: number) => ret(SECCOMP_RET_ERRNO | e);

function ruleInstructions(nr: number, rule: SyscallRule): BpfInstruction[] {
	const deny = errno(rule.errno);
	const w = rule.when;
	if (!w) return [jeq(nr, 0, 1), deny];
	// The argument replaces the number in the accumulator; the block reloads the number on its way out.
	const body: BpfInstruction[] = [ld(SECCOMP_DATA.argLow(w.arg))];
	if ('anyBitOf' in w) {
		body.push({ code: BPF.JSET_K, jt: 0, jf: 1, k: w.anyBitOf >>> 0 });
	} else {
		const values = 'oneOf' in w ? w.oneOf : w.noneOf;
		const n = values.length;
		// Offsets count from the next instruction: from value i the deny is n - 1 - i on, the reload n - i.
		values.forEach((v, i) => {
			const last = i === n - 1;
			if ('oneOf' in w) body.push(jeq(v, n - 1 - i, last ? 1 : 0));
			else body.push(jeq(v, n - i, 0));
		});
	}
	body.push(deny, ld(SECCOMP_DATA.nr));
	return [jeq(nr, 0, body.length), ...body];
}

/** The filter as instructions, for an architecture (the rules a given architecture lacks a call for are left out). */
export function seccompProgram(arch: SeccompArch, rules: readonly SyscallRule[] = SECCOMP_RULES): BpfInstruction[] {
	const numbers = SYSCALL_NUMBERS[arch];
	const prog: BpfInstruction[] = [ld(SECCOMP_DATA.arch), jeq(AUDIT_ARCH[arch], 1, 0), errno(ERRNO.ENOSYS), ld(SECCOMP_DATA.nr)];
	if (arch === 'x86_64') prog.push({ code: BPF.JGE_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT }, errno(ERRNO.ENOSYS));
	for (const rule of rules) {
		const nr = numbers[rule.name];
		if (nr !== undefined) prog.push(...ruleInstructions(nr, rule));
	}
	prog.push(ret(SECCOMP_RET_ALLOW));
	for (const [i, ins] of prog.entries()) {
		// Forward jumps fit in a byte and land inside the program: a check, not a hope.
		const jump = (ins.code & 0x07) === 0x05;
		if (jump && (ins.jt > 255 || ins.jf > 255 || i + 1 + Math.max(ins.jt, ins.jf) >= prog.length)) throw new Error(`seccomp program: jump out of range at ${i}`);
	}
	if (prog.length > 4096) throw new Error(`seccomp program: ${prog.length} instructions, over the kernel's 4096`);
	return prog;
}

/** The program as the kernel (and bubblewrap's `--seccomp FD`) reads it: 8 bytes per instruction, native (little-endian) order. */
export function encodeSeccomp(prog: BpfInstruction[]): Buffer {
	const out = Buffer.alloc(prog.length * 8);
	prog.forEach((ins, i) => {
		out.writeUInt16LE(ins.code, i * 8);
		out.writeUInt8(ins.jt, i * 8 + 2);
		out.writeUInt8(ins.jf, i * 8 + 3);
		out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
	});
	return out;
}

/** The filter for this architecture, ready to write to bubblewrap. */
export function compileSeccomp(arch: SeccompArch): Buffer {
	return encodeSeccomp(seccompProgram(arch));
}
