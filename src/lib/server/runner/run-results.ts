// run_results.json → the job's result (DESIGN.md §7) and what it settles. Pure: the same code
// reads a run this worker made and a run recorded from CI, so both store the same shape.
import { relationNameAssetPath, type WarehouseTarget } from '$lib/lineage/relation-path';
import type { NodeOutcome, RunNodeResult, RunResult, RunTotals } from '$lib/types/runner';
import type { ProgressUpdate } from '../repo/jobs';
import { IngestError } from '../dbt-files/errors';

/**
 * dbt's status word → ours. Every site classifies through here: engines differ in casing
 * (Fusion capitalises some words), and a word this version does not know is `unknown`, which
 * is counted as an error rather than passing silently.
 */
export function classifyStatus(status: string): NodeOutcome {
	switch (status.trim().toLowerCase()) {
		case 'success':
		case 'pass':
			return 'passed';
		case 'error':
		case 'fail':
		case 'runtime error':
		// The relation was written but part of it failed: a failure, and its data is suspect.
		case 'partial success':
			return 'failed';
		case 'warn':
			return 'warned';
		case 'skipped':
			return 'skipped';
		case 'no-op':
			return 'no_op';
		default:
			return 'unknown';
	}
}

/** Statuses `dbt retry` redoes: errors, failures and the nodes they caused to be skipped. */
export function isRetryable(n: Pick<RunNodeResult, 'outcome'>): boolean {
	return n.outcome === 'failed' || n.outcome === 'skipped';
}

export interface ParsedRunResults {
	/** `v6`, or null when the file does not say. */
	schemaVersion: string | null;
	dbtVersion: string | null;
	invocationId: string | null;
	nodes: RunNodeResult[];
	/** dbt's own `args` block (the invocation's flags). */
	args: Record<string, unknown> | null;
	/** Entries without a unique_id or status (not counted). */
	malformed: number;
}

/** The run_results schema versions a recorded run may carry. */
export const RECORDABLE_RUN_RESULTS = [1, 2, 3, 4, 5, 6] as const;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A stored message is a display, not an archive: dbt's can carry a whole compiled query. */
const MAX_MESSAGE = 10_000;

/** `rows_affected` when dbt reported a usable one (adapters write -1, or nothing, for "unknown"). */
export function rowsAffectedOf(adapterResponse: unknown): number | null {
	const v = obj(adapterResponse)?.rows_affected;
	const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
	return Number.isFinite(n) && n >= 0 ? Math.trunc(n) : null;
}

/**
 * Reads run_results.json. `strict` (a recorded upload) refuses what is not a run_results file or
 * names a schema version outside v1–v6, with the file and the problem in the message; the
 * worker reads its own engine's file leniently, whatever version that engine writes.
 */
export function parseRunResults(text: string, opts: { fileName?: string; strict?: boolean } = {}): ParsedRunResults {
	const file = opts.fileName ?? 'run_results.json';
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch (e) {
		throw new IngestError(file, `is not valid JSON (${(e as Error).message}); was it cut short?`);
	}
	const root = obj(doc);
	if (!root || !Array.isArray(root.results)) throw new IngestError(file, 'is not a dbt run_results.json (no `results` list)');
	const metadata = obj(root.metadata);
	const schemaUrl = str(metadata?.dbt_schema_version);
	const m = schemaUrl ? /run-results\/v(\d+)\.json/.exec(schemaUrl) : null;
	if (opts.strict) {
		if (schemaUrl && !m) throw new IngestError(file, `is not a run_results file (its schema is ${schemaUrl})`);
		if (m && !(RECORDABLE_RUN_RESULTS as readonly number[]).includes(Number(m[1]))) {
			throw new IngestError(file, `has schema version v${m[1]}; this version of Tributary reads run_results v1 to v6`);
		}
	}
	const nodes: RunNodeResult[] = [];
	let malformed = 0;
	for (const raw of root.results) {
		const r = obj(raw);
		const uniqueId = str(r?.unique_id);
		const status = str(r?.status);
		if (!r || !uniqueId || status === null) {
			malformed++;
			continue;
		}
		const node: RunNodeResult = {
			unique_id: uniqueId,
			status,
			outcome: classifyStatus(status),
			execution_time: num(r.execution_time)
		};
		const rows = rowsAffectedOf(r.adapter_response);
		if (rows !== null) node.rows_affected = rows;
		const rel = str(r.relation_name);
		if (rel) node.relation_name = rel;
		const msg = str(r.message);
		if (msg) node.message = msg.length > MAX_MESSAGE ? `${msg.slice(0, MAX_MESSAGE)}… (cut)` : msg;
		const failures = num(r.failures);
		if (failures !== null) node.failures = failures;
		nodes.push(node);
	}
	if (opts.strict && nodes.length === 0 && malformed > 0) {
		throw new IngestError(file, `none of its ${malformed} results has a unique_id and a status`);
	}
	return {
		schemaVersion: m ? `v${m[1]}` : null,
		dbtVersion: str(metadata?.dbt_version),
		invocationId: str(metadata?.invocation_id),
		nodes,
		args: obj(root.args),
		malformed
	};
}

