/**
 * Reading every page of a list. The server decides when a listing ends (it stops sending
 * `nextCursor`), so one that always sends one would have the client ask forever and keep
 * every item it got. A listing is therefore bounded in pages and in items, and a cursor the
 * server already sent ends it too (the pages would repeat); each ends it with a
 * ListLimitError naming what was reached and the option that raises it, never with a
 * shorter list that looks whole.
 */

/** Pages one listing may take; the runtime's server sends 100 items a page by default. */
export const DEFAULT_MAX_LIST_PAGES = 1000;
/** Items one listing may hold. */
export const DEFAULT_MAX_LIST_ITEMS = 10_000;

export interface ListBounds {
  /** Pages one listing may take (`tools/list` ...); default 1,000. */
  readonly maxListPages?: number;
  /** Items one listing may hold; default 10,000. */
  readonly maxListItems?: number;
}

/** The bounds of `options`, defaults filled in; a bound that is not a positive integer (NaN would bound nothing) throws. */
export function listBounds(options: ListBounds): Required<ListBounds> {
  const bounds = { maxListPages: options.maxListPages ?? DEFAULT_MAX_LIST_PAGES, maxListItems: options.maxListItems ?? DEFAULT_MAX_LIST_ITEMS };
  for (const [name, value] of Object.entries(bounds)) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return bounds;
}

/** A listing stopped at a bound (or at a cursor sent twice) rather than returned incomplete. */
export class ListLimitError extends Error {
  constructor(
    readonly method: string,
    /** `maxListPages`, `maxListItems`, or `cursor` for a cursor the server sent twice. */
    readonly bound: "maxListPages" | "maxListItems" | "cursor",
    message: string,
  ) {
    super(message);
    this.name = "ListLimitError";
  }
}

/** One page as the list's request answers it. */
export interface Page<Item> {
  readonly items: readonly Item[];
  readonly nextCursor?: unknown;
}

/** Every item of a listing, page after page, within `bounds`; `fetchPage(undefined)` asks for the first page. */
export async function readAllPages<Item>(
  method: string,
  bounds: Required<ListBounds>,
  fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
): Promise<Item[]> {
  const { maxListPages: maxPages, maxListItems: maxItems } = bounds;
  const items: Item[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages >= maxPages) {
      throw new ListLimitError(method, "maxListPages", `${method}: the server has more after ${maxPages} pages; pass a larger maxListPages to read more`);
    }
    const page = await fetchPage(cursor);
    if (items.length + page.items.length > maxItems) {
      throw new ListLimitError(method, "maxListItems", `${method}: the server lists more than ${maxItems} items; pass a larger maxListItems to read more`);
    }
    for (const item of page.items) items.push(item);
    // Only a string is a cursor (the schema's type); anything else, null included, ends the list.
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
    if (cursor === undefined) return items;
    if (cursors.has(cursor)) {
      throw new ListLimitError(
        method,
        "cursor",
        `${method}: the server sent the cursor ${JSON.stringify(cursor.slice(0, 100))} a second time, so its pages would repeat without end`,
      );
    }
    cursors.add(cursor);
  }
}
