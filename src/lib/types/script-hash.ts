// Script versions are identified by a random 64-bit hash, stored as a signed bigint and written
// on the wire as 16 lowercase hex digits (JSON numbers cannot hold 64 bits).
const MOD = 1n << 64n;

export function hashToHex(h: bigint): string {
	return (h < 0n ? h + MOD : h).toString(16).padStart(16, '0');
}

export function hexToHash(s: string): bigint | null {
	if (!/^[0-9a-f]{16}$/i.test(s)) return null;
	const u = BigInt(`0x${s}`);
	return u >= 1n << 63n ? u - MOD : u;
}
