// The warehouse form of the settings page as the API's body: named fields for what Tributary
// itself reads (adapter type, network, folders, OpenLineage namespace), rows for the rest of
// the dbt profile target, and rows for the write-only secrets. The API's parser then applies
// the same rules as to a JSON body.
import { badRequest } from '../../api-error';
import { SECRET_MASK } from '../../repo/warehouses';

/** Settings the form has its own inputs for; the rows may not name them. */
export const NAMED_SETTINGS = ['type', 'network', 'folders', 'openlineage_namespace', 'secrets'] as const;

const KEY = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/**
 * A row's value: numbers, true/false and JSON objects, arrays or quoted strings are read as JSON
 * (dbt wants `port: 5432`, `threads: 4`); anything else is the text as typed.
 */
export function settingValue(key: string, text: string): unknown {
	const t = text.trim();
	if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
	if (t === 'true' || t === 'false') return t === 'true';
	if (/^[[{"]/.test(t)) {
		try {
			return JSON.parse(t);
		} catch {
			throw badRequest(`settings.${key}: starts like JSON but is not valid JSON (quote a plain text value, or remove the leading ${t[0]})`);
		}
	}
	return t;
}

/** How a setting's stored value is shown in its row, so that saving the form unchanged keeps it. */
export function settingText(v: unknown): string {
	if (typeof v === 'string') return /^-?\d+(\.\d+)?$|^true$|^false$|^[[{"]/.test(v.trim()) ? JSON.stringify(v) : v;
	return JSON.stringify(v);
}

const texts = (form: FormData, name: string) => form.getAll(name).map((v) => String(v));

export function warehouseBodyFromForm(form: FormData): Record<string, unknown> {
	const settings: Record<string, unknown> = {};
	const type = String(form.get('type') ?? '').trim();
	if (type) settings.type = type;
	const network = String(form.get('network') ?? '');
	if (network === 'on' || network === 'off') settings.network = network === 'on';
	const folders = String(form.get('folders') ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);
	if (folders.length) settings.folders = folders;
	const namespace = String(form.get('openlineage_namespace') ?? '').trim();
	if (namespace) settings.openlineage_namespace = namespace;

	const keys = texts(form, 'setting_key');
	const values = texts(form, 'setting_value');
	keys.forEach((raw, i) => {
		const key = raw.trim();
		const value = values[i] ?? '';
		if (!key && !value.trim()) return;
		if (!KEY.test(key)) throw badRequest(`settings: "${key}" is not a setting name (letters, digits and _, starting with a letter or _)`);
		if ((NAMED_SETTINGS as readonly string[]).includes(key)) throw badRequest(`settings: "${key}" has its own field above; set it there, not as a row`);
		if (key in settings) throw badRequest(`settings.${key}: given twice`);
		// An empty value removes the setting: the row can be cleared without a separate button.
		if (value.trim()) settings[key] = settingValue(key, value);
	});

	const stored = new Set(texts(form, 'secret_stored'));
	const removed = new Set(texts(form, 'secret_remove'));
	const secretKeys = texts(form, 'secret_key');
	const secretValues = texts(form, 'secret_value');
	const secrets: Record<string, string> = {};
	secretKeys.forEach((raw, i) => {
		const key = raw.trim();
		const value = secretValues[i] ?? '';
		if (!key && !value) return;
		if (removed.has(key)) return;
		if (!KEY.test(key)) throw badRequest(`settings.secrets: "${key}" is not a secret name (like DBT_PASSWORD)`);
		if (key in secrets) throw badRequest(`settings.secrets.${key}: given twice`);
		// Left empty, a stored secret keeps its value (the mask tells the repo so); a new one needs one.
		if (value) secrets[key] = value;
		else if (stored.has(key)) secrets[key] = SECRET_MASK;
		else throw badRequest(`settings.secrets.${key}: a new secret needs a value`);
	});
	settings.secrets = secrets;

	const db = String(form.get('default_database') ?? '').trim();
	return { name: String(form.get('name') ?? '').trim(), default_database: db || null, settings };
}
