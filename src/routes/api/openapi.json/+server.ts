import { json } from '@sveltejs/kit';
import { openapiDocument } from '$lib/server/openapi';
import type { RequestHandler } from './$types';

// Public by design: the document describes endpoints, it exposes no data.
export const GET: RequestHandler = () => json(openapiDocument());
