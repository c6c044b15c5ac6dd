import { formatAddress, type Home, Homes } from "../../kernel/homes.ts"
import { homeSegments, type NotesIdentity, WastebasketFolder } from "../identity.ts"
import type { ChangeKind } from "../../kernel/facts.ts"

/**
 * The note versions, as pure text in and out: which notes a window changed
 * (from `git status`), the commit message, the log of a note or a home, and
 * where each home and its wastebasket sit inside the repository.
 */

export interface NoteChange {
  /** Path relative to the repository's top level, `/`-separated. */
  readonly path: string
  readonly kind: ChangeKind
}

/**
 * Parses `git status --porcelain=v1 -z --no-renames`: `XY path\0` records.
 * Untracked and added files are additions; a deletion in either column is a
 * deletion; anything else that differs is a modification.
 */
export const parseStatus = (output: string): ReadonlyArray<NoteChange> => {
  const changes: Array<NoteChange> = []
  for (const record of output.split("\0")) {
    if (record.length < 4) continue
    const code = record.slice(0, 2)
    const path = record.slice(3)
    if (code === "!!") continue
    const kind: ChangeKind = code === "??" || code.includes("A")
      ? "added"
      : code.includes("D")
      ? "deleted"
      : "modified"
    changes.push({ path, kind })
  }
  return changes
}

/** The paths `git status --ignored` marks ignored (`!! path`): a folder ends with `/`. */
export const parseIgnored = (output: string): ReadonlyArray<string> =>
  output.split("\0").flatMap((record) => record.startsWith("!! ") ? [record.slice(3)] : [])

export interface ChangeCounts {
  readonly added: number
  readonly modified: number
  readonly deleted: number
}

export const countChanges = (changes: ReadonlyArray<{ readonly kind: ChangeKind }>): ChangeCounts => ({
  added: changes.filter((c) => c.kind === "added").length,
  modified: changes.filter((c) => c.kind === "modified").length,
  deleted: changes.filter((c) => c.kind === "deleted").length
})

export const shortSessionId = (sessionId: string): string => sessionId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8) || "session"

/** Why a commit was made: a window's boundary, the session's end, a restore (and the save before it), or a tidy. */
export type CommitReason =
  | { readonly _tag: "Window"; readonly windowId: string; readonly ordinal: number }
  | { readonly _tag: "Shutdown"; readonly windowId: string; readonly ordinal: number }
  | { readonly _tag: "Restore"; readonly address: string; readonly from: string }
  | { readonly _tag: "Tidy"; readonly phase: "before" | "after" }
  /** The notes as they are, edits by hand included, committed before a restore rewrites them. */
  | { readonly _tag: "BeforeRestore"; readonly address: string }
  /** A protected note as it is, edits by hand included, committed before a change the user allowed. */
  | { readonly _tag: "BeforeChange"; readonly address: string }

/** Why a commit was made, as the trace says it: words, not the tag. */
export const commitReasonText = (reason: CommitReason): string => {
  switch (reason._tag) {
    case "Window":
      return `window w${reason.ordinal} ended`
    case "Shutdown":
      return `the session ended in w${reason.ordinal}`
    case "Restore":
      return `restore of ${reason.address}`
    case "Tidy":
      return `tidy, ${reason.phase}`
    case "BeforeRestore":
      return `before a restore of ${reason.address}`
    case "BeforeChange":
      return `before an allowed change to ${reason.address}`
  }
}

/**
 * The subject people read: `w3 of session 0123abcd: +2 ~1 −0`; a shutdown says so; a restore names the note and
 * the version. Nothing reads it back: `commitTrailers` keys the commit.
 */
export const commitMessage = (reason: CommitReason, sessionId: string, counts: ChangeCounts): string => {
  const session = `session ${shortSessionId(sessionId)}`
  const tally = `+${counts.added} ~${counts.modified} −${counts.deleted}`
  switch (reason._tag) {
    case "Window":
      return `w${reason.ordinal} of ${session}: ${tally}`
    case "Shutdown":
      return `w${reason.ordinal} of ${session} (shutdown): ${tally}`
    case "Restore":
      return `restore ${reason.address} to ${reason.from.slice(0, 12)} (${session})`
    case "Tidy":
      return `tidy ${reason.phase} (${session}): ${tally}`
    case "BeforeRestore":
      return `before restore of ${reason.address} (${session}): ${tally}`
    case "BeforeChange":
      return `before an allowed change to ${reason.address} (${session}): ${tally}`
  }
}

/** The trailers that key a commit to its session and window: the subject is for people and is never read back. */
export const SessionTrailer = "Pi-Context-Session"
export const WindowTrailer = "Pi-Context-Window"

/** A trailer's value on one line: a newline would end the trailer block early. */
const trailerValue = (value: string): string => value.replace(/\s+/g, " ").trim()

/** The commit's trailer block: the full session id, and the window id of a boundary or shutdown commit. */
export const commitTrailers = (reason: CommitReason, sessionId: string): string => {
  const session = `${SessionTrailer}: ${trailerValue(sessionId)}`
  return reason._tag === "Window" || reason._tag === "Shutdown" ? `${session}\n${WindowTrailer}: ${trailerValue(reason.windowId)}` : session
}

/** A commit as `/pi-context notes versions` shows it. */
export interface HistoryCommit {
  readonly hash: string
  readonly short: string
  /** ISO 8601 author date. */
  readonly date: string
  readonly author: string
  readonly subject: string
  /** Paths the commit touched inside the asked-for scope, with git's status letter. */
  readonly files: ReadonlyArray<{ readonly status: string; readonly path: string }>
  /** The commit's session and window trailers, when the log asked for them (`SessionLogFormat`) and the commit has them. */
  readonly session?: string | undefined
  readonly window?: string | undefined
}

