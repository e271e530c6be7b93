// `copy` and `mod` carry a parent column's value into the child. `scan` only READS the parent
// (join keys, filters, group-by keys) and reaches every output column of its model, so serving
// it would draw a complete bipartite graph; other words are kept in storage but never served.
export const DIRECT_KINDS = ['copy', 'mod'] as const;

export function isDirectKind(kind: string | null | undefined): boolean {
	return kind === 'copy' || kind === 'mod';
}
