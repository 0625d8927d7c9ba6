/**
 * The one ordering for every list the CLI writes or prints. Code-unit order, not the
 * locale's, so that two machines always produce the same bytes.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A sorted copy of `items`, ordered by `key` (the item itself for strings). */
export function sortedBy<T>(items: Iterable<T>, key: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareText(key(a), key(b)));
}

/** A sorted copy of a list of strings. */
export function sorted(items: Iterable<string>): string[] {
  return sortedBy(items, (item) => item);
}
