import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { Text } from "@earendil-works/pi-tui"
import { CustomType } from "../domain/protocol.ts"

/**
 * How pi-context's durable entries look in Pi's TUI: a reset reads as a
 * divider in the chat, so the user sees where the model's memory starts over.
 * These entries never reach the model.
 */
export const registerRenderers = (pi: ExtensionAPI): void => {
  pi.registerEntryRenderer<{ windowId?: unknown }>(CustomType.resetMarker, (entry, { expanded }, theme) => {
    const windowId = typeof entry.data?.windowId === "string" ? entry.data.windowId : "unknown window"
    const line = theme.fg("dim", `── context reset · window ${windowId} starts from the notes ──`)
    return new Text(
      expanded ? `${line}\n${theme.fg("dim", "The model's earlier conversation stays in this session; it can read it back with the history tools.")}` : line,
      0,
      0
    )
  })
  pi.registerEntryRenderer<{ enabled?: unknown }>(CustomType.state, (entry, _options, theme) =>
    new Text(theme.fg("dim", entry.data?.enabled === false ? "pi-context turned off for this session" : "pi-context turned on"), 0, 0)
  )
}
