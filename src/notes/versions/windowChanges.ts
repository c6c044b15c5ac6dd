import { Option } from "effect"
import { countChanges, type HistoryCommit, shortSessionId } from "./versions.ts"
import type { ChangeKind, WindowFacts, WindowNoteChanges } from "../../kernel/facts.ts"

/**
 * Which notes each window of a session changed, read back from the notes
 * history: the commits pi-context makes at a window's boundary and at the
 * session's end, found by their `Pi-Context-Session` and `Pi-Context-Window`
 * trailers. Every other commit (the user's own in a shared repository,
 * another session's, a restore, a tidy) is left out.
 */

/** A window none of whose commits is in the history (yet). */
export const NoNoteChanges: WindowNoteChanges = { added: 0, modified: 0, deleted: 0, notes: [], commits: [] }

/** The note changes of the session's windows as committed, and the windows (by id) whose commit has not landed yet. */
export interface SessionNoteChanges {
  readonly byWindow: SessionWindowChanges
  readonly pending: ReadonlySet<string>
  /** Windows whose commit waited on the repository, with why (`in the middle of a merge`). */
  readonly waiting: ReadonlyMap<string, string>
}

const legacySubjectPattern = /^w(\d+) of session ([A-Za-z0-9]+)( \(shutdown\))?: \+\d+ ~\d+ −\d+$/

/**
 * The w-number an older commit's subject names for this session (and whether it was a shutdown commit), or
 * undefined for any other subject. Only for commits made before the trailers: a subject is never read otherwise.
 */
export const legacyWindowOfSubject = (subject: string, sessionId: string): { readonly ordinal: number; readonly shutdown: boolean } | undefined => {
  const match = legacySubjectPattern.exec(subject.trim())
  if (match === null || match[2] !== shortSessionId(sessionId)) return undefined
  const ordinal = Number(match[1])
  return Number.isSafeInteger(ordinal) && ordinal >= 1 ? { ordinal, shutdown: match[3] !== undefined } : undefined
}

const kindOfStatus = (status: string): ChangeKind | undefined => {
  switch (status[0]) {
    case "A":
      return "added"
    case "D":
      return "deleted"
    case "M":
    case "T":
      return "modified"
    default:
      return undefined
  }
}

/** Two changes of one note in one window as one: added then changed is added, added then deleted is nothing. */
const combine = (earlier: ChangeKind, later: ChangeKind): ChangeKind | undefined => {
  if (earlier === "added") return later === "deleted" ? undefined : "added"
  return later === "deleted" ? "deleted" : "modified"
}

/** The note changes of a session's windows: by window id from the commits' trailers, by w-number from older commits. */
export interface SessionWindowChanges {
  readonly byWindowId: ReadonlyMap<string, WindowNoteChanges>
  /** Commits made before the trailers, only those that name their window unambiguously (see `windowNoteChanges`). */
  readonly legacyByOrdinal: ReadonlyMap<number, WindowNoteChanges>
}

type Building = { readonly notes: Map<string, ChangeKind | undefined>; readonly commits: Array<string> }

/** Adds a commit's files to its window, oldest commit first. */
const addCommit = <K>(building: Map<K, Building>, key: K, commit: HistoryCommit, describe: (path: string) => string) => {
  let window = building.get(key)
  if (window === undefined) {
    window = { notes: new Map(), commits: [] }
    building.set(key, window)
  }
  window.commits.push(commit.short)
  for (const file of commit.files) {
    const kind = kindOfStatus(file.status)
    if (kind === undefined) continue
    const address = describe(file.path)
    const earlier = window.notes.get(address)
    window.notes.set(address, window.notes.has(address) && earlier !== undefined ? combine(earlier, kind) : kind)
  }
}

const finish = <K>(building: ReadonlyMap<K, Building>): ReadonlyMap<K, WindowNoteChanges> =>
  new Map([...building].map(([key, window]) => {
    const notes = [...window.notes].flatMap(([address, kind]) => kind === undefined ? [] : [{ address, kind }])
    return [key, { ...countChanges(notes), notes, commits: window.commits }]
  }))

/**
 * The note changes of each window of the session, from the history's commits
 * (newest first, as `git log` lists them). A commit belongs to a window by its
 * trailers: this session's full id and the window's id. A window with several
 * commits (a boundary and a shutdown, or a session resumed) counts each note
 * once, by its net change.
 *
 * Commits without trailers (made by earlier versions) name only the first 8
 * characters of the session id, shared by the sessions created in the same
 * minute, and a w-number, shared by the windows of tree branches. They are read
 * by w-number only when nothing shows the name is shared; they are all left out
 * when a commit with trailers names another session with the same 8
 * characters, and a w-number is left out when more than one boundary commit
 * names it (two windows ended under that name: tree branches, or another
 * session). A shutdown commit may repeat (a session resumed in its window).
 */
export const windowNoteChanges = (
  commits: ReadonlyArray<HistoryCommit>,
  sessionId: string,
  describe: (path: string) => string = (path) => path
): SessionWindowChanges => {
  const byWindowId = new Map<string, Building>()
  const legacy = new Map<number, Building>()
  const legacyBoundaries = new Map<number, number>()
  const short = shortSessionId(sessionId)
  let prefixShared = false
  for (const commit of [...commits].reverse()) {
    if (commit.session !== undefined) {
      if (commit.session !== sessionId) prefixShared ||= shortSessionId(commit.session) === short
      else if (commit.window !== undefined) addCommit(byWindowId, commit.window, commit, describe)
      continue
    }
    const named = legacyWindowOfSubject(commit.subject, sessionId)
    if (named === undefined) continue
    if (!named.shutdown) legacyBoundaries.set(named.ordinal, (legacyBoundaries.get(named.ordinal) ?? 0) + 1)
    addCommit(legacy, named.ordinal, commit, describe)
  }
  if (prefixShared) legacy.clear()
  for (const [ordinal, count] of legacyBoundaries) if (count > 1) legacy.delete(ordinal)
  return { byWindowId: finish(byWindowId), legacyByOrdinal: finish(legacy) }
}

/** What the history holds of `window`: its own commits, else the older ones of its w-number; undefined when none. */
export const noteChangesOf = (
  changes: SessionWindowChanges,
  window: { readonly id: string; readonly ordinal: number }
): WindowNoteChanges | undefined => changes.byWindowId.get(window.id) ?? changes.legacyByOrdinal.get(window.ordinal)

/**
 * Every window's facts with the note changes its history commits hold, by
 * window id, and whether its commit is still in flight or waiting on the
 * repository; the facts unchanged when there is no history to read.
 */
export const withNoteChanges = (windows: ReadonlyArray<WindowFacts>, changes: Option.Option<SessionNoteChanges>): ReadonlyArray<WindowFacts> => {
  if (Option.isNone(changes)) return windows
  const { byWindow, pending, waiting } = changes.value
  return windows.map((facts): WindowFacts => ({
    ...facts,
    noteChanges: { ...(noteChangesOf(byWindow, facts) ?? NoNoteChanges), pending: pending.has(facts.id), waiting: waiting.get(facts.id) }
  }))
}
