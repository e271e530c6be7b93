// Admin operations with a rule beyond one repo call, shared by the API routes and the settings
// page so both enforce the same rules.
import { randomUUID } from 'node:crypto';
import type { Grant } from '../access';
import type { Database } from '../db';
import { ApiError, badRequest } from '../http';
import { findAccountByUsername, insertAccount, resetPassword, type AccountRow } from '../repo/accounts';
import type { TokenInfo } from '../repo/tokens';
import { countAdmins, findMember, upsertMember } from '../repo/workspaces';
import { mintApiToken } from './api-token';
import { hashPassword } from './password';

export interface AddUserResult {
	username: string;
	is_admin: boolean;
	/** A new member row (201) rather than an updated one (200). */
	created: boolean;
	account_created: boolean;
}

/**
 * Adds a member, creating the login account when the username is new. No password of an
 * existing account is ever checked here (a check would let a workspace admin test guesses).
 * - An instance admin may add any account, and a password it sends for an existing account
 *   resets it: the account's sessions and API tokens end.
 * - A workspace admin may update its own members (never their passwords) and create new
 *   accounts (a password is then required). It may not add an account that already exists
 *   elsewhere, since that account's holder did not agree; the refusal without a password is the
 *   same whether the account exists or not. With a password, a taken username is refused like
 *   any sign-up would refuse it, whatever the password.
 */
export async function addUser(
	grant: Grant,
	database: Database,
	input: { username: string; password?: string; isAdmin?: boolean }
): Promise<AddUserResult> {
	let account: AccountRow | null;
	let accountCreated = false;
	if (!grant.mayManageAccounts() && !(await findMember(database, grant.workspace, input.username))) {
		if (input.password === undefined) {
			throw badRequest('password: required to create an account; only an instance admin can add an account that already exists');
		}
		account = await insertAccount(database, { id: randomUUID(), username: input.username, passwordHash: await hashPassword(input.password) });
		if (!account) {
			throw new ApiError(409, `username: ${input.username} is taken; choose another, or ask an instance admin to add the existing account`);
		}
		accountCreated = true;
	} else {
		account = await findAccountByUsername(database, input.username);
		if (account && input.password !== undefined) {
			if (!grant.mayManageAccounts()) {
				throw new ApiError(409, `password: ${input.username} is already a member; only an instance admin can set the password of an existing account`);
			}
			await resetPassword(database, account.id, await hashPassword(input.password));
		} else if (!account) {
			const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
			account = await insertAccount(database, { id: randomUUID(), username: input.username, passwordHash });
			accountCreated = account !== null;
			account ??= await findAccountByUsername(database, input.username);
			if (!account) throw new ApiError(409, `account ${input.username} is being created by another request; retry`);
		}
	}
	if (input.isAdmin === false) {
		const existing = await findMember(database, grant.workspace, input.username);
		if (existing?.isAdmin && (await countAdmins(database, grant.workspace)) <= 1) {
			throw new ApiError(409, 'is_admin: a workspace needs at least one admin');
		}
	}
	const m = await upsertMember(database, {
		workspace: grant.workspace,
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
	grant: Grant,
	database: Database,
	input: { label: string; scopes: string[]; expiresAt: Date | null }
): Promise<{ token: string; info: TokenInfo }> {
	grant.requireMintWithin(input.scopes);
	return mintApiToken(database, {
		workspace: grant.workspace,
		owner: grant.username,
		label: input.label,
		scopes: input.scopes,
		expiresAt: input.expiresAt
	});
}
