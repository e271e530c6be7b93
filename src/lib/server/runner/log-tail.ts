// Following dbt's JSON event log while dbt writes it. The reader lives in the worker process,
// outside any limit the child runs under, so everything it holds is bounded: one read per tick,
// one line's worth of carry-over. A project's macro can print anything into a log line.
import { watch, type FSWatcher } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';

/** Bytes taken from the file per read. */
export const LOG_READ_MAX_BYTES = 1 << 20;
/** The longest line kept; no node event comes close. Longer ones are dropped through their newline. */
export const LOG_LINE_MAX_BYTES = 256 * 1024;

/**
 * Splits a byte stream read in arbitrary chunks into complete lines. Works on bytes so that a
 * multi-byte character cut by a chunk boundary is decoded whole; a trailing partial line waits
 * for the rest of it; a line over `maxLineBytes` is skipped (not cut) so what follows it still
 * arrives intact.
 */
export class LineSplitter {
	private carry: Buffer[] = [];
	private carryBytes = 0;
	private skipping = false;
	/** Lines dropped for being too long. */
	skipped = 0;
	private readonly decoder = new TextDecoder('utf-8');

	constructor(private readonly maxLineBytes = LOG_LINE_MAX_BYTES) {}

	push(chunk: Uint8Array): string[] {
		const out: string[] = [];
		let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		for (;;) {
			const nl = buf.indexOf(0x0a);
			if (nl < 0) {
				if (!this.skipping) this.hold(buf);
				return out;
			}
			const head = buf.subarray(0, nl);
			buf = buf.subarray(nl + 1);
			if (this.skipping) {
				// The end of an over-long line: resume with what follows it.
				this.skipping = false;
				continue;
			}
			if (this.carryBytes + head.length > this.maxLineBytes) {
				this.reset();
				this.skipped++;
				continue;
			}
			const whole = this.carryBytes ? Buffer.concat([...this.carry, head]) : head;
			this.reset();
			out.push(this.decoder.decode(whole));
		}
	}

	/** The writer is done: a last line without its newline is complete after all. */
	end(): string[] {
		if (this.skipping || this.carryBytes === 0) {
			this.restart();
			return [];
		}
		const last = this.decoder.decode(Buffer.concat(this.carry));
		this.reset();
		return [last];
	}

	/** Forget any partial line (the file was replaced underneath us). */
	reset(): void {
		this.carry = [];
		this.carryBytes = 0;
	}

	/** Starts over entirely, including an over-long line being skipped. */
	restart(): void {
		this.reset();
		this.skipping = false;
	}

	private hold(part: Buffer): void {
		if (part.length === 0) return;
		if (this.carryBytes + part.length > this.maxLineBytes) {
			this.reset();
			this.skipping = true;
			this.skipped++;
			return;
		}
		// Copied: the caller's buffer is reused for the next read.
		this.carry.push(Buffer.from(part));
		this.carryBytes += part.length;
	}
}

export interface FollowOptions {
	/** How often the file is checked while nothing new arrived. */
	intervalMs?: number;
	maxReadBytes?: number;
	maxLineBytes?: number;
}

export interface LogFollower {
	/** Reads what is left (the writer has exited) and stops. */
	finish(): Promise<void>;
	/** Stops without reading further. */
	stop(): Promise<void>;
	/** Lines skipped for length, and times the file shrank (a rewrite reset the offset). */
	stats(): { skippedLines: number; resets: number; bytesRead: number };
}

/** After the file changes, how soon it is read: a burst of writes is read in one pass. */
const CHANGE_DELAY_MS = 20;

/**
 * Follows `file` from offset 0 as it grows, handing complete lines to `onLines` (awaited, so a
 * slow consumer slows the reader rather than piling lines up). A file that is missing is waited
 * for; a file that shrank was rewritten, so the offset and any partial line are dropped. The
 * kernel tells when the file changes (inotify, through fs.watch on its folder), so a node's
 * event is read within moments of dbt writing it; the interval is the fallback where watching
 * is not possible.
 */
export function followLog(file: string, onLines: (lines: string[]) => Promise<void> | void, opts: FollowOptions = {}): LogFollower {
	const intervalMs = opts.intervalMs ?? 200;
	const maxRead = opts.maxReadBytes ?? LOG_READ_MAX_BYTES;
	const splitter = new LineSplitter(opts.maxLineBytes);
	const buf = Buffer.alloc(maxRead);
	let offset = 0;
	let inode: number | null = null;
	let resets = 0;
	let bytesRead = 0;
	let stopped = false;
	let timer: NodeJS.Timeout | null = null;
	let wake: (() => void) | null = null;
	let watcher: FSWatcher | null = null;
	let changed = false;

	/** Watches the file's folder once it exists (dbt creates it when it starts). */
	function startWatching(): void {
		if (watcher || stopped) return;
		try {
			watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
				if (name !== null && name !== path.basename(file)) return;
				// Brings the next read forward once; later changes of the burst do not postpone it.
				if (wake && timer && !changed) {
					clearTimeout(timer);
					timer = setTimeout(wake, CHANGE_DELAY_MS);
				}
				changed = true;
			});
			watcher.on('error', () => {
				watcher?.close();
				watcher = null;
			});
		} catch {
			watcher = null;
		}
	}

	/** One pass: everything currently in the file past the offset, in bounded reads. */
	async function drain(): Promise<void> {
		let size: number;
		try {
			const st = await stat(file);
			size = st.size;
			// A new inode is a file replaced by rename: its offsets start over too.
			if (inode !== null && st.ino !== inode) offset = Number.MAX_SAFE_INTEGER;
			inode = st.ino;
		} catch {
			return;
		}
		if (size < offset) {
			offset = 0;
			resets++;
			splitter.restart();
		}
		if (size === offset) return;
		const fh = await open(file, 'r').catch(() => null);
		if (!fh) return;
		try {
			while (!stopped || finishing) {
				const { bytesRead: n } = await fh.read(buf, 0, maxRead, offset);
				if (n === 0) break;
				offset += n;
				bytesRead += n;
				const lines = splitter.push(buf.subarray(0, n));
				if (lines.length) await onLines(lines);
				if (n < maxRead) break;
			}
		} finally {
			await fh.close();
		}
	}

	let finishing = false;
	const loop = (async () => {
		while (!stopped) {
			changed = false;
			await drain();
			if (stopped) break;
			startWatching();
			await new Promise<void>((resolve) => {
				wake = resolve;
				// A change seen while draining is read at once, not after a whole interval.
				timer = setTimeout(resolve, changed ? CHANGE_DELAY_MS : intervalMs);
			});
			wake = null;
		}
	})();

	const halt = async () => {
		stopped = true;
		if (timer) clearTimeout(timer);
		watcher?.close();
		watcher = null;
		wake?.();
		await loop;
	};

	return {
		async finish() {
			await halt();
			finishing = true;
			try {
				await drain();
				const last = splitter.end();
				if (last.length) await onLines(last);
			} finally {
				finishing = false;
			}
		},
		stop: halt,
		stats: () => ({ skippedLines: splitter.skipped, resets, bytesRead })
	};
}
