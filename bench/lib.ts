// Shared benchmark equipment. On these noisy 2-core machines absolute times move from run to
// run, so every figure is the median of repeated runs with min and max, and every comparison is
// a ratio of two figures measured in the same run.
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Principal } from '../src/lib/server/access';

export interface Stat {
	median: number;
	min: number;
	max: number;
	runs: number;
}

export function stat(xs: number[]): Stat {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
	return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

export async function repeat(runs: number, fn: () => Promise<number>): Promise<Stat> {
	const xs: number[] = [];
	for (let i = 0; i < runs; i++) xs.push(await fn());
	return stat(xs);
}

export const fmtMs = (s: Stat) => `${s.median.toFixed(1)} ms [${s.min.toFixed(1)}–${s.max.toFixed(1)}]`;
export const fmtMb = (s: Stat) => `${s.median.toFixed(0)} MB [${s.min.toFixed(0)}–${s.max.toFixed(0)}]`;
export const fmtNum = (s: Stat, unit = '') => `${Math.round(s.median).toLocaleString('en-US')}${unit} [${Math.round(s.min).toLocaleString('en-US')}–${Math.round(s.max).toLocaleString('en-US')}]`;

export interface Row {
	case: string;
	[k: string]: string | number | Stat | undefined;
}

export interface BenchResult {
	name: string;
	description: string;
	rows: Row[];
	ratios: { name: string; value: number; note: string }[];
	environment: Record<string, unknown>;
	/** The named figures issue 8 compares across runs (bench/results.json). */
	metrics?: Metric[];
}

export type Database = 'pglite' | 'postgres';

/** One named figure as bench/results.json carries it. `goal` is null where none is set. */
export interface Metric {
	name: string;
	value: number;
	unit: string;
	goal: number | null;
	better: 'lower' | 'higher';
	met: boolean | null;
	database: Database;
	min?: number;
	max?: number;
	runs?: number;
	note?: string;
}

/** A metric from a median (with its min/max) or a plain number; `met` follows from goal and direction. */
export function metric(
	name: string,
	value: number | Stat,
	unit: string,
	database: Database,
	opts: { goal?: number | null; better?: 'lower' | 'higher'; note?: string } = {}
): Metric {
	const better = opts.better ?? 'lower';
	const goal = opts.goal ?? null;
	const v = typeof value === 'number' ? value : value.median;
	const spread = typeof value === 'number' ? {} : { min: value.min, max: value.max, runs: value.runs };
	const met = goal === null || !Number.isFinite(v) ? null : better === 'lower' ? v <= goal : v >= goal;
	return { name, value: v, unit, goal, better, met, database, ...spread, ...(opts.note ? { note: opts.note } : {}) };
}

export const OUT = path.resolve('bench/out');
export const FIXTURES_DIR = path.resolve(process.env.TRIBUTARY_FIXTURES ?? '../shared/fixtures');
mkdirSync(OUT, { recursive: true });

/** Runs `bench/child/<script>.ts` in a fresh process (peak RSS is per process) and returns its JSON answer. */
export function child<T>(script: string, args: Record<string, string | number | undefined>, env: Record<string, string> = {}): Promise<T> {
	return childProcess<T>(script, ['--import', 'tsx', path.resolve('bench/child', `${script}.ts`)], args, env);
}

/** The same for a plain JavaScript file (a child bundled beforehand runs as the built app does, without tsx). */
/**
 * Children as plain ES modules (esbuild, which tsx brings), as the app's build runs its code:
 * one bundle per entry in `outdir`, packages left to node_modules. `splitting` puts shared code
 * in chunks of its own; `tsconfig` resolves another checkout's `$lib` paths.
 */
export async function bundleChildren(entryPoints: Record<string, string>, outdir: string, opts: { splitting?: boolean; tsconfig?: string } = {}): Promise<void> {
	await build({
		entryPoints,
		bundle: true,
		splitting: opts.splitting ?? false,
		format: 'esm',
		platform: 'node',
		target: 'node20',
		packages: 'external',
		...(opts.tsconfig ? { tsconfig: opts.tsconfig } : {}),
		outdir,
		logLevel: 'warning'
	});
}

export function childJs<T>(file: string, args: Record<string, string | number | undefined>, env: Record<string, string> = {}): Promise<T> {
	return childProcess<T>(path.basename(file), [file], args, env);
}

function childProcess<T>(label: string, head: string[], args: Record<string, string | number | undefined>, env: Record<string, string>): Promise<T> {
	const argv = Object.entries(args)
		.filter(([, v]) => v !== undefined)
		.flatMap(([k, v]) => [`--${k}`, String(v)]);
	return new Promise((resolve, reject) => {
		const p = spawn(process.execPath, [...head, ...argv], {
			env: { ...process.env, ...env },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let out = '';
		let err = '';
		p.stdout.on('data', (d) => (out += d));
		p.stderr.on('data', (d) => (err += d));
		p.on('exit', (code) => {
			const last = out.trim().split('\n').pop() ?? '';
			if (code !== 0) return reject(new Error(`${label} exited ${code}: ${err.slice(-2000)}`));
			try {
				resolve(JSON.parse(last) as T);
			} catch {
				reject(new Error(`${label} printed no JSON: ${out.slice(-500)} ${err.slice(-500)}`));
			}
		});
	});
}

export function printTable(r: BenchResult): void {
	const cols = [...new Set(r.rows.flatMap((x) => Object.keys(x)))];
	const cell = (v: unknown) => (v && typeof v === 'object' && 'median' in (v as object) ? fmtNum(v as Stat) : String(v ?? ''));
	const lines = [cols, ...r.rows.map((row) => cols.map((c) => cell(row[c])))];
	const widths = cols.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
	process.stdout.write(`\n## ${r.name}: ${r.description}\n\n`);
	for (const l of lines) process.stdout.write(`${l.map((c, i) => String(c).padEnd(widths[i])).join(' | ')}\n`);
	for (const q of r.ratios) process.stdout.write(`ratio ${q.name}: ${q.value.toFixed(2)} (${q.note})\n`);
}


export function environment(): Record<string, unknown> {
	const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
	return { node: process.version, cpus: (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency, loadavg: load };
}

/** A workspace admin, for the in-process children that call the app's reads without HTTP. */
export function benchAdmin(workspace: string): Principal {
	return { workspace, username: 'bench', accountId: 'bench', isAdmin: true, instanceAdmin: true, groups: [], readFolders: new Set(), writeFolders: new Set(), scopes: null, via: 'session' };
}
