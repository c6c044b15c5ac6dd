/**
 * One run: a fresh project from the task's generator, one Pi session for the
 * arm, the user's messages at their fixed points, the verifier, and the
 * figures read back from the session file.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isContextOverflow } from "@earendil-works/pi-ai/compat"
import type { Api, AssistantMessage, Model, TranscriptContext } from "@earendil-works/pi-ai"
import { type AgentSession, type SessionEntry, VERSION as piVersion } from "@earendil-works/pi-coding-agent"
import type { Task, UserMessageSpec } from "../tasks/taskTypes.ts"
import { measure, StuckAfter } from "./metrics.ts"
import { ProbeEvery, type ProbePoint, probeRun, projectPath, solutionChanges } from "./probe.ts"
import { compactionOf } from "./settings.ts"
import type { RawEntry } from "../../src/kernel/entries.ts"
import { sessionSignals } from "../../src/window/signals.ts"
import { factsOfSpans } from "../../src/window/windowFacts.ts"
import { branchWindows } from "../../src/window/walk.ts"
import { armSettings, openSession, repoRoot, type RunDirs } from "./session.ts"
import type { JobSpec, Progress, RunFailure, RunResult } from "./types.ts"
import { defaultStandIn } from "../scripted/standIn.ts"

const piContextVersion = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version

/** The commit under test, marked when the checkout has changes of its own: a result names exactly what it measured. */
const commitUnderTest = (() => {
  try {
    const git = (...args: ReadonlyArray<string>) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
    const head = git("rev-parse", "--short=12", "HEAD")
    return git("status", "--porcelain", "--untracked-files=no", "--", "src", "eval", ":(exclude)eval/results", "package.json") === "" ? head : `${head}+changes`
  } catch {
    return undefined
  }
})()

export const classifyFailure = (message: AssistantMessage, contextWindow: number): RunFailure => {
  const text = message.errorMessage ?? "unknown provider error"
  if (isContextOverflow(message, contextWindow)) return { kind: "context-overflow", message: text }
  if (/\b429\b|rate.?limit|too many requests/i.test(text)) return { kind: "rate-limit", message: text }
  if (/\b5\d\d\b|server.?error|overloaded/i.test(text)) return { kind: "server-error", message: text }
  return { kind: "provider", message: text }
}

/** Pi's own tools: the task's work. Notes, reset and history calls are an arm's, and do not move a task's progress. */
const WorkTools = new Set(["read", "bash", "edit", "write", "grep", "find", "ls"])

const blockedStatement = /\b(blocked|cannot continue|can't continue|unable to (?:continue|finish|proceed))\b/i

/** How each reset of a session went, in the words of /pi-context report: the same module reads the same entries. */
const resetsOf = (session: AgentSession, spec: JobSpec) => {
  const spans = branchWindows(session.sessionManager.getBranch() as unknown as ReadonlyArray<RawEntry>, session.sessionManager.getSessionId())
  return sessionSignals(spans, factsOfSpans(spans), compactionOf(spec).reserveTokens).windows
}

const makeDirs = (spec: JobSpec): RunDirs => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-eval-"))
  const dirs = { root, agentDir: join(root, "agent"), notesRoot: join(root, "notes"), cwd: join(root, "project"), sessionDir: join(spec.runDir, "session") }
  for (const dir of [dirs.agentDir, dirs.notesRoot, dirs.cwd, dirs.sessionDir]) mkdirSync(dir, { recursive: true })
  return dirs
}

/**
 * The run's final repository and notes, kept beside its session (`project/`, `notes/`) for reading what it did.
 * The notes' own git history is left out: pi-context may still be committing into it as the session closes. A copy
 * that fails costs the copy, never the run's result.
 */
const keepBeside = (spec: JobSpec, dirs: RunDirs): void => {
  const copy = (from: string, to: string, filter?: (source: string) => boolean) => {
    try {
      cpSync(from, join(spec.runDir, to), { recursive: true, verbatimSymlinks: true, ...(filter === undefined ? {} : { filter }) })
    } catch {
      rmSync(join(spec.runDir, to), { recursive: true, force: true })
    }
  }
  copy(dirs.cwd, "project")
  copy(dirs.notesRoot, "notes", (source) => !/[\\/]\.git([\\/]|$)/.test(source))
  rmSync(dirs.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })
}

