// Sign-in throttling: the policy alone, pure (the clock is injected, state lives in the object).
// Three counters, each answering a different attacker:
//   - per username + address: exponential backoff after a few free failures (one attacker
//     guessing one account);
//   - per username, from addresses where it never signed in: a looser cap per window (guesses
//     at one account spread over many addresses). An address the account signed in from before
//     is exempt, so a flood from elsewhere cannot lock the real user out of their usual place;
//   - per address, over all usernames: a cap per window (one address spraying many accounts).
// Refused attempts are not counted: retrying during a wait does not extend it.

export interface ThrottlePolicy {
	pair: {
		/** Failures answered without any wait. */
		free: number;
		/** The wait after the first failure beyond `free`; doubled for each further one. */
		baseMs: number;
		maxMs: number;
		/** A pair's failures are forgotten this long after its last one. */
		forgetMs: number;
	};
	username: { max: number; windowMs: number };
	address: { max: number; windowMs: number };
	/** How long a successful sign-in exempts its username + address from the two caps. */
	knownMs: number;
	/** Bound of each table (oldest entries go first), so a flood of names cannot exhaust memory. */
	maxEntries: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const DEFAULT_THROTTLE: ThrottlePolicy = {
	pair: { free: 5, baseMs: SECOND, maxMs: 15 * MINUTE, forgetMs: 60 * MINUTE },
	username: { max: 30, windowMs: 15 * MINUTE },
	address: { max: 100, windowMs: 15 * MINUTE },
	knownMs: 30 * 24 * 60 * MINUTE,
	maxEntries: 50_000
};

export type LoginAttempt =
	| {
			allowed: true;
			/** The attempt counted as a failure from the start; a right password takes it back. */
			succeeded(): void;
	  }
	| { allowed: false; retryAfterS: number; reason: 'pair' | 'username' | 'address' };

interface PairState {
	failures: number;
	lastFailureAt: number;
}

/** A Map that forgets its least recently written keys beyond `max` entries. */
class BoundedMap<V> extends Map<string, V> {
	constructor(private readonly max: number) {
		super();
	}
	override set(key: string, value: V): this {
		super.delete(key);
		super.set(key, value);
		if (this.size > this.max) this.delete(this.keys().next().value as string);
		return this;
	}
}

/** The wait imposed after `failures` counted failures of one username + address. */
export function pairDelayMs(policy: ThrottlePolicy['pair'], failures: number): number {
	if (failures < policy.free) return 0;
	return Math.min(policy.maxMs, policy.baseMs * 2 ** (failures - policy.free));
}

/**
 * The key an address is counted under: an IPv4 address as it is (also when IPv4-mapped), an
 * IPv6 address by its /64, since one host usually holds a whole /64 and could rotate through it.
 */
export function addressKey(address: string): string {
	const a = address.trim().toLowerCase().replace(/%.*$/, '');
	// An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is that IPv4 address.
	const v4 = /(?:^|:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
	if (v4) return v4[1];
	if (!a.includes(':')) return a;
	const [head, tail = null] = a.split('::');
	const left = head ? head.split(':') : [];
	const right = tail === null ? [] : tail ? tail.split(':') : [];
	const groups = tail === null ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
	return `${groups
		.slice(0, 4)
		.map((g) => g.replace(/^0+(?=.)/, ''))
		.join(':')}::/64`;
}

export class LoginThrottle {
	private readonly pairs: BoundedMap<PairState>;
	private readonly usernames: BoundedMap<number[]>;
	private readonly addresses: BoundedMap<number[]>;
	private readonly known: BoundedMap<number>;

	constructor(
		readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
		private readonly now: () => number = Date.now
	) {
		this.pairs = new BoundedMap(policy.maxEntries);
		this.usernames = new BoundedMap(policy.maxEntries);
		this.addresses = new BoundedMap(policy.maxEntries);
		this.known = new BoundedMap(policy.maxEntries);
	}

	/**
	 * Decides one sign-in attempt, before its password is checked. An allowed attempt is counted
	 * as a failure at once, so parallel guesses cannot all pass before the first one is answered.
	 */
	attempt(username: string, address: string): LoginAttempt {
		const at = this.now();
		const user = username.slice(0, 200);
		const addr = addressKey(address);
		const pairKey = JSON.stringify([user, addr]);

		let pair = this.pairs.get(pairKey);
		if (pair && at - pair.lastFailureAt >= this.policy.pair.forgetMs) {
			this.pairs.delete(pairKey);
			pair = undefined;
		}
		const wait = pair ? pair.lastFailureAt + pairDelayMs(this.policy.pair, pair.failures) - at : 0;
		if (wait > 0) return refusal(wait, 'pair');

		const knownUntil = this.known.get(pairKey);
		const isKnown = knownUntil !== undefined && knownUntil > at;
		const userLog = recent(this.usernames.get(user), at, this.policy.username.windowMs);
		const addrLog = recent(this.addresses.get(addr), at, this.policy.address.windowMs);
		if (!isKnown) {
			if (userLog.length >= this.policy.username.max) {
				return refusal(userLog[userLog.length - this.policy.username.max] + this.policy.username.windowMs - at, 'username');
			}
			if (addrLog.length >= this.policy.address.max) {
				return refusal(addrLog[addrLog.length - this.policy.address.max] + this.policy.address.windowMs - at, 'address');
			}
		}

		this.pairs.set(pairKey, { failures: (pair?.failures ?? 0) + 1, lastFailureAt: at });
		this.usernames.set(user, [...userLog, at]);
		this.addresses.set(addr, [...addrLog, at]);
		return {
			allowed: true,
			succeeded: () => {
				this.pairs.delete(pairKey);
				this.known.set(pairKey, this.now() + this.policy.knownMs);
				takeBack(this.usernames, user, at);
				takeBack(this.addresses, addr, at);
			}
		};
	}
}

function refusal(waitMs: number, reason: 'pair' | 'username' | 'address'): LoginAttempt {
	return { allowed: false, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)), reason };
}

/** The timestamps still inside the window (oldest first). */
function recent(log: number[] | undefined, at: number, windowMs: number): number[] {
	return (log ?? []).filter((t) => at - t < windowMs);
}

function takeBack(table: Map<string, number[]>, key: string, at: number): void {
	const log = table.get(key);
	const i = log?.indexOf(at) ?? -1;
	if (log && i >= 0) log.splice(i, 1);
}
