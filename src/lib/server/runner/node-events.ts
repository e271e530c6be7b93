// dbt's JSON log events → per-relation progress. Only events whose node names a relation count
// (tests and ephemeral models have none), and the relation goes through THE relation → asset path
// function, so a live row lands on the path the stored node has.
import { relationNameAssetPath, type WarehouseTarget } from '$lib/lineage/relation-path';
import type { ProgressStatus } from '$lib/types/jobs';
import { classifyStatus, rowsAffectedOf } from './run-results';

export interface NodeEvent {
	uniqueId: string;
	assetPath: string;
	status: ProgressStatus;
	rowCount: number | null;
	error: string | null;
}

/** Lifecycle words dbt writes while a node is in flight. */
const IN_FLIGHT = new Set(['started', 'compiling', 'executing']);

/** A cap on a stored error message: dbt's can carry a whole compiled query. */
export const MAX_PROGRESS_ERROR = 4000;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function capMessage(s: string): string {
	return s.length > MAX_PROGRESS_ERROR ? `${s.slice(0, MAX_PROGRESS_ERROR)}… (cut)` : s;
}

/**
 * One log line → a progress event, or null for anything that is not a node event with a
 * relation and a status that says something about it (`warn`, `skipped`, `no-op` say nothing
 * about the relation's state; unknown words neither).
 */
export function nodeEventOf(line: string, warehouse: WarehouseTarget): NodeEvent | null {
	// Cheap rejection first: most lines of a build log are SQL and connection chatter.
	if (!line.includes('"node_info"') || !line.includes('"node_status"')) return null;
	let doc: unknown;
	try {
		doc = JSON.parse(line);
	} catch {
		return null;
	}
	const data = obj(obj(doc)?.data);
	const info = obj(data?.node_info);
	if (!info) return null;
	const relationName = str(obj(info.node_relation)?.relation_name);
	if (!relationName) return null;
	const word = (str(info.node_status) ?? '').trim().toLowerCase();
	let status: ProgressStatus;
	if (IN_FLIGHT.has(word)) status = 'running';
	else {
		const outcome = classifyStatus(word);
		if (outcome === 'passed') status = 'materialized';
		else if (outcome === 'failed') status = 'failed';
		else return null;
	}
	const assetPath = relationNameAssetPath(relationName, warehouse);
	if (!assetPath) return null;
	const runResult = obj(data?.run_result);
	let error: string | null = null;
	if (status === 'failed') {
		error = str(runResult?.message) || str(obj(obj(doc)?.info)?.msg) || `dbt reported ${word}`;
		error = capMessage(error);
	}
	return {
		uniqueId: str(info.unique_id) ?? '',
		assetPath,
		status,
		rowCount: status === 'materialized' ? rowsAffectedOf(runResult?.adapter_response) : null,
		error
	};
}

export interface ProgressState {
	status: ProgressStatus;
	rowCount: number | null;
	error: string | null;
}

/**
 * The latest state of each relation of one dbt invocation. `apply` answers the change to write,
 * or null when the event repeats what is known: a node logs a dozen events on its way, and a
 * row count arrives only with its last one. A finished relation is not put back to running by
 * a straggling in-flight event of the same invocation.
 */
export class ProgressTracker {
	readonly states = new Map<string, ProgressState>();

	apply(e: NodeEvent): (ProgressState & { assetPath: string }) | null {
		const prev = this.states.get(e.assetPath);
		if (prev && prev.status !== 'running' && e.status === 'running') return null;
		const next: ProgressState = {
			status: e.status,
			// A later event of the same outcome without a count keeps the one already known.
			rowCount: e.rowCount ?? (prev && prev.status === e.status ? prev.rowCount : null),
			error: e.error ?? (prev && prev.status === e.status ? prev.error : null)
		};
		if (prev && prev.status === next.status && prev.rowCount === next.rowCount && prev.error === next.error) return null;
		this.states.set(e.assetPath, next);
		return { assetPath: e.assetPath, ...next };
	}

	/** Feeds lines; answers the changes in order. */
	applyLines(lines: string[], warehouse: WarehouseTarget): (ProgressState & { assetPath: string })[] {
		const out: (ProgressState & { assetPath: string })[] = [];
		for (const line of lines) {
			const e = nodeEventOf(line, warehouse);
			if (!e) continue;
			const change = this.apply(e);
			if (change) out.push(change);
		}
		return out;
	}
}
