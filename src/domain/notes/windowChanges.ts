import { type ChangeKind, type HistoryCommit, shortSessionId } from "./history.ts"

/**
 * Which notes each window of a session changed, read back from the notes
 * history: the commits pi-context makes at a window's boundary
 * (`w3 of session 0123abcd: +2 ~1 −0`) and at the session's end
 * (`w3 of session 0123abcd (shutdown): …`). Every other commit (the user's
 * own in a shared repository, another session's, a restore, a tidy) is
 * left out.
 */

/** One note a window changed, as the view names it. */
export interface WindowNoteChange {
  /** The note's address (or its repository path when it is no note of a home). */
  readonly address: string
  readonly kind: ChangeKind
}

/** What the history holds of one window: its net change per note, and the commits it came from. */
export interface WindowNoteChanges {
  readonly added: number
  readonly modified: number
  readonly deleted: number
  /** Oldest change first, one per note. */
  readonly notes: ReadonlyArray<WindowNoteChange>
  /** Short hashes of the window's commits, oldest first. */
  readonly commits: ReadonlyArray<string>
  /** A commit of the window is still queued or running: what it holds is not counted yet. */
  readonly pending?: boolean
  /** The window's commit waited: the repository was not on a branch (`in the middle of a merge`). */
  readonly waiting?: string
}

/** A window none of whose commits is in the history (yet). */
export const NoNoteChanges: WindowNoteChanges = { added: 0, modified: 0, deleted: 0, notes: [], commits: [] }

/** The note changes of the session's windows as committed, and the windows whose commit has not landed yet. */
export interface SessionNoteChanges {
  readonly byWindow: ReadonlyMap<number, WindowNoteChanges>
  readonly pending: ReadonlySet<number>
  /** Windows whose commit waited on the repository, with why (`in the middle of a merge`). */
  readonly waiting: ReadonlyMap<number, string>
}

const subjectPattern = /^w(\d+) of session ([A-Za-z0-9]+)( \(shutdown\))?: \+\d+ ~\d+ −\d+$/

/** The w-number a commit subject of this session names, or undefined for any other commit. */
export const windowOfSubject = (subject: string, sessionId: string): number | undefined => {
  const match = subjectPattern.exec(subject.trim())
  if (match === null || match[2] !== shortSessionId(sessionId)) return undefined
  const ordinal = Number(match[1])
  return Number.isSafeInteger(ordinal) && ordinal >= 1 ? ordinal : undefined
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
  if (earlier === "deleted") return later === "deleted" ? "deleted" : "modified"
  return later === "deleted" ? "deleted" : "modified"
}

/**
 * The note changes of each window of the session, by w-number, from the
 * history's commits (newest first, as `git log` lists them). A window with
 * several commits (a boundary and a shutdown, or a session resumed) counts
 * each note once, by its net change.
 */
export const windowNoteChanges = (
  commits: ReadonlyArray<HistoryCommit>,
  sessionId: string,
  describe: (path: string) => string = (path) => path
): ReadonlyMap<number, WindowNoteChanges> => {
  const building = new Map<number, { notes: Map<string, ChangeKind | undefined>; commits: Array<string> }>()
  for (const commit of [...commits].reverse()) {
    const ordinal = windowOfSubject(commit.subject, sessionId)
    if (ordinal === undefined) continue
    let window = building.get(ordinal)
    if (window === undefined) {
      window = { notes: new Map(), commits: [] }
      building.set(ordinal, window)
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
  const result = new Map<number, WindowNoteChanges>()
  for (const [ordinal, window] of building) {
    const notes = [...window.notes].flatMap(([address, kind]) => kind === undefined ? [] : [{ address, kind }])
    result.set(ordinal, {
      added: notes.filter((n) => n.kind === "added").length,
      modified: notes.filter((n) => n.kind === "modified").length,
      deleted: notes.filter((n) => n.kind === "deleted").length,
      notes,
      commits: window.commits
    })
  }
  return result
}

const kindMark: Readonly<Record<ChangeKind, string>> = { added: "+", modified: "~", deleted: "−" }

/** `+2 ~1 −0`, as the commit messages tally it. */
export const changeTally = (changes: WindowNoteChanges): string => `+${changes.added} ~${changes.modified} −${changes.deleted}`

/** `+plan.md`, `~@project/decisions.md`. */
export const markedAddress = (change: WindowNoteChange): string => `${kindMark[change.kind]}${change.address}`
