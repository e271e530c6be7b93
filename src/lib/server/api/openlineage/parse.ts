// The OpenLineage export's inputs: which version (`ref=`).
import { hexToHash } from '../../../types/script-hash';
import { badRequest } from '../../http';

/** `ref=`: a version hash (16 hex digits) or `latest` (the default). */
export function parseVersionRef(q: URLSearchParams): bigint | 'latest' {
	const all = q.getAll('ref');
	if (all.length > 1) throw badRequest('ref may be given once');
	const raw = all[0];
	if (raw === undefined || raw === '' || raw === 'latest') return 'latest';
	const h = hexToHash(raw);
	if (h === null) throw badRequest('ref must be a version hash (16 hex digits) or latest');
	return h;
}
