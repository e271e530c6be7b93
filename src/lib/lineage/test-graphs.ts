// Named column graphs shared by the lineage tests (house rule: tests are table-driven over
// these shapes). Columns are written `model.col`; every edge is `copy` unless given.
import type { ColumnEdgeLike } from './components';

function e(from: string, to: string, kind = 'copy'): ColumnEdgeLike {
	const [pu, pc] = split(from);
	const [cu, cc] = split(to);
	return { parentUniqueId: pu, parentColumn: pc, childUniqueId: cu, childColumn: cc, lineageKind: kind };
}

function split(s: string): [string, string] {
	const i = s.lastIndexOf('.');
	return [s.slice(0, i), s.slice(i + 1)];
}

export interface NamedGraph {
	name: string;
	edges: ColumnEdgeLike[];
	/** Expected direct components, each a sorted list of `model.col` members. */
	components: string[][];
}

export const namedGraphs: NamedGraph[] = [
	{
		name: 'diamond',
		edges: [e('a.x', 'b.x'), e('a.x', 'c.x', 'mod'), e('b.x', 'd.x'), e('c.x', 'd.x')],
		components: [['a.x', 'b.x', 'c.x', 'd.x']]
	},
	{
		name: 'cycle',
		edges: [e('a.x', 'b.x'), e('b.x', 'c.x'), e('c.x', 'a.x')],
		components: [['a.x', 'b.x', 'c.x']]
	},
	{
		name: 'self-loop',
		edges: [e('a.x', 'a.x'), e('a.y', 'b.y')],
		components: [['a.x'], ['a.y', 'b.y']]
	},
	{
		name: 'fan-out',
		edges: [e('s.id', 'a.id'), e('s.id', 'b.id'), e('s.id', 'c.id', 'mod'), e('s.id', 'd.n', 'scan')],
		components: [['a.id', 'b.id', 'c.id', 's.id']]
	},
	{
		name: 'disconnected families',
		edges: [e('a.x', 'b.x'), e('c.y', 'd.y'), e('a.x', 'd.y', 'scan'), e('e.z', 'f.z', 'mod')],
		components: [['a.x', 'b.x'], ['c.y', 'd.y'], ['e.z', 'f.z']]
	},
	{
		name: 'scan only',
		edges: [e('a.k', 'b.v', 'scan'), e('a.k', 'b.w', 'scan')],
		components: []
	}
];
