// Members of a workspace: list, add (creating the account when new), remove. Each call is
// gated here, so the API route and the settings page cannot differ.
import type { Grant } from '../../access';
import { addUser } from '../../auth/admin';
import { parseUserInput } from '../../auth/admin-input';
import { authChanged } from '../../auth/cache';
import { ApiError, badRequest, notFound } from '../../api-error';
import { getDatabase } from '../../db';
import { isSegment } from '../../paths';
import { listMembers, removeMemberWithGrants } from '../../repo/workspaces';

export interface MemberView {
	username: string;
	is_admin: boolean;
	groups: string[];
}

export async function listMembersAs(grant: Grant): Promise<MemberView[]> {
	grant.requireAdministers('users', 'read');
	const members = await listMembers(await getDatabase(), grant.workspace);
	return members.map((m) => ({ username: m.username, is_admin: m.isAdmin, groups: m.groups }));
}

export async function addMemberAs(grant: Grant, body: Record<string, unknown>) {
	grant.requireAdministers('users', 'write');
	return addUser(grant, await getDatabase(), parseUserInput(body));
}

/**
 * Removes a member: its groups, its grants in folders and its API tokens here go with it (the
 * account stays; other workspaces are untouched). The last admin stays, so the workspace keeps
 * someone who can manage it.
 */
export async function removeMemberAs(grant: Grant, username: string): Promise<{ username: string; removed: true; tokens_revoked: number }> {
	grant.requireAdministers('users', 'write');
	if (!isSegment(username)) throw badRequest('username must be a string of up to 100 of [A-Za-z0-9_-]');
	const r = await removeMemberWithGrants(await getDatabase(), grant.workspace, username, { keepAnAdmin: true });
	authChanged();
	if (r.lastAdmin) throw new ApiError(409, `username: ${username} is the only admin of this workspace; make another member an admin first`);
	if (!r.removed) throw notFound(`username: ${username} is not a member of this workspace`);
	return { username, removed: true, tokens_revoked: r.tokens };
}