export const runJob = async (spec: JobSpec, task: Task, onProgress: (progress: Progress) => void = () => {}): Promise<RunResult> => {
  const started = Date.now()
  const deadline = started + spec.runTimeoutMs
  const dirs = makeDirs(spec)
  task.generate(dirs.cwd, spec.seed, deadline)
  const messages = task.messages(spec.seed)
  const sent: Array<{ spec: UserMessageSpec; sentAs: string }> = []
  let failure: RunFailure | undefined
  const failures = spec.failures
  const sessionCount = Math.max(1, task.sessions ?? 1)
  // What the sessions before the current one left: their entries, requests and windows, measured with the current one's.
  const earlierEntries: Array<SessionEntry> = []
  const earlierRequests: Array<TranscriptContext> = []
  const earlierResets: Array<ReturnType<typeof resetsOf>[number]> = []
  let opened: Awaited<ReturnType<typeof openSession>> | undefined
  let model: Model<Api> | undefined
  let answerProbe: ((context: TranscriptContext) => string | Promise<string>) | undefined
  const figures = () =>
    measure([...earlierEntries, ...(opened?.session.sessionManager.getEntries() ?? [])], model!, messages.map((spec) => ({ spec, sentAs: sent.find((done) => done.spec.id === spec.id)?.sentAs ?? "not sent" })))
  let turns = 0
  let workCalls = 0
  // The probes' points, and the files the run has changed (a write or edit that succeeded), as the harness saw them.
  const probePoints: Array<ProbePoint> = []
  const fileCalls = new Map<string, string>()
  const changed: Array<string> = []
  let sessionFile: string | undefined
  let window = 0
  for (let number = 1; number <= sessionCount && failure === undefined; number++) {
    opened = await openSession(spec, task, dirs, failures === undefined ? undefined : (call) => failures[String(call)]).catch((error: unknown) => {
      failure = { kind: "harness", message: error instanceof Error ? error.message : String(error) }
      return undefined
    })
    if (opened === undefined) {
      if (number === 1) {
        rmSync(dirs.root, { recursive: true, force: true })
        return emptyResult(spec, failure!, started)
      }
      break
    }
    model = opened.model
    answerProbe = opened.probing.answer
    if (opened.loadErrors.length > 0) failure ??= { kind: "harness", message: `extension load failed: ${opened.loadErrors.join("; ")}` }
    const ofSession = messages.filter((message) => (message.session ?? 1) === number)
    await runSession(opened.session, ofSession)
    const session = opened.session
    await session.waitForIdle().catch(() => undefined)
    earlierResets.push(...resetsOf(session, spec))
    sessionFile = session.sessionManager.getSessionFile()
    // The window Pi itself worked with: the model's own, overridden by --window.
    window = session.model?.contextWindow ?? 0
    if (number < sessionCount) {
      earlierEntries.push(...session.sessionManager.getEntries())
      earlierRequests.push(...opened.probing.requests)
      session.dispose()
      opened = undefined
    }
  }

  async function runSession(session: AgentSession, ofSession: ReadonlyArray<UserMessageSpec>): Promise<void> {
    let lastActivity = Date.now()
    // A compaction summary is one call with a limit of its own: a slow model summarising is not a silent one.
    let compactingSince: number | undefined
    const stop = (reason: RunFailure) => {
      failure ??= reason
      if (session.isCompacting) session.abortCompaction()
      void session.abort()
    }
    const unsubscribe = session.subscribe((event) => {
      if (event.type === "message_start" || event.type === "message_update" || event.type === "tool_execution_end") lastActivity = Date.now()
      if (event.type === "compaction_start") compactingSince = Date.now()
      if (event.type === "compaction_end") {
        compactingSince = undefined
        lastActivity = Date.now()
      }
      if (event.type === "tool_execution_start" && (event.toolName === "write" || event.toolName === "edit") && typeof event.args?.path === "string") fileCalls.set(event.toolCallId, projectPath(event.args.path, dirs.cwd))
      if (event.type === "tool_execution_end") {
        const path = fileCalls.get(event.toolCallId)
        if (path !== undefined && !event.isError && !changed.includes(path)) changed.push(path)
      }
      if (event.type === "tool_execution_end" && WorkTools.has(event.toolName)) {
        workCalls++
        // A probe point names its request among every session's: the earlier sessions' requests come first.
        if (workCalls % ProbeEvery === 0) probePoints.push({ point: workCalls, request: earlierRequests.length + (opened?.probing.requests.length ?? 0), changed: [...changed] })
      }
      if (event.type === "turn_end") {
        turns++
        const due = ofSession.find((message) =>
          message.when === "progress" && !sent.some((done) => done.spec.id === message.id) && workCalls >= (message.afterWorkCalls ?? 0)
        )
        if (due !== undefined) {
          sent.push({ spec: due, sentAs: due.when })
          void session.steer(due.text)
        }
      }
      if (event.type === "message_end" && event.message.role === "assistant") {
        const now = figures()
        onProgress({ turn: turns, calls: now.modelCalls, tokens: now.calls.reduce((sum, point) => sum + point.sent, 0), turnovers: now.turnovers.total, costUsd: now.costUsd })
        if (now.modelCalls >= spec.maxCalls) stop({ kind: "max-calls", message: `stopped at ${spec.maxCalls} model calls` })
      }
    })
    const watchdog = setInterval(() => {
      const now = Date.now()
      if (compactingSince !== undefined) {
        if (now - compactingSince > spec.summaryTimeoutMs) stop({ kind: "timeout", message: `the compaction summary passed its ${spec.summaryTimeoutMs} ms limit` })
      } else if (session.isStreaming && now - lastActivity > spec.callTimeoutMs) stop({ kind: "timeout", message: `no answer from the model for ${spec.callTimeoutMs} ms` })
      if (now > deadline) stop({ kind: "timeout", message: `the run passed its ${spec.runTimeoutMs} ms limit` })
    }, Math.min(1_000, Math.max(50, spec.callTimeoutMs / 4)))
    const send = async (message: UserMessageSpec, sentAs: string) => {
      sent.push({ spec: message, sentAs })
      lastActivity = Date.now()
      await session.prompt(message.text)
      await session.waitForIdle()
    }
    const lastError = (): AssistantMessage | undefined => {
      const last = session.messages.findLast((message) => message.role === "assistant") as AssistantMessage | undefined
      return last?.stopReason === "error" ? last : undefined
    }
    try {
      for (const message of ofSession) {
        if (failure !== undefined) break
        if (sent.some((done) => done.spec.id === message.id)) continue
        await send(message, message.when === "start" ? "start" : "idle")
        const error = lastError()
        if (error !== undefined) failure ??= classifyFailure(error, spec.window)
      }
    } catch (error) {
      failure ??= { kind: "harness", message: error instanceof Error ? error.message : String(error) }
    } finally {
      clearInterval(watchdog)
      unsubscribe()
    }
  }

  const measured = figures()
  const resets = earlierResets
  // A probe that fails (the provider refused it, a timeout) leaves the run's probes out rather than failing the run.
  const plan = spec.tasksDir === undefined ? solutionChanges(task, spec.seed) : undefined
  const probes = await probeRun([...earlierRequests, ...(opened?.probing.requests ?? [])], probePoints, task.facts(spec.seed), plan, answerProbe!).catch(() => [])
  const verdict = task.verify(dirs.cwd, spec.seed, deadline)
  opened?.session.dispose()
  keepBeside(spec, dirs)
  const answeredAll = messages.every((message) => message.mustAnswer !== true || measured.requests.some((request) => request.id === message.id && request.answered))
  const statedBlocked = blockedStatement.test(measured.lastReply ?? "")
  return {
    task: spec.task,
    arm: spec.arm,
    seed: spec.seed,
    model: spec.model,
    scripted: spec.model === "scripted",
    window,
    versions: { piContext: piContextVersion, pi: piVersion, model: `${model!.provider}/${model!.id}` },
    commit: commitUnderTest,
    settings: armSettings(spec),
    ...(spec.model === "scripted" ? { standIn: spec.standIn ?? defaultStandIn } : {}),
    success: verdict.pass && answeredAll && failure === undefined,
    verifierPassed: verdict.pass,
    verifierFailures: verdict.failures,
    requests: measured.requests,
    earlyStop: !verdict.pass && !statedBlocked && failure === undefined,
    statedBlocked,
    stuck: measured.mostRepeatedFailure >= StuckAfter,
    repliesToOlderRequests: measured.repliesToOlderRequests,
    turnovers: measured.turnovers,
    modelCalls: measured.modelCalls,
    tokens: measured.tokens,
    costUsd: measured.costUsd,
    wallMs: Date.now() - started,
    notesWritten: measured.notesWritten,
    historyToolCalls: measured.historyToolCalls,
    failure,
    sessionFile,
    calls: measured.calls,
    probes,
    resets
  }
}

/** The result of a run that never started (the session could not be opened). */
export const emptyResult = (spec: JobSpec, failure: RunFailure, started: number): RunResult => ({
  task: spec.task,
  arm: spec.arm,
  seed: spec.seed,
  model: spec.model,
  scripted: spec.model === "scripted",
  window: spec.window,
  versions: { piContext: piContextVersion, pi: piVersion, model: spec.model },
  commit: commitUnderTest,
  settings: armSettings(spec),
  success: false,
  verifierPassed: false,
  verifierFailures: [],
  requests: [],
  earlyStop: false,
  statedBlocked: false,
  stuck: false,
  repliesToOlderRequests: 0,
  turnovers: { resets: 0, resetsBySource: {}, compactions: 0, total: 0 },
  modelCalls: 0,
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  costUsd: 0,
  wallMs: Date.now() - started,
  notesWritten: 0,
  historyToolCalls: 0,
  failure,
  sessionFile: undefined,
  calls: [],
  probes: [],
  resets: []
})
