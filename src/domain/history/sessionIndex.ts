import type { RawEntry } from "../entries.ts"
import { type BranchView, emptyBranchView } from "./branchView.ts"
import { draftsOfEntry, type HistoryEvent, toolDocument } from "./events.ts"

interface PendingCall {
  readonly seq: number
  /** `name {args}`: the head its result completes. */
  readonly head: string
}

/**
 * The history index of one session. It only ever grows: `extendIndex` folds
 * the entries appended since the last call into it, so every seq is decided
 * once and each event's document is built once (a tool call's once more when
 * its result arrives). The branch view is the part that follows the leaf.
 *
 * It is mutable on purpose: the index of a 100,000-entry session is extended
 * by a handful of entries per tool call, and copying it would cost more than
 * the call. Its owner (the History layer) serialises access.
 */
export interface SessionIndex {
  readonly sessionId: string
  /** `events[seq - 1]`: seqs are dense and start at 1. */
  readonly events: Array<HistoryEvent>
  /** The seqs each entry created, for entries that created any. */
  readonly seqsByEntry: Map<string, ReadonlyArray<number>>
  /** Calls still waiting for their first result, by tool-call id. */
  readonly pendingCalls: Map<string, PendingCall>
  /** How many entries of the session (in append order) have been folded in. */
  entryCount: number
  lastEntryId: string | undefined
  /** Documents built so far: the measure that an extension does not re-process old entries. */
  documentBuilds: number
  branchRebuilds: number
  branch: BranchView
}

export const emptyIndex = (sessionId: string): SessionIndex => ({
  sessionId,
  events: [],
  seqsByEntry: new Map(),
  pendingCalls: new Map(),
  entryCount: 0,
  lastEntryId: undefined,
  documentBuilds: 0,
  branchRebuilds: 0,
  branch: emptyBranchView(sessionId)
})

/**
 * Whether `entries` still starts with what the index has folded in. A session
 * that was reloaded or replaced under the same id fails this and is indexed
 * afresh rather than trusted.
 */
export const indexMatches = (index: SessionIndex, entries: ReadonlyArray<RawEntry>): boolean =>
  entries.length >= index.entryCount &&
  (index.entryCount === 0 || entries[index.entryCount - 1]?.id === index.lastEntryId)

const push = (index: SessionIndex, entry: RawEntry, event: Omit<HistoryEvent, "seq" | "entryId" | "timestamp">): number => {
  const seq = index.events.length + 1
  index.events.push({ seq, entryId: entry.id, timestamp: entry.timestamp, ...event })
  index.documentBuilds++
  return seq
}

const foldEntry = (index: SessionIndex, entry: RawEntry): void => {
  const created: Array<number> = []
  for (const draft of draftsOfEntry(entry)) {
    switch (draft._tag) {
      case "Plain":
        created.push(push(index, entry, { role: draft.role, kind: draft.kind, status: draft.status, ...draft.document }))
        break
      case "Call": {
        const seq = push(index, entry, {
          role: "tool",
          kind: draft.name,
          status: "unfinished",
          ...toolDocument(draft.head, "unfinished", undefined)
        })
        // A repeated call id keeps its first call waiting: "first later result" pairs with the earliest.
        if (!index.pendingCalls.has(draft.callId)) index.pendingCalls.set(draft.callId, { seq, head: draft.head })
        created.push(seq)
        break
      }
      case "Result": {
        const pending = index.pendingCalls.get(draft.callId)
        const status = draft.isError ? "error" : "ok"
        if (pending === undefined) {
          created.push(push(index, entry, {
            role: "tool",
            kind: draft.name,
            status,
            ...toolDocument(draft.name, status, draft.output)
          }))
        } else {
          index.pendingCalls.delete(draft.callId)
          const event = index.events[pending.seq - 1]!
          event.status = status
          const document = toolDocument(pending.head, status, draft.output)
          event.head = document.head
          event.body = document.body
          index.documentBuilds++
        }
        break
      }
    }
  }
  if (created.length > 0) index.seqsByEntry.set(entry.id, created)
}

/** Folds `entries.slice(index.entryCount)` into the index. The caller checked `indexMatches`. */
export const extendIndex = (index: SessionIndex, entries: ReadonlyArray<RawEntry>): number => {
  const from = index.entryCount
  for (let position = from; position < entries.length; position++) foldEntry(index, entries[position]!)
  index.entryCount = entries.length
  index.lastEntryId = entries.length > 0 ? entries[entries.length - 1]!.id : undefined
  return entries.length - from
}

/** Builds an index over `entries` from nothing: the reference the incremental path must agree with. */
export const buildIndex = (sessionId: string, entries: ReadonlyArray<RawEntry>): SessionIndex => {
  const index = emptyIndex(sessionId)
  extendIndex(index, entries)
  return index
}

export const eventAt = (index: SessionIndex, seq: number): HistoryEvent | undefined =>
  Number.isInteger(seq) && seq >= 1 ? index.events[seq - 1] : undefined
