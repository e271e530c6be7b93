// The origin a request was really made to, for the CSRF check and the cookie's Secure flag.
// adapter-node never terminates TLS, yet with no ORIGIN it builds `event.url` as https (it
// assumes a TLS proxy in front), so a browser at http://localhost:3000 sends an Origin that
// never matches. Scheme and host follow the request unless the operator names the truth:
// ORIGIN fixes both; PROTOCOL_HEADER / HOST_HEADER make adapter-node read them from a proxy's
// headers (X-Forwarded-*), which are ignored otherwise because any client can send them.

export interface OriginSettings {
	/** adapter-node's ORIGIN: the public origin, whatever the request says. */
	origin?: string;
	/** adapter-node's PROTOCOL_HEADER: the proxy header trusted for the scheme. */
	protocolHeader?: string;
}

export function originSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): OriginSettings {
	return { origin: env.ORIGIN || undefined, protocolHeader: env.PROTOCOL_HEADER || undefined };
}

/** `url` is the request's URL as the adapter built it (its host from Host, or HOST_HEADER). */
export function requestOrigin(url: URL, config: OriginSettings = originSettingsFromEnv()): string {
	// With either set, the adapter built the URL from what the operator trusts.
	if (config.origin || config.protocolHeader) return url.origin;
	return `http://${url.host}`;
}

export function isHttpsRequest(url: URL, config: OriginSettings = originSettingsFromEnv()): boolean {
	return requestOrigin(url, config).startsWith('https:');
}
