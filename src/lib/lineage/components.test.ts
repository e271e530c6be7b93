import { describe, expect, it } from 'vitest';
import { directComponents } from './components';
import { namedGraphs } from '../../../tests/support/test-graphs';

describe('directComponents', () => {
	it.each(namedGraphs)('$name', ({ edges, components }) => {
		const ids = directComponents(edges);
		const groups = new Map<number, Set<string>>();
		edges.forEach((edge, i) => {
			const id = ids[i];
			if (edge.lineageKind !== 'copy' && edge.lineageKind !== 'mod') {
				expect(id).toBeNull();
				return;
			}
			expect(id).not.toBeNull();
			const g = groups.get(id!) ?? new Set<string>();
			g.add(`${edge.parentUniqueId}.${edge.parentColumn}`).add(`${edge.childUniqueId}.${edge.childColumn}`);
			groups.set(id!, g);
		});
		const got = [...groups.values()].map((g) => [...g].sort()).sort((a, b) => a[0].localeCompare(b[0]));
		expect(got).toEqual(components);
		// Dense numbering in order of first appearance.
		const seen = ids.filter((x): x is number => x !== null);
		expect(new Set(seen)).toEqual(new Set(components.map((_, i) => i)));
	});

	it('is stable: the same edges give the same ids', () => {
		const g = namedGraphs[4].edges;
		expect(directComponents(g)).toEqual(directComponents([...g]));
	});
});
