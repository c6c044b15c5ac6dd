/**
 * The worst time of any tool call over a fixed corpus of hostile inputs:
 * regex and glob bombs, huge queries, huge notes (one past the write limit),
 * 100,000-line edits, stale and corrupt locks, names a file system cannot
 * hold. Every call goes through the real tool handlers and the layers the
 * runtime serves them (src/runtime.ts): the live NotesStore (temp notes root,
 * 2,000 notes plus hostile ones), History (the project's fake Pi session,
 * with huge events), Window and NotesVersions (no repository in the temp
 * root, so history_windows reads none), inside the same time budget the
 * runtime gives a tool call.
 * Each input runs `Runs` times after one untimed warm-up call per tool
 * family (the history index build is bench/history.ts's first-call figure);
 * the figure is the slowest single call.
 * Then the git and scale cases (bench/support/adversarialGit.ts): a mid-merge
 * root, a hanging hook, history_windows over 300 windows of a 20,000-note
 * root with commits queued, notes_list's glob over 20,000 notes; their tool
 * calls count in the worst figure, and the window commits they end with are
 * reported beside it (not tool calls: forked off the hooks).
 * Writes bench/results/adversarial.json: { worst_tool_call_ms, inputs, git_and_scale_calls, window_commits }.
 *
 *   npm exec -- node bench/adversarial.ts        (ADV_DEBUG=1 also prints the start of each answer;
 *                                                 ADV_ONLY=text runs only the inputs whose name holds it)
 *
 * To add a case, append to `corpus`: a name, a tool and its parameters, and
 * optionally an untimed `before` that prepares the notes root or the session.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect, Layer, ManagedRuntime } from "effect"
import { ToolName, ToolResultByteLimit } from "../src/kernel/protocol.ts"
import { type ToolOutcome, utf8Length } from "../src/kernel/toolOutcome.ts"
import * as HistoryLive from "../src/history/HistoryLive.ts"
import * as NotesVersionsLive from "../src/notes/versions/NotesVersionsLive.ts"
import * as NotesHomesLive from "../src/notes/NotesHomesLive.ts"
import * as NotesStoreLive from "../src/notes/NotesStoreLive.ts"
import * as WindowLive from "../src/window/WindowLive.ts"
import { historyToolHandlers } from "../src/history/historyHandlers.ts"
import { buildIndex } from "../src/history/sessionIndex.ts"
import type { RawEntry } from "../src/kernel/entries.ts"
import { notesToolHandlers } from "../src/notes/notesHandlers.ts"
import { withTimeLimit } from "../src/kernel/timeLimit.ts"
import { makeFakeSession } from "../test/support/FakePiSession.ts"
import { runGitCases } from "./support/adversarialGit.ts"

const Runs = 3

// A full collection before each timed call, so that one input's garbage (hundreds of MB of huge strings) is not timed in the next.
setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void
const TargetMs = 250

// ---------------------------------------------------------------------------
// The world the hostile calls land in.

const root = mkdtempSync(join(tmpdir(), "pi-context-adversarial-"))
const sessionId = "adversarial-0000-7000-8000-000000000000"
const sessionDir = join(root, "sessions", sessionId)

/** A note file as the store writes it (frontmatter, then the body), written outside the timing. */
const seedNote = (relative: string, body: string): void => {
  const file = join(sessionDir, `${relative}.md`)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `---\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\norigin: session:bench\n---\n${body}`)
}

