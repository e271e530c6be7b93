// The settings page's reads: each section under the gate of the API endpoint that reads it
// (GET tokens, users, groups, folders, warehouses, openlineage/namespaces), so a token sees there
// exactly what it could read through the API; a section it may not read is null.
import type { AdminResource, Grant } from '../../access';
import { passwordIsGenerated } from './account';
import { listFoldersAs } from './folders';
import { listGroupsAs } from './groups';
import { listMembersAs } from './members';
import { listNamespacesAs } from './namespaces';
import { listOwnTokens, listWorkspaceTokens } from './tokens';
import { listWarehousesAs } from './warehouses';
import { settingText, NAMED_SETTINGS } from './warehouse-form';

export async function settingsPage(grant: Grant) {
	const account = { username: grant.username, mayChangePassword: grant.via === 'session', generatedPassword: grant.via === 'session' && (await passwordIsGenerated(grant.accountId)) };
	const tokens = grant.mayListTokens() ? await listOwnTokens(grant) : null;
	if (!grant.isAdmin) return { account, tokens, admin: null };
	const when = <T>(resource: AdminResource, read: () => Promise<T>): Promise<T | null> =>
		grant.administers(resource, 'read') ? read() : Promise.resolve(null);
	const [members, groups, folders, warehouses, namespaces, allTokens] = await Promise.all([
		when('users', () => listMembersAs(grant)),
		when('groups', () => listGroupsAs(grant)),
		when('folders', () => listFoldersAs(grant)),
		when('warehouses', () => listWarehousesAs(grant)),
		when('openlineage', () => listNamespacesAs(grant)),
		// Under GET tokens?all=true's gate: an admin, and tokens:read for a token.
		grant.mayListTokens() ? listWorkspaceTokens(grant) : Promise.resolve(null)
	]);
	// Each warehouse as its form shows it: the named settings, the rows of the rest, the names of its secrets.
	const warehouseForms = warehouses?.map((w) => {
		const s = w.settings;
		const rows = Object.entries(s)
			.filter(([k]) => !(NAMED_SETTINGS as readonly string[]).includes(k))
			.map(([key, v]) => ({ key, value: settingText(v) }));
		return {
			name: w.name,
			default_database: w.default_database,
			type: typeof s.type === 'string' ? s.type : '',
			network: s.network === true ? 'on' : s.network === false ? 'off' : 'default',
			folders: Array.isArray(s.folders) ? s.folders.join(' ') : '',
			openlineage_namespace: typeof s.openlineage_namespace === 'string' ? s.openlineage_namespace : '',
			rows,
			secrets: Object.keys((s.secrets as Record<string, string> | undefined) ?? {})
		};
	}) ?? null;
	return { account, tokens, admin: { members, groups, folders, warehouses, warehouseForms, namespaces, tokens: allTokens } };
}
