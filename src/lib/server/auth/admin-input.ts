// Validation of the auth and admin API bodies (DESIGN.md §11). Each parser answers a 400 that
// names the offending field; the routes and the settings page's form actions share them.
import type { Database } from '../db';
import { badRequest } from '../http';
import { isSegment, isWorkspaceId } from '../paths';
import { parseScope } from '../access';
import { existingGroups } from '../repo/groups';
import { existingMembers } from '../repo/workspaces';

type Body = Record<string, unknown>;

const MAX_NAME = 100;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1000;

function segmentField(body: Body, field: string, fallback?: string): string {
	const v = body[field] ?? fallback;
	if (typeof v !== 'string' || v.length > MAX_NAME || !isSegment(v)) {
		throw badRequest(`${field} must be a string of up to ${MAX_NAME} of [A-Za-z0-9_-]`);
	}
	return v;
}

function optionalBoolean(body: Body, field: string): boolean | undefined {
	const v = body[field];
	if (v === undefined || v === null) return undefined;
	if (typeof v !== 'boolean') throw badRequest(`${field} must be true or false`);
	return v;
}

function stringList(body: Body, field: string, max = 1000): string[] {
	const v = body[field];
	if (v === undefined || v === null) return [];
	if (!Array.isArray(v) || v.length > max || !v.every((x) => typeof x === 'string')) {
		throw badRequest(`${field} must be an array of strings`);
	}
	return [...new Set(v as string[])];
}

export function parseWorkspaceInput(body: Body): { id: string; name: string } {
	if (!isWorkspaceId(body.id)) throw badRequest('id must be 1 to 50 characters of [a-z0-9-]');
	const name = body.name ?? body.id;
	if (typeof name !== 'string' || name.trim().length === 0 || name.length > MAX_NAME) {
		throw badRequest(`name must be a non-empty string of up to ${MAX_NAME} characters`);
	}
	return { id: body.id, name: name.trim() };
}

export function parsePassword(v: unknown, field = 'password'): string {
	if (typeof v !== 'string' || v.length < MIN_PASSWORD || v.length > MAX_PASSWORD) {
		throw badRequest(`${field} must be a string of at least ${MIN_PASSWORD} characters`);
	}
	return v;
}

export function parseUserInput(body: Body): { username: string; password?: string; isAdmin?: boolean } {
	const username = segmentField(body, 'username');
	const password = body.password === undefined || body.password === null ? undefined : parsePassword(body.password);
	return { username, password, isAdmin: optionalBoolean(body, 'is_admin') };
}

export async function parseGroupInput(database: Database, ws: string, body: Body): Promise<{ name: string; members: string[] }> {
	const name = segmentField(body, 'name');
	const members = stringList(body, 'members');
	const bad = members.filter((m) => !isSegment(m));
	if (bad.length > 0) throw badRequest(`members must be usernames; not valid: ${bad.join(', ')}`);
	const known = await existingMembers(database, ws, members);
	const unknown = members.filter((m) => !known.has(m));
	if (unknown.length > 0) throw badRequest(`members must be members of the workspace; unknown: ${unknown.join(', ')}`);
	return { name, members: members.sort() };
}

/**
 * Grants are `u/<username>` or `g/<group>` naming a current member or group: a typo would
 * otherwise grant nothing, silently.
 */
async function grantList(database: Database, ws: string, body: Body, field: 'readers' | 'writers'): Promise<string[]> {
	const list = stringList(body, field);
	const users: string[] = [];
	const groups: string[] = [];
	for (const g of list) {
		const m = /^([ug])\/(.+)$/.exec(g);
		if (!m || !isSegment(m[2])) throw badRequest(`${field} entries must be "u/<username>" or "g/<group>", got "${g}"`);
		(m[1] === 'u' ? users : groups).push(m[2]);
	}
	const [knownUsers, knownGroups] = await Promise.all([existingMembers(database, ws, users), existingGroups(database, ws, groups)]);
	const unknown = [
		...users.filter((u) => !knownUsers.has(u)).map((u) => `u/${u}`),
		...groups.filter((g) => !knownGroups.has(g)).map((g) => `g/${g}`)
	];
	if (unknown.length > 0) throw badRequest(`${field} names no member or group of this workspace: ${unknown.join(', ')}`);
	return list.sort();
}

