import type { HistoryEvent } from "../../src/history/events.ts"
import { eventAt, eventCount, type SessionIndex } from "../../src/history/sessionIndex.ts"
import { catchUp } from "../../src/history/sync.ts"
import { branchWindows } from "../../src/window/walk.ts"
import { type FakeSession, makeFakeSession } from "./FakePiSession.ts"

/** The shared fake session, with ids counted in the session and times a second apart, as the history tests read them. */
export const historySession = (sessionId = "0123456789abcdef", idPrefix = ""): FakeSession =>
  makeFakeSession({ sessionId, counted: { idPrefix } })

export type HistorySession = FakeSession

/** What the History layer does on every call, without Effect: catch up with the entries and the branch's windows. */
export const syncIndex = (session: HistorySession, known?: SessionIndex): SessionIndex =>
  catchUp(known, session.sessionId, session.entries, branchWindows(session.branch(), session.sessionId))

/** Every event of the index, oldest first (built, as a call reading them would). */
export const allEvents = (index: SessionIndex): Array<HistoryEvent> =>
  Array.from({ length: eventCount(index) }, (_, position) => eventAt(index, position + 1)!)
