import type { RawEntry } from "../kernel/entries.ts"
import { type BranchView, emptyBranchView } from "./branchView.ts"
import { indexAfter } from "./seqOrder.ts"
import {
  type Document,
  draftsOfEntry,
  type EventDraft,
  type EventSink,
  type HistoryEvent,
  type HistoryRole,
  resultOutput,
  type ToolStatus,
  toolDocument,
  visitEvents
} from "./events.ts"

/**
 * The history index of one session. It only ever grows: `extendIndex` folds
 * the entries appended since the last call into it, so every seq is decided
 * once. Folding reads only the entries' shapes and keeps per seq what
 * filters read (role, status, the result that completed a call); an event
 * and its document are built from its entry when a call first reads it,
 * then kept, so the first call on a long session costs the entries' shapes,
 * not their texts. The branch view is the part that follows the leaf.
 *
 * It is mutable on purpose: the index of a 100,000-entry session is extended
 * by a handful of entries per tool call, and copying it would cost more than
 * the call. Its owner (the History layer) serialises access.
 */
export interface SessionIndex {
  readonly sessionId: string
  /** Per seq, at `seq - 1`: what role filters read without building the event. */
  readonly roles: Array<HistoryRole>
  /** Per seq, at `seq - 1`: its status (a call's is `unfinished` until its result completes it). */
  readonly statuses: Array<ToolStatus | undefined>
  /** Per seq, at `seq - 1`: for a call, the tool-result entry that completed it. */
  readonly completedBy: Array<RawEntry | undefined>
  /** The events read so far, by seq. */
  readonly built: Map<number, HistoryEvent>
  /** Every entry folded in, in append order (which is branch order along any branch). */
  readonly entryAt: Array<RawEntry>
  /**
   * `seqStarts[p]`: the first seq the entry at position `p` created; it
   * created the seqs up to `seqStarts[p + 1]` (none when they are equal).
   * Positions, not a map by id: the first call on a long session folds every
   * entry, and a map of 100,000 ids costs more than the rest of the fold.
   */
  readonly seqStarts: Array<number>
  /** Calls still waiting for their first result: their seqs, by tool-call id. */
  readonly pendingCalls: Map<string, number>
  /** Documents built so far: only the events calls read, each once (evidence that no call re-processes old entries). */
  documentBuilds: number
  branchRebuilds: number
  branch: BranchView
}

export const emptyIndex = (sessionId: string): SessionIndex => ({
  sessionId,
  roles: [],
  statuses: [],
  completedBy: [],
  built: new Map(),
  entryAt: [],
  seqStarts: [1],
  pendingCalls: new Map(),
  documentBuilds: 0,
  branchRebuilds: 0,
  branch: emptyBranchView()
})

/** Events in the index: seqs run from 1 to this. */
export const eventCount = (index: SessionIndex): number => index.roles.length

/**
 * Whether `entries` still starts with what the index has folded in. A session
 * that was reloaded or replaced under the same id fails this and is indexed
 * afresh rather than trusted.
 */
export const indexMatches = (index: SessionIndex, entries: ReadonlyArray<RawEntry>): boolean => {
  const folded = index.entryAt.length
  return entries.length >= folded && (folded === 0 || entries[folded - 1]?.id === index.entryAt[folded - 1]!.id)
}

/**
 * Folds entries into `index` one at a time, reading only their shapes: one
 * sink for the whole fold, so an entry allocates nothing but its slots.
 */
