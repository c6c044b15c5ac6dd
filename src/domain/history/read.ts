import { Result } from "effect"
import { type TextWindow, textWindow } from "../textWindow.ts"
import { isOnBranch, windowOf } from "./branchView.ts"
import { documentText, type HistoryEvent } from "./events.ts"
import { readLimit } from "./limits.ts"
import { EventNotFound, NotOnBranch } from "./issues.ts"
import { eventAt, type SessionIndex } from "./sessionIndex.ts"

export interface ReadQuery {
  readonly seq: number
  readonly offset?: number | undefined
  readonly limit?: number | undefined
}

export interface ReadPage {
  readonly event: HistoryEvent
  readonly windowId: string
  readonly page: TextWindow
}

export const clampReadLimit = (limit: number | undefined): number =>
  Math.max(1, Math.min(readLimit.max, limit ?? readLimit.default))

export const readPage = (index: SessionIndex, query: ReadQuery): Result.Result<ReadPage, EventNotFound | NotOnBranch> => {
  const event = eventAt(index, query.seq)
  if (event === undefined) return Result.fail(new EventNotFound({ seq: query.seq, lastSeq: index.events.length }))
  if (!isOnBranch(index.branch, event.seq)) return Result.fail(new NotOnBranch({ seq: event.seq }))
  return Result.succeed({
    event,
    windowId: windowOf(index.branch, event.seq)?.id ?? "",
    page: textWindow(documentText(event), query.offset ?? 0, clampReadLimit(query.limit))
  })
}
