const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a customer id a caller sent names the customer the service issued
 * as `issued`. Ids are issued as lower-case UUIDs, a format in which case
 * does not matter, so a UUID compares without regard to case; anything else
 * only exactly (it is not an id the service issued).
 */
export function isSameCustomerId(given: string, issued: string): boolean {
  return given === issued || (UUID.test(given) && given.toLowerCase() === issued.toLowerCase());
}
