// bench/results.json: the named figures of issue 8 in one stable shape per database, so runs can
// be compared by anyone (`{when, machine, database, results: [{name, value, unit, goal, met}]}`).
// Full runs write bench/results.json (PGlite) and bench/results.postgres.json; quick runs write
// under bench/out/ so a smoke run never overwrites the recorded figures.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database, Metric } from './lib';

export interface Machine {
	cpus: number;
	memory_gb: number;
	node: string;
	loadavg?: number[];
}

export interface ResultsDocument {
	when: string;
	machine: Machine;
	database: Database;
	quick: boolean;
	results: (Omit<Metric, 'database'> & { bench?: string; when?: string })[];
}

export function machine(): Machine {
	let loadavg: number[] | undefined;
	try {
		loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
	} catch {
		loadavg = undefined;
	}
	return { cpus: os.cpus().length, memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10, node: process.version, ...(loadavg ? { loadavg } : {}) };
}

export function resultsFile(database: Database, quick: boolean, dir = path.resolve('bench')): string {
	const name = database === 'pglite' ? 'results.json' : 'results.postgres.json';
	return quick ? path.join(dir, 'out', name.replace('results', 'results.quick')) : path.join(dir, name);
}

/**
 * The document after a run: the fresh metrics replace those of the same name; the others (from
 * benchmarks not run this time) are kept with the time they were measured at.
 */
export function mergeDocument(previous: ResultsDocument | null, fresh: Metric[], bench: string, database: Database, quick: boolean, now: string, m: Machine): ResultsDocument {
	const names = new Set(fresh.map((x) => x.name));
	const kept = (previous?.results ?? []).filter((r) => !names.has(r.name)).map((r) => ({ ...r, when: r.when ?? previous!.when }));
	const added = fresh.map(({ database: _db, ...rest }) => ({ ...rest, bench, when: now }));
	const order = (r: { name: string }) => r.name;
	return { when: now, machine: m, database, quick, results: [...kept, ...added].sort((a, b) => order(a).localeCompare(order(b))) };
}

export function readDocument(file: string): ResultsDocument | null {
	if (!existsSync(file)) return null;
	try {
		const d = JSON.parse(readFileSync(file, 'utf8'));
		return d && Array.isArray(d.results) ? (d as ResultsDocument) : null;
	} catch {
		return null;
	}
}

export function saveMetrics(metrics: Metric[], bench: string, quick: boolean, dir = path.resolve('bench')): string[] {
	const written: string[] = [];
	const now = new Date().toISOString();
	for (const database of ['pglite', 'postgres'] as const) {
		const mine = metrics.filter((x) => x.database === database);
		if (mine.length === 0) continue;
		const file = resultsFile(database, quick, dir);
		mkdirSync(path.dirname(file), { recursive: true });
		writeFileSync(file, `${JSON.stringify(mergeDocument(readDocument(file), mine, bench, database, quick, now, machine()), null, 2)}\n`);
		written.push(file);
	}
	return written;
}

export const isRatio = (m: { unit: string }) => m.unit === 'ratio' || m.unit === '×';

export interface GateFailure {
	name: string;
	database: Database;
	value: number;
	threshold: number;
	why: string;
}

/**
 * The quick mode's regression gate over ratios (the only figures comparable across machine sizes
 * and data sizes): a ratio fails when it is worse than half its goal (≥ goal/2 for "higher is
 * better", ≤ 2 × goal for "lower"). Where the last full run did not reach the goal itself, the
 * gate holds the ratio at half of that recorded figure instead, so a known miss fails only when it
 * regresses further.
 */
export function quickGate(metrics: Metric[], recorded: (name: string, database: Database) => { value: number; met: boolean | null } | undefined): GateFailure[] {
	const failures: GateFailure[] = [];
	for (const m of metrics) {
		if (!isRatio(m) || m.goal === null) continue;
		const ref = recorded(m.name, m.database);
		const base = ref && ref.met === false ? ref.value : m.goal;
		const threshold = m.better === 'higher' ? base / 2 : base * 2;
		const bad = !Number.isFinite(m.value) || (m.better === 'higher' ? m.value < threshold : m.value > threshold);
		if (bad) {
			const from = base === m.goal ? `half its goal (${m.goal})` : `half the last full run's ${ref!.value.toFixed(2)} (its goal ${m.goal} is not met there)`;
			failures.push({ name: m.name, database: m.database, value: m.value, threshold, why: `${m.value.toFixed(2)} is worse than ${threshold.toFixed(2)}, ${from}` });
		}
	}
	return failures;
}
