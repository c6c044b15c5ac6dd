import { Option } from "effect"
import type { WindowFacts } from "../../kernel/facts.ts"
import { NoNoteChanges, noteChangesOf, type SessionNoteChanges } from "./windowChanges.ts"

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
