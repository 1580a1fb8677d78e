import { DomainError } from '../../infra/domain-error.js';

/** Seconds a client should wait before searching again while the index is unavailable. */
const RETRY_AFTER_SECONDS = 5;

/** The index cannot answer (being rebuilt, far behind, or missing): a 503 with Retry-After. */
export function searchUnavailable(): DomainError {
  return new DomainError('unavailable', 'catalogue.searchUnavailable', {}, RETRY_AFTER_SECONDS);
}

export function isSearchUnavailable(error: unknown): boolean {
  return error instanceof DomainError && error.kind === 'unavailable' && error.messageKey === 'catalogue.searchUnavailable';
}

/** The search's reads used up the request's time budget (SEARCH_TIME_BUDGET_MS): a 503 that says to narrow it. */
export function searchTooSlow(): DomainError {
  return new DomainError('unavailable', 'search.tooSlow');
}

export function isSearchTooSlow(error: unknown): boolean {
  return error instanceof DomainError && error.kind === 'unavailable' && error.messageKey === 'search.tooSlow';
}
