// Deploy and preview of a dbt project from its artifacts: parse everything first (a refusal
// stores nothing), write the new graph where no read reaches it yet, then make the version, its
// job and its graph visible in ONE transaction, so a failure leaves what was stored before
// exactly as it was and nothing of the new graph behind.
import { randomUUID } from 'node:crypto';
import type { PinMode } from '$lib/types/runner';
import { hashToHex } from '$lib/types/script-hash';
import type { Database } from '../db';
import { ZERO_UUID } from '../schema';
import { analyzeGraphTables, deleteGraph, digestGraphInTurns, pruneGraphs, replaceGraph, setMarkerLineageJob, stageGraph, type GraphKey } from '../repo/graph';
import { storeLineagePlan } from '../repo/inference';
import { appendJobLog, insertJob } from '../repo/jobs';
import { dropPendingVersion, insertScriptVersion, newScriptHash, pruneAssetUsage, publishAssetUsage, settlePendingVersion, stageAssetUsage, storeArchive, type AssetUse, type PendingPublish } from '../repo/scripts';
import { getWarehouse } from '../repo/warehouses';
import { wakeWorker } from '../wake-worker';
import type { PlannedInference } from './inference-plan';
import { planUploadInference } from './manifest-thread';
import { parseDescriptor } from '../dbt-files/descriptor';
import { buildGraphContent, type UploadedFile } from './graph-content';
import type { ParsedNode } from './manifest';
import { inspectProjectArchive } from '../dbt-files/project-archive';
import { mark, type IngestProfile } from '../profile';
import { IngestError } from '../dbt-files/errors';
import { ApiError } from '../api-error';
import { adapterPackage, EngineSpecError } from '../dbt-engine-spec';

export type { UploadedFile } from './graph-content';

export interface UploadRequest {
	workspace: string;
	path: string;
	kind: 'deploy' | 'preview';
	username: string;
	descriptor?: string;
	manifest: UploadedFile;
	/** catalog.json (`dbt docs generate`): typed columns, and the column order inference expands `*` with. */
	catalog?: UploadedFile;
	columnLineage?: UploadedFile;
	nodeColumns?: UploadedFile;
	runResults?: UploadedFile;
	project?: UploadedFile;
	/** Records where the ingest spends its time (the ingest benchmark). */
	profile?: IngestProfile;
	/** The caller reads the uploaded files' bytes no more: the manifest's and catalog's may end with the parse thread. */
	bytesGivenUp?: boolean;
	/**
	 * A deploy carrying project files is pinned (engine resolved, packages installed) by a worker:
	 * `before_live` (the default) keeps it pending until then, so a failed pin leaves the previous
	 * version live; `after_live` makes it live at once and pins it in the background;
	 * `at_first_run` queues nothing: the version's first run pins it.
	 */
	pin?: PinMode;
	/** The deploy job of a pending version storing the graph it made itself (a source-only deploy), or a run refreshing its version's graph from the catalog it made. */
	into?: { hash: bigint; jobId: string };
	/** With `into`: store nothing when the new graph's digest equals this one (the graph is unchanged). */
	unlessDigest?: string;
}

export interface DeployAnswer {
	hash: string | null;
	job_id: string;
	nodes: number;
	edges: number;
	column_edges: number | null;
	typed_nodes: number;
	dropped: {
		column_edges_outside_graph: number;
		column_edges_over_cap: number;
		unnamed_columns: number;
		rows_not_decoded: boolean;
	};
	warnings: string[];
	warehouse: string;
	default_database: string | null;
	has_project_files: boolean;
	url: string;
	/** The queued job inferring column lineage from the compiled SQL; null when none runs. */
	lineage_job_id: string | null;
	column_lineage: DeployColumnLineage;
	/** Whether the version is live now; false while its deploy job pins it. */
	live: boolean;
	/** The deploy job pinning this version (its engine and packages); null when none was queued (its first run pins it). */
	pin: { job_id: string; mode: PinMode } | null;
	/** What the ingest said, line by line (the deploy job's log holds the same). */
	log?: string[];
	/** For the deploy job storing into a pending version: what it publishes once the version is live. */
	pending_publish?: PendingPublish;
	/** With `unlessDigest`: the graph was the same, nothing was stored. */
	unchanged?: boolean;
}

export interface DeployColumnLineage {
	/** engine: the uploaded index; inferred: the lineage job infers it; null: none. */
	source: 'engine' | 'inferred' | null;
	/** Models by outcome; `pending` wait for the lineage job (all of them, at deploy). */
	models: { analyzed: number; partial: number; failed: number; skipped: number; pending: number };
}

