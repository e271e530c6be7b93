// POST api/v1/lineage: the OpenLineage receiver again, where the Python client posts when its
// transport `url` is https://<host>/api/w/{ws}/openlineage WITHOUT a trailing slash (it joins
// the endpoint with urljoin, which replaces the last path segment). Same gate, same answers.
import { json } from '@sveltejs/kit';
import { openLineageSender } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { readEventText } from '$lib/server/openlineage-in/body';
import { parseEvent } from '$lib/server/openlineage-in/event';
import { takeEventSlot } from '$lib/server/openlineage-in/rate';
import { receive } from '$lib/server/openlineage-in/batch';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await openLineageSender(event, event.params.ws);
	takeEventSlot(event.locals.auth!.token?.id ?? `account:${grant.accountId}`);
	const received = parseEvent(await readEventText(event.request));
	return json(await receive(await getDatabase(), grant, received), { status: 201 });
});
