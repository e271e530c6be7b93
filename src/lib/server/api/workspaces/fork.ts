// The workspace fork as a service: the caller's grant, already asked whether it may fork (the
// route asks before reading the body), and the copy.
import type { Grant } from '../../access';
import type { Database } from '../../db';
import { ApiError } from '../../api-error';
import { forkWorkspace, type ForkAnswer } from '../../repo/fork';

export async function forkWorkspaceAs(grant: Grant, database: Database, input: { id: string; name: string }): Promise<ForkAnswer> {
	grant.requireFork();
	const caller = { accountId: grant.accountId, username: grant.username };
	const answer = await forkWorkspace(database, { source: grant.workspace, id: input.id, name: input.name, caller });
	if (!answer) throw new ApiError(409, `id: workspace ${input.id} already exists`);
	return answer;
}