/** TRIBUTARY_LINEAGE_TIMEOUT_S: a lineage job running longer ends failed (the graph stays). */
export function lineageTimeoutS(env: NodeJS.ProcessEnv = process.env): number {
	const v = Number(env.TRIBUTARY_LINEAGE_TIMEOUT_S);
	return env.TRIBUTARY_LINEAGE_TIMEOUT_S && Number.isFinite(v) && v > 0 ? Math.ceil(v) : 600;
}

/** TRIBUTARY_LINEAGE_INFERENCE=0: never infer column lineage (a deploy without an index then has none). */
export function inferenceEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
	return env.TRIBUTARY_LINEAGE_INFERENCE !== '0';
}

/**
 * Whether the lineage job runs, from the plan made where the manifest was parsed: only when no
 * engine index was stored (its edges win) and some model has compiled SQL. An index uploaded but
 * unreadable was not foreseen there: that rare deploy plans again, where the upload was parsed.
 */
async function inferenceOf(
	req: UploadRequest,
	planned: PlannedInference | null,
	indexStored: boolean,
	warn: (w: string) => void
): Promise<{ plan: PlannedInference | null; lineage: DeployColumnLineage }> {
	const models = { analyzed: 0, partial: 0, failed: 0, skipped: 0, pending: 0 };
	if (indexStored) return { plan: null, lineage: { source: 'engine', models } };
	if (!inferenceEnabled()) return { plan: null, lineage: { source: null, models } };
	const plan = planned ?? (await planUploadInference(req.manifest, req.catalog));
	if (!plan) return { plan: null, lineage: { source: null, models } };
	if (plan.noSql > 0) {
		warn(
			plan.withSql === 0
				? `${req.manifest.name} has no compiled SQL (a manifest from \`dbt parse\`?): column lineage cannot be inferred. ` +
						"Deploy the target/ of `dbt compile`, `dbt run` or `dbt build`, which write each model's compiled_code"
				: `${req.manifest.name}: ${fmt(plan.noSql)} models have no compiled SQL and get no column lineage ` +
						'(`dbt compile`, `dbt run` or `dbt build` write it for every selected model)'
		);
	}
	if (plan.withSql === 0) return { plan: null, lineage: { source: null, models } };
	if (plan.dialectWarning) warn(plan.dialectWarning);
	if (plan.catalogWarning) warn(plan.catalogWarning);
	models.pending = plan.withSql;
	models.skipped = plan.models - plan.withSql;
	return { plan, lineage: { source: 'inferred', models } };
}

/** Rows stored by one ingest from which table statistics are refreshed right away. */
const ANALYZE_AFTER_ROWS = 10_000;

const WRITTEN = new Set(['model', 'seed', 'snapshot']);

