// Column lineage's inputs beyond the asset paths (graph/parse.ts): the `include=` words.
import { badRequest } from '../../http';

/** `include=` (comma list, repeatable): `scan` is the only word; default nothing. */
export function parseLineageInclude(q: URLSearchParams): { scan: boolean } {
	let scan = false;
	for (const w of q.getAll('include').flatMap((v) => v.split(','))) {
		const word = w.trim();
		if (word === 'scan') scan = true;
		else throw badRequest(`include: unknown word ${JSON.stringify(word.slice(0, 40))}; the only one is scan`);
	}
	return { scan };
}
