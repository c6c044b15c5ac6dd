/**
 * What pi-context adds to each request, as the user is told it: the
 * definitions of its tools the model is offered, and the window's boot.
 * Counted as pi-context counts text everywhere, four characters a token;
 * bench/overhead.ts measures the same against Pi alone, part by part.
 */
import type { RawEntry } from "../kernel/entries.ts"
import { CustomType } from "../kernel/protocol.ts"
import { estimateTokens, formatTokens } from "../kernel/tokenCount.ts"

/** The boot a window's requests start from, as written into the session. */
export const windowBootText = (entries: ReadonlyArray<RawEntry>, windowId: string): string | undefined => {
  for (const entry of entries) {
    if (entry.type !== "custom_message" || entry.customType !== CustomType.boot) continue
    const details = entry.details as { windowId?: unknown } | undefined
    if (details?.windowId === windowId && typeof entry.content === "string") return entry.content
  }
  return undefined
}

export interface RequestOverhead {
  readonly tools: number
  readonly boot: number
  readonly total: number
}

export const requestOverhead = (input: { readonly toolsJson: string; readonly bootText: string | undefined }): RequestOverhead => {
  const tools = estimateTokens(input.toolsJson)
  const boot = input.bootText === undefined ? 0 : estimateTokens(input.bootText)
  return { tools, boot, total: tools + boot }
}

/** The status report's line. */
export const overheadLine = (overhead: RequestOverhead): string =>
  `adds about ${formatTokens(overhead.total)} tokens to each request of this window: its tools ${formatTokens(overhead.tools)}, the boot ${formatTokens(overhead.boot)}`
