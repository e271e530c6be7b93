// The multipart body of `POST jobs/record`: fields `path` and optional `script_hash`; files
// `run_results` (required), `manifest` and `log` (optional), each bounded as it streams in.
import { badRequest } from '../http';
import { uploadFileLimit } from '../limits';
import { readMultipart, type MultipartSpec } from '../multipart';
import { refuseJsonNul } from '../dbt-files/json-nul';
import type { RecordInput } from './record';

export function recordFormSpec(): MultipartSpec {
	return {
		files: {
			run_results: { name: 'run_results.json', what: 'run_results', limit: uploadFileLimit('run_results') },
			manifest: { name: 'manifest.json', what: 'manifest', limit: uploadFileLimit('manifest') },
			log: { name: 'dbt.log', what: 'log', limit: uploadFileLimit('log') }
		},
		fields: ['path', 'script_hash'],
		what: 'a `run_results` file and a `path` field'
	};
}

/** The whole form of a record whose path the route already gated (`gatedPath`). */
export async function readRecordForm(request: Request, gatedPath: string): Promise<RecordInput> {
	const form = await readMultipart(request, recordFormSpec());
	const path = form.fields.get('path') ?? gatedPath;
	if (path !== gatedPath) throw badRequest(`path: the form names ${path} after naming ${gatedPath}`);
	const hash = form.fields.get('script_hash') ?? null;
	const runResults = refuseJsonNul('run_results', form.files.get('run_results'));
	if (!runResults) throw badRequest('run_results: the run_results.json file is required');
	return {
		path,
		scriptHash: hash === null || hash === '' ? undefined : hash,
		runResults,
		manifest: refuseJsonNul('manifest', form.files.get('manifest')),
		log: refuseJsonNul('log', form.files.get('log'))
	};
}
