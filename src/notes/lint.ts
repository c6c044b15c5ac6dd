import { createHash } from "node:crypto"
import { parseAddress } from "./address.ts"
import { shownName } from "../kernel/names.ts"
import { formatAddress, type Home } from "../kernel/homes.ts"
import { MapExcerptLimit } from "./snapshot.ts"

/**
 * Deterministic checks of the homes for `/pi-context doctor`: MAP entries
 * that point nowhere, notes larger than a boot can show, notes whose bodies
 * are the same, and notes nobody touched for a long time.
 */

export interface LintNote {
  readonly home: Home
  /** Path inside the home, ending in `.md`. */
  readonly path: string
  readonly body: string
  readonly updatedMs: number
}

export type LintFinding =
  | { readonly _tag: "DanglingMapEntry"; readonly map: string; readonly line: number; readonly target: string }
  | { readonly _tag: "TooLargeForBoot"; readonly address: string; readonly chars: number; readonly limit: number; readonly isMap: boolean }
  | { readonly _tag: "Duplicate"; readonly addresses: ReadonlyArray<string> }
  | { readonly _tag: "Stale"; readonly address: string; readonly days: number }

export interface LintInput {
  readonly notes: ReadonlyArray<LintNote>
  readonly now: number
  /** A note not updated for this many days is reported as stale. */
  readonly staleDays: number
  readonly bootBudgetTokens: number
}

const DayMs = 86_400_000

export interface MapReference {
  readonly line: number
  readonly target: string
}

const scheme = /^[a-z][a-z0-9+.-]*:/i
const pathLike = /^@?[\w.-]+(\/[\w.-]+)*$/

/**
 * What a MAP points at: markdown links to relative targets, `[[wiki]]`
 * links, backticked addresses (`@project/db`, `plan.md`), and list items
 * that start with a path (`- topic/note: what it holds`).
 */
export const mapReferences = (body: string): ReadonlyArray<MapReference> => {
  const found: Array<MapReference> = []
  body.split("\n").forEach((text, index) => {
    const line = index + 1
    const add = (target: string) => {
      const clean = target.trim().replace(/#.*$/, "").replace(/^\.\//, "")
      if (clean !== "" && !scheme.test(clean) && !found.some((ref) => ref.line === line && ref.target === clean)) found.push({ line, target: clean })
    }
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) add(match[1]!)
    for (const match of text.matchAll(/\[\[([^\]|]+)(?:\|[^\]]*)?\]\]/g)) add(match[1]!)
    for (const match of text.matchAll(/`([^`\s]+)`/g)) {
      const candidate = match[1]!
      if (/^@(project|user|agent|model)\//.test(candidate) || candidate.endsWith(".md")) add(candidate)
    }
    const item = /^\s*(?:[-*+]|\d+\.)\s+([^\s:]+)(?::|\s+[—–-]\s)/.exec(text)
    if (item !== null && pathLike.test(item[1]!) && (item[1]!.includes("/") || item[1]!.endsWith(".md"))) add(item[1]!)
  })
  return found
}

/** The address a MAP reference names: `@home/...` as written, anything else inside the MAP's own home. */
export const resolveReference = (home: Home, target: string): string | undefined => {
  const raw = target.startsWith("@") ? target : home === "session" ? target : `@${home}/${target}`
  const parsed = parseAddress(raw)
  return parsed._tag === "Success" ? formatAddress(parsed.success) : undefined
}

const contentHash = (body: string): string =>
  createHash("sha256").update(body.split("\n").map((line) => line.trimEnd()).join("\n").trim()).digest("hex")

export const lintNotes = (input: LintInput): ReadonlyArray<LintFinding> => {
  const findings: Array<LintFinding> = []
  const addresses = new Set(input.notes.map((note) => formatAddress(note)))
  const noteLimit = input.bootBudgetTokens * 4

  const byHash = new Map<string, Array<string>>()
  for (const note of input.notes) {
    const address = formatAddress(note)
    const isMap = note.path === "MAP.md"
    if (isMap) {
      for (const ref of mapReferences(note.body)) {
        const resolved = resolveReference(note.home, ref.target)
        if (resolved === undefined || !addresses.has(resolved)) findings.push({ _tag: "DanglingMapEntry", map: address, line: ref.line, target: ref.target })
      }
    }
    const chars = [...note.body].length
    const limit = isMap ? MapExcerptLimit : noteLimit
    if (chars > limit) findings.push({ _tag: "TooLargeForBoot", address, chars, limit, isMap })
    if (note.body.trim() !== "") {
      const hash = contentHash(note.body)
      byHash.set(hash, [...(byHash.get(hash) ?? []), address])
    }
    const days = Math.floor((input.now - note.updatedMs) / DayMs)
    if (days >= input.staleDays) findings.push({ _tag: "Stale", address, days })
  }
  for (const group of byHash.values()) if (group.length > 1) findings.push({ _tag: "Duplicate", addresses: [...group].sort() })
  return findings
}

const describeFinding = (finding: LintFinding): string => {
  switch (finding._tag) {
    case "DanglingMapEntry":
      return `${finding.map}:${finding.line} points at "${finding.target}", which is no note; fix the entry or write the note`
    case "TooLargeForBoot":
      return finding.isMap
        ? `${shownName(finding.address)} has ${finding.chars} characters; a boot shows the first ${finding.limit}: move detail into notes it points to`
        : `${shownName(finding.address)} has ${finding.chars} characters, more than a whole boot (${finding.limit}); split it`
    case "Duplicate":
      return `${finding.addresses.join(", ")} have the same content; keep one`
    case "Stale":
      return `${shownName(finding.address)} was last updated ${finding.days} days ago; still true? retire it with notes_update retire: true`
  }
}

const headings: ReadonlyArray<readonly [LintFinding["_tag"], string]> = [
  ["DanglingMapEntry", "MAP entries that point nowhere"],
  ["TooLargeForBoot", "notes larger than a boot can show"],
  ["Duplicate", "duplicate notes"],
  ["Stale", "notes untouched for a long time"]
]

/** Doctor lines: one per class of problem, with up to `perClass` examples each. */
export const renderLint = (findings: ReadonlyArray<LintFinding>, staleDays: number, perClass = 5): ReadonlyArray<string> =>
  headings.flatMap(([tag, heading]) => {
    const found = findings.filter((finding) => finding._tag === tag)
    const title = tag === "Stale" ? `${heading} (${staleDays}+ days)` : heading
    if (found.length === 0) return [`ok   notes lint: no ${title}`]
    return [
      `FAIL notes lint: ${found.length} ${title}`,
      ...found.slice(0, perClass).map((finding) => `       ${describeFinding(finding)}`),
      ...(found.length > perClass ? [`       … and ${found.length - perClass} more`] : [])
    ]
  })