const folder = (index: SessionIndex) => {
  let entry: RawEntry | undefined
  const slot = (role: HistoryRole, status: ToolStatus | undefined): number => {
    index.roles.push(role)
    index.statuses.push(status)
    index.completedBy.push(undefined)
    return index.roles.length
  }
  const sink: EventSink = {
    plain: (role, _kind, status) => void slot(role, status),
    call: (callId) => {
      const seq = slot("tool", "unfinished")
      // A repeated call id keeps its first call waiting: "first later result" pairs with the earliest.
      if (!index.pendingCalls.has(callId)) index.pendingCalls.set(callId, seq)
    },
    result: (callId, _name, isError) => {
      const call = index.pendingCalls.get(callId)
      if (call === undefined) return void slot("tool", isError ? "error" : "ok")
      index.pendingCalls.delete(callId)
      index.statuses[call - 1] = isError ? "error" : "ok"
      index.completedBy[call - 1] = entry
      // Read before its result arrived, the call was built unfinished: it is built again when read.
      index.built.delete(call)
    }
  }
  return (next: RawEntry): void => {
    entry = next
    visitEvents(next, sink)
    index.entryAt.push(next)
    index.seqStarts.push(index.roles.length + 1)
  }
}

/** Folds the entries after those already in the index into it. The caller checked `indexMatches`. */
export const extendIndex = (index: SessionIndex, entries: ReadonlyArray<RawEntry>): void => {
  const fold = folder(index)
  for (let position = index.entryAt.length; position < entries.length; position++) fold(entries[position]!)
}

/** Builds an index over `entries` from nothing: the reference the incremental path must agree with. */
export const buildIndex = (sessionId: string, entries: ReadonlyArray<RawEntry>): SessionIndex => {
  const index = emptyIndex(sessionId)
  extendIndex(index, entries)
  return index
}

/** The event and its document, from the draft that created it (and, for a call, the result that completed it). */
const eventOf = (index: SessionIndex, seq: number, entry: RawEntry, draft: EventDraft): HistoryEvent => {
  const status = index.statuses[seq - 1]
  const made = (kind: string, document: Document): HistoryEvent => ({
    seq,
    role: index.roles[seq - 1]!,
    entryId: entry.id,
    timestamp: entry.timestamp,
    kind,
    status,
    head: document.head,
    body: document.body
  })
  switch (draft._tag) {
    case "Plain":
      return made(draft.kind, draft.document())
    case "Call": {
      const result = index.completedBy[seq - 1]
      return made(draft.name, toolDocument(draft.head(), status!, result === undefined ? undefined : resultOutput(result)))
    }
    case "Result":
      return made(draft.name, toolDocument(draft.name, status!, draft.output()))
  }
}

/** The event of `seq`, built on its first read and kept; undefined when there is none. */
export const eventAt = (index: SessionIndex, seq: number): HistoryEvent | undefined => {
  if (!Number.isInteger(seq) || seq < 1 || seq > index.roles.length) return undefined
  const known = index.built.get(seq)
  if (known !== undefined) return known
  const position = positionOf(index, seq)
  const entry = index.entryAt[position]!
  // An entry's events are its drafts in order: a result that completes a call is its entry's only draft and makes none.
  const event = eventOf(index, seq, entry, draftsOfEntry(entry)[seq - index.seqStarts[position]!]!)
  index.built.set(seq, event)
  index.documentBuilds++
  return event
}

/** The role of `seq`, without building its event. */
export const roleAt = (index: SessionIndex, seq: number): HistoryRole | undefined => index.roles[seq - 1]

/** The id of the entry that created `seq`'s event, without building it. */
export const entryIdAt = (index: SessionIndex, seq: number): string | undefined =>
  seq >= 1 && seq <= index.roles.length ? index.entryAt[positionOf(index, seq)]?.id : undefined

/** The append position of the entry that created `seq` (1 ≤ seq ≤ the event count): the last whose first seq is at most `seq`. */
const positionOf = (index: SessionIndex, seq: number): number => indexAfter(index.seqStarts, seq) - 1

/** The seqs the entry at `position` (append order) created, ascending. */
export const seqsAt = (index: SessionIndex, position: number): ReadonlyArray<number> => {
  const seqs: Array<number> = []
  for (let seq = index.seqStarts[position]!; seq < index.seqStarts[position + 1]!; seq++) seqs.push(seq)
  return seqs
}
