import type { RawEntry } from "../../src/domain/entries.ts"
import { CustomType } from "../../src/domain/protocol.ts"
import { adoptBranch, catchUp } from "../../src/domain/history/sync.ts"
import type { SessionIndex } from "../../src/domain/history/sessionIndex.ts"

export interface ToolCallSpec {
  readonly id: string
  readonly name: string
  readonly args?: Record<string, unknown>
}

/**
 * An in-memory Pi session tree for history tests: entries in append order,
 * a movable leaf, and the branch walked from the leaf the way Pi does.
 */
export const makeSession = (sessionId = "0123456789abcdef", idPrefix = "") => {
  const entries: Array<RawEntry> = []
  const byId = new Map<string, RawEntry>()
  let leaf: string | null = null
  let clock = Date.parse("2025-05-01T10:00:00.000Z")

  const append = (type: string, fields: Record<string, unknown>): string => {
    const id = `${idPrefix}${(entries.length + 1).toString(16).padStart(8 - idPrefix.length, "0")}`
    clock += 1000
    const entry: RawEntry = { type, id, parentId: leaf, timestamp: new Date(clock).toISOString(), ...fields }
    entries.push(entry)
    byId.set(id, entry)
    leaf = id
    return id
  }
  const message = (message: Record<string, unknown>) => append("message", { message: { timestamp: clock, ...message } })

  return {
    sessionId,
    entries,
    get leafId() {
      return leaf
    },
    moveTo: (id: string | null) => {
      leaf = id
    },
    branch: (): ReadonlyArray<RawEntry> => {
      const path: Array<RawEntry> = []
      for (let cursor = leaf; cursor !== null;) {
        const entry = byId.get(cursor)!
        path.push(entry)
        cursor = entry.parentId
      }
      return path.reverse()
    },
    user: (text: string) => message({ role: "user", content: text }),
    assistant: (text: string, calls: ReadonlyArray<ToolCallSpec> = []) =>
      message({
        role: "assistant",
        content: [
          ...(text === "" ? [] : [{ type: "text", text }]),
          ...calls.map((call) => ({ type: "toolCall", id: call.id, name: call.name, arguments: call.args ?? {} }))
        ],
        stopReason: calls.length > 0 ? "toolUse" : "stop"
      }),
    toolResult: (toolCallId: string, toolName: string, output: string, isError = false) =>
      message({ role: "toolResult", toolCallId, toolName, content: [{ type: "text", text: output }], isError }),
    bash: (command: string, output: string, exitCode: number | undefined) =>
      message({ role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false }),
    marker: (windowId: string) => append("custom", { customType: CustomType.resetMarker, data: { windowId } }),
    boot: (windowId: string, text: string) =>
      append("custom_message", { customType: CustomType.boot, content: text, display: false, details: { windowId } }),
    modelChange: () => append("model_change", { provider: "faux", modelId: "m" }),
    compaction: (summary: string) => append("compaction", { summary, firstKeptEntryId: "00000001", tokensBefore: 10 })
  }
}

export type TestSession = ReturnType<typeof makeSession>

/** What the History layer does on every call, without Effect: catch up, and read the branch only when needed. */
export const syncIndex = (session: TestSession, known?: SessionIndex): SessionIndex => {
  const { index, needsBranch } = catchUp(known, session.sessionId, session.entries, session.leafId)
  if (needsBranch) adoptBranch(index, session.branch(), session.leafId)
  return index
}
