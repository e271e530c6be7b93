// Per-sender rate limit of the OpenLineage receiver: a token bucket per API token (per account
// for a session), in this process. A sender over its rate is answered 429 with Retry-After; the
// OpenLineage clients retry on it. The table is bounded: the least recently used senders go first.
import { ApiError } from '../api-error';
import { openLineageLimits } from '../limits';

interface Bucket {
	tokens: number;
	at: number;
}

const MAX_SENDERS = 10_000;

export class SenderRate {
	private readonly buckets = new Map<string, Bucket>();
	constructor(private readonly now: () => number = () => performance.now()) {}

	/** Takes one event from `sender`'s bucket, or throws the 429. */
	take(sender: string, rate: number, burst: number): void {
		const t = this.now();
		let b = this.buckets.get(sender);
		if (b) this.buckets.delete(sender);
		else b = { tokens: burst, at: t };
		b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate);
		b.at = t;
		this.buckets.set(sender, b);
		if (this.buckets.size > MAX_SENDERS) this.buckets.delete(this.buckets.keys().next().value as string);
		if (b.tokens >= 1) {
			b.tokens -= 1;
			return;
		}
		const waitS = Math.max(1, Math.ceil((1 - b.tokens) / rate));
		throw new ApiError(429, `this token sends more than ${rate.toLocaleString('en-US')} OpenLineage events a second (TRIBUTARY_OPENLINEAGE_RATE); retry after ${waitS} s`, { 'retry-after': String(waitS) });
	}
}

let senders = new SenderRate();

/** Replaces the process's limiter (tests: a fresh one, or one on a fake clock); returns the old one. */
export function setSenderRate(r: SenderRate): SenderRate {
	const old = senders;
	senders = r;
	return old;
}

export function takeEventSlot(sender: string): void {
	const { rate, burst } = openLineageLimits();
	senders.take(sender, rate, burst);
}
