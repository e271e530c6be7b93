import { describe, expect, it } from 'vitest';
import { hashToHex, hexToHash } from './script-hash';

describe('script hash wire format', () => {
	it.each([
		['zero', 0n, '0000000000000000'],
		['small positive', 255n, '00000000000000ff'],
		['largest signed', (1n << 63n) - 1n, '7fffffffffffffff'],
		['minus one', -1n, 'ffffffffffffffff'],
		['smallest signed', -(1n << 63n), '8000000000000000']
	])('%s round-trips', (_name, value, hex) => {
		expect(hashToHex(value)).toBe(hex);
		expect(hexToHash(hex)).toBe(value);
	});

	it.each(['', 'xyz', '123', '00000000000000000', '-000000000000001'])('rejects %j', (s) => {
		expect(hexToHash(s)).toBeNull();
	});
});
