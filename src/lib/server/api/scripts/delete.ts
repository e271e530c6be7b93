// Deleting a project or producer: what goes (asked before, for the confirmation) and the
// deletion itself, which answers what went. A test deploy need not stay forever.
import type { Grant } from '../../access';
import type { Database } from '../../db';
import { conflict, notFound } from '../../http';
import { deletePath, pathFootprint, type PathFootprint } from '../../repo/scripts';

export interface PathFootprintAnswer {
	path: string;
	/** dbt (a project), sql (a producer script), openlineage (a job reported over OpenLineage). */
	languages: string[];
	versions: number;
	graphs: number;
	jobs: number;
	runs: number;
	previews: number;
	/** Jobs still queued or running: a deletion is refused until they end. */
	active: number;
}

const answerOf = (path: string, f: PathFootprint): PathFootprintAnswer => ({ path, ...f });

/** What deleting `path` would take away, for a caller who may read it (the same 404 otherwise). */
export async function readPathFootprint(grant: Grant, database: Database, path: string): Promise<PathFootprintAnswer> {
	if (!grant.mayRead(path)) throw notFound(`nothing deployed at ${path}`);
	const f = await pathFootprint(database, grant.workspace, path);
	if (f.languages.length === 0 && f.jobs === 0) throw notFound(`nothing deployed at ${path}`);
	return answerOf(path, f);
}

/** Deletes everything under `path`; answers what went. */
export async function deleteScriptPath(grant: Grant, database: Database, path: string): Promise<PathFootprintAnswer> {
	grant.requireDelete(path);
	const before = await pathFootprint(database, grant.workspace, path);
	if (before.languages.length === 0 && before.jobs === 0) throw notFound(`nothing deployed at ${path}`);
	const gone = await deletePath(database, grant.workspace, path);
	if (!gone) throw conflict(`${path} has a job queued or running: cancel it or let it end, then delete`);
	return answerOf(path, gone);
}
