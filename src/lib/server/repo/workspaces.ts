// Workspaces and their members.
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db';
import { member, workspace } from '../schema';
import type { FolderRow } from './folders';

export interface WorkspaceRow {
	id: string;
	name: string;
}

export interface Membership {
	username: string;
	isAdmin: boolean;
	groups: string[];
}

export interface MemberRow {
	username: string;
	isAdmin: boolean;
	groups: string[];
}

/** Creates the workspace with its creator as admin; null when the id is taken. */
export async function createWorkspace(
	database: Database,
	w: { id: string; name: string; creator: { accountId: string; username: string } }
): Promise<WorkspaceRow | null> {
	return database.db.transaction(async (tx) => {
		const [row] = await tx
			.insert(workspace)
			.values({ id: w.id, name: w.name, createdBy: w.creator.username })
			.onConflictDoNothing({ target: workspace.id })
			.returning({ id: workspace.id, name: workspace.name });
		if (!row) return null;
		await tx.insert(member).values({
			workspace: w.id,
			username: w.creator.username,
			accountId: w.creator.accountId,
			isAdmin: true
		});
		return row;
	});
}

export async function getWorkspace(database: Database, id: string): Promise<WorkspaceRow | null> {
	const [r] = await database.db.select({ id: workspace.id, name: workspace.name }).from(workspace).where(eq(workspace.id, id));
	return r ?? null;
}

/** The workspaces an account belongs to, by id. */
export async function workspacesOf(
	database: Database,
	accountId: string
): Promise<{ id: string; name: string; isAdmin: boolean }[]> {
	return database.db
		.select({ id: workspace.id, name: workspace.name, isAdmin: member.isAdmin })
		.from(member)
		.innerJoin(workspace, eq(workspace.id, member.workspace))
		.where(eq(member.accountId, accountId))
		.orderBy(asc(workspace.id));
}

/** A membership with the folders that may grant it anything (every folder for an admin). */
export interface MembershipGrants extends Membership {
	folders: FolderRow[];
}

/**
 * The account's membership of one workspace, its groups, and the folders whose grants name it:
 * one statement, since every workspace route asks it first. `grantee` is how access/ writes a
 * member in a grant list (`u/<username>`, `g/<group>`); the folders are only a pre-filter (a
 * folder not named here is one no grant of it can reach), the gates decide from the lists.
 * `rider`: a scalar text expression of a route's first read, evaluated in the same statement and
 * only for a member (no member row, no evaluation); ungated, access/ narrows it.
 */
export async function loadMembershipGrants(
	database: Database,
	ws: string,
	accountId: string,
	grantee: { user: string; group: string },
	rider: SQL = sql`null::text`
): Promise<(MembershipGrants & { rider: string | null }) | null> {
	const [r] = await database.rows<{ username: string; is_admin: boolean; groups: string[] | null; folders: string; rider: string | null }>(
		sql`with m as (
		      select m.username, m.is_admin,
		             (select array_agg(gm.group_name order by gm.group_name)
		                from group_member gm
		               where gm.workspace = m.workspace and gm.username = m.username) as groups
		        from member m
		       where m.workspace = ${ws} and m.account_id = ${accountId}),
		    g as (
		      select array[${grantee.user} || m.username] || array(select ${grantee.group} || x from unnest(m.groups) x) as names from m)
		    select m.username, m.is_admin, m.groups,
		           (select coalesce(json_agg(json_build_object('name', f.name, 'readers', f.readers, 'writers', f.writers) order by f.name), '[]')::text
		              from folder f, g
		             where f.workspace = ${ws} and (m.is_admin or f.readers && g.names or f.writers && g.names)) as folders,
		           ${rider} as rider
		      from m`
	);
	if (!r) return null;
	return { username: r.username, isAdmin: r.is_admin, groups: r.groups ?? [], folders: JSON.parse(r.folders) as FolderRow[], rider: r.rider };
}

