import { adoptBranch, catchUp } from "../../src/domain/history/sync.ts"
import type { SessionIndex } from "../../src/domain/history/sessionIndex.ts"
import { type FakeSession, makeFakeSession } from "./FakePiSession.ts"

/** The shared fake session, with ids counted in the session and times a second apart, as the history tests read them. */
export const historySession = (sessionId = "0123456789abcdef", idPrefix = ""): FakeSession =>
  makeFakeSession({ sessionId, counted: { idPrefix } })

export type HistorySession = FakeSession

/** What the History layer does on every call, without Effect: catch up, and read the branch only when needed. */
export const syncIndex = (session: HistorySession, known?: SessionIndex): SessionIndex => {
  const { index, needsBranch } = catchUp(known, session.sessionId, session.entries, session.leafId)
  if (needsBranch) adoptBranch(index, session.branch(), session.leafId)
  return index
}
