import { fail } from '@sveltejs/kit';
import {
	adminAllows,
	mayListTokens,
	pagePrincipal,
	requireAdminAccess,
	requireFork,
	requireTokenMint,
	requireTokenRevoke,
	type AdminResource,
	type Principal
} from '$lib/server/access';
import { addUser, mintTokenFor } from '$lib/server/auth/admin';
import { parseFolderInput, parseGroupInput, parseTokenInput, parseUserInput, parseWarehouseInput, parseWorkspaceInput, tokenView } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { listFolders, replaceFolder } from '$lib/server/repo/folders';
import { forkWorkspaceAs } from '$lib/server/api/workspaces/fork';
import { listGroups, replaceGroup } from '$lib/server/repo/groups';
import { deleteToken, getToken, listTokensOf } from '$lib/server/repo/tokens';
import { listWarehouses, upsertWarehouse } from '$lib/server/repo/warehouses';
import { deleteNamespace, listNamespaces, setNamespace } from '$lib/server/repo/openlineage-in';
import { parseNamespaceInput } from '$lib/server/openlineage-in/namespaces';
import { listMembers } from '$lib/server/repo/workspaces';
import type { Actions, PageServerLoad } from './$types';

// Each section under the gate of the API endpoint that reads it (GET tokens, users, groups,
// folders, warehouses): a token sees here exactly what it could read through the API; a section
// it may not read is null.
export const load: PageServerLoad = async (event) => {
	const p = await pagePrincipal(event, event.params.ws);
	const h = await getDatabase();
	const tokens = mayListTokens(p) ? (await listTokensOf(h, p.workspace, p.username)).map(tokenView) : null;
	if (!p.isAdmin) return { tokens, admin: null };
	const when = <T>(resource: AdminResource, read: () => Promise<T>): Promise<T | null> =>
		adminAllows(p, resource, 'read') ? read() : Promise.resolve(null);
	const [members, groups, folders, warehouses, namespaces] = await Promise.all([
		when('users', () => listMembers(h, p.workspace)),
		when('groups', () => listGroups(h, p.workspace)),
		when('folders', () => listFolders(h, p.workspace)),
		when('warehouses', () => listWarehouses(h, p.workspace)),
		when('openlineage', () => listNamespaces(h, p.workspace))
	]);
	return { tokens, admin: { members, groups, folders, warehouses, namespaces } };
};

/** A list field: names separated by commas or whitespace. */
const names = (v: FormDataEntryValue | null) =>
	String(v ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);

/**
 * An admin form: the same gates and the same input parsing as the admin API (POST users,
 * groups, folders, warehouses), so the page can do nothing the API would refuse. A refusal is
 * shown on the form that caused it.
 */
async function adminAction(
	event: Parameters<Actions[string]>[0],
	section: string,
	resource: AdminResource,
	run: (p: Principal, form: FormData) => Promise<string>
) {
	const p = await pagePrincipal(event, event.params.ws);
	const form = await event.request.formData();
	try {
		requireAdminAccess(p, resource, 'write');
		return { section, done: await run(p, form) };
	} catch (e) {
		if (e instanceof ApiError) return fail(e.status, { section, adminError: e.message });
		throw e;
	}
}

