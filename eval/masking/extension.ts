/**
 * The observation-masking baselines: in every request, the text of each tool
 * result older than the last `keepTurns` model turns replaced by a one-line
 * placeholder; the conversation itself (the user's messages, the model's
 * replies and calls) is kept whole. Lindenbauer et al., "The Complexity Trap"
 * (JetBrains, 2025), found this matches LLM summaries on SWE-bench Verified at
 * about half the cost, with the last 10 turns kept. Their windows were 128k and
 * more: on the eval's 32k window ten pages of a log alone overflow it, so the
 * results kept are also capped at the recent budget Pi's compaction keeps at
 * the same window (`keepRecentTokens`), counted as Pi estimates tokens.
 *
 * The boundary moves in steps of `step` turns, so that between two steps each
 * request extends the one before and a prefix cache reads it whole (a boundary
 * that moves every turn rewrites the middle of every prompt).
 *
 * `--arms masking` runs it with Pi's compaction off: a window that still fills
 * overflows. `--arms hybrid` runs it with Pi's compaction on, as the fallback
 * when the masked window still fills. The setting comes from the run's
 * settings file (`masking`), which the eval writes.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { getAgentDir, type ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { compactionAt, defaultMask, type MaskSetting } from "../harness/settings.ts"

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
 * The messages the mask may touch: those before the model turn after the last
 * step point (a whole multiple of `step` turns). Later ones are always shown.
 */
const steppedEnd = (messages: ReadonlyArray<Message>, step: number): number => {
  const turns = messages.filter((message) => message.role === "assistant").length
  const stepPoint = Math.floor(turns / step) * step
  let seen = 0
  for (let index = 0; index < messages.length; index++) {
    if (messages[index]!.role !== "assistant") continue
    if (seen === stepPoint) return index
    seen++
  }
  return messages.length
}

/**
 * The request with the old tool results masked: those before the last
 * `keepTurns` model turns, and those that would take the kept results past
 * `keepTokens`, both counted at the last step point of `step` turns. Pure:
 * the session keeps every result.
 */
export const maskOldResults = <M extends Message>(
  messages: ReadonlyArray<M>,
  keepTurns: number = defaultMask.keepTurns,
  keepTokens = Number.POSITIVE_INFINITY,
  step = 1
): Array<M> => {
  const end = steppedEnd(messages, Math.max(1, step))
  let turns = 0
  let kept = 0
  const masked = new Set<number>()
  for (let index = end - 1; index >= 0; index--) {
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

/** The run's mask setting, from the settings file the eval wrote; the defaults when it names none. */
export const maskSettingIn = (settingsFile: string): MaskSetting => {
  try {
    const given = (JSON.parse(readFileSync(settingsFile, "utf8")) as { masking?: Partial<MaskSetting> }).masking
    return { keepTurns: given?.keepTurns ?? defaultMask.keepTurns, step: given?.step ?? defaultMask.step }
  } catch {
    return defaultMask
  }
}

export default function masking(pi: ExtensionAPI): void {
  const setting = maskSettingIn(join(getAgentDir(), "settings.json"))
  pi.on("context", (event, ctx) => {
    const window = ctx.model?.contextWindow
    const keepTokens = window === undefined || !(window > 0) ? Number.POSITIVE_INFINITY : compactionAt(window).keepRecentTokens
    return { messages: maskOldResults(event.messages as unknown as ReadonlyArray<Message>, setting.keepTurns, keepTokens, setting.step) as unknown as typeof event.messages }
  })
}
