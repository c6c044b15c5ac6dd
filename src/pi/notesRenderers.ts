import type { AgentToolResult, Theme, ToolDefinition, ToolRenderResultOptions } from "@earendil-works/pi-coding-agent"
import { Text } from "@earendil-works/pi-tui"
import { notesCallView, notesResultView } from "../notes/callView.ts"

/** Pi does not export its render context type; its fields this file reads. */
type RenderContext = Parameters<NonNullable<ToolDefinition["renderCall"]>>[2]

const resultText = (result: AgentToolResult<unknown>): string =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("")

/** The notes tools in Pi's TUI: address, size and first line of the call; the full text on expand. */
export const notesRenderers = (toolName: string) => ({
  renderCall: (args: unknown, theme: Theme, context: RenderContext) => {
    const view = notesCallView(toolName, args)
    const summary = theme.fg("toolTitle", view.summary)
    return new Text(context.expanded && view.body !== undefined ? `${summary}\n${theme.fg("toolOutput", view.body)}` : summary, 0, 0)
  },
  renderResult: (result: AgentToolResult<unknown>, options: ToolRenderResultOptions, theme: Theme, context: RenderContext) =>
    new Text(theme.fg(context.isError ? "error" : "toolOutput", notesResultView(resultText(result), options.expanded)), 0, 0)
})
