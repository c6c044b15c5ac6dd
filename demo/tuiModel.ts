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
const reply = (context: Context) => {
  const messages = context.messages as ReadonlyArray<Message>
  const last = messages.at(-1)
  const users = messages.filter((message) => message.role === "user").map(textOf)
  const said = users.at(-1)?.trim() ?? ""
  if (last?.role === "toolResult") return fauxAssistantMessage("Done.")
  if (said.includes("[pi-context] Final context warning") || said.includes("[pi-context] Close-out")) return checkpoint("the demo conversation")
  if (said.startsWith("Your context window was just reset")) {
    const quoted = users.find((text) => text.startsWith("## Context window"))?.match(/^Latest note: .+$/m)?.[0]
    return fauxAssistantMessage(`A fresh window: I resume from my notes${quoted === undefined ? "" : ` (${quoted.replace(/^Latest note: /, "")})`}.`)
  }
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
