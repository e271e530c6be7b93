import { describe, expect, it } from 'vitest';
import { fieldOf } from './form-failure';
import { settingText, settingValue, warehouseBodyFromForm } from './warehouse-form';

const formOf = (fields: Record<string, string | string[]>) => {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) f.append(k, one);
	return f;
};

describe('the warehouse form', () => {
	it('reads numbers, booleans and JSON as such, and shows each so that reading it back gives the same value', () => {
		for (const v of [5432, 4.5, true, false, 'db.internal', '5432', 'true', '{not json', ['a', 1], { k: 'v' }, '"quoted"']) {
			expect(settingValue('k', settingText(v))).toEqual(v);
		}
		expect(settingValue('threads', ' 8 ')).toBe(8);
		expect(() => settingValue('extra', '{"a":')).toThrow(/^settings\.extra: starts like JSON/);
	});

	it('makes the API body: named fields, rows, secrets kept by the mask, removed when ticked', () => {
		const body = warehouseBodyFromForm(
			formOf({
				name: ' prod ',
				type: 'postgres',
				network: 'default',
				folders: 'a, b',
				default_database: '',
				setting_key: ['host', '', 'port'],
				setting_value: ['db', '', ''],
				secret_stored: ['OLD', 'GONE'],
				secret_key: ['OLD', 'GONE', 'NEW'],
				secret_value: ['', '', 'v'],
				secret_remove: ['GONE']
			})
		);
		expect(body).toEqual({
			name: 'prod',
			default_database: null,
			settings: { type: 'postgres', folders: ['a', 'b'], host: 'db', secrets: { OLD: '***', NEW: 'v' } }
		});
	});

	it('refuses rows it cannot read, naming the field', () => {
		expect(() => warehouseBodyFromForm(formOf({ setting_key: ['bad key'], setting_value: ['x'] }))).toThrow(/^settings: "bad key" is not a setting name/);
		expect(() => warehouseBodyFromForm(formOf({ setting_key: ['a', 'a'], setting_value: ['1', '2'] }))).toThrow(/^settings\.a: given twice/);
		expect(() => warehouseBodyFromForm(formOf({ secret_key: ['NEW'], secret_value: [''] }))).toThrow(/^settings\.secrets\.NEW: a new secret needs a value/);
	});
});

describe('fieldOf', () => {
	it('finds the longest field a message starts with, and only a whole one', () => {
		const fields = ['settings', 'settings.secrets', 'name'];
		expect(fieldOf('settings.secrets.X: a new secret needs a value', fields)).toBe('settings.secrets');
		expect(fieldOf('settings.network must be true or false', fields)).toBe('settings');
		expect(fieldOf('names are hard', fields)).toBeNull();
		expect(fieldOf('name must be a string', fields)).toBe('name');
	});
});