/** Which assets the project writes (its models, seeds, snapshots) and reads (sources, anchors). */
function assetUses(nodes: ParsedNode[]): AssetUse[] {
	const out: AssetUse[] = [];
	for (const n of nodes) {
		if (!n.assetPath) continue;
		if (n.resourceType === 'source' || n.anchorOnly) out.push({ assetKind: 'dbt', assetPath: n.assetPath, access: 'r' });
		else if (WRITTEN.has(n.resourceType)) out.push({ assetKind: 'dbt', assetPath: n.assetPath, access: 'w' });
	}
	return out;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export async function ingestUpload(database: Database, req: UploadRequest): Promise<DeployAnswer> {
	const log: string[] = [];
	const warnings: string[] = [];
	const warn = (w: string) => {
		warnings.push(w);
		log.push(`warning: ${w}`);
	};

	const p = req.profile;
	p?.reset();
	const descriptor = parseDescriptor(req.descriptor ?? '');
	for (const w of descriptor.warnings) warn(`descriptor: ${w}`);
	const wh = (await getWarehouse(database, req.workspace, descriptor.warehouse)) ?? { defaultDatabase: null };
	if (!('name' in wh)) {
		warn(
			`warehouse "${descriptor.warehouse}" is not configured in this workspace: its default database is unknown, ` +
				'so every relation that names a database is stored under <database>.<schema>'
		);
	}
	if (req.project && 'settings' in wh) checkAdapter(descriptor.engine.kind, wh.settings);
	const built = await buildGraphContent({
		manifest: req.manifest,
		columnLineage: req.columnLineage,
		nodeColumns: req.nodeColumns,
		catalog: req.catalog,
		bytesGivenUp: req.bytesGivenUp,
		// Planned where the manifest is parsed (off the request thread when big); an index wins.
		planInference: inferenceEnabled() && !req.columnLineage,
		warehouse: descriptor.warehouse,
		defaultDatabase: wh.defaultDatabase,
		selection: { select: descriptor.select, exclude: descriptor.exclude, selector: descriptor.selector },
		columnLineageWanted: descriptor.columnLineage,
		profile: p
	});
	const { parsed, content, dropped, typedNodes } = built;
	const nodes = content.nodes;
	const columnEdges = content.columnEdges;
	log.push(built.manifestLog);

	if (req.project) {
		const s = await inspectProjectArchive(req.project.bytes, req.project.name);
		log.push(`${req.project.name}: ${fmt(s.files)} project files (${fmt(s.unpackedBytes)} bytes unpacked)`);
	} else if (req.kind === 'deploy' && !req.into) {
		log.push('no project files uploaded: this version can be browsed but not run');
	}
	log.push(...built.indexLog);
	warnings.push(...built.warnings);
	const { plan, lineage } = await inferenceOf(req, built.inference, columnEdges !== null, warn);
	if (!plan && built.catalogMissing) {
		const { missing, relations } = built.catalogMissing;
		warn(
			`${req.catalog!.name}: ${fmt(missing)} of ${fmt(relations)} relations of the manifest are not in the catalog ` +
				`(${missing === relations ? 'a catalog of another project?' : 'older than the manifest?'}); they have no typed columns`
		);
	}
	if (!req.catalog && columnEdges === null && !req.nodeColumns) {
		log.push('no catalog.json uploaded (`dbt docs generate` writes it): no typed columns, and `select *` is expanded only from declared columns');
	}
	if (plan) log.push(`column lineage: ${fmt(lineage.models.pending)} models queued for inference from their compiled SQL (${plan.dialect})`);
	else if (columnEdges === null && !inferenceEnabled()) log.push('column lineage: not inferred (TRIBUTARY_LINEAGE_INFERENCE=0)');

	const { digest, nodeDigests } = await digestGraphInTurns(content);
	mark(p, 'digest');
	if (req.into && req.unlessDigest === digest) {
		return {
			hash: hashToHex(req.into.hash),
			job_id: req.into.jobId,
			nodes: nodes.length,
			edges: parsed.edges.length,
			column_edges: columnEdges?.length ?? null,
			typed_nodes: typedNodes,
			dropped,
			warnings,
			warehouse: descriptor.warehouse,
			default_database: wh.defaultDatabase,
			has_project_files: true,
			url: `/w/${req.workspace}/run/${req.into.jobId}`,
			lineage_job_id: null,
			column_lineage: { source: null, models: { analyzed: 0, partial: 0, failed: 0, skipped: 0, pending: 0 } },
			live: true,
			pin: null,
			log: [...log, 'the graph is unchanged: nothing stored'],
			unchanged: true
		};
	}
	const hash = req.into ? req.into.hash : req.kind === 'deploy' ? newScriptHash() : null;
	const pinMode: PinMode | null = req.kind === 'deploy' && req.project && !req.into ? (req.pin ?? 'before_live') : null;
	// Pinned by a deploy job now, or by the version's first run.
	const pin: Exclude<PinMode, 'at_first_run'> | null = pinMode === 'at_first_run' ? null : pinMode;
	const uses = hash !== null ? assetUses(parsed.nodes) : [];
	const stats = {
		nodes: nodes.length,
		edges: parsed.edges.length,
		column_edges: columnEdges?.length ?? null,
		typed_nodes: typedNodes,
		dropped,
		dbt_version: parsed.dbtVersion,
		has_project_files: !!req.project || !!req.into,
		column_lineage: lineage
	};

	// A new version's or a preview's graph is written before the transaction that makes it
	// visible, statement by statement (stageGraph), under a key no read reaches yet: a version
	// still pending, or the id of a preview job not inserted yet. The transaction is then short,
	// and the embedded database answers other requests while the rows go in.
	const staged = !req.into;
	const previewJobId = hash === null ? randomUUID() : null;
	const graphKey = (id: string): GraphKey => ({ workspace: req.workspace, scriptPath: req.path, scriptHash: hash, jobId: hash === null ? id : ZERO_UUID });
	const marker = { digest, permissionedAs: `u/${req.username}`, stats };
	const unstage = async () => {
		if (hash !== null) await dropPendingVersion(database.db, req.workspace, hash);
		else await database.db.transaction((tx) => deleteGraph(tx, graphKey(previewJobId!)));
	};
	let stagedGraphId: number | null = null;
	// A version live now publishes its asset usage here; one waiting for its pin, in its deploy job.
	const publishesUsage = staged && hash !== null && pin !== 'before_live';
	if (staged) {
		if (hash !== null) {
			await database.db.transaction(async (tx) => {
				await insertScriptVersion(tx, {
					workspace: req.workspace,
					hash,
					path: req.path,
					language: 'dbt',
					content: req.descriptor ?? '',
					createdBy: req.username,
					pending: true
				});
				if (req.project) await storeArchive(tx, req.workspace, hash, req.project.bytes);
			});
			mark(p, 'store: pending version, archive');
		}
		try {
			stagedGraphId = await stageGraph(database, graphKey(previewJobId ?? ZERO_UUID), content, marker, { profile: p, nodeDigests });
			// Its asset usage too (tens of thousands of rows for a large project): publishing it is then one row.
			if (publishesUsage) await stageAssetUsage(database, req.workspace, req.path, hash!, uses);
			mark(p, 'store: asset usage');
		} catch (e) {
			await unstage();
			throw e;
		}
	}

	const { jobId, lineageJobId, pendingPublish } = await database.db.transaction(async (tx) => {
		if (staged && hash !== null) {
			// Live now, unless a deploy job pins it first; gone when a path delete took it meanwhile.
			if (!(await settlePendingVersion(tx, req.workspace, hash, pin === 'before_live'))) {
				throw new ApiError(409, `${req.path}: the path was deleted while this version was being stored; nothing was kept`);
			}
		}
		const pendingPublish: PendingPublish | null = pin === 'before_live' || req.into ? { uses: uses.map((u) => [u.assetPath, u.access]) } : null;
		const id = req.into
			? req.into.jobId
			: await insertJob(tx, {
					workspace: req.workspace,
					kind: req.kind,
					scriptPath: req.path,
					scriptHash: hash,
					createdBy: req.username,
					permissionedAs: `u/${req.username}`,
					status: pin ? 'queued' : 'success',
					args: pin ? { pin, adapter_type: parsed.adapterType ?? null } : {},
					result: { ...stats, warnings, ...(pendingPublish ? { pending_publish: pendingPublish } : {}) },
					logs: ''
				}, previewJobId ?? undefined);
		const key = graphKey(id);
		let lineageJobId: string | null = null;
		if (plan) {
			lineageJobId = await insertJob(tx, {
				workspace: req.workspace,
				kind: 'lineage',
				scriptPath: req.path,
				scriptHash: hash,
				createdBy: req.username,
				permissionedAs: `u/${req.username}`,
				parentJob: id,
				status: 'queued',
				timeoutS: lineageTimeoutS(),
				args: { graph_job_id: key.jobId },
				result: { progress: { done: 0, total: lineage.models.pending } },
				logs: ''
			});
			await storeLineagePlan(tx, req.workspace, lineageJobId, plan.gz);
			log.push(`lineage job ${lineageJobId} queued`);
		}
		mark(p, 'store: version, archive, job');
		if (stagedGraphId !== null) await setMarkerLineageJob(tx, stagedGraphId, lineageJobId);
		else await replaceGraph(database, tx, key, content, { ...marker, lineageJobId }, { profile: p, nodeDigests });
		if (pin === 'before_live') log.push(`this version goes live once deploy job ${id} has pinned its engine and packages`);
		else if (publishesUsage) {
			const published = await publishAssetUsage(database, tx, req.workspace, req.path, hash!);
			log.push(published ? 'published the relations this version reads and writes' : 'a newer version of this path owns its relations');
		}
		mark(p, 'publish asset usage');
		const pruned = await pruneGraphs(database, tx, req.workspace, req.path);
		const prunedTotal = pruned.runs + pruned.versions + pruned.previews;
		if (prunedTotal) log.push(`retention: removed ${pruned.runs} run snapshots, ${pruned.versions} old version graphs, ${pruned.previews} old previews`);
		log.push(`stored graph ${digest.slice(0, 12)}`);
		// The log is written last, inside the same transaction, so it describes what committed.
		if (!req.into) await appendJobLog(tx, id, log.join('\n') + '\n');
		mark(p, 'prune + job log');
		return { jobId: id, lineageJobId, pendingPublish };
	}).catch(async (e) => {
		if (staged) await unstage();
		throw e;
	});
	mark(p, 'commit');
	// What the publish replaced (or, when a newer version won, what this one staged), batch by batch.
	if (publishesUsage) await pruneAssetUsage(database, req.workspace, req.path);
	mark(p, 'prune asset usage');
	if (lineageJobId || pin) wakeWorker();
	// PGlite runs no autovacuum, and Postgres's may lag a bulk load: without fresh statistics
	// the planner scans instead of using the component index, several times slower on a
	// large project (bench/column-lineage). Worth its cost only after a big graph.
	if ((content.columnEdges?.length ?? 0) + content.edges.length >= ANALYZE_AFTER_ROWS) await analyzeGraphTables(database);
	mark(p, 'analyze');

	return {
		hash: hash === null ? null : hashToHex(hash),
		job_id: jobId,
		nodes: nodes.length,
		edges: parsed.edges.length,
		column_edges: columnEdges?.length ?? null,
		typed_nodes: typedNodes,
		dropped,
		warnings,
		warehouse: descriptor.warehouse,
		default_database: wh.defaultDatabase,
		has_project_files: !!req.project,
		url: `/w/${req.workspace}/run/${jobId}`,
		lineage_job_id: lineageJobId,
		column_lineage: lineage,
		live: pin !== 'before_live',
		pin: pin ? { job_id: jobId, mode: pin } : null,
		...(req.into ? { log, pending_publish: pendingPublish ?? undefined } : {})
	};
}

export interface SourceDeployRequest {
	workspace: string;
	path: string;
	username: string;
	descriptor?: string;
	project: UploadedFile;
}

export interface SourceDeployAnswer {
	hash: string;
	job_id: string;
	live: false;
	pin: { job_id: string; mode: 'before_live' };
	has_project_files: true;
	warehouse: string;
	warnings: string[];
	url: string;
}

/**
 * A deploy of the project's source alone (no target/): the version waits, pending, while its
 * deploy job installs the engine and packages and runs `dbt parse` (and `dbt compile` when the
 * warehouse answers) to make the manifest itself; the graph is stored and the version goes live
 * when that succeeds, so a team can deploy from a checkout with no dbt installed.
 */
export async function queueSourceDeploy(database: Database, req: SourceDeployRequest): Promise<SourceDeployAnswer> {
	const descriptor = parseDescriptor(req.descriptor ?? '');
	const warnings = [...descriptor.warnings];
	const wh = await getWarehouse(database, req.workspace, descriptor.warehouse);
	if (!wh) {
		throw new IngestError(
			'descriptor',
			`names the warehouse "${descriptor.warehouse}", which is not configured in this workspace: a deploy without a manifest runs \`dbt parse\` against it, so a workspace admin adds it under Settings → Warehouses first (or deploy the target/ that dbt wrote)`,
			'profile.warehouse'
		);
	}
	checkAdapter(descriptor.engine.kind, wh.settings);
	const s = await inspectProjectArchive(req.project.bytes, req.project.name);
	const hash = newScriptHash();
	const log = [
		`${req.project.name}: ${fmt(s.files)} project files (${fmt(s.unpackedBytes)} bytes unpacked)`,
		'no manifest uploaded: this deploy job makes it with `dbt parse`; the version goes live when it succeeds'
	];
	const jobId = await database.db.transaction(async (tx) => {
		await insertScriptVersion(tx, { workspace: req.workspace, hash, path: req.path, language: 'dbt', content: req.descriptor ?? '', createdBy: req.username, pending: true });
		await storeArchive(tx, req.workspace, hash, req.project.bytes);
		return insertJob(tx, {
			workspace: req.workspace,
			kind: 'deploy',
			scriptPath: req.path,
			scriptHash: hash,
			createdBy: req.username,
			permissionedAs: `u/${req.username}`,
			status: 'queued',
			args: { pin: 'before_live', source_only: true, adapter_type: typeof wh.settings.type === 'string' ? wh.settings.type : null },
			result: { has_project_files: true, warnings },
			logs: log.join('\n') + '\n'
		});
	});
	wakeWorker();
	return {
		hash: hashToHex(hash),
		job_id: jobId,
		live: false,
		pin: { job_id: jobId, mode: 'before_live' },
		has_project_files: true,
		warehouse: descriptor.warehouse,
		warnings,
		url: `/w/${req.workspace}/run/${jobId}`
	};
}

/**
 * A project the worker will provision an engine for must name an adapter it knows: refused at
 * the request rather than after a queue. The operator's own dbt (DBT_BIN) may carry any adapter.
 */
export function checkAdapter(kind: 'dbt-core' | 'fusion', settings: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): void {
	if (kind !== 'dbt-core' || env.DBT_BIN?.trim()) return;
	const type = settings.type;
	if (typeof type !== 'string' || type.trim() === '') return;
	try {
		adapterPackage(type);
	} catch (e) {
		if (e instanceof EngineSpecError) throw new IngestError('warehouse', e.message, 'type');
		throw e;
	}
}