const longName = (i: number) => `${"a".repeat(52)}-${i.toString().padStart(7, "0")}`
for (let i = 0; i < 2_000; i++) seedNote(`folder-${i % 20}/${longName(i)}`, `# Note ${i}\n\n${`Decision ${i}: keep it short.\n`.repeat(8)}`)
const aLine = `${"a".repeat(999_000)}!`
const checklist = `${"- [ ]\n".repeat(99_999)}- [ ] ship it\n`
seedNote("bomb-line", aLine)
seedNote("checklist", checklist)
seedNote("long-lines", Array.from({ length: 300 }, (_, i) => `${"a".repeat(2_000)}z ${i}`).join("\n"))
const mixed = Array.from({ length: 25_000 }, (_, i) => `line ${i}: ${i % 7 === 0 ? "aaaaaaaaaaaaaaaaaaaaaaaa!" : "words and more words"}`).join("\n")
seedNote("mixed", mixed)
// Store faults (i10-store): a hand-written note past the 1 MB write limit, a name saved in NFD, stale locks.
seedNote("hand-written-1.6mb", "é😀 a line of a hand-written note\n".repeat(40_000))
seedNote("Re\u0301sume\u0301", "saved by hand under an NFD name")
/** A lock beside `relative`, its mtime `ageMs` in the past (negative: in the future). */
const plantLock = (relative: string, content: string, ageMs: number): void => {
  const file = join(sessionDir, `${relative}.md.lock`)
  writeFileSync(file, content)
  const at = new Date(Date.now() - ageMs)
  utimesSync(file, at, at)
}

// The project's fake Pi session: entries appended under the leaf, the branch walked from it, as Pi's SessionManager does.
const session = makeFakeSession({
  sessionId,
  cwd: root,
  agentDir: join(root, "agent"),
  settings: { "pi-context": { notesRoot: root } },
  model: { provider: "bench", id: "adversary", contextWindow: 200_000 },
  projectTrusted: false
})
let clock = Date.parse("2025-01-01T00:00:00.000Z")
let calls = 0
const append = (type: string, fields: Record<string, unknown>): RawEntry => {
  clock += 1500
  return session.append({ type, timestamp: new Date(clock).toISOString(), ...fields })
}
const message = (body: Record<string, unknown>) => append("message", { message: { timestamp: clock, ...body } })
/** A user request, a bash call and its result, the reply: the result's entry is returned. */
const toolTurn = (prompt: string, output: string): RawEntry => {
  const id = `call_${++calls}`
  message({ role: "user", content: prompt })
  message({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: "cat file" } }], stopReason: "toolUse" })
  const result = message({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: output }], isError: false })
  message({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop" })
  return result
}
let seed = 7
/** Random a/b text: what makes RE2's DFA for `(a|b)*a.{30}x`-like patterns blow up. */
const randomAb = (length: number): string => {
  let text = ""
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    text += seed & 1 ? "a" : "b"
  }
  return text
}
/** Flat strings, as Pi's are once a session is loaded from JSONL (`repeat` builds a rope). */
const flat = (text: string) => JSON.parse(JSON.stringify(text)) as string
const needle40k = "(x)[y]*?".repeat(5_000)
let hugeResult: RawEntry | undefined
for (let turn = 0; turn < 5_000; turn++) {
  toolTurn(`request ${turn}`, flat(`src/module${turn % 50}.ts:${turn}: export const value = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"\n`.repeat(20)))
  if (turn === 100) hugeResult = toolTurn("a single huge line", flat(aLine.repeat(2)))
  if (turn === 200) toolTurn("many short lines", flat("aaaa bbbb cccc dddd\n".repeat(200_000)))
  if (turn === 300) toolTurn("the long needle", flat(`before ${needle40k} after`))
  if (turn % 50 === 25) toolTurn("long matching lines", flat(`${"a".repeat(2_000)}z\n`.repeat(3)))
  if (turn % 250 === 125) toolTurn("a long line that only matches at its end", `${randomAb(60_000)}a${"c".repeat(30)}x`)
}

// The runtime's own layers for what the history and notes tools need; each brings its dependencies.
const runtime = ManagedRuntime.make(
  Layer.mergeAll(HistoryLive.layer, NotesHomesLive.layer, NotesStoreLive.layer, WindowLive.layer, NotesVersionsLive.layer, session.layer)
)

