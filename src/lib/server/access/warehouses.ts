// Warehouse use: which projects may run against a warehouse (and so read its credentials).
import { parseScriptPath } from '../paths';

/**
 * Whether a run of the project at `scriptPath` may use a warehouse whose `settings.folders` is
 * `allowedFolders` (null: every folder). Entries name folders (`analytics` allows
 * `f/analytics/*`) or a user's scripts (`u/alice`). Project code can print the credentials its
 * run is given, so this decides who can read them: whoever can deploy to an allowed folder.
 */
export function mayRunAgainstWarehouse(allowedFolders: readonly string[] | null, scriptPath: string): boolean {
	if (allowedFolders === null) return true;
	const parsed = parseScriptPath(scriptPath);
	if (!parsed) return false;
	return allowedFolders.includes(parsed.kind === 'folder' ? parsed.folder : `u/${parsed.owner}`);
}
