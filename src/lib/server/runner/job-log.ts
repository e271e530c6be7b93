// A job's log while it runs: what the runner says, and dbt's console output, both masked (no
// secret value ever reaches the row), buffered and written in batches. dbt's output is bounded:
// past the budget its lines are counted and only the last ones kept, so a project that prints a
// million lines costs the log its middle, not the worker its memory or the database its row.

const TAIL_LINES = 200;

export class JobLog {
	private pending: string[] = [];
	private writing: Promise<void> = Promise.resolve();
	private timer: NodeJS.Timeout | null = null;
	private mask: (s: string) => string = (s) => s;
	private consoleBytes = 0;
	private omittedLines = 0;
	private omittedBytes = 0;
	private tail: string[] = [];
	private closed = false;
	/** Total console lines seen (kept or not). */
	consoleLines = 0;

	constructor(
		private readonly write: (text: string) => Promise<unknown>,
		private readonly opts: { consoleBytes: number; flushMs: number }
	) {}

	setMask(mask: (s: string) => string): void {
		this.mask = mask;
	}

	/** A line of the runner's own. */
	say(text: string): void {
		this.push(this.mask(text));
	}

	/** A line dbt printed. */
	console(line: string): void {
		this.consoleLines++;
		const masked = this.mask(line);
		const size = Buffer.byteLength(masked) + 1;
		if (this.omittedLines === 0 && this.consoleBytes + size <= this.opts.consoleBytes) {
			this.consoleBytes += size;
			this.push(masked);
			return;
		}
		this.omittedLines++;
		this.omittedBytes += size;
		this.tail.push(masked);
		if (this.tail.length > TAIL_LINES) this.tail.shift();
	}

	/** After an invocation: say what was left out, then its last lines, so the reason of a failure is still there. */
	endOfOutput(): void {
		if (this.omittedLines === 0) return;
		const kept = this.tail.length;
		const left = this.omittedLines - kept;
		if (left > 0) this.push(`… ${left.toLocaleString('en-US')} lines of dbt output were left out of this log (over its ${this.opts.consoleBytes.toLocaleString('en-US')}-byte budget); the last ${kept} follow …`);
		for (const l of this.tail) this.push(l);
		this.omittedLines = 0;
		this.omittedBytes = 0;
		this.tail = [];
		// Budget stays spent: the next invocation's lines go straight to the tail.
		this.consoleBytes = this.opts.consoleBytes;
	}

	private push(line: string): void {
		if (this.closed) return;
		this.pending.push(line);
		if (!this.timer) {
			this.timer = setTimeout(() => {
				this.timer = null;
				void this.flush();
			}, this.opts.flushMs);
			this.timer.unref?.();
		}
	}

	/** Writes what is buffered (writes are serialised, so lines keep their order). */
	flush(): Promise<void> {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = null;
		}
		if (this.pending.length === 0) return this.writing;
		const text = this.pending.join('\n') + '\n';
		this.pending = [];
		this.writing = this.writing.then(() => this.write(text).then(() => undefined, () => undefined));
		return this.writing;
	}

	/** Everything still buffered, as text (the last write goes with the job's end). */
	drain(): string {
		this.endOfOutput();
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		this.closed = true;
		const text = this.pending.length ? this.pending.join('\n') + '\n' : '';
		this.pending = [];
		return text;
	}

	/** Waits for writes in flight. */
	settled(): Promise<void> {
		return this.writing;
	}
}