export function totalsOf(nodes: readonly RunNodeResult[]): RunTotals {
	const t: RunTotals = { total: nodes.length, success: 0, error: 0, warn: 0, skipped: 0 };
	for (const n of nodes) {
		if (n.outcome === 'passed') t.success++;
		else if (n.outcome === 'warned') t.warn++;
		else if (n.outcome === 'skipped' || n.outcome === 'no_op') t.skipped++;
		else t.error++;
	}
	return t;
}

/**
 * Overlays a later invocation's nodes onto the accumulated ones (a test phase after the models,
 * a retry after the attempt it resumed): one row per node, the latest word wins, order kept.
 * dbt writes only what an invocation ran, so replacing would drop every earlier node.
 */
export function mergeNodes(into: RunNodeResult[], from: readonly RunNodeResult[]): RunNodeResult[] {
	const at = new Map(into.map((n, i) => [n.unique_id, i]));
	const out = [...into];
	for (const n of from) {
		const i = at.get(n.unique_id);
		if (i === undefined) {
			at.set(n.unique_id, out.length);
			out.push(n);
		} else out[i] = n;
	}
	return out;
}

/** Engine name from the version dbt reports: Fusion and the Rust 2.x line are not dbt-core 1.x. */
export function engineOf(version: string | null): string {
	if (!version) return 'dbt';
	return /^\s*=?\s*1\./.test(version) || /^\s*=?\s*0\./.test(version) ? 'dbt-core' : 'dbt-fusion';
}

export function runResultOf(
	parsed: { nodes: RunNodeResult[]; dbtVersion: string | null },
	command: string,
	invocationArgs: Record<string, unknown>,
	engine?: { name: string; version: string }
): RunResult {
	const version = engine?.version ?? parsed.dbtVersion?.replace(/^=/, '') ?? 'unknown';
	return {
		engine: engine?.name ?? engineOf(parsed.dbtVersion),
		engine_version: version,
		command,
		totals: totalsOf(parsed.nodes),
		nodes: parsed.nodes,
		invocation_args: invocationArgs
	};
}

const LISTED = 50;

/**
 * What a failed job says: which nodes did not succeed and how, failures first. Warned and
 * skipped nodes are counted rather than listed (a failing model can skip hundreds).
 */
export function failureSummary(nodes: readonly RunNodeResult[]): string | null {
	const bad = nodes.filter((n) => n.outcome === 'failed' || n.outcome === 'unknown');
	const skipped = nodes.filter((n) => n.outcome === 'skipped').length;
	const warned = nodes.filter((n) => n.outcome === 'warned').length;
	if (bad.length === 0 && skipped === 0) return null;
	const lines: string[] = [];
	if (bad.length) {
		lines.push(`${bad.length} dbt node${bad.length === 1 ? '' : 's'} did not succeed:`);
		for (const n of bad.slice(0, LISTED)) {
			const failing = n.failures ? ` ${n.failures} failing row${n.failures === 1 ? '' : 's'}` : '';
			const msg = n.message ? `: ${n.message.split('\n')[0].slice(0, 500)}` : '';
			lines.push(`  ${n.unique_id} [${n.status}]${failing}${msg}`);
		}
		if (bad.length > LISTED) lines.push(`  … and ${bad.length - LISTED} more`);
	}
	if (skipped) lines.push(`${skipped} node${skipped === 1 ? ' was' : 's were'} skipped`);
	if (warned) lines.push(`${warned} test${warned === 1 ? '' : 's'} warned`);
	return lines.join('\n');
}

export interface SettlementPlan {
	/** Relations this run gave a terminal state (materialized with rows, or failed with dbt's message). */
	updates: ProgressUpdate[];
	/** Relations reported but not built (warn, skipped, no-op, unknown): a live `running` row of theirs goes. */
	untouched: string[];
}

/**
 * Which relation each result settles. The relation comes from `relation_name` through the one
 * relation → asset path function; a node without one (run_results v4 omits it) falls back to
 * the stored graph's path for its unique_id.
 */
export function settlementPlan(
	nodes: readonly RunNodeResult[],
	warehouse: WarehouseTarget,
	pathOfNode: ReadonlyMap<string, string> = new Map()
): SettlementPlan {
	const updates: ProgressUpdate[] = [];
	const untouched: string[] = [];
	for (const n of nodes) {
		const path = n.relation_name ? relationNameAssetPath(n.relation_name, warehouse) : (pathOfNode.get(n.unique_id) ?? null);
		if (!path) continue;
		if (n.outcome === 'passed') updates.push({ assetKind: 'dbt', assetPath: path, status: 'materialized', rowCount: n.rows_affected ?? null, error: null });
		else if (n.outcome === 'failed') {
			updates.push({ assetKind: 'dbt', assetPath: path, status: 'failed', rowCount: null, error: (n.message ?? `dbt reported ${n.status}`).slice(0, 4000) });
		} else untouched.push(path);
	}
	return { updates, untouched };
}
