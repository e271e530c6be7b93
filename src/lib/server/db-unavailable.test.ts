import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './db';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
	it.each([
		['a backend terminated by an administrator (57P01)', withCode('57P01'), true],
		['the server shutting down (57P02)', withCode('57P02'), true],
		['the server starting up (57P03)', withCode('57P03'), true],
		['a connection failure (SQLSTATE class 08)', withCode('08006'), true],
		["postgres.js's closed connection", withCode('CONNECTION_CLOSED'), true],
		['a refused connect', withCode('ECONNREFUSED'), true],
		['the cause of a wrapping error (drizzle wraps driver errors)', Object.assign(new Error('Failed query'), { cause: withCode('57P01') }), true],
		['a unique violation', withCode('23505'), false],
		['a syntax error', withCode('42601'), false],
		['an error without a code', new Error('boom'), false],
		['not an error', 'boom', false]
	])('%s', (_name, error, expected) => {
		expect(isDatabaseUnavailable(error)).toBe(expected);
	});
});
