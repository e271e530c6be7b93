// The optional push of a settled run's OpenLineage events (TRIBUTARY_OPENLINEAGE_URL): the
// worker posts them, one event per request as the OpenLineage HTTP transport does, before it
// stores the run's end, so what happened is written to the run's log. A push never changes
// how the run ends: every failure (refused, unreachable, too slow, redirected) is a log line.
// Redirects are not followed: the operator named one endpoint, and a collector answering 3xx
// must not send the worker, its bearer key and the run's SQL to an address nobody configured.
import type { Database } from './db';
import type { RunEvent } from '../types/openlineage';
import type { JobView } from './repo/jobs';
import { runEvents, type RunState } from './api/openlineage/export';

export interface OpenLineagePush {
	/** The endpoint events are POSTed to. */
	url: string;
	/** The whole push's budget; what is not sent by then is reported and dropped. */
	timeoutMs: number;
	/** Sent as `Authorization: Bearer …` when set (TRIBUTARY_OPENLINEAGE_API_KEY). */
	apiKey: string | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * TRIBUTARY_OPENLINEAGE_URL as a push target. A URL without a path (`http://marquez:5000`)
 * posts to the OpenLineage convention's `/api/v1/lineage`; one with a path is used as given.
 */
export function openLineagePushFromEnv(env: NodeJS.ProcessEnv = process.env): OpenLineagePush | null {
	const raw = env.TRIBUTARY_OPENLINEAGE_URL?.trim();
	if (!raw) return null;
	let u: URL;
	try {
		u = new URL(raw);
	} catch {
		throw new Error(`TRIBUTARY_OPENLINEAGE_URL must be an http(s) URL, got "${raw}"`);
	}
	if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`TRIBUTARY_OPENLINEAGE_URL must be an http(s) URL, got "${raw}"`);
	if (u.pathname === '/' || u.pathname === '') u.pathname = '/api/v1/lineage';
	const t = Number(env.TRIBUTARY_OPENLINEAGE_TIMEOUT_MS);
	return { url: u.toString(), timeoutMs: Number.isFinite(t) && t >= 100 ? Math.trunc(t) : DEFAULT_TIMEOUT_MS, apiKey: env.TRIBUTARY_OPENLINEAGE_API_KEY?.trim() || null };
}

/** The endpoint without its query or credentials, for a log line. */
function shown(url: string): string {
	const u = new URL(url);
	return `${u.origin}${u.pathname}`;
}

/** A redirect's Location for a log line: resolved against the endpoint, without its query or credentials. */
function shownLocation(location: string | null, base: string): string {
	if (!location) return '(no Location)';
	try {
		return shown(new URL(location, base).toString());
	} catch {
		return JSON.stringify(location.slice(0, 200));
	}
}

/**
 * Posts the run's events (the endpoint was configured by the operator: events carry SQL, column
 * lineage and dbt's messages in full) and says in `say` how it went. Never throws.
 */
export async function pushRunEvents(database: Database, job: JobView, state: RunState, push: OpenLineagePush, say: (line: string) => void): Promise<void> {
	const where = shown(push.url);
	try {
		const events: RunEvent[] = [];
		const view = { authored: true, messages: true, assetAllowed: () => true, producerShown: () => false, producerAuthored: () => false };
		for await (const e of runEvents(database, job, state, view)) events.push(e);
		const signal = AbortSignal.timeout(push.timeoutMs);
		const headers: Record<string, string> = { 'content-type': 'application/json' };
		if (push.apiKey) headers.authorization = `Bearer ${push.apiKey}`;
		let sent = 0;
		for (const e of events) {
			const r = await fetch(push.url, { method: 'POST', headers, body: JSON.stringify(e), signal, redirect: 'manual' });
			await r.arrayBuffer().catch(() => null);
			if (r.status >= 300 && r.status < 400) {
				say(`OpenLineage: ${where} redirected event ${sent + 1} of ${events.length} to ${shownLocation(r.headers.get('location'), push.url)} (HTTP ${r.status}); redirects are not followed, the rest were not sent`);
				return;
			}
			if (!r.ok) {
				say(`OpenLineage: ${where} refused event ${sent + 1} of ${events.length} (HTTP ${r.status}); the rest were not sent`);
				return;
			}
			sent++;
		}
		say(`OpenLineage: sent ${sent} event${sent === 1 ? '' : 's'} to ${where}`);
	} catch (e) {
		const err = e as Error;
		const why = err.name === 'TimeoutError' ? `no answer within ${push.timeoutMs} ms` : (err.cause as Error | undefined)?.message ?? err.message;
		say(`OpenLineage: could not send events to ${where}: ${why}`);
	}
}
