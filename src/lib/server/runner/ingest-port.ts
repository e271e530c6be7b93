// What the runner asks of the ingest: a graph built from a manifest dbt made here or in CI (a
// run's own model set, the column-lineage pass, a recorded run), and a manifest stored as a deploy
// stores one (a source-only deploy, a run's catalog refresh). Declared here, in the runner's terms
// and with only the fields it reads, because runner/ and ingest/ sit side by side and import
// neither each other: the code that starts a worker or records a run passes the ingest's own
// functions in (`../runner-ingest.ts`), and the compiler checks there that they fit.
import type { Database } from '../db';
import type { UploadedFile } from '../dbt-files/uploaded-file';
import type { GraphContent } from '../repo/graph';
import type { PendingPublish } from '../repo/scripts';

export interface GraphRequest {
	manifest: UploadedFile;
	columnLineage?: UploadedFile;
	nodeColumns?: UploadedFile;
	warehouse: string;
	defaultDatabase: string | null;
	selection: { select?: string[]; exclude?: string[]; selector?: string | null };
	/** The descriptor asked for column lineage: only changes what the log says when no index came. */
	columnLineageWanted: boolean;
}

export interface BuiltGraphView {
	content: GraphContent;
	typedNodes: number;
	/** The manifest's own log line (printed before anything about the index). */
	manifestLog: string;
	/** What the index gave or why it gave nothing. */
	indexLog: string[];
	warnings: string[];
}

/** A manifest (and a catalog) stored into a version that exists already, by the job working on it. */
export interface StoreRequest {
	workspace: string;
	path: string;
	kind: 'deploy';
	username: string;
	descriptor: string;
	manifest: UploadedFile;
	catalog?: UploadedFile;
	into: { hash: bigint; jobId: string };
	/** Store nothing when the new graph's digest equals this one. */
	unlessDigest?: string;
}

/** The deploy's answer, as far as the runner reads it (a deploy job keeps all of it in its result). */
export interface StoreAnswer {
	typed_nodes: number;
	lineage_job_id: string | null;
	log?: string[];
	pending_publish?: PendingPublish;
	/** With `unlessDigest`: the graph was the same, nothing was stored. */
	unchanged?: boolean;
}

export interface IngestPort {
	buildGraphContent: (input: GraphRequest) => Promise<BuiltGraphView>;
	ingestUpload: (database: Database, request: StoreRequest) => Promise<StoreAnswer>;
}
