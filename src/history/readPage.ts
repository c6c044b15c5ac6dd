import { Result } from "effect"
import { type TextWindow, textWindow } from "../kernel/textWindow.ts"
import { isOnBranch, windowOf } from "./branchView.ts"
import { documentText, type HistoryEvent } from "./events.ts"
import { readLimit } from "./historyLimits.ts"
import { pageLimit } from "../kernel/params.ts"
import { eventLabel } from "./rows.ts"
import { ToolResultByteLimit } from "../kernel/protocol.ts"
import { EventNotFound, NotOnBranch } from "./issues.ts"
import { eventAt, eventCount, type SessionIndex } from "./sessionIndex.ts"

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

/** Bytes a read page's text may take: the bound, less its frame (label, a window id shown in at most 480 bytes, span, continuation). */
const readTextBytes = (event: HistoryEvent): number => ToolResultByteLimit - 1024 - new TextEncoder().encode(eventLabel(event)).length

export const readPage = (index: SessionIndex, query: ReadQuery): Result.Result<ReadPage, EventNotFound | NotOnBranch> => {
  const event = eventAt(index, query.seq)
  if (event === undefined) return Result.fail(new EventNotFound({ seq: query.seq, lastSeq: eventCount(index) }))
  if (!isOnBranch(index.branch, event.seq)) return Result.fail(new NotOnBranch({ seq: event.seq }))
  return Result.succeed({
    event,
    windowId: windowOf(index.branch, event.seq)?.id ?? "",
    // The page is cut here, in bytes, where its continuation offset can say so, never by the tool bound after it.
    page: textWindow(documentText(event), query.offset ?? 0, pageLimit(query.limit, readLimit), readTextBytes(event))
  })
}
