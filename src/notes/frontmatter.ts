/**
 * A note on disk is an optional frontmatter block followed by the body the
 * model reads and writes. pi-context owns three keys; every other line of
 * the block is kept exactly as it was, in order.
 */
export interface Frontmatter {
  readonly created: string | undefined
  readonly updated: string | undefined
  readonly origin: string | undefined
  /** Lines of the block that pi-context does not own, verbatim. */
  readonly otherLines: ReadonlyArray<string>
}

export interface ParsedNote {
  readonly frontmatter: Frontmatter
  readonly body: string
}

export const emptyFrontmatter: Frontmatter = { created: undefined, updated: undefined, origin: undefined, otherLines: [] }

const ownedKey = /^(created|updated|origin):[ \t]*(.*)$/

const fence = /^---[ \t]*$/

const unquote = (value: string): string => {
  const trimmed = value.trim()
  return trimmed.length >= 2 && (trimmed.startsWith("\"") && trimmed.endsWith("\"") || trimmed.startsWith("'") && trimmed.endsWith("'"))
    ? trimmed.slice(1, -1)
    : trimmed
}

/** Splits `text` into frontmatter and body. Text without a closed block is all body. */
export const parseNote = (text: string): ParsedNote => {
  if (!text.startsWith("---")) return { frontmatter: emptyFrontmatter, body: text }
  const firstBreak = text.indexOf("\n")
  if (firstBreak === -1 || !fence.test(text.slice(0, firstBreak).replace(/\r$/, ""))) {
    return { frontmatter: emptyFrontmatter, body: text }
  }
  let created: string | undefined
  let updated: string | undefined
  let origin: string | undefined
  const otherLines: Array<string> = []
  let lineStart = firstBreak + 1
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf("\n", lineStart)
    const end = lineEnd === -1 ? text.length : lineEnd
    const line = text.slice(lineStart, end).replace(/\r$/, "")
    if (fence.test(line)) {
      return {
        frontmatter: { created, updated, origin, otherLines },
        body: lineEnd === -1 ? "" : text.slice(lineEnd + 1)
      }
    }
    const owned = ownedKey.exec(line)
    if (owned === null) otherLines.push(line)
    else if (owned[1] === "created") created = unquote(owned[2]!)
    else if (owned[1] === "updated") updated = unquote(owned[2]!)
    else origin = unquote(owned[2]!)
    if (lineEnd === -1) break
    lineStart = lineEnd + 1
  }
  return { frontmatter: emptyFrontmatter, body: text }
}

const ownedLine = (key: string, value: string | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : [`${key}: ${value.replace(/[\r\n]+/g, " ")}`]

export const serializeNote = (note: ParsedNote): string => {
  const { created, updated, origin, otherLines } = note.frontmatter
  const lines = [
    ...ownedLine("created", created),
    ...ownedLine("updated", updated),
    ...ownedLine("origin", origin),
    ...otherLines
  ]
  return `---\n${lines.join("\n")}${lines.length > 0 ? "\n" : ""}---\n${note.body}`
}

/** The frontmatter after a write at `nowIso`: `created` and other keys survive, `updated` moves. */
export const stampFrontmatter = (previous: Frontmatter | undefined, nowIso: string, origin: string): Frontmatter => ({
  created: previous?.created ?? nowIso,
  updated: nowIso,
  origin: previous?.origin ?? origin,
  otherLines: previous?.otherLines ?? []
})

/** The title of a note: its first markdown heading, else its first non-empty line. */
export const noteTitle = (body: string, maxLength = 60): string => {
  let firstLine: string | undefined
  for (const rawLine of body.split("\n", 200)) {
    const line = rawLine.trim()
    if (line === "") continue
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (heading !== null) return clip(heading[1]!.trim(), maxLength)
    firstLine ??= line
  }
  return clip(firstLine ?? "", maxLength)
}

const clip = (text: string, maxLength: number): string => {
  const points = Array.from(text)
  return points.length <= maxLength ? text : `${points.slice(0, maxLength - 1).join("")}…`
}