/** The `--format` of the log this module parses: fields split by US, commits by RS. */
export const LogFormat = "%x1e%H%x1f%h%x1f%aI%x1f%an%x1f%s"

/** `LogFormat` and the values of the session and window trailers, as git parses the message's trailer block. */
export const SessionLogFormat = `${LogFormat}%x1f%(trailers:key=${SessionTrailer},valueonly,separator=%x1d)%x1f%(trailers:key=${WindowTrailer},valueonly,separator=%x1d)`

/** A trailer given once; a repeated or empty one names nothing. */
const onlyValue = (field: string | undefined): string | undefined => {
  const value = field?.trim()
  return value === undefined || value === "" || value.includes("\x1d") ? undefined : value
}

/** Parses `git log --format=<LogFormat or SessionLogFormat> --name-status --no-renames`. */
export const parseLog = (output: string): ReadonlyArray<HistoryCommit> =>
  output.split("\x1e").flatMap((record) => {
    const [head = "", ...rest] = record.split("\n")
    const [hash, short, date, author, subject, session, window] = head.split("\x1f")
    if (hash === undefined || short === undefined || date === undefined || author === undefined || subject === undefined) return []
    const files = rest.flatMap((line) => {
      const tab = line.indexOf("\t")
      return tab <= 0 ? [] : [{ status: line.slice(0, tab), path: line.slice(tab + 1) }]
    })
    const keys = { session: onlyValue(session), window: onlyValue(window) }
    return [{ hash, short, date, author, subject, files, ...(keys.session === undefined ? {} : { session: keys.session }), ...(keys.window === undefined ? {} : { window: keys.window }) }]
  })

/**
 * A commit a user may name: a hash or a simple revision (`HEAD~2`, a branch).
 * Anything that could be read as an option, or a range, is refused.
 */
export const isCommitRef = (raw: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._~^/@{}-]{0,99}$/.test(raw) && !raw.includes("..")

/** Where the notes root's homes sit inside the repository: `prefix` is the root's path from the top level. */
export interface HistoryLayout {
  readonly prefix: string
  readonly identity: NotesIdentity
}

/** Homes the notes-root repository holds: a project home kept inside the project is the project's own. */
export const historyHomes = (identity: NotesIdentity): ReadonlyArray<Home> =>
  Homes.filter((home) => !(home === "project" && identity.projectDir !== undefined))

const homeFolder = (layout: HistoryLayout, home: Home): string => `${layout.prefix}${homeSegments(layout.identity, home).join("/")}`

const wasteFolder = (layout: HistoryLayout, home: Home): string =>
  `${layout.prefix}${WastebasketFolder}/${homeSegments(layout.identity, home).join("/")}`

const escapeGlob = (path: string): string => path.replace(/[\\*?[\]]/g, (char) => `\\${char}`)

/** A folder's notes as a glob pathspec (a `[` in a user's folder name is taken literally). */
export const folderPathspec = (folder: string): string => `:(glob)${escapeGlob(folder)}/**/*.md`

/** The folder of a pathspec `folderPathspec` made; undefined for any other pathspec. */
export const pathspecFolder = (spec: string): string | undefined =>
  /^:\(glob\)(.+)\/\*\*\/\*\.md$/.exec(spec)?.[1]?.replace(/\\(.)/g, "$1")

/** Glob pathspecs covering the notes of `homes` and their wastebaskets (never locks or temp files). */
export const homePathspecs = (layout: HistoryLayout, homes: ReadonlyArray<Home>): ReadonlyArray<string> =>
  homes.flatMap((home) => [folderPathspec(homeFolder(layout, home)), folderPathspec(wasteFolder(layout, home))])

/** The two places a note can be in the repository: its home and its wastebasket. */
export const notePaths = (layout: HistoryLayout, home: Home, notePath: string): { readonly live: string; readonly retired: string } => ({
  live: `${homeFolder(layout, home)}/${notePath}`,
  retired: `${wasteFolder(layout, home)}/${notePath}`
})

/** The address a repository path belongs to (marked retired when in a wastebasket), or the path itself. */
export const describePath = (layout: HistoryLayout, path: string): string => {
  for (const home of historyHomes(layout.identity)) {
    const live = `${homeFolder(layout, home)}/`
    const waste = `${wasteFolder(layout, home)}/`
    if (path.startsWith(live)) return formatAddress({ home, path: path.slice(live.length) })
    if (path.startsWith(waste)) return `${formatAddress({ home, path: path.slice(waste.length) })} (wastebasket)`
  }
  return path
}

const statusWord: Readonly<Record<string, string>> = { A: "+", M: "~", D: "−", T: "~" }

/** Plain-text lines of a history listing, newest first. */
export const renderHistory = (layout: HistoryLayout, title: string, commits: ReadonlyArray<HistoryCommit>, limit: number): string => {
  if (commits.length === 0) return `${title}: no commits yet. Notes are committed at each window's boundary and when the session ends.`
  const lines = [`${title}, newest first:`]
  for (const commit of commits) {
    lines.push(`  ${commit.short}  ${commit.date.slice(0, 16).replace("T", " ")}  ${commit.subject}`)
    for (const file of commit.files.slice(0, 8)) lines.push(`      ${statusWord[file.status[0] ?? ""] ?? file.status} ${describePath(layout, file.path)}`)
    if (commit.files.length > 8) lines.push(`      … and ${commit.files.length - 8} more`)
  }
  if (commits.length >= limit) lines.push(`  (the ${limit} most recent; older commits: git log in the notes root)`)
  lines.push("Show one: /pi-context notes diff <commit> [address]; bring a version back: /pi-context notes restore <address> <commit>.")
  return lines.join("\n")
}
