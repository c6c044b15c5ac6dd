/**
 * What pi-context adds to each request, as the user is told it: the
 * definitions of its tools the model is offered, and the window's boot.
 * Counted as pi-context counts text everywhere, four characters a token;
 * bench/overhead.ts measures the same against Pi alone, part by part.
 */
import { estimateTokens, formatTokens } from "../kernel/tokenCount.ts"

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
