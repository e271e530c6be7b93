// The settings page's forms: each calls the service the API route calls (members, groups,
// folders, warehouses, namespaces, tokens, the fork, one's own password), so the page can do
// nothing the API would refuse; a refusal is shown beside the field it names (formCall).
import { fail, isActionFailure, redirect, type RequestEvent } from '@sveltejs/kit';
import { requireAuth, type Grant } from '../../access';
import { parseWorkspaceInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { ApiError } from '../../http';
import { forkWorkspaceAs } from '../workspaces/fork';
import { changePassword as changeOwnPassword } from './account';
import { saveFolderAs } from './folders';
import { formCall } from './form-failure';
import { saveGroupAs } from './groups';
import { addMemberAs, removeMemberAs } from './members';
import { changeNamespaceAs } from './namespaces';
import { mintTokenAs, revokeTokenAs } from './tokens';
import { warehouseBodyFromForm } from './warehouse-form';
import { saveWarehouseAs } from './warehouses';

/** One form: the caller's grant (the page's gate built it), the form's fields, the request. */
export type SettingsForm<T> = (grant: Grant, form: FormData, event: RequestEvent) => Promise<T>;

/** A list field: names separated by commas or whitespace, from one text input or several checkboxes. */
const names = (form: FormData, field: string) =>
	form
		.getAll(field)
		.flatMap((v) => String(v).split(/[\s,]+/))
		.filter(Boolean);
const text = (form: FormData, field: string) => String(form.get(field) ?? '');

export const changePassword = async (_grant: Grant, form: FormData, event: RequestEvent) => {
	const fields = ['current_password', 'new_password', 'confirm_password'];
	return formCall({ section: 'account', fields }, async () => {
		const body = { current_password: text(form, 'current_password'), new_password: text(form, 'new_password') };
		if (text(form, 'confirm_password') !== body.new_password) throw new ApiError(400, 'confirm_password: does not match the new password');
		const r = await changeOwnPassword(event, requireAuth(event), body);
		const others = r.sessions_ended - 1;
		return { done: `Password changed.${others > 0 ? ` ${others} other session${others === 1 ? '' : 's'} signed out.` : ''}` };
	});
};

export const fork = async (grant: Grant, form: FormData) =>
	formCall({ section: 'fork', fields: ['id', 'name'] }, async () => {
		grant.requireFork();
		const name = text(form, 'name').trim();
		const input = parseWorkspaceInput({ id: text(form, 'id').trim(), ...(name ? { name } : {}) });
		const a = await forkWorkspaceAs(grant, await getDatabase(), input);
		const secrets = a.copied.warehouses_needing_secrets;
		return {
			forked: a.id,
			done:
				`Forked into ${a.id}: ${a.copied.scripts} scripts, ${a.copied.graphs} graphs, ${a.copied.column_edges.toLocaleString('en-US')} column edges.` +
				(secrets.length ? ` Set the secrets of ${secrets.join(', ')} there before running.` : '')
		};
	});

export const addMember = async (grant: Grant, form: FormData) =>
	formCall({ section: 'members', fields: ['username', 'password', 'is_admin'] }, async () => {
		const password = text(form, 'password');
		const r = await addMemberAs(grant, { username: text(form, 'username'), ...(password ? { password } : {}), is_admin: form.get('is_admin') === 'on' });
		return { done: `${r.created ? 'Created' : 'Added'} ${r.username}.` };
	});

export const removeMember = async (grant: Grant, form: FormData) => {
	const username = text(form, 'username');
	const r = await formCall({ section: 'members', target: username, fields: ['username'] }, async () => {
		const r = await removeMemberAs(grant, username);
		return { done: `Removed ${r.username}${r.tokens_revoked ? ` and revoked ${r.tokens_revoked} token${r.tokens_revoked === 1 ? '' : 's'}` : ''}.` };
	});
	// Whoever removed themselves is no longer a member: the page would answer 404.
	if (!isActionFailure(r) && username === grant.username) redirect(303, '/');
	return r;
};

export const saveGroup = async (grant: Grant, form: FormData) =>
	formCall({ section: 'groups', target: text(form, 'target') || undefined, fields: ['name', 'members'] }, async () => {
		const r = await saveGroupAs(grant, { name: text(form, 'name'), members: names(form, 'members') });
		return { done: `Saved g/${r.group.name}.` };
	});

export const saveFolder = async (grant: Grant, form: FormData) =>
	formCall({ section: 'folders', target: text(form, 'target') || undefined, fields: ['name', 'readers', 'writers'] }, async () => {
		const r = await saveFolderAs(grant, { name: text(form, 'name'), readers: names(form, 'readers'), writers: names(form, 'writers') });
		return { done: `Saved f/${r.folder.name}: ${r.folder.readers.length} reader${r.folder.readers.length === 1 ? '' : 's'}, ${r.folder.writers.length} writer${r.folder.writers.length === 1 ? '' : 's'}.` };
	});

// The form with a field per setting; saveWarehouseJson below takes the settings as one JSON object.
export const saveWarehouse = async (grant: Grant, form: FormData) =>
	formCall(
		{
			section: 'warehouses',
			target: text(form, 'target') || undefined,
			fields: ['name', 'default_database', 'settings', 'settings.type', 'settings.network', 'settings.folders', 'settings.openlineage_namespace', 'settings.secrets']
		},
		async () => {
			const r = await saveWarehouseAs(grant, warehouseBodyFromForm(form));
			return { done: `Saved warehouse ${r.warehouse.name}.` };
		}
	);

export const saveWarehouseJson = async (grant: Grant, form: FormData) =>
	formCall({ section: 'warehouses', target: 'json', fields: ['name', 'default_database', 'settings'] }, async () => {
		let settings: unknown = {};
		const raw = text(form, 'settings').trim();
		if (raw) {
			try {
				settings = JSON.parse(raw);
			} catch {
				throw new ApiError(400, 'settings: not valid JSON');
			}
		}
		const db = text(form, 'default_database').trim();
		const r = await saveWarehouseAs(grant, { name: text(form, 'name'), ...(db ? { default_database: db } : {}), settings });
		return { done: `Saved warehouse ${r.warehouse.name}.` };
	});

export const saveNamespace = async (grant: Grant, form: FormData) =>
	formCall({ section: 'namespaces', fields: ['namespace', 'folder'] }, async () => {
		const folder = text(form, 'folder').trim();
		const r = (await changeNamespaceAs(grant, { namespace: text(form, 'namespace'), folder: folder === '' ? null : folder })).input;
		return { done: r.folder === null ? `Removed the mapping of ${r.namespace}.` : `${r.namespace} writes into f/${r.folder}.` };
	});

export const mintToken = async (grant: Grant, form: FormData) => {
	const label = text(form, 'label');
	// Scopes are separated by whitespace: a comma belongs inside one scope's path list.
	const scopes = text(form, 'scopes').split(/\s+/).filter(Boolean);
	const expires = text(form, 'expires_at');
	try {
		// A date from the form means "through that day" (UTC).
		const r = await mintTokenAs(grant, { label, scopes, expires_at: expires ? `${expires}T23:59:59Z` : null });
		return { minted: { token: r.token, label: r.label } };
	} catch (e) {
		if (e instanceof ApiError) return fail(e.status, { tokenError: e.message, label, scopes: scopes.join('\n') });
		throw e;
	}
};

export const revokeToken = async (grant: Grant, form: FormData) => {
	// Which list the button was in (the caller's own, or every member's), to answer there.
	const from = text(form, 'from') === 'all' ? 'all' : 'own';
	try {
		return { revoked: (await revokeTokenAs(grant, text(form, 'id'))).label, from };
	} catch (e) {
		if (e instanceof ApiError) return fail(e.status, { tokenError: e.message, from });
		throw e;
	}
};
