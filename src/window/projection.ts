import { bodyText, type BranchEntry } from "../kernel/entries.ts"
import { CustomType } from "../kernel/protocol.ts"
import { ownBootFromEnd } from "./tail.ts"

/** The fields of a Pi agent message that the projection reads. */
export interface ProjectableMessage {
  readonly role: string
  readonly customType?: unknown
  readonly details?: unknown
}

export type Projection<M> =
  /** Send the request as Pi built it. */
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Projected"; readonly messages: ReadonlyArray<M> }
  /** A reset window without its boot: send only the system prompt and stop. */
  | { readonly _tag: "MissingBoot"; readonly safeHead: ReadonlyArray<M> }

const bootWindowId = (message: ProjectableMessage): string | undefined => {
  if (message.role !== "custom" || message.customType !== CustomType.boot) return undefined
  const details = message.details
  if (typeof details !== "object" || details === null) return undefined
  const windowId = (details as { windowId?: unknown }).windowId
  return typeof windowId === "string" && windowId.length > 0 ? windowId : undefined
}

const isBoot = (message: ProjectableMessage): boolean => message.role === "custom" && message.customType === CustomType.boot

/** The window a request is projected for (Window.current): its id, and for a reset window its classified tail from the marker. */
export interface ProjectionWindow {
  readonly id: string
  readonly isRoot: boolean
  readonly tail: ReadonlyArray<BranchEntry>
}

/**
 * The provider request for the active window. A reset window starts at its
 * own boot: the one right after its marker on the branch (`ownBootFromEnd`),
 * never an earlier boot that carries the same id (a forged or duplicated
 * marker reuses ids), and never any boot when its tail was refused. A request
 * ends where the branch ends, so that boot is found by counting the window's
 * boots back from the end of the request. Of what came before it only the
 * newest system prompt survives. The root window keeps its history but only
 * its own boot: a boot copied from a parent session by a fork is replaced by
 * this session's.
 */
export const projectRequest = <M extends ProjectableMessage>(
  messages: ReadonlyArray<M>,
  window: ProjectionWindow
): Projection<M> => {
  const cut = window.isRoot ? projectRoot(messages, window.id) : projectReset(messages, window)
  if (cut._tag === "MissingBoot") return cut
  const placed = placeReminders(cut._tag === "Projected" ? cut.messages : messages)
  return placed === undefined ? cut : { _tag: "Projected", messages: placed }
}

const isReminder = (message: ProjectableMessage): boolean =>
  message.role === "custom" && (message.customType === CustomType.guidance || message.customType === CustomType.warning)

/** What Pi can append between a turn's reply and the reminder its `turn_end` commits: tool results, other drafts. */
const sameTurnEnd = (message: ProjectableMessage): boolean =>
  message.role === "toolResult" || (message.role === "custom" && !isReminder(message))

/**
 * Each committed reminder back where the model read it: before the reply of
 * the turn whose request carried it. Pi commits it at that turn's end, after
 * the reply and its tool results, but the request that carried it ended with
 * it; in that place every later request extends the one before byte for byte
 * (the provider's prefix cache holds), and the model sees what it replied to.
 * Undefined when nothing moves.
 */
const placeReminders = <M extends ProjectableMessage>(messages: ReadonlyArray<M>): ReadonlyArray<M> | undefined => {
  let placed: Array<M> | undefined
  for (let i = 0; i < messages.length; i++) {
    if (!isReminder(messages[i]!)) continue
    const list: ReadonlyArray<M> = placed ?? messages
    let reply = i - 1
    while (reply >= 0 && sameTurnEnd(list[reply]!)) reply--
    if (reply < 0 || list[reply]!.role !== "assistant") continue
    placed ??= [...messages]
    const [reminder] = placed.splice(i, 1)
    placed.splice(reply, 0, reminder!)
  }
  return placed
}

