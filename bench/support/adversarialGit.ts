/**
 * bench/adversarial.ts's git and scale cases, each in a notes root of its own
 * with the runtime's live layers:
 *
 * - 300 windows over a 20,000-note root whose history holds the session's
 *   300 window commits: `history_windows` while three more window commits
 *   are queued (it must answer with what is committed and name the rest as
 *   pending, never wait for them), and `notes_list {pattern: "**\/*-1999*"}`.
 * - A notes root inside a user's repository in the middle of a merge: the
 *   tool calls, then a window's end, which must leave the merge as it was.
 * - A repository whose `prepare-commit-msg` hook and fsmonitor hang for 30 s:
 *   the tool calls, then a window's commit, which must not wait for them.
 *
 * Each returns rows as the corpus's (the slowest of `runs` tool calls), and
 * the window commits' own times, which are not tool calls.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { shortSessionId } from "../../src/notes/versions/versions.ts"
import { ToolName } from "../../src/kernel/protocol.ts"
import { type ToolOutcome, utf8Length } from "../../src/kernel/toolOutcome.ts"
import * as HistoryLive from "../../src/history/HistoryLive.ts"
import * as NotesVersionsLive from "../../src/notes/versions/NotesVersionsLive.ts"
import * as NoticesLive from "../../src/kernel/NoticesLive.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import * as NotesStoreLive from "../../src/notes/NotesStoreLive.ts"
import { systemGit } from "../../src/notes/versions/git.ts"
import * as Platform from "../../src/kernel/platform.ts"
import * as TraceLive from "../../src/trace/TraceLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { historyToolHandlers } from "../../src/history/historyHandlers.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { withTimeLimit } from "../../src/kernel/timeLimit.ts"
import { type FakeSession, makeFakeSession } from "../../test/support/FakePiSession.ts"
import { windowEnds } from "../../test/support/notesVersionsFixtures.ts"

export interface GitRow {
  readonly name: string
  readonly worstMs: number
  readonly outcome: string
  readonly bytes: number
}

export interface GitCases {
  readonly rows: ReadonlyArray<GitRow>
  /** Window commits (forked off the hooks, not tool calls): name, ms, and whether the repository was left as it must be. */
  readonly commits: ReadonlyArray<{ readonly name: string; readonly ms: number; readonly outcome: string }>
}

const git = (cwd: string, args: ReadonlyArray<string>, input?: string): string =>
  execFileSync("git", [...args], { cwd, encoding: "utf8", input, maxBuffer: 256 * 1024 * 1024, stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } })

const frontmatter = "---\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\norigin: session:bench\n---\n"

