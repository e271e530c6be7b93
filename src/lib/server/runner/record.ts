// Recorded runs (DESIGN.md §7): a run made elsewhere (CI) stored exactly as if it had run here.
// The same readers as a worker's run: run_results through the same settlement, the JSON log
// through the same progress reader, the manifest through the same graph builder. Everything is
// parsed before anything is written, and then written in one transaction.
import { randomUUID } from 'node:crypto';
import type { WarehouseTarget } from '$lib/lineage/relation-path';
import { hexToHash } from '$lib/types/script-hash';
import type { RecordAnswer } from '$lib/types/runner';
import type { Grant } from '../access';
import type { Database } from '../db';
import { badRequest, notFound } from '../http';
import { parseDescriptor } from '../dbt-files/descriptor';
import { decodeUtf8, type UploadedFile } from '../dbt-files/uploaded-file';
import { digestGraphInTurns, pruneGraphs, replaceGraph, versionKey } from '../repo/graph';
import { insertJob, progressOf, upsertProgress, type ProgressUpdate } from '../repo/jobs';
import { nodeAssetPaths, settleProgress } from '../repo/queue';
import { getVersion, newestVersion, type ScriptVersion } from '../repo/scripts';
import { getWarehouse } from '../repo/warehouses';
import { UNREPORTED_MESSAGE } from './execute';
import type { BuiltGraphView, IngestPort } from './ingest-port';
import { LineSplitter } from './log-tail';
import { storeOwnGraph } from './run-graph';
import { ProgressTracker } from './node-events';
import { failureSummary, parseRunResults, runResultOf, settlementPlan } from './run-results';

export interface RecordInput {
	path: string;
	/** 16 hex digits; the newest version of the path when absent. */
	scriptHash?: string;
	runResults: UploadedFile;
	manifest?: UploadedFile;
	log?: UploadedFile;
}

/** The recorded job's log: dbt's human lines from the JSON log, bounded like a worker's. */
const RECORDED_LOG_BYTES = 2_000_000;

interface ReadLog {
	changes: ProgressUpdate[];
	text: string;
	events: number;
	notJson: number;
}

/** Replays a JSON event log: the final live state of each relation, and the messages a console would have shown. */
function readEventLog(file: UploadedFile, warehouse: WarehouseTarget): ReadLog {
	const splitter = new LineSplitter();
	const lines = [...splitter.push(file.bytes), ...splitter.end()];
	const tracker = new ProgressTracker();
	tracker.applyLines(lines, warehouse);
	const text: string[] = [];
	let bytes = 0;
	let omitted = 0;
	let events = 0;
	let notJson = 0;
	for (const line of lines) {
		if (line.trim() === '') continue;
		let doc: { info?: { msg?: unknown; level?: unknown; ts?: unknown } };
		try {
			doc = JSON.parse(line);
		} catch {
			notJson++;
			continue;
		}
		events++;
		const info = doc.info;
		if (!info || typeof info.msg !== 'string' || info.level === 'debug') continue;
		const ts = typeof info.ts === 'string' ? info.ts.slice(11, 19) : '';
		const l = `${ts}  ${info.msg}`;
		if (bytes + l.length > RECORDED_LOG_BYTES) {
			omitted++;
			continue;
		}
		bytes += l.length + 1;
		text.push(l);
	}
	if (omitted) text.push(`… ${omitted} more lines of the recorded log were left out`);
	const changes = [...tracker.states].map(([assetPath, s]) => ({ assetKind: 'dbt', assetPath, ...s }));
	return { changes, text: text.join('\n'), events, notJson };
}

async function versionFor(grant: Grant, database: Database, input: RecordInput): Promise<ScriptVersion | null> {
	if (input.scriptHash === undefined) return newestVersion(database.db, grant.workspace, input.path);
	const hash = hexToHash(input.scriptHash);
	if (hash === null) throw badRequest('script_hash must be 16 hexadecimal digits (a version hash as the deploy answered it)');
	const v = await getVersion(database.db, grant.workspace, hash);
	if (!v || v.path !== input.path) throw notFound(`no version ${input.scriptHash} at ${input.path}`);
	return v;
}