const projectReset = <M extends ProjectableMessage>(messages: ReadonlyArray<M>, window: ProjectionWindow): Projection<M> => {
  const fromEnd = ownBootFromEnd(window.tail)
  let bootIndex = -1
  if (fromEnd !== undefined) {
    let seen = 0
    for (let i = messages.length - 1; i >= 0; i--) {
      if (bootWindowId(messages[i]!) === window.id && ++seen === fromEnd) {
        bootIndex = i
        break
      }
    }
  }
  // Pi's system messages before the boot are one prompt and tool set, each patching the last: they lead the request as one.
  const systems = messages.slice(0, bootIndex === -1 ? messages.length : bootIndex).filter((message) => message.role === "system")
  const system = systems.length <= 1 ? systems[0] : (currentSystemMessage(systems) as M)
  const head = system === undefined ? [] : [system]
  if (bootIndex === -1) return { _tag: "MissingBoot", safeHead: head }
  if (bootIndex === 0 || (bootIndex === 1 && system === messages[0])) return { _tag: "Unchanged" }
  return { _tag: "Projected", messages: [...head, ...messages.slice(bootIndex)] }
}

const projectRoot = <M extends ProjectableMessage>(messages: ReadonlyArray<M>, rootId: string): Projection<M> => {
  let firstBoot = -1
  let latestOwn: M | undefined
  let boots = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (!isBoot(message)) continue
    boots++
    if (firstBoot === -1) firstBoot = i
    if (bootWindowId(message) === rootId) latestOwn = message
  }
  if (boots === 0) return { _tag: "Unchanged" }
  if (boots === 1 && latestOwn !== undefined && messages[firstBoot] === latestOwn) return { _tag: "Unchanged" }
  const kept: Array<M> = []
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (i === firstBoot && latestOwn !== undefined) kept.push(latestOwn)
    if (!isBoot(message)) kept.push(message)
  }
  return { _tag: "Projected", messages: kept }
}

/** The usage fields Pi records on an assistant reply. */
interface ReplyUsage {
  readonly totalTokens?: number
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
}

/** Pi's chars-per-token heuristic, and its guess for one image. */
const charsPerToken = 4
const imageChars = 4_800

const contentChars = (content: unknown): number => {
  if (typeof content === "string") return content.length
  if (!Array.isArray(content)) return 0
  let chars = 0
  for (const block of content as ReadonlyArray<{ readonly type?: unknown; readonly text?: unknown } | null>) {
    // Another extension's entry may hold anything here; it counts as nothing rather than throwing.
    if (typeof block !== "object" || block === null) continue
    if (block.type === "text" && typeof block.text === "string") chars += block.text.length
    else if (block.type === "image") chars += imageChars
  }
  return chars
}

const stringLength = (value: unknown): number => (typeof value === "string" ? value.length : 0)

/** Pi's per-message token estimate (`estimateTokens` in its compaction module), on the fields it reads. */
export const estimateMessageTokens = (message: ProjectableMessage): number => {
  const m = message as ProjectableMessage & Record<string, unknown>
  let chars = 0
  switch (m.role) {
    case "system": {
      chars = contentChars(m.content)
      if (typeof m.sections === "object" && m.sections !== null) {
        for (const section of Object.values(m.sections)) chars += stringLength(section)
      }
      if (m.toolsAdded !== undefined) chars += JSON.stringify(m.toolsAdded).length
      break
    }
    case "user":
    case "custom":
    case "toolResult":
      chars = contentChars(m.content)
      break
    case "assistant": {
      if (!Array.isArray(m.content)) break
      for (const block of m.content as ReadonlyArray<Record<string, unknown> | null>) {
        if (typeof block !== "object" || block === null) continue
        if (block.type === "text") chars += stringLength(block.text)
        else if (block.type === "thinking") chars += stringLength(block.thinking)
        else if (block.type === "toolCall") chars += stringLength(block.name) + JSON.stringify(block.arguments ?? {}).length
      }
      break
    }
    case "bashExecution":
      chars = stringLength(m.command) + stringLength(m.output)
      break
    case "branchSummary":
    case "compactionSummary":
      chars = stringLength(m.summary)
      break
  }
  return Math.ceil(chars / charsPerToken)
}

