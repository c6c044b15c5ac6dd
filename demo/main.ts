/**
 * `npm run demo`: the main job of pi-context, offline. Pi's real agent loop
 * runs a scripted (faux) model with this package loaded as installed: the
 * model works, writes its session MAP and a checkpoint note, calls
 * wipe_memory, and carries on in a fresh window from its notes.
 * `npm run demo -- --tui` opens Pi's TUI on an offline scripted model instead (demo/tui.ts).
 */
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { conversation, kinds } from "../test/support/entries.ts"
import { createHarness } from "../test/support/sdkHarness.ts"

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text)
const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text)
const indent = (text: string, prefix = "    ") => text.split("\n").map((line) => prefix + line).join("\n")

// `npm run demo -- --tui`: the same offline model in Pi's own TUI instead of this printout.
if (process.argv.includes("--tui")) {
  await import("./tui.ts")
  await new Promise(() => {})
}

const h = await createHarness()
const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) => fauxToolCall(name, args)
h.script([
  fauxAssistantMessage([
    call("notes_write", {
      address: "MAP",
      content: "# Session map\n- checkpoint: where the refactor stands and what comes next\n"
    })
  ], { stopReason: "toolUse" }),
  fauxAssistantMessage(
    [
      call("notes_write", {
        address: "checkpoint",
        content: "# Checkpoint\nGoal: rename Config to Settings across the repo.\nDone: src/ (14 files).\nNext: update tests/, then the README.\n"
      }),
      call("wipe_memory", {})
    ],
    { stopReason: "toolUse" }
  ),
  fauxAssistantMessage([call("notes_read", { address: "checkpoint" })], { stopReason: "toolUse" }),
  fauxAssistantMessage("Resuming from my checkpoint: src/ is done, next I update tests/ and then the README.")
])

await h.prompt("Rename Config to Settings across the repo. Keep notes as you go.")

const entries = h.entries()
const entryKinds = kinds(entries)
const markers = entryKinds.flatMap((kind, index) => (kind === "custom:pi-context/reset-marker" ? [index] : []))

console.log(bold("pi-context demo") + dim(`  (faux model, temp notes root ${h.dirs.notesRoot})`))
console.log()
console.log(bold("Session timeline"))
let window = 1
console.log(`  window ${window}`)
entries.forEach((entry: SessionEntry, index) => {
  if (markers.includes(index)) {
    window++
    console.log(bold(`  ── reset boundary → window ${window} (${(entry as { data: { windowId: string } }).data.windowId}) ──`))
  }
  console.log(`    ${String(index).padStart(2)} ${entryKinds[index]}${describe(entry)}`)
})

const boot = entries.filter((entry) => entry.type === "custom_message" && entry.customType === "pi-context/boot").at(-1) as
  | { content: string }
  | undefined
console.log()
console.log(bold("Boot of the new window (hidden from the user, sent to the model)"))
console.log(dim(indent(boot?.content ?? "(none)")))

console.log()
console.log(bold("First provider request of each window"))
const windowIds = markers.map((index) => (entries[index] as { data: { windowId: string } }).data.windowId)
const firstOfWindow = [0, ...windowIds.map((id) => h.requests.findIndex((request) => conversation(request)[0]?.includes(`Current window: ${id}`)))]
for (const [n, index] of firstOfWindow.entries()) {
  const request = h.requests[index]
  if (request === undefined) continue
  console.log(`  window ${n + 1} (request #${index + 1}):`)
  for (const line of conversation(request)) {
    const [role, ...rest] = line.split(": ")
    const text = rest.join(": ")
    console.log(`    ${role!.padEnd(10)} ${String(text.length).padStart(5)} chars  ${dim(text.split("\n")[0]!.slice(0, 70))}`)
  }
}
console.log()
console.log(bold("Notices shown to the user"))
for (const notice of h.notices) console.log(`  [${notice.level}] ${notice.message}`)
// Quit as Pi does, so the last window's notes commit ends before the temp folders are removed.
await h.dispose()

function describe(entry: SessionEntry): string {
  if (entry.type === "message") {
    const content = "content" in entry.message ? entry.message.content : undefined
    if (!Array.isArray(content)) return typeof content === "string" ? dim(`  ${content.slice(0, 60)}`) : ""
    const parts = (content as ReadonlyArray<{ type: string; text?: string; name?: string }>).map((part) =>
      part.type === "text" ? (part.text ?? "").split("\n")[0]!.slice(0, 60) : part.type === "toolCall" ? `→ ${part.name}` : part.type
    )
    return dim(`  ${parts.join(" | ")}`)
  }
  if (entry.type === "custom_message") return dim(`  (hidden, ${String(entry.content).length} chars)`)
  return ""
}
