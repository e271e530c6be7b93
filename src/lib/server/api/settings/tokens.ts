// API tokens: the caller's own list, minting (never wider than the minting token) and revoking
// (its owner or a workspace admin), gated here for the API routes and the settings page alike.
import type { Grant } from '../../access';
import { mintTokenFor } from '../../auth/admin';
import { parseTokenInput, tokenView } from '../../auth/admin-input';
import { authChanged } from '../../auth/cache';
import { getDatabase } from '../../db';
import { deleteToken, getToken, listTokensIn, listTokensOf } from '../../repo/tokens';

export type TokenView = ReturnType<typeof tokenView>;

export async function listOwnTokens(grant: Grant): Promise<TokenView[]> {
	grant.requireTokenList();
	return (await listTokensOf(await getDatabase(), grant.workspace, grant.username)).map(tokenView);
}

/**
 * Every member's tokens, with their owner: a workspace admin's (who may revoke any of them);
 * a token also needs `tokens:read`.
 */
export async function listWorkspaceTokens(grant: Grant): Promise<(TokenView & { owner: string })[]> {
	grant.requireAdmin();
	grant.requireTokenList();
	return (await listTokensIn(await getDatabase(), grant.workspace)).map((t) => ({ owner: t.owner, ...tokenView(t) }));
}

/** The token string is in this answer and nowhere else. */
export async function mintTokenAs(grant: Grant, body: Record<string, unknown>): Promise<{ token: string } & TokenView> {
	grant.requireTokenMint();
	const { token, info } = await mintTokenFor(grant, await getDatabase(), parseTokenInput(body));
	return { token, ...tokenView(info) };
}

export async function revokeTokenAs(grant: Grant, id: string): Promise<{ id: string; label: string; deleted: true }> {
	const database = await getDatabase();
	const t = id ? await getToken(database, grant.workspace, id) : null;
	grant.requireTokenRevoke(t);
	await deleteToken(database, grant.workspace, t.id);
	authChanged();
	return { id: t.id, label: t.label, deleted: true };
}