const writeNote = (file: string, body: string): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${frontmatter}${body}`)
}

type Handler = (params: unknown) => Effect.Effect<ToolOutcome, never, any>
const handlers: Record<string, Handler> = { ...notesToolHandlers, ...historyToolHandlers }

/** The id of window `w` of a world's branch (the root window keeps the session's own id). */
const windowIdOf = (w: number) => `pcx:advgit00:${w.toString(16).padStart(8, "0")}`

/** A world: a fake Pi session on a notes root, and the runtime's live layers over it. */
const world = (root: string, sessionId: string, windows: number) => {
  const session: FakeSession = makeFakeSession({
    sessionId,
    cwd: root,
    agentDir: join(root, "..", `${sessionId}-agent`),
    settings: { "pi-context": { notesRoot: root } },
    model: { provider: "bench", id: "adversary", contextWindow: 200_000 },
    projectTrusted: false,
    counted: {}
  })
  for (let w = 1; w <= windows; w++) {
    if (w > 1) {
      const windowId = windowIdOf(w)
      session.marker(windowId)
      session.boot(windowId, `boot of ${windowId}`)
    }
    session.user(`request of window ${w}`)
    session.assistant(`answer of window ${w}`)
  }
  // The trace's events go nowhere: the bench prints only its table.
  const quiet = Layer.mergeAll(NotesHomesLive.layer, NotesStoreLive.layer, TraceLive.layerWith(() => {}), WindowLive.layer, Platform.layer).pipe(
    Layer.provideMerge(NoticesLive.layer)
  )
  const history = NotesVersionsLive.layerWith(systemGit).pipe(Layer.provide(quiet))
  const runtime = ManagedRuntime.make(Layer.mergeAll(HistoryLive.layer, NotesStoreLive.layer, WindowLive.layer, history, quiet, session.layer))
  const call = (tool: string, params: unknown) => runtime.runPromise(withTimeLimit(tool)(handlers[tool]!(params)))
  const onSession = <A>(use: (history: NotesVersions["Service"]) => Effect.Effect<A, never, any>) =>
    runtime.runPromise(Effect.provide(NotesVersions.use(use), session.layer))
  return { session, runtime, call, onSession }
}

/** The slowest of `runs` calls, `before` (untimed) ahead of each. */
const timeCall = async (
  name: string,
  runs: number,
  call: () => Promise<ToolOutcome>,
  judge: (outcome: ToolOutcome) => string = (outcome) => (outcome._tag === "Ok" ? "ok" : outcome.code),
  before: () => unknown = () => {}
): Promise<GitRow> => {
  let worst = 0
  let last: ToolOutcome | undefined
  for (let run = 0; run < runs; run++) {
    await before()
    const start = performance.now()
    last = await call()
    worst = Math.max(worst, performance.now() - start)
  }
  return { name, worstMs: worst, outcome: judge(last!), bytes: utf8Length(last!.text) }
}

const Notes = 20_000
const Windows = 300

/** 20,000 notes and this session's 300 window commits, made with fast-import (a commit per window would take minutes). */
const scaleRoot = (root: string, sessionId: string): void => {
  const home = join(root, "sessions", sessionId)
  for (let i = 0; i < Notes; i++) writeNote(join(home, `area-${i % 40}`, `note-${i}.md`), `# Note ${i}\n\nDecision ${i}: keep it short.\n`)
  git(root, ["init", "-q", "-b", "main"])
  git(root, ["config", "user.name", "pi-context"])
  git(root, ["config", "user.email", "pi-context@localhost"])
  git(root, ["config", "pi-context.created", "true"])
  git(root, ["config", "feature.manyFiles", "true"])
  git(root, ["add", "-A"])
  git(root, ["commit", "-q", "-m", "the notes so far"])
  const short = shortSessionId(sessionId)
  const stream: Array<string> = []
  for (let w = 1; w <= Windows; w++) {
    const body = `${frontmatter}# Window ${w}\n\nwhat window ${w} decided\n`
    stream.push(
      "commit refs/heads/main",
      `committer pi-context <pi-context@localhost> ${1_735_689_600 + w * 60} +0000`,
      `data <<EOM\nw${w} of session ${short}: +1 ~0 −0\nEOM`,
      ...(w === 1 ? ["from refs/heads/main^0"] : []),
      `M 100644 inline sessions/${sessionId}/windows/w-${w}.md`,
      `data ${Buffer.byteLength(body)}`,
      body
    )
  }
  git(root, ["fast-import", "--quiet"], `${stream.join("\n")}\n`)
  git(root, ["reset", "-q", "--hard", "main"])
}

const scaleCases = async (base: string, runs: number): Promise<GitCases> => {
  const root = join(base, "scale")
  const sessionId = "advscale-0000-7000-8000-000000000000"
  scaleRoot(root, sessionId)
  const { call, onSession, runtime } = world(root, sessionId, Windows + 1)
  await call(ToolName.historyWindows, {})
  await call(ToolName.notesList, {})
  let queued = 0
  // Three window commits queued behind one another, each with a note changed, as a burst of boundaries leaves them.
  const queueCommits = () =>
    onSession((history) =>
      Effect.forEach([0, 1, 2], () =>
        Effect.suspend(() => {
          queued++
          writeNote(join(root, "sessions", sessionId, "burst", `queued-${queued}.md`), `queued ${queued}\n`)
          return windowEnds(Windows, windowIdOf(Windows))
        })))
  const windowsRow = await timeCall(
    `history_windows ${Windows}w/${Notes / 1000}k, 3 queued`,
    runs,
    () => call(ToolName.historyWindows, {}),
    (outcome) => {
      if (outcome._tag !== "Ok") return outcome.code
      const lines = outcome.text.split("\n")
      const committed = lines.filter((line) => / · notes committed \+1 ~0 −0/.test(line)).length
      const pending = lines.some((line) => line.includes("more being committed") || line.includes("notes being committed"))
      return committed >= 100 && pending ? "ok, line+pending" : `NO HISTORY LINE (${committed} committed)`
    },
    queueCommits
  )
  const listRow = await timeCall(`notes_list **/*-1999* over ${Notes / 1000}k`, runs, () => call(ToolName.notesList, { pattern: "**/*-1999*" }))
  await onSession((history) => history.awaitCommits(60_000))
  await runtime.dispose()
  return { rows: [windowsRow, listRow], commits: [] }
}

