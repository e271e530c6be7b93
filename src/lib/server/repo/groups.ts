// Groups of workspace members, used as `g/<name>` in folder grants.
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db';
import { group, groupMember } from '../schema';

export interface GroupRow {
	name: string;
	members: string[];
}

/** Creates or replaces a group and its member list; returns whether the group is new. */
export async function replaceGroup(database: Database, ws: string, name: string, members: string[]): Promise<{ created: boolean }> {
	return database.db.transaction(async (tx) => {
		const inserted = await tx
			.insert(group)
			.values({ workspace: ws, name })
			.onConflictDoNothing()
			.returning({ name: group.name });
		await tx.delete(groupMember).where(and(eq(groupMember.workspace, ws), eq(groupMember.groupName, name)));
		const unique = [...new Set(members)];
		if (unique.length > 0) {
			await tx.insert(groupMember).values(unique.map((username) => ({ workspace: ws, groupName: name, username })));
		}
		return { created: inserted.length > 0 };
	});
}

export async function listGroups(database: Database, ws: string): Promise<GroupRow[]> {
	const rows = await database.rows<{ name: string; members: string[] | null }>(
		sql`select g.name,
		           (select array_agg(gm.username order by gm.username)
		              from group_member gm
		             where gm.workspace = g.workspace and gm.group_name = g.name) as members
		      from "group" g
		     where g.workspace = ${ws}
		     order by g.name`
	);
	return rows.map((r) => ({ name: r.name, members: r.members ?? [] }));
}

/** Group names among `names` that exist in the workspace. */
export async function existingGroups(database: Database, ws: string, names: string[]): Promise<Set<string>> {
	if (names.length === 0) return new Set();
	const rows = await database.rows<{ name: string }>(
		sql`select name from "group" where workspace = ${ws} and name = any(${sql.param(names)}::text[])`
	);
	return new Set(rows.map((r) => r.name));
}

export async function removeGroupMember(database: Database, ws: string, name: string, username: string): Promise<boolean> {
	const r = await database.db
		.delete(groupMember)
		.where(and(eq(groupMember.workspace, ws), eq(groupMember.groupName, name), eq(groupMember.username, username)))
		.returning({ username: groupMember.username });
	return r.length > 0;
}

export async function deleteGroup(database: Database, ws: string, name: string): Promise<boolean> {
	const r = await database.db
		.delete(group)
		.where(and(eq(group.workspace, ws), eq(group.name, name)))
		.returning({ name: group.name });
	return r.length > 0;
}
