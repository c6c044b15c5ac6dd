import { Type } from "typebox"
import { listLimit, readLimit, searchLimit } from "../history/historyLimits.ts"
import { ToolName } from "../kernel/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

// Loaded at Pi start-up: no Effect here, only words and parameter shapes.

const Role = Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("tool"), Type.Literal("context")])
const Roles = Type.Optional(Type.Array(Role, { description: "tool: a call with its result; context: summaries, extension messages" }))
const WindowFilter = Type.Optional(Type.String({ description: "a window id from history_windows" }))
const Before = Type.Optional(Type.Integer({ minimum: 0, description: "seq: page older" }))
const After = Type.Optional(Type.Integer({ minimum: 0, description: "seq: page newer" }))

export const historyToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.historyWindows,
    label: "History windows",
    description: "This session's context windows (each reset starts one), with their event seqs: all of it is still readable.",
    parameters: Type.Object({})
  },
  {
    name: ToolName.historyList,
    label: "History list",
    description: "A page of past events, one line each with its seq; the newest page unless before/after say.",
    parameters: Type.Object({
      window_id: WindowFilter,
      roles: Roles,
      before: Before,
      after: After,
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: listLimit.max }))
    })
  },
  {
    name: ToolName.historySearch,
    label: "History search",
    description: "Find anything said or done before a reset (tools: name, arguments, output), case-insensitive, newest first " +
      "(regex: true for RE2); each hit gives the history_read call that reads on.",
    parameters: Type.Object({
      query: Type.String({ minLength: 1 }),
      regex: Type.Optional(Type.Boolean()),
      roles: Roles,
      window_id: WindowFilter,
      before: Before,
      after: After,
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: searchLimit.max }))
    })
  },
  {
    name: ToolName.historyRead,
    label: "History read",
    description: "Read one past event in full, by seq, a page at a time; the result gives the offset to read on from (negative: from the end).",
    parameters: Type.Object({
      seq: Type.Integer({ minimum: 1 }),
      offset: Type.Optional(Type.Integer()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: readLimit.max }))
    })
  }
]
