// The API's error value, apart from http.ts so that code a thread loads (the manifest parse, via
// dbt-files/errors.ts and limits.ts) does not pull in the database driver with it.
export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
		/** Headers the error answer carries (`Retry-After` of a 429, say). */
		readonly headers?: Record<string, string>
	) {
		super(message);
	}
}

export const badRequest = (msg: string) => new ApiError(400, msg);
export const unauthorized = (msg = 'sign in or present a valid API token') => new ApiError(401, msg);
export const forbidden = (msg: string) => new ApiError(403, msg);
export const notFound = (msg = 'not found') => new ApiError(404, msg);
export const conflict = (msg: string) => new ApiError(409, msg);
export const gone = (msg: string) => new ApiError(410, msg);
