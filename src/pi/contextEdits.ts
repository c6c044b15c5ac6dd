import { randomUUID } from "node:crypto"
import { appendFileSync } from "node:fs"

/**
 * Context edits appended many at a time. Pi's `appendContextEdit` checks its
 * target against the whole branch (`getBranch()`, a walk from the leaf) and
 * appends each edit to the session file with its own write, so hiding a
 * window of W messages on a branch of B entries costs W walks of B entries
 * and W writes: 2 s for 600 edits on 40,000 entries, where this costs a few
 * milliseconds whatever the branch (bench/resetEdits.ts).
 *
 * The targets come from the active branch (`stillInPiContext`), which is
 * what Pi's check verifies; each edit is the entry Pi would write (same
 * fields, an id of Pi's form unique in the session), and a batch is one
 * write to the file, made before the entries join Pi's memory, so that a
 * failed write leaves both as they were (as Pi's own append does).
 */

/** Pi's SessionManager as Pi 1.x holds its entries: read only after each field is checked. */
interface SessionStore {
  readonly fileEntries: Array<unknown>
  readonly byId: Map<string, unknown>
  leafId: string | null
  /** The file holds the session (Pi writes a session's file once it holds a conversation). */
  readonly flushed: boolean
  readonly isPersisted: () => boolean
  readonly getSessionFile: () => string | undefined
}

const storeOf = (manager: unknown): SessionStore | undefined => {
  const store = manager as Partial<SessionStore> | undefined
  if (store === undefined || store === null) return undefined
  if (!Array.isArray(store.fileEntries) || !(store.byId instanceof Map) || typeof store.flushed !== "boolean") return undefined
  if (!(store.leafId === null || typeof store.leafId === "string")) return undefined
  if (typeof store.isPersisted !== "function" || typeof store.getSessionFile !== "function") return undefined
  return store as SessionStore
}

/** An entry id of Pi's form (eight hex digits) that no entry of the session has. */
const freshId = (byId: ReadonlyMap<string, unknown>, batch: ReadonlySet<string>): string => {
  for (let i = 0; i < 100; i++) {
    const id = randomUUID().slice(0, 8)
    if (!byId.has(id) && !batch.has(id)) return id
  }
  return randomUUID()
}

/**
 * Appends one context edit hiding each of `targetIds` (entries of the active
 * branch), in one write; ids Pi does not hold are skipped. Answers false,
 * writing nothing, when the session manager is not shaped as this Pi's:
 * the caller then uses Pi's `appendContextEdit`.
 */
export const appendHidingEdits = (manager: unknown, targetIds: ReadonlyArray<string>, timestamp: string): boolean => {
  const store = storeOf(manager)
  if (store === undefined) return false
  const edits: Array<{ type: "context_edit"; id: string; parentId: string | null; timestamp: string; targetId: string; replacement: null }> = []
  const batch = new Set<string>()
  let parentId = store.leafId
  for (const targetId of targetIds) {
    if (!store.byId.has(targetId)) continue
    const id = freshId(store.byId, batch)
    batch.add(id)
    edits.push({ type: "context_edit", id, parentId, timestamp, targetId, replacement: null })
    parentId = id
  }
  if (edits.length === 0) return true
  const file = store.getSessionFile()
  // A session not yet written is written whole by Pi when its conversation starts, these edits with it.
  if (store.isPersisted() && store.flushed && file !== undefined) {
    appendFileSync(file, edits.map((edit) => `${JSON.stringify(edit)}\n`).join(""))
  }
  for (const edit of edits) {
    store.fileEntries.push(edit)
    store.byId.set(edit.id, edit)
  }
  store.leafId = parentId
  return true
}