export async function parseFolderInput(
	database: Database,
	ws: string,
	body: Body
): Promise<{ name: string; readers: string[]; writers: string[] }> {
	const name = segmentField(body, 'name');
	const readers = await grantList(database, ws, body, 'readers');
	const writers = await grantList(database, ws, body, 'writers');
	return { name, readers, writers };
}

export interface WarehouseInput {
	name: string;
	defaultDatabase: string | null;
	settings: Record<string, unknown>;
	secrets?: Record<string, string>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseWarehouseInput(body: Body): WarehouseInput {
	const name = segmentField(body, 'name', 'main');
	const db = body.default_database;
	if (db !== undefined && db !== null && (typeof db !== 'string' || db.length === 0 || db.length > 255)) {
		throw badRequest('default_database must be a non-empty string or null');
	}
	const raw = body.settings ?? {};
	if (!isPlainObject(raw)) throw badRequest('settings must be an object');
	const { secrets: rawSecrets, ...settings } = raw;
	if (settings.network !== undefined && typeof settings.network !== 'boolean') {
		throw badRequest('settings.network must be true or false (whether this warehouse\'s runs get the network; default: off for duckdb, on otherwise)');
	}
	if (settings.folders !== undefined && settings.folders !== null) {
		const f = settings.folders;
		const entry = (x: unknown) => typeof x === 'string' && (isSegment(x) || (x.startsWith('u/') && isSegment(x.slice(2))));
		if (!Array.isArray(f) || f.length > 1000 || !f.every(entry)) {
			throw badRequest('settings.folders must be a list of folder names (or u/<user>) whose projects may run against this warehouse, or null for every folder');
		}
	}
	const olNamespace = settings.openlineage_namespace;
	if (olNamespace !== undefined && olNamespace !== null && (typeof olNamespace !== 'string' || olNamespace.trim() === '' || olNamespace.length > 256)) {
		throw badRequest('settings.openlineage_namespace must be the OpenLineage namespace of this warehouse\'s datasets (e.g. postgres://db.example:5432, snowflake://acme-xy123, bigquery), at most 256 characters');
	}
	let secrets: Record<string, string> | undefined;
	if (rawSecrets !== undefined && rawSecrets !== null) {
		if (!isPlainObject(rawSecrets)) throw badRequest('settings.secrets must be an object of strings');
		for (const [k, v] of Object.entries(rawSecrets)) {
			if (!/^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(k) || typeof v !== 'string') {
				throw badRequest('settings.secrets must map names like DBT_PASSWORD to strings');
			}
		}
		secrets = rawSecrets as Record<string, string>;
	}
	return { name, defaultDatabase: (db as string | null | undefined) ?? null, settings, secrets };
}

export function parseTokenInput(body: Body): { label: string; scopes: string[]; expiresAt: Date | null } {
	const label = body.label;
	if (typeof label !== 'string' || label.trim().length === 0 || label.length > MAX_NAME) {
		throw badRequest(`label must be a non-empty string of up to ${MAX_NAME} characters`);
	}
	const scopes = stringList(body, 'scopes', 100);
	const invalid = scopes.filter((s) => parseScope(s) === null);
	if (invalid.length > 0) {
		throw badRequest(
			`scopes must look like domain:action[:path|prefix/*,...] (e.g. scripts:read:f/analytics/*); invalid: ${invalid.join(', ')}`
		);
	}
	let expiresAt: Date | null = null;
	if (body.expires_at !== undefined && body.expires_at !== null) {
		const e = body.expires_at;
		const d = typeof e === 'string' && e.length <= 64 ? new Date(e) : null;
		if (!d || Number.isNaN(d.getTime())) throw badRequest('expires_at must be an ISO 8601 date-time or null');
		if (d.getTime() <= Date.now()) throw badRequest('expires_at must be in the future');
		expiresAt = d;
	}
	return { label: label.trim(), scopes, expiresAt };
}

/** The token as the API shows it (never its hash). */
export function tokenView(t: { id: string; label: string; scopes: string[]; expiresAt: Date | null; createdAt?: Date; lastUsedAt?: Date | null }) {
	return {
		id: t.id,
		label: t.label,
		scopes: t.scopes,
		expires_at: t.expiresAt?.toISOString() ?? null,
		...(t.createdAt ? { created_at: t.createdAt.toISOString() } : {}),
		...(t.lastUsedAt !== undefined ? { last_used_at: t.lastUsedAt?.toISOString() ?? null } : {})
	};
}