const handlers: Record<string, (params: unknown) => Effect.Effect<ToolOutcome, never, any>> = { ...notesToolHandlers, ...historyToolHandlers }
const call = (tool: string, params: unknown): Promise<ToolOutcome> =>
  runtime.runPromise(withTimeLimit(tool)(handlers[tool]!(params)))

// Untimed warm-up: the history index is built on the first call (bench/history.ts measures that), the notes cache too.
await call(ToolName.historyWindows, {})
await call(ToolName.historySearch, { query: "a single huge line", roles: ["user"] })
await call(ToolName.notesList, {})
// The huge line's event, the call its result completed, from the index the tools read: a search under the scan budget may stop before it.
const hugeSeq = buildIndex(sessionId, session.entries).completedBy.indexOf(hugeResult) + 1
if (hugeSeq === 0) throw new Error("the huge line's tool call is not in the history index")

// ---------------------------------------------------------------------------
// The corpus.

interface HostileInput {
  readonly name: string
  readonly tool: string
  readonly params: unknown
  /** Untimed preparation before each run. */
  readonly before?: () => void | Promise<void>
}

const search = (query: string, regex = true) => ({ query, regex })
const corpus: ReadonlyArray<HostileInput> = [
  { name: "notes_search (a+)+$", tool: ToolName.notesSearch, params: search("(a+)+$") },
  { name: "notes_search (a|aa)*c", tool: ToolName.notesSearch, params: search("(a|aa)*c") },
  { name: "notes_search (x+x+)+y", tool: ToolName.notesSearch, params: search("(x+x+)+y") },
  { name: "notes_search DFA blow-up", tool: ToolName.notesSearch, params: search("(?:a|b|c|d|e|f|g|h)*a.{30}x") },
  { name: "notes_search [\\s\\S]{0,400}z", tool: ToolName.notesSearch, params: search("[\\s\\S]{0,400}z") },
  { name: "notes_search (.*){20}x", tool: ToolName.notesSearch, params: search("(.*){20}x") },
  { name: "notes_search costly regex, 100 hits", tool: ToolName.notesSearch, params: { ...search("[\\s\\S]{0,400}z"), limit: 100 } },
  { name: "notes_search (?:a?){300}a{300}, 100 hits", tool: ToolName.notesSearch, params: { ...search("(?:a?){300}a{300}"), limit: 100 } },
  { name: "notes_search too complex", tool: ToolName.notesSearch, params: search("[^x]{0,999}y") },
  { name: "notes_search 4,000-char regex", tool: ToolName.notesSearch, params: search("(?:ab|cd)*".repeat(400)) },
  { name: "notes_search backreference", tool: ToolName.notesSearch, params: search("(a)\\1") },
  { name: "notes_search 40k literal", tool: ToolName.notesSearch, params: search(needle40k, false) },
  { name: "notes_search a{10000}b literal", tool: ToolName.notesSearch, params: search(`${"a".repeat(10_000)}b`, false) },
  { name: "notes_search 1M literal", tool: ToolName.notesSearch, params: search("q".repeat(1_000_000), false) },
  { name: "notes_list **a x7 !", tool: ToolName.notesList, params: { pattern: `${"**a".repeat(7)}!` } },
  { name: "notes_list *a x200 !", tool: ToolName.notesList, params: { pattern: `${"*a".repeat(200)}!` } },
  { name: "notes_list 10,000 *?", tool: ToolName.notesList, params: { pattern: "*?".repeat(5_000) } },
  { name: "notes_list **a** x30 (matches)", tool: ToolName.notesList, params: { pattern: `${"**a".repeat(30)}**` } },
  { name: "notes_list 1M-char glob", tool: ToolName.notesList, params: { pattern: `${"a*".repeat(500_000)}` } },
  { name: "notes_list 1M-char substring", tool: ToolName.notesList, params: { pattern: "a".repeat(1_000_000) } },
  { name: "notes_read 1 MB line, end", tool: ToolName.notesRead, params: { address: "bomb-line", offset: -100 } },
  { name: "notes_read offset -1e15, limit 1e9", tool: ToolName.notesRead, params: { address: "bomb-line", offset: -1e15, limit: 1e9 } },
  { name: "notes_read 100k lines", tool: ToolName.notesRead, params: { address: "checklist", offset: 300_000 } },
  { name: "notes_update ambiguous x100k", tool: ToolName.notesUpdate, params: { address: "checklist", edits: [{ oldText: "- [ ]", newText: "- [x]" }] } },
  {
    name: "notes_update unique in 100k lines",
    tool: ToolName.notesUpdate,
    params: { address: "checklist", edits: [{ oldText: "- [ ] ship it", newText: "- [x] ship it" }] },
    before: () => seedNote("checklist", checklist)
  },
  { name: "notes_update periodic a{500000}", tool: ToolName.notesUpdate, params: { address: "bomb-line", edits: [{ oldText: "a".repeat(500_000), newText: "b" }] } },
  {
    name: "notes_update 50 edits near the end",
    tool: ToolName.notesUpdate,
    params: { address: "mixed", edits: Array.from({ length: 50 }, (_, k) => ({ oldText: `line ${24_999 - k}: `, newText: `LINE ${24_999 - k}: ` })) },
    before: () => seedNote("mixed", mixed)
  },
  { name: "notes_update 10,000 edits", tool: ToolName.notesUpdate, params: { address: "mixed", edits: Array.from({ length: 10_000 }, (_, k) => ({ oldText: `line ${k}: `, newText: "" })) } },
  { name: "notes_write 1 MB", tool: ToolName.notesWrite, params: { address: "big-write", content: "b".repeat(999_000) } },
  { name: "notes_read 1.6 MB note, middle", tool: ToolName.notesRead, params: { address: "hand-written-1.6mb", offset: 700_000 } },
  { name: "notes_read 1.6 MB note, end", tool: ToolName.notesRead, params: { address: "hand-written-1.6mb", offset: -40 } },
  { name: "notes_read NFC address, NFD file", tool: ToolName.notesRead, params: { address: "R\u00e9sum\u00e9" } },
  { name: "notes_write over an empty lock", tool: ToolName.notesWrite, params: { address: "locked", content: "x" }, before: () => plantLock("locked", "", 60_000) },
  {
    name: "notes_write over a future foreign lock",
    tool: ToolName.notesWrite,
    params: { address: "locked", content: "y" },
    before: () => plantLock("locked", JSON.stringify({ pid: 1, host: "elsewhere.example", token: "1-1-a", at: Date.now() + 1e10 }), -86_400_000)
  },
  { name: "notes_write 240-character name", tool: ToolName.notesWrite, params: { address: "x".repeat(240), content: "x" } },
  { name: "notes_write right-to-left override", tool: ToolName.notesWrite, params: { address: "report\u202Edm.exe", content: "x" } },
  { name: "history_search (a+)+$", tool: ToolName.historySearch, params: search("(a+)+$") },
  { name: "history_search DFA blow-up", tool: ToolName.historySearch, params: search("(?:a|b|c|d|e|f|g|h)*a.{30}x") },
  { name: "history_search (.*){20}x", tool: ToolName.historySearch, params: search("(.*){20}x") },
  { name: "history_search costly regex, 50 hits", tool: ToolName.historySearch, params: { ...search("[\\s\\S]{0,400}z"), limit: 50 } },
  { name: "history_search (?:a?){300}a{300}, 50", tool: ToolName.historySearch, params: { ...search("(?:a?){300}a{300}"), limit: 50 } },
  { name: "history_search [\\s\\S]{0,400}z", tool: ToolName.historySearch, params: search("[\\s\\S]{0,400}z") },
  { name: "history_search 40k literal", tool: ToolName.historySearch, params: search(needle40k, false) },
  { name: "history_search a{10000}b literal", tool: ToolName.historySearch, params: search(`${"a".repeat(10_000)}b`, false) },
  { name: "history_search 1M literal", tool: ToolName.historySearch, params: search("q".repeat(1_000_000), false) },
  { name: "history_search lookahead", tool: ToolName.historySearch, params: search("a(?=b)") },
  { name: "history_read 2 MB line, end", tool: ToolName.historyRead, params: { seq: hugeSeq, offset: -4_000 } },
  { name: "history_read offset 1e15", tool: ToolName.historyRead, params: { seq: hugeSeq, offset: 1e15, limit: 8_000 } },
  { name: "history_list tool roles", tool: ToolName.historyList, params: { roles: ["tool"], limit: 200 } }
]

