/**
 * The observation-masking baseline (`--arms masking`): Pi with its compaction
 * off and, in every request, the text of each tool result older than the last
 * `MaskAfterTurns` model turns replaced by a one-line placeholder. The
 * conversation itself (the user's messages, the model's replies and calls)
 * is kept whole. Lindenbauer et al., "The Complexity Trap" (JetBrains, 2025),
 * found this matches LLM summaries on SWE-bench Verified at about half the
 * cost, with the last 10 turns kept. Their windows were 128k and more: on the
 * eval's 32k window ten pages of a log alone overflow it, so the results kept
 * are also capped at the recent budget Pi's compaction keeps at the same
 * window (`keepRecentTokens`, a quarter of it), counted as Pi estimates tokens.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { compactionAt } from "../harness/settings.ts"

/** Tool results of the most recent turns are shown whole; older ones are masked. */
export const MaskAfterTurns = 10

/** Pi's estimate: four characters a token. */
const tokensOf = (message: Message): number => Math.ceil(textOf(message.content).length / 4)

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? (content as ReadonlyArray<Part>).map((part) => part.text ?? "").join("") : ""

interface Part {
  readonly type: string
  readonly text?: string
}

interface Message {
  readonly role: string
  readonly toolName?: string
  readonly content?: unknown
}

const placeholder = (message: Message): string => `[Old ${message.toolName ?? "tool"} result omitted to save context.]`

/**
 * The request with the old tool results masked: those before the last
 * `keepTurns` model turns, and those that would take the kept results past
 * `keepTokens`. Pure: the session keeps every result.
 */
export const maskOldResults = <M extends Message>(messages: ReadonlyArray<M>, keepTurns: number = MaskAfterTurns, keepTokens = Number.POSITIVE_INFINITY): Array<M> => {
  let turns = 0
  let kept = 0
  const masked = new Set<number>()
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role === "assistant") turns++
    if (message.role !== "toolResult") continue
    kept += tokensOf(message)
    if (turns >= keepTurns || kept > keepTokens) masked.add(index)
  }
  return messages.map((message, index) => {
    if (!masked.has(index)) return message
    const content: Array<Part> = [{ type: "text", text: placeholder(message) }]
    return { ...message, content }
  })
}

export default function masking(pi: ExtensionAPI): void {
  pi.on("context", (event, ctx) => {
    const window = ctx.model?.contextWindow
    const keepTokens = window === undefined || !(window > 0) ? Number.POSITIVE_INFINITY : compactionAt(window).keepRecentTokens
    return { messages: maskOldResults(event.messages as unknown as ReadonlyArray<Message>, MaskAfterTurns, keepTokens) as unknown as typeof event.messages }
  })
}
