import { fail } from '@sveltejs/kit';
import { pagePrincipal, requireScope } from '$lib/server/access';
import { mintTokenFor } from '$lib/server/auth/admin';
import { parseTokenInput, tokenView } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { listFolders } from '$lib/server/repo/folders';
import { listGroups } from '$lib/server/repo/groups';
import { deleteToken, getToken, listTokensOf } from '$lib/server/repo/tokens';
import { listWarehouses } from '$lib/server/repo/warehouses';
import { listMembers } from '$lib/server/repo/workspaces';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const p = await pagePrincipal(event, event.params.ws);
	const h = await getDatabase();
	const tokens = (await listTokensOf(h, p.workspace, p.username)).map(tokenView);
	if (!p.isAdmin) return { tokens, admin: null };
	const [members, groups, folders, warehouses] = await Promise.all([
		listMembers(h, p.workspace),
		listGroups(h, p.workspace),
		listFolders(h, p.workspace),
		listWarehouses(h, p.workspace)
	]);
	return { tokens, admin: { members, groups, folders, warehouses } };
};

export const actions: Actions = {
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
			requireScope(p, 'tokens', 'write');
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
		if (!t || t.owner !== p.username) return fail(404, { tokenError: 'No such token.' });
		await deleteToken(h, p.workspace, t.id);
		return { revoked: t.label };
	}
};
