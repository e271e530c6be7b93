// A short-lived memory of who a bearer token is, for the one endpoint that is called so often
// that looking the token and its owner's grants up on every request would cost more than the
// request's own work: the OpenLineage receiver (an orchestrator sends an event per task state).
//
// Two bounds keep it from outliving a change of access:
// - in this process, any change is seen at once: every write request other than the receiver's
//   (a token revoked, a member removed, a group or a folder's grants edited, through the API or a
//   settings form) and the services that revoke tokens or remove members call `authChanged()`,
//   which drops every entry, including one whose lookup was under way when the change was made;
// - a change made elsewhere (another web process, a CLI run against the database) is seen once
//   an entry is older than AUTH_CACHE_MS.
// Expiry is checked on every use, not only when an entry is made.

/** How long a looked-up token and its owner's grants are trusted without asking the database. */
export const AUTH_CACHE_MS = 1000;
/** Entries kept at most (tokens × workspaces); the oldest go first. */
const MAX_ENTRIES = 10_000;

let epoch = 0;

/** Forgets every cached identity: something that decides access may have changed. */
export function authChanged(): void {
	epoch++;
}

/** The current generation: a lookup started under an older one must not be remembered as current. */
export function authEpoch(): number {
	return epoch;
}

interface Entry<V> {
	value: V;
	at: number;
	epoch: number;
}

export class AuthCache<V> {
	private readonly entries = new Map<string, Entry<V>>();
	constructor(private readonly now: () => number = () => performance.now()) {}

	get(key: string): V | undefined {
		const e = this.entries.get(key);
		if (!e) return undefined;
		if (e.epoch !== epoch || this.now() - e.at >= AUTH_CACHE_MS) {
			this.entries.delete(key);
			return undefined;
		}
		return e.value;
	}

	/** Remembers `value`, looked up from the start of generation `since` (authEpoch() before the lookup). */
	set(key: string, value: V, since: number): void {
		if (since !== epoch) return;
		this.entries.delete(key);
		this.entries.set(key, { value, at: this.now(), epoch: since });
		if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
	}

	/**
	 * The cached value, or `load()`'s (remembered when it is not null and nothing changed access
	 * meanwhile). Concurrent misses of one key share one lookup.
	 */
	async through(key: string, load: () => Promise<V | null>): Promise<V | null> {
		const hit = this.get(key);
		if (hit !== undefined) return hit;
		const since = epoch;
		let p = this.inflight.get(key);
		if (!p || p.since !== since) {
			const promise = load().finally(() => {
				if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
			});
			p = { since, promise };
			this.inflight.set(key, p);
		}
		const v = await p.promise;
		if (v !== null) this.set(key, v, since);
		return v;
	}

	private readonly inflight = new Map<string, { since: number; promise: Promise<V | null> }>();

	clear(): void {
		this.entries.clear();
	}
}
