// The multipart body of `POST jobs/record`: fields `path` and optional `script_hash`; files
// `run_results` (required), `manifest` and `log` (optional).
import { badRequest } from '../http';
import type { UploadedFile } from '../ingest/graph-content';
import { refuseJsonNul } from '../ingest/json-nul';
import type { RecordInput } from './record';

const NAMES = { run_results: 'run_results.json', manifest: 'manifest.json', log: 'dbt.log' } as const;

/** Read whole into memory, so bounded: far above any real project's files. */
const MAX_BYTES = { run_results: 256 << 20, manifest: 512 << 20, log: 256 << 20 } as const;

async function fileField(form: FormData, field: keyof typeof NAMES): Promise<UploadedFile | undefined> {
	const v = form.get(field);
	if (v === null) return undefined;
	const size = typeof v === 'string' ? v.length : v.size;
	if (size > MAX_BYTES[field]) throw badRequest(`${field}: larger than ${MAX_BYTES[field] >> 20} MB`);
	if (typeof v === 'string') return { name: NAMES[field], bytes: new TextEncoder().encode(v) };
	return { name: v.name && v.name !== 'blob' ? v.name : NAMES[field], bytes: new Uint8Array(await v.arrayBuffer()) };
}

/** The whole form of a record whose path the route already gated (`gatedPath`). */
export async function readRecordForm(request: Request, gatedPath: string): Promise<RecordInput> {
	const type = request.headers.get('content-type') ?? '';
	if (!type.startsWith('multipart/form-data')) {
		throw badRequest('the request must be multipart/form-data with a `run_results` file and a `path` field');
	}
	let form: FormData;
	try {
		form = await request.formData();
	} catch (e) {
		throw badRequest(`the multipart body could not be read (${(e as Error).message})`);
	}
	const path = form.get('path') ?? gatedPath;
	if (path !== gatedPath) throw badRequest(`path: the form names ${typeof path === 'string' ? path : 'a file'} after naming ${gatedPath}`);
	const hash = form.get('script_hash');
	if (hash !== null && typeof hash !== 'string') throw badRequest('script_hash: must be text (16 hexadecimal digits)');
	const runResults = refuseJsonNul('run_results', await fileField(form, 'run_results'));
	if (!runResults) throw badRequest('run_results: the run_results.json file is required');
	return {
		path,
		scriptHash: hash === null || hash === '' ? undefined : hash,
		runResults,
		manifest: refuseJsonNul('manifest', await fileField(form, 'manifest')),
		log: refuseJsonNul('log', await fileField(form, 'log'))
	};
}
