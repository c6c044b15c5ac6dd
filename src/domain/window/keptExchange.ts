import type { RawEntry } from "../entries.ts"
import { entryTokens } from "./contextMessages.ts"

/**
 * The most a reset's compaction keeps of the ending window, in Pi's estimated
 * tokens. When Pi appends a compaction during a run, its TUI rebuilds the chat
 * from that compaction's kept entries: what it keeps is what the user still
 * sees of the window that just ended. Pi's own context counts the kept entries
 * too (pi-context's request drops them: a window starts at its boot), and Pi
 * checks its compaction threshold on that context before the new window's
 * first reply, so the slice stays small next to any window.
 */
export const KeptExchangeTokens = 2_000

/** The slice for a window of `contextWindow` tokens: at most a twentieth of it. */
export const keptExchangeBudget = (contextWindow: number | null): number =>
  contextWindow === null || !(contextWindow > 0) ? KeptExchangeTokens : Math.min(KeptExchangeTokens, Math.floor(contextWindow / 20))

const roleOf = (entry: RawEntry): string | undefined =>
  entry.type === "message" && typeof entry.message === "object" && entry.message !== null
    ? String((entry.message as { role?: unknown }).role)
    : undefined

/** Where a turn can start: the user's message, a reply, or the user's own `!` command. */
const startsTurn = (role: string | undefined): boolean => role === "user" || role === "assistant" || role === "bashExecution"

/**
 * The entry the ending window's last exchange starts at: its last user
 * message, or, when the exchange is larger than `budget`, the earliest turn
 * whose rest fits. Null when not even the last reply fits (or the window has
 * none): the compaction then keeps nothing.
 */
export const lastExchangeStart = (window: ReadonlyArray<RawEntry>, budget: number): string | null => {
  let tokens = 0
  let start: string | null = null
  for (let i = window.length - 1; i >= 0; i--) {
    const entry = window[i]!
    tokens += entryTokens(entry)
    if (tokens > budget) break
    const role = roleOf(entry)
    if (startsTurn(role)) start = entry.id
    if (role === "user") break
  }
  return start
}