export async function listMembers(database: Database, ws: string): Promise<MemberRow[]> {
	const rows = await database.rows<{ username: string; is_admin: boolean; groups: string[] | null }>(
		sql`select m.username, m.is_admin,
		           (select array_agg(gm.group_name order by gm.group_name)
		              from group_member gm
		             where gm.workspace = m.workspace and gm.username = m.username) as groups
		      from member m
		     where m.workspace = ${ws}
		     order by m.username`
	);
	return rows.map((r) => ({ username: r.username, isAdmin: r.is_admin, groups: r.groups ?? [] }));
}

export async function findMember(
	database: Database,
	ws: string,
	username: string
): Promise<{ username: string; isAdmin: boolean; accountId: string } | null> {
	const [r] = await database.db
		.select({ username: member.username, isAdmin: member.isAdmin, accountId: member.accountId })
		.from(member)
		.where(and(eq(member.workspace, ws), eq(member.username, username)));
	return r ?? null;
}

/** Usernames among `names` that are members of the workspace. */
export async function existingMembers(database: Database, ws: string, names: string[]): Promise<Set<string>> {
	if (names.length === 0) return new Set();
	const rows = await database.rows<{ username: string }>(
		sql`select username from member where workspace = ${ws} and username = any(${sql.param(names)}::text[])`
	);
	return new Set(rows.map((r) => r.username));
}

/**
 * Adds the account as a member, or updates `is_admin` of an existing member (left as it is
 * when `isAdmin` is undefined). Returns whether the member row is new.
 */
export async function upsertMember(
	database: Database,
	m: { workspace: string; accountId: string; username: string; isAdmin?: boolean }
): Promise<{ created: boolean; isAdmin: boolean }> {
	const [r] = await database.rows<{ created: boolean; is_admin: boolean }>(
		sql`insert into member (workspace, username, account_id, is_admin)
		    values (${m.workspace}, ${m.username}, ${m.accountId}, ${m.isAdmin ?? false})
		    on conflict (workspace, username) do update
		       set is_admin = coalesce(${m.isAdmin ?? null}::boolean, member.is_admin)
		    returning (xmax = 0) as created, is_admin`
	);
	return { created: r.created, isAdmin: r.is_admin };
}

export async function countAdmins(database: Database, ws: string): Promise<number> {
	const [r] = await database.rows<{ n: number }>(
		sql`select count(*)::int as n from member where workspace = ${ws} and is_admin`
	);
	return Number(r.n);
}

/**
 * Removes a member with what names them in this workspace: group rows, folder grants and API
 * tokens are keyed by username, not by a foreign key to member, so they are cleared explicitly;
 * a later member with the same name then inherits none of them. Answers whether a member was
 * removed and how many of its tokens went with it.
 */
export async function removeMemberWithGrants(
	database: Database,
	ws: string,
	username: string,
	opts: { keepAnAdmin?: boolean } = {}
): Promise<{ removed: boolean; tokens: number; lastAdmin?: boolean }> {
	return database.db.transaction(async (tx) => {
		if (opts.keepAnAdmin) {
			// The admin rows locked: two admins removing each other at once cannot leave none.
			const admins = await database.rows<{ username: string }>(sql`select username from member where workspace = ${ws} and is_admin for update`, tx);
			if (admins.length === 1 && admins[0].username === username) return { removed: false, tokens: 0, lastAdmin: true };
		}
		const r = await tx
			.delete(member)
			.where(and(eq(member.workspace, ws), eq(member.username, username)))
			.returning({ username: member.username });
		if (r.length === 0) return { removed: false, tokens: 0 };
		await database.rows(sql`delete from group_member where workspace = ${ws} and username = ${username}`, tx);
		const grantee = `u/${username}`;
		await database.rows(
			sql`update folder set readers = array_remove(readers, ${grantee}), writers = array_remove(writers, ${grantee})
			     where workspace = ${ws} and (${grantee} = any(readers) or ${grantee} = any(writers))`,
			tx
		);
		const tokens = await database.rows<{ id: string }>(sql`delete from api_token where workspace = ${ws} and owner = ${username} returning id`, tx);
		return { removed: true, tokens: tokens.length };
	});
}

export async function removeMember(database: Database, ws: string, username: string): Promise<boolean> {
	return (await removeMemberWithGrants(database, ws, username)).removed;
}

