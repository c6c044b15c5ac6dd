import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { Text } from "@earendil-works/pi-tui"
import { CustomType } from "../kernel/protocol.ts"
import type { ResetShown } from "../kernel/resetData.ts"
import { dividerLines, resetChatLines } from "../window/resetShown.ts"
import { resetSourceOf } from "../kernel/facts.ts"

/** The marker's display facts, checked by hand: this file loads at Pi's start-up, before Effect. */
const shownOf = (value: unknown): ResetShown | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const v = value as Record<string, unknown>
  const numberOrNull = (x: unknown) => x === null || (typeof x === "number" && Number.isFinite(x))
  return typeof v.ordinal === "number" && numberOrNull(v.peakTokens) && numberOrNull(v.contextWindow) &&
      typeof v.notesIndexed === "number" && typeof v.checkpointed === "boolean"
    ? (v as unknown as ResetShown)
    : undefined
}

/**
 * How pi-context's durable entries look in Pi's TUI: a reset reads as a
 * divider in the chat that says what kind of reset it was, how full the window
 * got, the new window's w-number, the notes its boot indexes and whether the
 * model checkpointed. These entries never reach the model.
 */
export const registerRenderers = (pi: ExtensionAPI): void => {
  pi.registerEntryRenderer<{ source?: unknown; shown?: unknown }>(CustomType.resetMarker, (entry, { expanded }, theme) => {
    const source = resetSourceOf(typeof entry.data?.source === "string" ? entry.data.source : undefined)
    const { phrases, details } = resetChatLines({ source, shown: shownOf(entry.data?.shown) })
    const more = new Text(details.map((d) => theme.fg("dim", d)).join("\n"), 0, 0)
    // Laid out at the terminal's width: a narrow one breaks the divider between its phrases, never inside one.
    return {
      render: (width: number) => [...dividerLines(phrases, width).map((line) => theme.fg("accent", line)), ...(expanded ? more.render(width) : [])],
      invalidate: () => more.invalidate()
    }
  })
  pi.registerEntryRenderer<{ enabled?: unknown }>(CustomType.state, (entry, _options, theme) =>
    new Text(theme.fg("dim", entry.data?.enabled === false ? "pi-context turned off for this session" : "pi-context turned on"), 0, 0)
  )
}
