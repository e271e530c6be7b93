// A lock that holds across every process of this host: util-linux's flock(1) takes a kernel
// lock on a file and keeps it while its child lives; the child lives until we close its stdin.
// The kernel releases the lock whenever that child ends, so a worker killed mid-provisioning can
// never leave a lock behind that another worker would have to judge stale.
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

export class LockWaitAborted extends Error {}

export interface HeldLock {
	release(): Promise<void>;
}

/**
 * Waits for the lock on `file` (created if missing), calling `onWait` once if another process
 * holds it. Rejects with LockWaitAborted when `signal` aborts first.
 */
export async function acquireFileLock(file: string, opts: { signal?: AbortSignal; onWait?: () => void; waitNoticeMs?: number } = {}): Promise<HeldLock> {
	await mkdir(path.dirname(file), { recursive: true });
	const child = spawn('flock', ['-x', file, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (d) => (stderr += String(d)));
	const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
	const acquired = new Promise<void>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (d) => {
			out += String(d);
			if (out.includes('locked')) resolve();
		});
		child.on('error', (e) => reject(new Error(`flock could not be started (util-linux): ${e.message}`)));
		exited.then((code) => reject(new Error(`flock ${file} ended (exit code ${code}) before taking the lock${stderr ? `: ${stderr.trim()}` : ''}`)));
	});
	const notice = setTimeout(() => opts.onWait?.(), opts.waitNoticeMs ?? 300);
	const onAbort = () => child.kill('SIGKILL');
	opts.signal?.addEventListener('abort', onAbort, { once: true });
	try {
		await acquired;
	} catch (e) {
		if (opts.signal?.aborted) throw new LockWaitAborted(`stopped while waiting for the lock ${path.basename(file)}`);
		throw e;
	} finally {
		clearTimeout(notice);
		opts.signal?.removeEventListener('abort', onAbort);
	}
	let released = false;
	return {
		async release() {
			if (released) return;
			released = true;
			child.stdin.end();
			await exited;
		}
	};
}

export async function withFileLock<T>(file: string, fn: () => Promise<T>, opts: { signal?: AbortSignal; onWait?: () => void } = {}): Promise<T> {
	const lock = await acquireFileLock(file, opts);
	try {
		return await fn();
	} finally {
		await lock.release();
	}
}