export async function recordRun(grant: Grant, database: Database, ingest: IngestPort, input: RecordInput): Promise<RecordAnswer> {
	const version = await versionFor(grant, database, input);
	const descriptor = parseDescriptor(version?.content ?? '');
	const wh = await getWarehouse(database, grant.workspace, descriptor.warehouse);
	const warehouse: WarehouseTarget = { name: descriptor.warehouse, defaultDatabase: wh?.defaultDatabase ?? null };

	const parsed = parseRunResults(decodeUtf8(input.runResults), { fileName: input.runResults.name, strict: true });
	let built: BuiltGraphView | null = null;
	if (input.manifest) {
		built = await ingest.buildGraphContent({
			manifest: input.manifest,
			warehouse: warehouse.name,
			defaultDatabase: warehouse.defaultDatabase ?? null,
			selection: { select: descriptor.select, exclude: descriptor.exclude, selector: descriptor.selector },
			columnLineageWanted: false
		});
	}
	const events = input.log ? readEventLog(input.log, warehouse) : null;

	const which = parsed.args?.which ?? parsed.args?.command;
	const command = typeof which === 'string' && which !== '' ? which : 'build';
	const invocationArgs: Record<string, unknown> = { command, recorded: true };
	if (parsed.invocationId) invocationArgs.invocation_id = parsed.invocationId;
	const result = { ...runResultOf(parsed, command, invocationArgs), graph_snapshot: false } as ReturnType<typeof runResultOf> & { error?: string; graph_snapshot: boolean };
	// No exit status came with the upload: dbt's rule stands in for it (an error or failure
	// fails the run; a warning does not).
	const failed = result.totals.error > 0;
	if (failed) result.error = failureSummary(result.nodes) ?? 'the recorded run has failed nodes';

	const log: string[] = [
		`recorded run of ${input.path}${version ? '' : ' (no deployed version: its graph is reachable through this job only)'}, uploaded by ${grant.username}`,
		`${input.runResults.name}: ${parsed.schemaVersion ?? 'unknown schema'}, dbt ${parsed.dbtVersion ?? 'unknown'}, ${parsed.nodes.length} results` +
			(parsed.malformed ? ` (${parsed.malformed} entries without a unique_id or status were skipped)` : '')
	];
	if (built) log.push(built.manifestLog, ...built.warnings.map((w) => `warning: ${w}`));
	if (events) {
		log.push(`${input.log!.name}: ${events.events} JSON events${events.notJson ? `, ${events.notJson} lines that are not JSON` : ''}`);
		if (events.events === 0) log.push('warning: the log holds no JSON events (was it written with --log-format-file json?)');
	}

	const key = version ? { workspace: grant.workspace, scriptPath: input.path, scriptHash: version.hash } : null;
	const fallback = result.nodes.some((n) => !n.relation_name)
		? built
			? new Map(built.content.nodes.filter((n) => n.assetPath).map((n) => [n.uniqueId, n.assetPath!]))
			: key
				? await nodeAssetPaths(database, versionKey(key.workspace, key.scriptPath, key.scriptHash))
				: new Map<string, string>()
		: new Map<string, string>();
	const plan = settlementPlan(result.nodes, warehouse, fallback);

	const jobId = randomUUID();
	const snapshot = await database.db.transaction(async (tx) => {
		let stored = false;
		if (built) {
			const stats = { nodes: built.content.nodes.length, edges: built.content.edges.length, source: 'recorded' };
			if (key) stored = await storeOwnGraph(database, tx, { ...key, jobId }, built.content, `u/${grant.username}`, stats);
			else {
				const { digest, nodeDigests } = await digestGraphInTurns(built.content);
				await replaceGraph(
					database,
					tx,
					{ workspace: grant.workspace, scriptPath: input.path, scriptHash: null, jobId },
					built.content,
					{ digest, permissionedAs: `u/${grant.username}`, stats },
					{ nodeDigests }
				);
				stored = true;
			}
			log.push(stored ? "stored the run's own graph" : "the run's graph is the same as its version's; nothing stored");
		}
		result.graph_snapshot = stored;
		const t = result.totals;
		log.push(`${t.total} nodes: ${t.success} passed, ${t.error} failed, ${t.warn} warned, ${t.skipped} skipped`);
		if (result.error) log.push(result.error);
		if (events?.text) log.push('', '── the recorded log ──', events.text);
		await insertJob(
			tx,
			{
				workspace: grant.workspace,
				kind: 'recorded',
				scriptPath: input.path,
				scriptHash: version?.hash ?? null,
				createdBy: grant.username,
				permissionedAs: `u/${grant.username}`,
				status: failed ? 'failure' : 'success',
				args: invocationArgs,
				result,
				logs: `${log.join('\n')}\n`
			},
			jobId
		);
		if (events?.changes.length) await upsertProgress(database, grant.workspace, jobId, events.changes, tx);
		await settleProgress(database, grant.workspace, jobId, plan, UNREPORTED_MESSAGE, tx);
		await pruneGraphs(database, tx, grant.workspace, input.path);
		return stored;
	});
	return {
		job_id: jobId,
		url: `/w/${grant.workspace}/run/${jobId}`,
		status: failed ? 'failure' : 'success',
		totals: result.totals,
		progress_rows: (await progressOf(database, grant.workspace, jobId)).length,
		graph_snapshot: snapshot
	};
}
