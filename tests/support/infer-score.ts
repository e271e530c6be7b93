// Scoring inferred column lineage against an engine index (issue 15, item 9): shared by the
// accuracy test and the `infer` benchmark, so both report the same figures.
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { InferredKind } from '../../src/lib/lineage/infer/types';

export interface ScoredEdge {
	fromNode: string;
	fromColumn: string;
	toNode: string;
	toColumn: string;
	kind: InferredKind;
}

export interface EdgeScore {
	/** Copy/mod edges: expected (the index's), inferred, and both. */
	expected: number;
	inferred: number;
	matched: number;
	precision: number;
	recall: number;
	/** Of the matched copy/mod edges, the share with the index's kind. */
	kindAgreement: number;
	/** `from.col → to.col` of inferred copy/mod edges the index lacks, and of index edges not inferred. */
	wrong: string[];
	missed: string[];
	/** Matched copy/mod edges of another kind: `edge: inferred ≠ expected`. */
	kinds: string[];
	/** The same for the scan rows. */
	scans: { expected: number; wrong: string[]; missed: string[] };
}

const keyOf = (e: ScoredEdge) => `${e.fromNode}.${e.fromColumn} → ${e.toNode}.${e.toColumn}`;

function split(edges: ScoredEdge[]) {
	const direct = new Map<string, InferredKind>();
	const scans = new Set<string>();
	for (const e of edges) {
		if (e.kind === 'scan') scans.add(keyOf(e));
		else direct.set(keyOf(e), e.kind);
	}
	return { direct, scans };
}

export function scoreEdges(expectedEdges: ScoredEdge[], inferredEdges: ScoredEdge[]): EdgeScore {
	const expected = split(expectedEdges);
	const inferred = split(inferredEdges);
	const matched = [...inferred.direct.keys()].filter((k) => expected.direct.has(k));
	const kinds = matched.filter((k) => inferred.direct.get(k) !== expected.direct.get(k)).map((k) => `${k}: ${inferred.direct.get(k)} ≠ ${expected.direct.get(k)}`);
	return {
		expected: expected.direct.size,
		inferred: inferred.direct.size,
		matched: matched.length,
		precision: inferred.direct.size ? matched.length / inferred.direct.size : 0,
		recall: expected.direct.size ? matched.length / expected.direct.size : 0,
		kindAgreement: matched.length ? (matched.length - kinds.length) / matched.length : 0,
		wrong: [...inferred.direct.keys()].filter((k) => !expected.direct.has(k)),
		missed: [...expected.direct.keys()].filter((k) => !inferred.direct.has(k)),
		kinds,
		scans: {
			expected: expected.scans.size,
			wrong: [...inferred.scans].filter((k) => !expected.scans.has(k)),
			missed: [...expected.scans].filter((k) => !inferred.scans.has(k))
		}
	};
}

/** The edges of an engine `dbt.column_lineage.parquet`. */
export async function readIndexEdges(bytes: Uint8Array): Promise<ScoredEdge[]> {
	const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
	const rows = (await parquetReadObjects({ file, compressors })) as {
		from_node_unique_id: string;
		from_column_name: string;
		to_node_unique_id: string;
		to_column_name: string;
		lineage_kind: string;
	}[];
	return rows.map((r) => ({
		fromNode: r.from_node_unique_id,
		fromColumn: r.from_column_name,
		toNode: r.to_node_unique_id,
		toColumn: r.to_column_name,
		kind: r.lineage_kind as InferredKind
	}));
}
