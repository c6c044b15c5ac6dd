import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { conversation, kinds } from "./entries.ts"
import { type HarnessDirs, makeDirs } from "./sdkHarness.ts"

/** Pi's global settings file, as a user writes it; pi-context reads the files, not Pi's in-memory settings. */
export const dirsWith = (settings: Record<string, unknown>): HarnessDirs => {
  const dirs = makeDirs()
  mkdirSync(dirs.agentDir, { recursive: true })
  writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(settings, null, 2))
  return dirs
}

/** A prompt of about `tokens` tokens by the faux model's (and Pi's) chars/4 estimate. */
export const filler = (tokens: number, tag = "z") => `${tag} ${"x".repeat(tokens * 4)}`

export const markerIndexes = (entries: ReadonlyArray<SessionEntry>) =>
  kinds(entries).flatMap((kind, index) => (kind === "custom:pi-context/reset-marker" ? [index] : []))

export const markerWindowId = (entry: SessionEntry | undefined) => (entry as { data: { windowId: string } }).data.windowId

const continuationPrefix = "user: Your context window was just reset"

/** The text of each entry, for finding a prompt's tag. */
const entryText = (entry: SessionEntry): string => {
  if (entry.type === "message") return conversation({ messages: [entry.message] }).join("\n")
  if (entry.type === "custom_message") return typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content)
  return ""
}

/**
 * What must hold on any branch pi-context wrote, after every step: each
 * marker is followed by its own boot and then the continuation; no marker
 * falls between a tool call and its result. Returns the first violation.
 */
export const boundaryViolation = (branch: ReadonlyArray<SessionEntry>): string | undefined => {
  const k = kinds(branch)
  const open = new Set<string>()
  for (let i = 0; i < branch.length; i++) {
    const entry = branch[i]!
    if (entry.type === "message" && entry.message.role === "assistant") {
      for (const part of entry.message.content) if (part.type === "toolCall") open.add(part.id)
    }
    if (entry.type === "message" && entry.message.role === "toolResult") open.delete(entry.message.toolCallId)
    if (k[i] !== "custom:pi-context/reset-marker") continue
    if (open.size > 0) return `marker at ${i} separates ${open.size} tool call(s) from their results: ${k.join(", ")}`
    const windowId = markerWindowId(entry)
    const boot = branch[i + 1] as { details?: { windowId?: string } } | undefined
    if (k[i + 1] !== "custom_message:pi-context/boot" || boot?.details?.windowId !== windowId) {
      return `marker at ${i} is not followed by its boot: ${k.slice(i, i + 3).join(", ")}`
    }
    if (k[i + 2] !== "custom_message:pi-context/continuation") return `boot at ${i + 1} is not followed by the continuation: ${k.slice(i, i + 3).join(", ")}`
  }
  return undefined
}

/** Which window each entry of the branch belongs to (the last marker before it, or the root). */
export const windowOfEntries = (branch: ReadonlyArray<SessionEntry>, rootId: string): Array<string> => {
  let current = rootId
  return branch.map((entry) => {
    if (entry.type === "custom" && entry.customType === "pi-context/reset-marker") current = markerWindowId(entry)
    return current
  })
}

/** The window a provider request belongs to: the window id its boot names. */
export const requestWindow = (request: { readonly messages: ReadonlyArray<unknown> }): string | undefined => {
  for (const line of conversation(request)) {
    const match = /Current window: (\S+)/.exec(line)
    if (match !== null) return match[1]
  }
  return undefined
}

/**
 * Tags (`T<n>`) a request carries outside pi-context's continuation that were
 * said in another window than the request's own: erased history leaking in.
 */
export const leakedTags = (
  request: { readonly messages: ReadonlyArray<unknown> },
  branch: ReadonlyArray<SessionEntry>,
  rootId: string,
  tagPattern = /\bT\d+\b/g
): Array<string> => {
  const window = requestWindow(request)
  const windows = windowOfEntries(branch, rootId)
  const home = new Map<string, string>()
  branch.forEach((entry, i) => {
    if (entry.type !== "message") return
    for (const tag of entryText(entry).match(tagPattern) ?? []) if (!home.has(tag)) home.set(tag, windows[i]!)
  })
  const leaked: Array<string> = []
  for (const line of conversation(request)) {
    if (line.startsWith(continuationPrefix)) continue
    for (const tag of line.match(tagPattern) ?? []) {
      const from = home.get(tag)
      if (from !== undefined && window !== undefined && from !== window) leaked.push(`${tag} (said in ${from}, sent in ${window})`)
    }
  }
  return leaked
}

/** Whether an assistant entry is a text reply that ended a run (stopped by itself, with text). */
const isFinishedReply = (entry: SessionEntry): boolean =>
  entry.type === "message" && entry.message.role === "assistant" && entry.message.stopReason === "stop" &&
  entry.message.content.some((part) => part.type === "text" && part.text.trim() !== "")

/** Whether an assistant entry is the user's Escape (Pi 1.5 on: an `aborted` stop). */
const isCancelledReply = (entry: SessionEntry): boolean =>
  entry.type === "message" && entry.message.role === "assistant" && entry.message.stopReason === "aborted"

/**
 * For every reset on the branch: the user's last message in the window it
 * left, when no finished reply followed it and the user did not cancel it,
 * must be quoted by the continuation. Returns the first request lost.
 */
export const lostPendingRequest = (branch: ReadonlyArray<SessionEntry>): string | undefined => {
  let pending: string | undefined
  for (let i = 0; i < branch.length; i++) {
    const entry = branch[i]!
    if (entry.type === "message" && entry.message.role === "user") {
      const text = conversation({ messages: [entry.message] }).join("\n").replace(/^user: /, "")
      pending = text.trim() === "" ? undefined : text
    }
    if (isFinishedReply(entry) || isCancelledReply(entry)) pending = undefined
    if (entry.type === "custom" && entry.customType === "pi-context/reset-marker") {
      const continuation = branch[i + 2]
      const text = continuation?.type === "custom_message" && typeof continuation.content === "string" ? continuation.content : ""
      if (pending !== undefined && !text.includes(pending.trim().slice(0, 40))) return `"${pending.slice(0, 60)}" was not carried past the marker at ${i}`
      pending = undefined
    }
  }
  return undefined
}
