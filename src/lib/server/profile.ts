// Where an ingest spends its time: named phases with their wall time and the process's RSS at
// the end of each. Optional everywhere (a deploy without one records nothing); the ingest
// benchmark passes one and prints the breakdown.

export interface Phase {
	name: string;
	ms: number;
	/** Resident set size when the phase ended (not its peak). */
	rssMb: number;
	/** The process's peak RSS so far (getrusage maxrss): where it rises is where the peak is set. */
	peakMb: number;
}

export class IngestProfile {
	readonly phases: Phase[] = [];
	private last = performance.now();

	/** Closes the phase that began at the previous mark (or at construction) under `name`. */
	mark(name: string): void {
		const now = performance.now();
		this.phases.push({ name, ms: now - this.last, rssMb: process.memoryUsage.rss() / 1048576, peakMb: process.resourceUsage().maxRSS / 1024 });
		this.last = now;
	}

	/** Records a phase that ran beside others without moving the clock: its time is counted again in the next mark's. */
	record(name: string, ms: number): void {
		this.phases.push({ name, ms, rssMb: process.memoryUsage.rss() / 1048576, peakMb: process.resourceUsage().maxRSS / 1024 });
	}

	/** Restarts the clock without recording (time spent elsewhere, e.g. in the caller). */
	reset(): void {
		this.last = performance.now();
	}

	/** Phases summed by name (a phase may be marked more than once). */
	totals(): Record<string, number> {
		const out: Record<string, number> = {};
		for (const p of this.phases) out[p.name] = (out[p.name] ?? 0) + p.ms;
		return out;
	}
}

/** Marks a phase on an optional profile. */
export const mark = (p: IngestProfile | undefined, name: string): void => p?.mark(name);
