/**
 * The model `npm run demo -- --tui` runs Pi's TUI on: a scripted faux model,
 * offline, that reacts to a few words so that a user can watch pi-context
 * work without an API key. Its context window is small (32,000 tokens, or
 * DEMO_WINDOW) so that the lines come quickly.
 *
 *   note <text>   writes <text> into this session's plan note
 *   remember <x>  writes <x> into your @user/preferences note
 *   big           runs a command with a long output (about 7,000 tokens): the window fills
 *   wipe          writes a checkpoint, then calls wipe_memory
 *   anything else a short answer
 *
 * It also heeds pi-context: at the final warning it writes its checkpoint and
 * wipes, and in a fresh window it says what it resumes from. The words it
 * reacts to stay above Pi's editor as a widget for the whole demo.
 */
import type { Context } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { registerFaux } from "../test/support/fauxModel.ts"
import { tryHint } from "./tuiText.ts"

const window = Number(process.env.DEMO_WINDOW ?? 32_000)

type Part = { readonly type: string; readonly text?: string }
type Message = { readonly role: string; readonly content?: unknown }

/** pi-context's hidden messages (its reminders, boot and continuation are user messages): never the user's words. */
const isPiContext = (message: Message) => message.role === "user" && /^(\[pi-context\]|## Context window|Your context window was just reset)/.test(textOf(message))

const textOf = (message: Message | undefined): string =>
  message === undefined ? "" : typeof message.content === "string" ? message.content : Array.isArray(message.content) ? (message.content as ReadonlyArray<Part>).map((part) => part.text ?? "").join("") : ""

const call = (name: string, args: Record<string, unknown>) => fauxToolCall(name, args as never)
const calls = (...parts: ReadonlyArray<ReturnType<typeof call>>) => fauxAssistantMessage([...parts], { stopReason: "toolUse" })

const checkpoint = (about: string) =>
  calls(
    call("notes_write", { address: "checkpoint", content: `# Checkpoint\nGoal: ${about}\nNext: go on from here.\n` }),
    call("notes_write", { address: "MAP", content: "# Session map\n- checkpoint: where the work stands and what comes next\n" }),
    call("wipe_memory", {})
  )

/** The reply to one request, from what it shows. */
export const reply = (context: Context) => {
  const messages = context.messages as ReadonlyArray<Message>
  const users = messages.filter((message) => message.role === "user").map(textOf)
  // What pi-context just told the model, when the conversation ends with it (Pi's own system messages aside).
  const conversation = messages.filter((message) => message.role !== "system")
  const lastSent = conversation.at(-1)
  const told = lastSent?.role === "user" ? textOf(lastSent).trim() : ""
  if (told.includes("[pi-context] Final context warning") || told.includes("[pi-context] Close-out")) return checkpoint("the demo conversation")
  if (told.startsWith("Your context window was just reset")) {
    const quoted = users.find((text) => text.startsWith("## Context window"))?.match(/^Latest note: .+$/m)?.[0]
    return fauxAssistantMessage(`A fresh window: I resume from my notes${quoted === undefined ? "" : ` (${quoted.replace(/^Latest note: /, "")})`}.`)
  }
  // A reminder that rides after a tool's result, or after the user's words, is read, not answered.
  const last = conversation.filter((message) => !isPiContext(message)).at(-1)
  if (last?.role === "toolResult") return fauxAssistantMessage("Done.")
  const said = textOf(last).trim()
  const [word, ...rest] = said.split(/\s+/)
  switch (word?.toLowerCase()) {
    case "note":
      return calls(call("notes_write", { address: "plan", content: `# Plan\n${rest.join(" ")}\n` }))
    case "remember":
      return calls(call("notes_write", { address: "@user/preferences", content: `# Preferences\n- ${rest.join(" ")}\n` }))
    case "wipe":
      return checkpoint(rest.join(" ") || "the demo conversation")
    case "big":
      return calls(call("bash", { command: "seq 100000 106000" }))
    default:
      return fauxAssistantMessage(`You said: ${said.slice(0, 200)}`)
  }
}

export default function demoModel(pi: ExtensionAPI): void {
  const faux = registerFaux(pi, window)
  // One scripted step per request, as many as a demo session could send.
  faux.appendResponses(Array.from({ length: 10_000 }, () => (context: Context) => reply(context)))
  pi.on("session_start", (_event, ctx) => ctx.ui.setWidget("pi-context-demo", [...tryHint]))
}
