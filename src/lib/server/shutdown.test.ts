import { describe, expect, it } from 'vitest';
import { DEFAULT_SHUTDOWN_GRACE_MS, shutdownGraceMs } from './shutdown';

describe('TRIBUTARY_SHUTDOWN_GRACE_MS', () => {
	it('defaults to ten seconds when unset or empty', () => {
		expect(DEFAULT_SHUTDOWN_GRACE_MS).toBe(10_000);
		expect(shutdownGraceMs({})).toBe(10_000);
		expect(shutdownGraceMs({ TRIBUTARY_SHUTDOWN_GRACE_MS: ' ' })).toBe(10_000);
	});

	it('takes whole milliseconds, zero included', () => {
		expect(shutdownGraceMs({ TRIBUTARY_SHUTDOWN_GRACE_MS: '2500' })).toBe(2500);
		expect(shutdownGraceMs({ TRIBUTARY_SHUTDOWN_GRACE_MS: '0' })).toBe(0);
	});

	it('refuses anything else, naming the variable and the value', () => {
		for (const v of ['ten', '-1', '1.5', '10s']) {
			expect(() => shutdownGraceMs({ TRIBUTARY_SHUTDOWN_GRACE_MS: v })).toThrow(`TRIBUTARY_SHUTDOWN_GRACE_MS must be a whole number of milliseconds (0 or more), got "${v}"`);
		}
	});
});
