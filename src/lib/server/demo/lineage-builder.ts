// Column lineage in the engine's conventions (fixtures/constructed-index NOTES.md): copy for a
// pass-through or rename, mod for any expression or aggregate, and every JOIN / WHERE / GROUP BY
// input column as `scan` into EVERY output column of the model.
import type { LineageEdge, LineageKind } from './spec';

/** One input of an output column: [kind, parent unique_id, parent column]. */
export type Input = readonly ['copy' | 'mod', string, string];
/** A column read only to join, filter or group: [parent unique_id, parent column]. */
export type ScanInput = readonly [string, string];

export function copy(fromId: string, column: string): Input[] {
	return [['copy', fromId, column]];
}

export function mod(fromId: string, ...columns: string[]): Input[] {
	return columns.map((c) => ['mod', fromId, c] as const);
}

/**
 * The edges of one model: each output's direct inputs, then each scan column into every output.
 * Outputs are given in the model's column order; an output with no inputs (a literal) only
 * receives scans.
 */
export function modelEdges(
	toId: string,
	outputs: readonly (readonly [string, readonly Input[]])[],
	scans: readonly ScanInput[]
): LineageEdge[] {
	const edges: LineageEdge[] = [];
	for (const [toColumn, inputs] of outputs) {
		for (const [kind, fromId, fromColumn] of inputs) edges.push({ fromId, fromColumn, toId, toColumn, kind });
	}
	for (const [toColumn] of outputs) {
		for (const [fromId, fromColumn] of scans) edges.push({ fromId, fromColumn, toId, toColumn, kind: 'scan' });
	}
	return edges;
}

export function countByKind(edges: readonly LineageEdge[]): Record<LineageKind, number> {
	const out: Record<LineageKind, number> = { copy: 0, mod: 0, scan: 0 };
	for (const e of edges) out[e.kind]++;
	return out;
}
