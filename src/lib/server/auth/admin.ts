// Admin operations with a rule beyond one repo call, shared by the API routes and the settings
// page so both enforce the same rules.
import { randomUUID } from 'node:crypto';
import { scopesCovered, type Principal } from '../access';
import type { Database } from '../db';
import { ApiError, forbidden } from '../http';
import {
	deleteSessionsOf,
	findAccountByUsername,
	insertAccount,
	setPasswordHash,
	type AccountRow
} from '../repo/accounts';
import type { TokenInfo } from '../repo/tokens';
import { countAdmins, findMember, upsertMember } from '../repo/workspaces';
import { mintApiToken } from './api-token';
import { hashPassword, verifyPassword } from './password';

export interface AddUserResult {
	username: string;
	is_admin: boolean;
	/** A new member row (201) rather than an updated one (200). */
	created: boolean;
	account_created: boolean;
}

/**
 * Adds a member, creating the login account when the username is new. An existing account's
 * password belongs to its holder: a workspace admin may repeat it (idempotent scripts) but not
 * change it, or any workspace admin could take over accounts of other workspaces. Only an
 * instance admin may reset it.
 */
export async function addUser(
	h: Database,
	p: Principal,
	input: { username: string; password?: string; isAdmin?: boolean }
): Promise<AddUserResult> {
	let account: AccountRow | null = await findAccountByUsername(h, input.username);
	let accountCreated = false;
	if (!account) {
		const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
		account = await insertAccount(h, { id: randomUUID(), username: input.username, passwordHash });
		accountCreated = account !== null;
		account ??= await findAccountByUsername(h, input.username);
		if (!account) throw new ApiError(409, `account ${input.username} is being created by another request; retry`);
	} else if (input.password !== undefined) {
		const same = account.passwordHash !== null && (await verifyPassword(input.password, account.passwordHash));
		if (!same) {
			if (!p.instanceAdmin) {
				throw new ApiError(
					409,
					`account ${input.username} already exists with another password; omit password to add it, only an instance admin can reset it`
				);
			}
			await setPasswordHash(h, account.id, await hashPassword(input.password));
			await deleteSessionsOf(h, account.id);
		}
	}
	if (input.isAdmin === false) {
		const existing = await findMember(h, p.workspace, input.username);
		if (existing?.isAdmin && (await countAdmins(h, p.workspace)) <= 1) {
			throw new ApiError(409, 'is_admin: a workspace needs at least one admin');
		}
	}
	const m = await upsertMember(h, {
		workspace: p.workspace,
		accountId: account.id,
		username: account.username,
		isAdmin: input.isAdmin
	});
	return { username: account.username, is_admin: m.isAdmin, created: m.created, account_created: accountCreated };
}

/**
 * Mints a token acting as the caller. A caller that is itself a narrowed token may only mint
 * narrower-or-equal tokens: otherwise a `tokens:write` token could mint an unrestricted one.
 */
export async function mintTokenFor(
	h: Database,
	p: Principal,
	input: { label: string; scopes: string[]; expiresAt: Date | null }
): Promise<{ token: string; info: TokenInfo }> {
	if (p.scopes !== null && (input.scopes.length === 0 || !scopesCovered(p.scopes, input.scopes))) {
		throw forbidden('scopes: a scoped token may only mint tokens within its own scopes');
	}
	return mintApiToken(h, {
		workspace: p.workspace,
		owner: p.username,
		label: input.label,
		scopes: input.scopes,
		expiresAt: input.expiresAt
	});
}