/** A user's repository whose notes root is `notes/`, with `main` and `other` diverged. */
const userRepo = (repo: string): string => {
  mkdirSync(repo, { recursive: true })
  git(repo, ["init", "-q", "-b", "main"])
  git(repo, ["config", "user.name", "Ada"])
  git(repo, ["config", "user.email", "ada@example.org"])
  writeFileSync(join(repo, "code.txt"), "base\n")
  git(repo, ["add", "code.txt"])
  git(repo, ["commit", "-q", "-m", "base"])
  git(repo, ["checkout", "-q", "-b", "other"])
  writeFileSync(join(repo, "code.txt"), "theirs\n")
  git(repo, ["commit", "-q", "-am", "theirs"])
  git(repo, ["checkout", "-q", "main"])
  const root = join(repo, "notes")
  for (let i = 0; i < 200; i++) writeNote(join(root, "user", `pref-${i}.md`), `preference ${i}\n`)
  git(repo, ["add", "-A"])
  git(repo, ["commit", "-q", "-m", "ours"])
  return root
}

/** The tool calls in a hostile repository, then a window's commit, timed, and what it left. */
const repositoryCase = async (
  label: string,
  repo: string,
  root: string,
  sessionId: string,
  runs: number,
  leftAsItMust: () => boolean
): Promise<GitCases> => {
  const { call, onSession, runtime } = world(root, sessionId, 3)
  await call(ToolName.historyWindows, {})
  let written = 0
  const rows = [
    await timeCall(`notes_write, ${label}`, runs, () => call(ToolName.notesWrite, { address: `@user/new-${++written}`, content: `written ${written}\n` })),
    await timeCall(`history_windows, ${label}`, runs, () => call(ToolName.historyWindows, {}))
  ]
  const start = performance.now()
  await onSession((history) => Effect.andThen(windowEnds(2, windowIdOf(2)), history.awaitCommits(60_000)))
  const ms = performance.now() - start
  await runtime.dispose()
  return { rows, commits: [{ name: `window commit, ${label}`, ms, outcome: leftAsItMust() ? "ok" : "REPOSITORY CHANGED" }] }
}

const mergeCase = async (base: string, runs: number): Promise<GitCases> => {
  const repo = join(base, "merge")
  const root = userRepo(repo)
  git(repo, ["merge", "-q", "-s", "ours", "--no-ff", "--no-commit", "other"])
  const head = git(repo, ["rev-parse", "HEAD"])
  const mergeHead = git(repo, ["rev-parse", "MERGE_HEAD"])
  return repositoryCase("mid-merge root", repo, root, "advmerge-0000-7000-8000-000000000000", runs, () =>
    git(repo, ["rev-parse", "HEAD"]) === head && git(repo, ["rev-parse", "MERGE_HEAD"]) === mergeHead && git(repo, ["diff", "--cached", "--name-only"]) === "")
}

const hookCase = async (base: string, runs: number): Promise<GitCases> => {
  const repo = join(base, "hook")
  const root = userRepo(repo)
  const ran = join(base, "hook-ran")
  writeFileSync(join(repo, ".git", "hooks", "prepare-commit-msg"), `#!/bin/sh\ntouch "${ran}"\nsleep 30\n`, { mode: 0o755 })
  writeFileSync(join(base, "fsmonitor.sh"), `#!/bin/sh\ntouch "${ran}"\nsleep 30\n`, { mode: 0o755 })
  git(repo, ["config", "core.fsmonitor", join(base, "fsmonitor.sh")])
  const before = git(repo, ["-c", "core.fsmonitor=false", "rev-parse", "HEAD"])
  return repositoryCase("hanging hook", repo, root, "advhooks-0000-7000-8000-000000000000", runs, () => {
    const subject = git(repo, ["-c", "core.fsmonitor=false", "log", "-1", "--format=%s"])
    return git(repo, ["-c", "core.fsmonitor=false", "rev-parse", "HEAD"]) !== before && subject.startsWith("w2 of session") && !existsSync(ran)
  })
}

/** Every git and scale case, in temp folders removed afterwards. */
export const runGitCases = async (runs: number, only: string | undefined): Promise<GitCases> => {
  const base = mkdtempSync(join(tmpdir(), "pi-context-adversarial-git-"))
  const all: Array<GitCases> = []
  for (const [name, run] of [["scale", scaleCases], ["merge", mergeCase], ["hook", hookCase]] as const) {
    if (only === undefined || name.includes(only) || only === "git") all.push(await run(base, runs))
  }
  rmSync(base, { recursive: true, force: true })
  return { rows: all.flatMap((c) => c.rows), commits: all.flatMap((c) => c.commits) }
}
