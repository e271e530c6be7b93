// The workspace fork as a service: the route's caller, already allowed to fork, and the copy.
import type { Database } from '../../db';
import { ApiError } from '../../api-error';
import { forkWorkspace, type ForkAnswer } from '../../repo/fork';

export async function forkWorkspaceAs(database: Database, source: string, input: { id: string; name: string }, caller: { accountId: string; username: string }): Promise<ForkAnswer> {
	const answer = await forkWorkspace(database, { source, id: input.id, name: input.name, caller });
	if (!answer) throw new ApiError(409, `id: workspace ${input.id} already exists`);
	return answer;
}
