// API tokens: the caller's own list, minting (never wider than the minting token) and revoking
// (its owner or a workspace admin), gated here for the API routes and the settings page alike.
import { requireAdmin, requireTokenList, requireTokenMint, requireTokenRevoke, type Principal } from '../../access';
import { mintTokenFor } from '../../auth/admin';
import { parseTokenInput, tokenView } from '../../auth/admin-input';
import { authChanged } from '../../auth/cache';
import { getDatabase } from '../../db';
import { deleteToken, getToken, listTokensIn, listTokensOf } from '../../repo/tokens';

export type TokenView = ReturnType<typeof tokenView>;

export async function listOwnTokens(p: Principal): Promise<TokenView[]> {
	requireTokenList(p);
	return (await listTokensOf(await getDatabase(), p.workspace, p.username)).map(tokenView);
}

/**
 * Every member's tokens, with their owner: a workspace admin's (who may revoke any of them);
 * a token also needs `tokens:read`.
 */
export async function listWorkspaceTokens(p: Principal): Promise<(TokenView & { owner: string })[]> {
	requireAdmin(p);
	requireTokenList(p);
	return (await listTokensIn(await getDatabase(), p.workspace)).map((t) => ({ owner: t.owner, ...tokenView(t) }));
}

/** The token string is in this answer and nowhere else. */
export async function mintTokenAs(p: Principal, body: Record<string, unknown>): Promise<{ token: string } & TokenView> {
	requireTokenMint(p);
	const { token, info } = await mintTokenFor(await getDatabase(), p, parseTokenInput(body));
	return { token, ...tokenView(info) };
}

export async function revokeTokenAs(p: Principal, id: string): Promise<{ id: string; label: string; deleted: true }> {
	const database = await getDatabase();
	const t = id ? await getToken(database, p.workspace, id) : null;
	requireTokenRevoke(p, t);
	await deleteToken(database, p.workspace, t.id);
	authChanged();
	return { id: t.id, label: t.label, deleted: true };
}