export const actions: Actions = {
	// POST fork's gate and input, answered on the page: the new workspace's link, or the refusal.
	fork: async (event) => {
		const p = await pagePrincipal(event, event.params.ws);
		const form = await event.request.formData();
		try {
			requireFork(p);
			const id = String(form.get('id') ?? '').trim();
			const name = String(form.get('name') ?? '').trim();
			const input = parseWorkspaceInput({ id, ...(name ? { name } : {}) });
			const a = await forkWorkspaceAs(await getDatabase(), p.workspace, input, { accountId: p.accountId, username: p.username });
			const secrets = a.copied.warehouses_needing_secrets;
			return {
				section: 'fork',
				forked: a.id,
				done:
					`Forked into ${a.id}: ${a.copied.scripts} scripts, ${a.copied.graphs} graphs, ${a.copied.column_edges.toLocaleString('en-US')} column edges.` +
					(secrets.length ? ` Set the secrets of ${secrets.join(', ')} there before running.` : '')
			};
		} catch (e) {
			if (e instanceof ApiError) return fail(e.status, { section: 'fork', adminError: e.message });
			throw e;
		}
	},
	addMember: (event) =>
		adminAction(event, 'members', 'users', async (p, form) => {
			const password = String(form.get('password') ?? '');
			const input = parseUserInput({ username: String(form.get('username') ?? ''), ...(password ? { password } : {}), is_admin: form.get('is_admin') === 'on' });
			const r = await addUser(await getDatabase(), p, input);
			return `${r.created ? 'Created' : 'Added'} ${input.username}.`;
		}),
	saveGroup: (event) =>
		adminAction(event, 'groups', 'groups', async (p, form) => {
			const h = await getDatabase();
			const input = await parseGroupInput(h, p.workspace, { name: String(form.get('name') ?? ''), members: names(form.get('members')) });
			await replaceGroup(h, p.workspace, input.name, input.members);
			return `Saved g/${input.name}.`;
		}),
	saveFolder: (event) =>
		adminAction(event, 'folders', 'folders', async (p, form) => {
			const h = await getDatabase();
			const input = await parseFolderInput(h, p.workspace, { name: String(form.get('name') ?? ''), readers: names(form.get('readers')), writers: names(form.get('writers')) });
			await replaceFolder(h, p.workspace, input);
			return `Saved f/${input.name}.`;
		}),
	saveWarehouse: (event) =>
		adminAction(event, 'warehouses', 'warehouses', async (p, form) => {
			let settings: unknown = {};
			const text = String(form.get('settings') ?? '').trim();
			if (text) {
				try {
					settings = JSON.parse(text);
				} catch {
					throw new ApiError(400, 'settings: not valid JSON');
				}
			}
			const db = String(form.get('default_database') ?? '').trim();
			const input = parseWarehouseInput({ name: String(form.get('name') ?? ''), ...(db ? { default_database: db } : {}), settings });
			await upsertWarehouse(await getDatabase(), p.workspace, input);
			return `Saved warehouse ${input.name}.`;
		}),
	saveNamespace: (event) =>
		adminAction(event, 'namespaces', 'openlineage', async (p, form) => {
			const h = await getDatabase();
			const folder = String(form.get('folder') ?? '').trim();
			const input = await parseNamespaceInput(h, p.workspace, { namespace: String(form.get('namespace') ?? ''), folder: folder === '' ? null : folder });
			if (input.folder === null) {
				await deleteNamespace(h, p.workspace, input.namespace);
				return `Removed the mapping of ${input.namespace}.`;
			}
			await setNamespace(h, p.workspace, { namespace: input.namespace, folder: input.folder }, p.username);
			return `${input.namespace} writes into f/${input.folder}.`;
		}),
	mintToken: async (event) => {
		const p = await pagePrincipal(event, event.params.ws);
		const form = await event.request.formData();
		const label = String(form.get('label') ?? '');
		// Scopes are separated by whitespace: a comma belongs inside one scope's path list.
		const scopes = String(form.get('scopes') ?? '')
			.split(/\s+/)
			.filter(Boolean);
		const expires = String(form.get('expires_at') ?? '');
		try {
			requireTokenMint(p);
			const input = parseTokenInput({
				label,
				scopes,
				// A date from the form means "through that day" (UTC).
				expires_at: expires ? `${expires}T23:59:59Z` : null
			});
			const { token, info } = await mintTokenFor(await getDatabase(), p, input);
			return { minted: { token, label: info.label } };
		} catch (e) {
			if (e instanceof ApiError) return fail(e.status, { tokenError: e.message, label, scopes: scopes.join('\n') });
			throw e;
		}
	},
	revokeToken: async (event) => {
		const p = await pagePrincipal(event, event.params.ws);
		const id = String((await event.request.formData()).get('id') ?? '');
		const h = await getDatabase();
		const t = id ? await getToken(h, p.workspace, id) : null;
		try {
			// The API's rule (DELETE tokens/{id}): its owner or an admin, `tokens:write` for a token.
			requireTokenRevoke(p, t);
		} catch (e) {
			if (e instanceof ApiError) return fail(e.status, { tokenError: e.message });
			throw e;
		}
		await deleteToken(h, p.workspace, t.id);
		return { revoked: t.label };
	}
};
