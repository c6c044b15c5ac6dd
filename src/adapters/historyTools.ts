import { Type } from "typebox"
import { listLimit, readLimit, searchLimit } from "../domain/history/historyLimits.ts"
import { ToolName } from "../domain/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

// Loaded at Pi start-up: no Effect here, only words and parameter shapes.

const Role = Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("tool"), Type.Literal("context")])
const Roles = Type.Optional(Type.Array(Role, {
  description: "Only these roles. tool = a tool call with its result (or a !bash run); context = summaries and extension messages."
}))
const WindowFilter = Type.Optional(Type.String({ description: "Only this window (an id from history_windows)." }))
const Before = Type.Optional(Type.Integer({ minimum: 0, description: "Only events with a seq below this one (page older)." }))
const After = Type.Optional(Type.Integer({ minimum: 0, description: "Only events with a seq above this one (page newer, oldest first)." }))

export const historyToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.historyWindows,
    label: "History windows",
    description: "The context windows of this session's active branch, oldest first: id, creation time, first and last " +
      "event seq, event count. Everything from before a reset is still there; read it with history_list, " +
      "history_search and history_read.",
    promptSnippet: "history_windows: the windows of this session (each reset starts one), with their event seqs",
    parameters: Type.Object({})
  },
  {
    name: ToolName.historyList,
    label: "History list",
    description: "A page of past events (one line each, with its seq), oldest first. Without cursors it shows the newest " +
      "events; pass `before` to page older and `after` to page newer (the result gives both cursors). Runs of tool " +
      "events are folded into one row that names the history_list call that expands them.",
    promptSnippet: "history_list: page through past events of any window, newest page first",
    parameters: Type.Object({
      window_id: WindowFilter,
      roles: Roles,
      before: Before,
      after: After,
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: listLimit.max, description: `Rows per page (default ${listLimit.default}).` }))
    })
  },
  {
    name: ToolName.historySearch,
    label: "History search",
    description: "Find past events whose text (for tools: name, arguments, status and output) matches `query`, " +
      "case-insensitively: literal text, or a regular expression with `regex: true` (RE2 syntax, matched within a line: " +
      "no backreferences or lookaround). Newest first, or " +
      "oldest first after an `after` seq. Each hit previews the text from the match and gives the history_read call " +
      "(seq and offset) that reads on from there.",
    promptSnippet: "history_search: find words or a regex in anything said or done before, across resets",
    promptGuidelines: [
      "After a reset, use history_search and history_read to recover details your notes do not hold, instead of guessing."
    ],
    parameters: Type.Object({
      query: Type.String({ minLength: 1 }),
      regex: Type.Optional(Type.Boolean({ description: "Treat query as a regular expression." })),
      roles: Roles,
      window_id: WindowFilter,
      before: Before,
      after: After,
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: searchLimit.max, description: `Hits per page (default ${searchLimit.default}).` }))
    })
  },
  {
    name: ToolName.historyRead,
    label: "History read",
    description: "Read one past event in full, in pages of code points: a message's text, or a tool call's name, " +
      "arguments, status and output. The result gives the offset to continue from.",
    promptSnippet: "history_read: read one past event (by seq) in full, page by page",
    parameters: Type.Object({
      seq: Type.Integer({ minimum: 1, description: "The event's seq, from history_list or history_search." }),
      offset: Type.Optional(Type.Integer({ description: "Code point to start from (default 0; negative counts from the end)." })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: readLimit.max, description: `Code points to return (default ${readLimit.default}).` }))
    })
  }
]
