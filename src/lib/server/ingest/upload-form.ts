// Reads the multipart body of a deploy or preview: fields `path`, `descriptor`, `pin`; files
// `manifest` (required), `catalog`, `column_lineage`, `node_columns`, `run_results`, `project`,
// each bounded as it streams in (multipart.ts).
import { badRequest } from '../http';
import { uploadFileLimit, type UploadFileKind } from '../limits';
import { readMultipart, type MultipartBody, type MultipartSpec } from '../multipart';
import { refuseJsonNul } from '../dbt-files/json-nul';
import { requireScriptPath } from '../paths';
import { PIN_MODES, type PinMode } from '$lib/types/runner';
import type { SourceDeployRequest, UploadedFile, UploadRequest } from './deploy';

const FILES = {
	manifest: ['manifest.json', 'manifest'],
	catalog: ['catalog.json', 'catalog'],
	column_lineage: ['dbt.column_lineage.parquet', 'index'],
	node_columns: ['dbt.node_columns.parquet', 'index'],
	run_results: ['run_results.json', 'run_results'],
	project: ['project.tar.gz', 'project archive']
} as const satisfies Partial<Record<UploadFileKind, readonly [string, string]>>;

/** What each file may weigh, read from the environment at each upload. */
export function uploadFormSpec(): MultipartSpec {
	const files: MultipartSpec['files'] = {};
	for (const [field, [name, what]] of Object.entries(FILES)) files[field] = { name, what, limit: uploadFileLimit(field as UploadFileKind) };
	return { files, fields: ['path', 'descriptor', 'pin'], what: 'a `manifest` file and a `path` field' };
}

const fileField = (form: MultipartBody, field: keyof typeof FILES): UploadedFile | undefined => form.files.get(field);

/**
 * The whole form of an upload whose path the route already gated (`gatedPath`, from the query
 * or the form's first fields): a `path` field naming another is refused.
 */
export async function readUploadForm(
	request: Request,
	ctx: { workspace: string; username: string; kind: 'deploy' | 'preview' },
	gatedPath: string
): Promise<UploadRequest | (SourceDeployRequest & { kind: 'deploy'; manifest?: undefined })> {
	const form = await readMultipart(request, uploadFormSpec());
	const path = requireScriptPath(form.fields.get('path') ?? gatedPath);
	if (path !== gatedPath) throw badRequest(`path: the form names ${path} after naming ${gatedPath}`);
	const pinField = form.fields.get('pin') ?? null;
	if (pinField !== null && !(PIN_MODES as readonly string[]).includes(pinField)) {
		throw badRequest(`pin: must be ${PIN_MODES.join(' or ')}`);
	}
	const pin = (pinField ?? undefined) as PinMode | undefined;
	const descriptorText = form.fields.get('descriptor');
	const manifest = refuseJsonNul('manifest', fileField(form, 'manifest'));
	if (!manifest) {
		const project = ctx.kind === 'deploy' ? fileField(form, 'project') : undefined;
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
		catalog: refuseJsonNul('catalog', fileField(form, 'catalog')),
		columnLineage: fileField(form, 'column_lineage'),
		nodeColumns: fileField(form, 'node_columns'),
		runResults: refuseJsonNul('run_results', fileField(form, 'run_results')),
		project: fileField(form, 'project'),
		// Read once, by the deploy: what the parse thread was lent ends with it.
		bytesGivenUp: true
	};
}
