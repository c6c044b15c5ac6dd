import { Option, Schema } from "effect"
import { compileGlob, hasGlobSyntax } from "../kernel/glob.ts"
import { foldCase } from "../kernel/caseFold.ts"
import type { ScanDeadline } from "../kernel/scanDeadline.ts"
import type { NoteRow } from "./snapshot.ts"

/**
 * Keyset pagination: a cursor names the last item of the previous page, so a
 * page never repeats or skips a note that was already there, whatever was
 * written in between.
 */
export const ListCursor = Schema.Struct({ u: Schema.Number, a: Schema.String })
export type ListCursor = typeof ListCursor.Type

/** Search hits are ordered by note (home order, then path) and line. */
export const SearchCursor = Schema.Struct({ h: Schema.Number, p: Schema.String, l: Schema.Number })
export type SearchCursor = typeof SearchCursor.Type

const encodeJson = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")

const decodeWith = <A>(schema: Schema.Decoder<A>) => {
  const decode = Schema.decodeUnknownOption(Schema.fromJsonString(schema as Schema.Codec<A, unknown>))
  return (cursor: string): Option.Option<A> => decode(Buffer.from(cursor, "base64url").toString("utf8"))
}

export const encodeListCursor = (cursor: ListCursor): string => encodeJson(cursor)
export const decodeListCursor = decodeWith(ListCursor)
export const encodeSearchCursor = (cursor: SearchCursor): string => encodeJson(cursor)
export const decodeSearchCursor = decodeWith(SearchCursor)

/** Most recent first; the address breaks ties so the order is total. */
export const compareRecentFirst = (a: Pick<NoteRow, "updatedMs" | "address">, b: Pick<NoteRow, "updatedMs" | "address">): number =>
  b.updatedMs - a.updatedMs || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)

export const isAfterListCursor = (row: Pick<NoteRow, "updatedMs" | "address">, cursor: ListCursor): boolean =>
  compareRecentFirst({ updatedMs: cursor.u, address: cursor.a }, row) < 0

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | undefined
}

/** How many rows are matched between two looks at the budget. */
const RowsPerBudgetCheck = 256

/**
 * One page of the `rows` that `matches`, after `cursor`, most recent first,
 * matched in that order until the page is full or `budget` is spent: then
 * the cursor names the last row looked at, so the next call goes on from
 * there (a cursor needs no match of its own).
 */
export const pageMatching = (
  rows: ReadonlyArray<NoteRow>,
  cursor: ListCursor | undefined,
  limit: number,
  matches: (address: string) => boolean,
  budget: ScanDeadline
): Page<NoteRow> & { readonly stoppedEarly: boolean } => {
  if (limit <= 0) return { items: [], nextCursor: undefined, stoppedEarly: false }
  const remaining = (cursor === undefined ? [...rows] : rows.filter((row) => isAfterListCursor(row, cursor))).sort(compareRecentFirst)
  const items: Array<NoteRow> = []
  const after = (row: NoteRow): string => encodeListCursor({ u: row.updatedMs, a: row.address })
  for (let i = 0; i < remaining.length; i++) {
    if (i > 0 && i % RowsPerBudgetCheck === 0 && budget.spent()) return { items, nextCursor: after(remaining[i - 1]!), stoppedEarly: true }
    const row = remaining[i]!
    if (!matches(row.address)) continue
    if (items.length === limit) return { items, nextCursor: after(items[limit - 1]!), stoppedEarly: false }
    items.push(row)
  }
  return { items, nextCursor: undefined, stoppedEarly: false }
}

/**
 * A listing filter over addresses: with `*` (within a folder), `**` (across
 * folders) or `?`, a glob over the whole address (".md" implied); otherwise
 * a substring. Both ignore case.
 */
export const addressMatcher = (pattern: string | undefined): (address: string) => boolean => {
  if (pattern === undefined || pattern === "") return () => true
  if (!hasGlobSyntax(pattern)) {
    const needle = foldCase(pattern)
    return (address) => foldCase(address).includes(needle)
  }
  const glob = compileGlob(pattern, { separator: "/", ignoreCase: true })
  return (address) => glob(address) || (foldCase(address.slice(-3)) === ".md" && glob(address.slice(0, -3)))
}
