/**
 * The five note homes and how an address is written, with no Effect import:
 * the extension's load path (its renderers and report views) reads these, and
 * Effect is loaded only on first use.
 */
/** In the order the boot and listings show them. */
export const Homes = ["session", "project", "user", "agent", "model"] as const
export type Home = (typeof Homes)[number]

export const homeOrder = (home: Home): number => Homes.indexOf(home)

/** A valid note address: its home and a `/`-separated path that always ends in `.md`. */
export interface NoteAddress {
  readonly home: Home
  readonly path: string
}

/** How the model names a home: `session`, or `@home` for the others. */
export const homeLabel = (home: Home): string => (home === "session" ? "session" : `@${home}`)

/** How the model writes an address: no prefix for the session, `@home/` for the others. */
export const formatAddress = (address: NoteAddress): string =>
  address.home === "session" ? address.path : `@${address.home}/${address.path}`

/** The prefix a model uses for `home` (empty for the session home). */
export const homePrefix = (home: Home): string => (home === "session" ? "" : `@${home}/`)

/** Accepts "session", "project", "@project", "@project/" and the like; undefined for anything else. */
export const parseHome = (raw: string): Home | undefined => {
  const name = raw.replace(/^@/, "").replace(/\/$/, "")
  return (Homes as ReadonlyArray<string>).includes(name) ? (name as Home) : undefined
}
