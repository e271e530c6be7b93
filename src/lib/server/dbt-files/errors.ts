import { ApiError } from '../api-error';

/**
 * A refusal of uploaded input. The message names the file (and field, when there is one) and
 * the problem, because it is shown as-is to the person whose CI job uploaded the artifacts.
 * It is an ApiError, so a route answers it as `{"error": ...}` with its 4xx status.
 */
export class IngestError extends ApiError {
	constructor(
		readonly file: string,
		problem: string,
		readonly field?: string,
		status = 400
	) {
		super(status, `${file}${field ? ` (${field})` : ''}: ${problem}`);
	}
}
