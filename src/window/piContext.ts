import type { RawEntry } from "../kernel/entries.ts"

/**
 * What Pi's own context still holds of a branch, so that a reset can hide it.
 *
 * pi-context's requests start at a window's boot whatever Pi holds. Pi keeps
 * its own view of the context, though: from it come the footer's figure, the
 * compaction threshold Pi checks before the new window's first reply, and
 * what its TUI redraws. A reset hides every entry of Pi's view with a
 * context edit (Pi's own append-only way to leave an entry out of the
 * context): Pi then counts the new window from its boot, and since nothing
 * is compacted, its chat keeps the whole conversation above the divider.
 */

/** Message roles Pi lets a context edit hide; its `appendContextEdit` refuses any other target. */
const editableRoles: ReadonlySet<string> = new Set(["user", "assistant", "toolResult"])

const roleOf = (entry: RawEntry): unknown =>
  typeof entry.message === "object" && entry.message !== null ? (entry.message as { role?: unknown }).role : undefined

/** Whether Pi accepts a context edit of `entry`: a custom message, or a user, assistant or tool-result message. */
export const piEditable = (entry: RawEntry): boolean =>
  entry.type === "custom_message" || (entry.type === "message" && editableRoles.has(String(roleOf(entry))))

/**
 * The part of `branch` Pi builds its context from: after its latest
 * compaction, or from that compaction's kept entry when the branch holds it
 * (the compaction itself included, as Pi leads with it).
 */
export const piView = (branch: ReadonlyArray<RawEntry>): ReadonlyArray<RawEntry> => branch.slice(piViewStart(branch))

const piViewStart = (branch: ReadonlyArray<RawEntry>): number => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry.type !== "compaction") continue
    const kept = entry.firstKeptEntryId
    const keptAt = typeof kept === "string" ? branch.findIndex((e) => e.id === kept) : -1
    return keptAt >= 0 && keptAt < i ? keptAt : i
  }
  return 0
}

/**
 * The ids of the entries Pi's context still holds on `branch` and lets a
 * context edit hide, oldest first: those of its view that no edit has hidden
 * yet (a later edit replaces an earlier one, so only the last edit of each
 * entry counts). What is left is what Pi refuses to edit: its system prompt
 * (sent in every request anyway), a `/tree` summary, and the output of the
 * user's `!` commands, which can be large. pi-context never sends the ended
 * window's, but Pi counts them until the new window's first reply.
 */
export const stillInPiContext = (branch: ReadonlyArray<RawEntry>): ReadonlyArray<string> => {
  const view = piView(branch)
  const lastEdit = new Map<unknown, unknown>()
  for (const entry of view) if (entry.type === "context_edit") lastEdit.set(entry.targetId, entry.replacement)
  return view.filter((entry) => piEditable(entry) && !(lastEdit.has(entry.id) && lastEdit.get(entry.id) === null)).map((entry) => entry.id)
}
