import { describe, expect, it } from 'vitest';
import { isHttpsRequest, originSettingsFromEnv, requestOrigin, type OriginSettings } from './origin';

// `url` is what adapter-node builds: https when neither ORIGIN nor PROTOCOL_HEADER is set.
const cases: { name: string; url: string; config: OriginSettings; origin: string; https: boolean }[] = [
	{ name: 'no configuration, localhost', url: 'https://localhost:3000/login', config: {}, origin: 'http://localhost:3000', https: false },
	{ name: 'no configuration, 127.0.0.1', url: 'https://127.0.0.1:3000/login', config: {}, origin: 'http://127.0.0.1:3000', https: false },
	{ name: 'no configuration, a LAN address', url: 'https://192.168.1.20:3000/', config: {}, origin: 'http://192.168.1.20:3000', https: false },
	{ name: 'no configuration, default port', url: 'https://tributary.lan/', config: {}, origin: 'http://tributary.lan', https: false },
	{ name: 'ORIGIN behind a TLS proxy', url: 'https://tributary.example/login', config: { origin: 'https://tributary.example' }, origin: 'https://tributary.example', https: true },
	{ name: 'ORIGIN over plain http', url: 'http://10.0.0.5:8080/', config: { origin: 'http://10.0.0.5:8080' }, origin: 'http://10.0.0.5:8080', https: false },
	{ name: 'a trusted proxy said https', url: 'https://tributary.example/', config: { protocolHeader: 'x-forwarded-proto' }, origin: 'https://tributary.example', https: true },
	{ name: 'a trusted proxy said http', url: 'http://tributary.example/', config: { protocolHeader: 'x-forwarded-proto' }, origin: 'http://tributary.example', https: false }
];

describe('requestOrigin', () => {
	it.each(cases)('$name', ({ url, config, origin, https }) => {
		expect(requestOrigin(new URL(url), config)).toBe(origin);
		expect(isHttpsRequest(new URL(url), config)).toBe(https);
	});

	it('reads ORIGIN and PROTOCOL_HEADER, treating empty as unset', () => {
		expect(originSettingsFromEnv({ ORIGIN: '', PROTOCOL_HEADER: '' })).toEqual({ origin: undefined, protocolHeader: undefined });
		expect(originSettingsFromEnv({ ORIGIN: 'https://a.example', PROTOCOL_HEADER: 'x-forwarded-proto' })).toEqual({
			origin: 'https://a.example',
			protocolHeader: 'x-forwarded-proto'
		});
	});
});