/** The tokens a completed reply's request used, as its provider reported them; undefined for anything else. */
export const replyTokens = (message: ProjectableMessage): number | undefined => {
  if (message.role !== "assistant") return undefined
  const m = message as ProjectableMessage & { readonly stopReason?: unknown; readonly usage?: ReplyUsage }
  if (m.stopReason === "aborted" || m.stopReason === "error" || typeof m.usage !== "object" || m.usage === null) return undefined
  const u = m.usage
  const tokens = u.totalTokens || (u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)
  return tokens > 0 ? tokens : undefined
}

export type RequestTokens =
  /** The last reply's reported usage plus an estimate of every message after it. */
  | { readonly _tag: "Measured"; readonly tokens: number }
  /** No reply with usage in the request: every message estimated; `compacted` when it starts from a native compaction summary. */
  | { readonly _tag: "Estimated"; readonly tokens: number; readonly compacted: boolean }

/**
 * The size of a provider request the way Pi's `getContextUsage()` measures the
 * same context (last reply's usage + chars/4 for what follows it), computed
 * from the request itself. Pi's call rebuilds the whole session's projection
 * and walks the whole branch (O(session)); this scans back from the end to the
 * last reply, so it costs what the window added since that reply.
 */
export const estimateRequestTokens = (messages: ReadonlyArray<ProjectableMessage>): RequestTokens => {
  let trailing = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    const reply = replyTokens(message)
    if (reply !== undefined) return { _tag: "Measured", tokens: reply + trailing }
    trailing += estimateMessageTokens(message)
  }
  // Pi counts its current system message once: every system message replayed into one.
  let tokens = 0
  let compacted = false
  for (const message of messages) {
    if (message.role !== "system") tokens += estimateMessageTokens(message)
    if (message.role === "compactionSummary") compacted = true
  }
  const system = currentSystemMessage(messages)
  return { _tag: "Estimated", tokens: tokens + (system === undefined ? 0 : estimateMessageTokens(system)), compacted }
}

/**
 * The system message Pi leads a request with, as Pi's `getCurrentSystemMessage`
 * replays the transcript's system messages: their prompts joined, sections
 * patched by name, tools added and removed by name. A later system message
 * only patches the first (a change of the tool set, say): keeping or counting
 * the newest alone would leave Pi's prompt and most tools out.
 */
export const currentSystemMessage = (messages: ReadonlyArray<ProjectableMessage>): ProjectableMessage | undefined => {
  const prompts: Array<string> = []
  const sections = new Map<string, unknown>()
  const tools = new Map<unknown, unknown>()
  let first: (ProjectableMessage & Record<string, unknown>) | undefined
  for (const message of messages) {
    if (message.role !== "system") continue
    const m = message as ProjectableMessage & Record<string, unknown>
    first ??= m
    const prompt = bodyText(m.content) ?? ""
    if (prompt.length > 0) prompts.push(prompt)
    if (typeof m.sections === "object" && m.sections !== null) {
      for (const [name, value] of Object.entries(m.sections)) value === null ? sections.delete(name) : sections.set(name, value)
    }
    for (const tool of listed(m.toolsRemoved)) tools.delete(toolName(tool))
    for (const tool of listed(m.toolsAdded)) tools.set(toolName(tool), tool)
  }
  if (first === undefined) return undefined
  return {
    role: "system",
    content: prompts.join("\n\n"),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.size > 0 ? { toolsAdded: [...tools.values()] } : {}),
    timestamp: first.timestamp ?? 0
  } as ProjectableMessage
}

const listed = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const toolName = (tool: unknown): unknown => (typeof tool === "object" && tool !== null ? (tool as { name?: unknown }).name : undefined)
