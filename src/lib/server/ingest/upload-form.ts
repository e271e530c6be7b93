// Reads the multipart body of a deploy or preview: fields `path`, `descriptor`; files
// `manifest` (required), `catalog`, `column_lineage`, `node_columns`, `run_results`, `project`.
import { badRequest } from '../http';
import { refuseJsonNul } from './json-nul';
import { requireScriptPath } from '../paths';
import { PIN_MODES, type PinMode, type SourceDeployRequest, type UploadedFile, type UploadRequest } from './deploy';

const FILES = {
	manifest: 'manifest.json',
	catalog: 'catalog.json',
	column_lineage: 'dbt.column_lineage.parquet',
	node_columns: 'dbt.node_columns.parquet',
	run_results: 'run_results.json',
	project: 'project.tar.gz'
} as const;

async function fileField(form: FormData, field: keyof typeof FILES): Promise<UploadedFile | undefined> {
	const v = form.get(field);
	if (v === null) return undefined;
	if (typeof v === 'string') {
		// curl -F manifest=<file sends text; accept it rather than make CI scripts care.
		return { name: FILES[field], bytes: new TextEncoder().encode(v) };
	}
	return { name: v.name && v.name !== 'blob' ? v.name : FILES[field], bytes: new Uint8Array(await v.arrayBuffer()) };
}

/**
 * The whole form of an upload whose path the route already gated (`gatedPath`, from the query
 * or the form's first fields): a `path` field naming another is refused.
 */
export async function readUploadForm(
	request: Request,
	ctx: { workspace: string; username: string; kind: 'deploy' | 'preview' },
	gatedPath: string
): Promise<UploadRequest | (SourceDeployRequest & { kind: 'deploy'; manifest?: undefined })> {
	const type = request.headers.get('content-type') ?? '';
	if (!type.startsWith('multipart/form-data')) {
		throw badRequest('the request must be multipart/form-data with a `manifest` file and a `path` field');
	}
	let form: FormData;
	try {
		form = await request.formData();
	} catch (e) {
		throw badRequest(`the multipart body could not be read (${(e as Error).message})`);
	}
	const path = requireScriptPath(form.get('path') ?? gatedPath);
	if (path !== gatedPath) throw badRequest(`path: the form names ${path} after naming ${gatedPath}`);
	const descriptor = form.get('descriptor');
	if (descriptor !== null && typeof descriptor !== 'string' && !(descriptor instanceof Blob)) {
		throw badRequest('descriptor: must be YAML text');
	}
	const pinField = form.get('pin');
	if (pinField !== null && (typeof pinField !== 'string' || !(PIN_MODES as readonly string[]).includes(pinField))) {
		throw badRequest(`pin: must be ${PIN_MODES.join(' or ')}`);
	}
	const pin = (pinField ?? undefined) as PinMode | undefined;
	const descriptorText = descriptor === null ? undefined : typeof descriptor === 'string' ? descriptor : await descriptor.text();
	const manifest = refuseJsonNul('manifest', await fileField(form, 'manifest'));
	if (!manifest) {
		const project = ctx.kind === 'deploy' ? await fileField(form, 'project') : undefined;
		if (!project) {
			throw badRequest(
				ctx.kind === 'deploy'
					? 'manifest: the manifest.json file is required, unless the deploy carries the project\'s source (`project`), which a worker then parses'
					: 'manifest: the manifest.json file is required'
			);
		}
		if (pin && pin !== 'before_live') throw badRequest(`pin: a deploy without a manifest has no graph until its job parses the project, so it goes live only after that (before_live), not ${pin}`);
		return { workspace: ctx.workspace, username: ctx.username, kind: 'deploy', path, descriptor: descriptorText, project };
	}
	return {
		...ctx,
		path,
		pin,
		descriptor: descriptorText,
		manifest,
		catalog: refuseJsonNul('catalog', await fileField(form, 'catalog')),
		columnLineage: await fileField(form, 'column_lineage'),
		nodeColumns: await fileField(form, 'node_columns'),
		runResults: refuseJsonNul('run_results', await fileField(form, 'run_results')),
		project: await fileField(form, 'project')
	};
}
