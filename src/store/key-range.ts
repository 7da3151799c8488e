// Key ranges over the store's array keys ([appId, gallery, ...]).

/**
 * Every key that starts with `prefix`. IndexedDB orders arrays element by element, a shorter
 * array before its extensions, and any array after every string and number, so
 * [...prefix] ≤ key < [...prefix, []] holds exactly for the keys extending `prefix`.
 */
export function prefixRange(...prefix: (string | number)[]): IDBKeyRange {
  return IDBKeyRange.bound(prefix, [...prefix, []]);
}

/**
 * The smallest key after every key that extends [...prefix, value]: for a cursor to skip all
 * the rest of a group in one seek (value + '\0' is the next string after `value`).
 */
export function pastGroup(prefix: readonly string[], value: string): string[] {
  return [...prefix, `${value}\0`];
}