// ---------------------------------------------------------------------------
// Runs.

interface Row {
  readonly name: string
  readonly worstMs: number
  readonly outcome: string
  readonly bytes: number
}
const rows: Array<Row> = []
const only = process.env.ADV_ONLY
for (const input of only === undefined ? corpus : corpus.filter((candidate) => candidate.name.includes(only))) {
  let worst = 0
  let last: ToolOutcome | undefined
  for (let run = 0; run < Runs; run++) {
    if (input.before !== undefined) {
      await input.before()
      // Let the notes store's watchers see an outside write before the timed call.
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    collectGarbage()
    const start = performance.now()
    last = await call(input.tool, input.params)
    worst = Math.max(worst, performance.now() - start)
  }
  const outcome = last!._tag === "Ok" ? "ok" : last!.code
  rows.push({ name: input.name, worstMs: worst, outcome, bytes: utf8Length(last!.text) })
  if (process.env.ADV_DEBUG) console.log(input.name, JSON.stringify(last!.text.slice(0, 300)))
}
await runtime.dispose()
rmSync(root, { recursive: true, force: true })
const gitCases = await runGitCases(Runs, only)
rows.push(...gitCases.rows)
const inputs = corpus.length + gitCases.rows.length

const round1 = (ms: number) => Math.round(ms * 10) / 10
console.log(`${inputs} hostile inputs, worst of ${Runs} runs each (ms), through the tool handlers and live layers:`)
console.log(`  ${"input".padEnd(36)} ${"worst ms".padStart(9)}  ${"answer".padEnd(15)} bytes`)
for (const row of rows) console.log(`  ${row.name.padEnd(36)} ${round1(row.worstMs).toFixed(1).padStart(9)}  ${row.outcome.padEnd(15)} ${row.bytes}`)
const worst = Math.max(...rows.map((row) => row.worstMs))
const oversized = rows.filter((row) => row.bytes > ToolResultByteLimit)
console.log(`  worst tool call: ${round1(worst)} ms; target < ${TargetMs} ms -> ${worst < TargetMs ? "met" : "MISSED"}`)
for (const commit of gitCases.commits) console.log(`  ${commit.name.padEnd(36)} ${round1(commit.ms).toFixed(1).padStart(9)}  ${commit.outcome}`)
const missed = [...gitCases.rows, ...gitCases.commits].filter((row) => !row.outcome.startsWith("ok"))
if (missed.length > 0) console.log(`  git cases not as they must be: ${missed.map((row) => `${row.name} (${row.outcome})`).join(", ")}`)
if (oversized.length > 0) console.log(`  results over ${ToolResultByteLimit} bytes: ${oversized.map((row) => row.name).join(", ")}`)

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "adversarial.json")
mkdirSync(dirname(out), { recursive: true })
const windowCommits = Object.fromEntries(gitCases.commits.map((commit) => [commit.name, { ms: round1(commit.ms), outcome: commit.outcome }]))
const gitCalls = Object.fromEntries(gitCases.rows.map((row) => [row.name, { ms: round1(row.worstMs), outcome: row.outcome }]))
if (only === undefined) {
  writeFileSync(out, `${JSON.stringify({ worst_tool_call_ms: round1(worst), inputs, git_and_scale_calls: gitCalls, window_commits: windowCommits }, null, 2)}\n`)
}
