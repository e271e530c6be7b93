// The workspaces a caller sees and may create, and the one a page names: the reads behind the
// home page, whoami, sign-in's landing and every workspace page's header, behind their gates.
import { error, fail, redirect } from '@sveltejs/kit';
import { requireWorkspaceCreate, visibleWorkspaces, type Grant } from '../../access';
import type { AuthContext } from '../../auth/context';
import { ApiError } from '../../api-error';
import { getDatabase } from '../../db';
import { parseWorkspaceInput } from '../../auth/admin-input';
import { createWorkspace, getWorkspace, workspacesOf } from '../../repo/workspaces';

/** The workspaces this caller may open (a token: only its own). */
export async function workspacesVisibleTo(auth: AuthContext) {
	return visibleWorkspaces(auth, await workspacesOf(await getDatabase(), auth.accountId));
}

/** Where an account lands after signing in: its first workspace, or the home page. */
export async function landingOf(accountId: string): Promise<string> {
	const workspaces = await workspacesOf(await getDatabase(), accountId);
	return workspaces.length > 0 ? `/w/${workspaces[0].id}` : '/';
}

/** Creates a workspace (an instance admin's), the caller its first admin; 409 when the id is taken. */
export async function createWorkspaceAs(auth: AuthContext, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
	requireWorkspaceCreate(auth);
	const input = parseWorkspaceInput(body);
	const created = await createWorkspace(await getDatabase(), { ...input, creator: { accountId: auth.accountId, username: auth.username } });
	if (!created) throw new ApiError(409, `id: workspace ${input.id} already exists`);
	return { id: created.id, name: created.name };
}

/** The workspace a page of it names, read after its gate let the caller in. */
export async function workspaceNamed(id: string): Promise<{ id: string; name: string } | null> {
	return getWorkspace(await getDatabase(), id);
}

/**
 * The workspace layout's data: the workspace's name and who is signed in. A share link's viewer
 * who is no member (`grant` null) learns nothing beyond the URL.
 */
export async function workspaceLayout(grant: Grant | null, ws: string): Promise<{ workspace: { id: string; name: string }; me: { username: string; isAdmin: boolean } | null }> {
	if (!grant) return { workspace: { id: ws, name: ws }, me: null };
	const row = await workspaceNamed(grant.workspace);
	if (!row) error(404, 'no such workspace');
	return { workspace: { id: row.id, name: row.name }, me: { username: grant.username, isAdmin: grant.isAdmin } };
}

/** The landing page's create form: the workspace made, or the refusal shown beside the form. */
export async function createWorkspaceForm(auth: AuthContext, request: Request) {
	const form = await request.formData();
	const body = { id: form.get('id') ?? undefined, name: form.get('name') || undefined };
	let created: { id: string };
	try {
		created = await createWorkspaceAs(auth, body);
	} catch (e) {
		if (e instanceof ApiError && e.status === 409) return fail(409, { error: `A workspace with id ${String(body.id)} already exists.`, id: String(body.id ?? '') });
		if (e instanceof ApiError) return fail(e.status, { error: e.message, id: String(body.id ?? '') });
		throw e;
	}
	redirect(303, `/w/${created.id}`);
}
