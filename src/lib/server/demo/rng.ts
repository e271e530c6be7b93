// Seeded pseudo-random numbers. Everything the generator writes must be a pure function of the
// seed (benchmarks compare runs, tests compare bytes), so Math.random is never used.

export interface Rng {
	/** Uniform in [0, 1). */
	next(): number;
	/** Integer in [lo, hi], both inclusive. */
	int(lo: number, hi: number): number;
	/** True with probability p. */
	chance(p: number): boolean;
	pick<T>(items: readonly T[]): T;
	/** Up to n distinct items, in a random order. */
	sample<T>(items: readonly T[], n: number): T[];
	/** Standard normal variate (Box-Muller). */
	normal(): number;
	/** A v4-shaped uuid. */
	uuid(): string;
	hex(chars: number): string;
}

/** sfc32 seeded through splitmix32: fast, good enough statistically, and stable across engines. */
export function createRng(seed: number): Rng {
	let s = seed >>> 0;
	const split = () => {
		s = (s + 0x9e3779b9) >>> 0;
		let z = s;
		z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
		z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
		return (z ^ (z >>> 16)) >>> 0;
	};
	let a = split();
	let b = split();
	let c = split();
	let d = split();
	const u32 = () => {
		const t = (((a + b) >>> 0) + d) >>> 0;
		d = (d + 1) >>> 0;
		a = b ^ (b >>> 9);
		b = (c + (c << 3)) >>> 0;
		c = (c << 21) | (c >>> 11);
		c = (c + t) >>> 0;
		return t;
	};
	for (let i = 0; i < 12; i++) u32();

	const next = () => u32() / 4294967296;
	const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
	const hex = (chars: number) => {
		let out = '';
		while (out.length < chars) out += u32().toString(16).padStart(8, '0');
		return out.slice(0, chars);
	};
	return {
		next,
		int,
		chance: (p) => next() < p,
		pick: (items) => items[Math.floor(next() * items.length)],
		sample: (items, n) => {
			const copy = items.slice();
			const out = [];
			for (let i = 0; i < n && copy.length > 0; i++) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
			return out;
		},
		normal: () => {
			const u = 1 - next();
			const v = next();
			return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
		},
		uuid: () => {
			const h = hex(32);
			const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
			return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
		},
		hex
	};
}
