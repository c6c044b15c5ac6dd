/**
 * Continuity probes: at fixed points of a task's progress (every
 * `ProbeEvery` calls of Pi's own tools, the same points in every arm), the
 * next request the arm sends (a boot and continuation, a summary and kept
 * turns, a masked context, or the window as it is) is sent once more to the
 * same model, outside the run, with numbered questions appended: one per fact
 * the run has been given so far, the files changed so far, and the file to
 * change next. Each answer line is graded on its own, against the task's
 * truth: a fact's right value with none of its wrong ones (distractors,
 * superseded values), the files the run had really changed, and a file the
 * reference solution changes that the run had not yet.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join, relative } from "node:path"
import type { Message, TranscriptContext } from "@earendil-works/pi-ai"
import { estimateTokens, requestText } from "../scripted/provider.ts"
import { listFiles } from "../tasks/common.ts"
import type { Task, TaskFact } from "../tasks/taskTypes.ts"

export const probeMark = "[eval probe, not part of the task]"

/** Calls of Pi's own tools between two probes. */
export const ProbeEvery = 15

/** The probe: the facts given so far as numbered questions (with the scripted agent's name for each in brackets), then the work. */
export const probeText = (facts: ReadonlyArray<TaskFact>): string =>
  [
    `${probeMark} Do not call any tool, do not change anything: answer from what you know right now, one line per question, ` +
      "starting with its label; say \"I do not know\" where you do not.",
    ...facts.map((fact, index) => `F${index + 1} [${fact.key}]. ${fact.question}`),
    "DONE. Which files have you changed so far? Their paths, comma-separated, or \"none\".",
    "NEXT. Which file will you change next? One path, or \"none\" if nothing is left to change."
  ].join("\n")

/** The questions of a probe's text, in order: each label and the scripted agent's name for its fact. */
export const probeQuestions = (text: string): ReadonlyArray<{ readonly label: string; readonly key: string | undefined }> =>
  [...text.matchAll(/^(F\d+|DONE|NEXT)(?: \[([^\]]+)\])?\. /gm)].map((match) => ({ label: match[1]!, key: match[2] }))

export interface Probe {
  /** Calls of Pi's own tools made before it: the point of progress. */
  readonly point: number
  /** Turnovers (resets or compactions) the run had made before it. */
  readonly turnovers: number
  /** The facts asked (those the run had been given so far). */
  readonly facts: number
  /** The share of them answered right, with none of their wrong values. */
  readonly recall: number
  /** How many of them were answered with a wrong value. */
  readonly wrong: number
  /** The files changed so far, named: the share named, less the files named that had not been changed (at least 0). */
  readonly done: number
  /** Whether the next file named is one the reference solution changes and the run had not yet; undefined when the task gives no plan. */
  readonly next: boolean | undefined
  /** The probed request's size, four characters a token. */
  readonly tokens: number
}

/** Where the harness took a probe: how far the work was, which request came next, and the files changed by then. */
export interface ProbePoint {
  readonly point: number
  /** The index, in the run's requests, of the first one sent after the point. */
  readonly request: number
  readonly changed: ReadonlyArray<string>
}

const textOf = (message: Message): string =>
  message.role === "user" ? (typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : "")).join("")) : ""

const summarizerPrompt = "You are a context summarization assistant"
const compactedMark = "The conversation history before this point was compacted"

const systemTextOf = (context: TranscriptContext): string => {
  const system = context.messages.find((message) => message.role === "system")
  return system === undefined ? "" : typeof system.content === "string" ? system.content : system.content.map((part) => part.text).join("")
}

/** Which window a request belongs to: the boot's window id, or the compaction summary it starts from; undefined for Pi's own summary calls. */
const windowKey = (context: TranscriptContext): string | undefined => {
  if (systemTextOf(context).startsWith(summarizerPrompt)) return undefined
  for (const message of context.messages) {
    const text = textOf(message)
    const window = /^Current window: (.+)$/m.exec(text)
    if (text.startsWith("## Context window") && window !== null) return `boot:${window[1]}`
    if (text.startsWith(compactedMark)) return `summary:${text.length}:${text.slice(0, 400)}`
  }
  return "first"
}

/** The probed request: the request with the probe after it. */
export const probeRequest = (context: TranscriptContext, facts: ReadonlyArray<TaskFact>): TranscriptContext => ({
  ...context,
  messages: [...context.messages, { role: "user", content: probeText(facts), timestamp: 0 } as Message]
})

/** The answer's line for a label (`F1`, `DONE`, `NEXT`), without the label; empty when it gives none. */
export const answerLine = (answer: string, label: string): string => {
  const line = new RegExp(`^\\W*${label}\\b\\W*(?:\\[[^\\]]*\\])?[.:)]?\\s*(.*)$`, "im").exec(answer)
  return line?.[1]?.trim() ?? ""
}

export type FactGrade = "right" | "wrong" | "missing"

/** One fact's answer: right (its value, none of its wrong ones), wrong (a wrong value, beside the right one or not), or missing. */
export const gradeFact = (line: string, fact: TaskFact): FactGrade =>
  (fact.wrong ?? []).some((wrong) => wrong.test(line)) ? "wrong" : fact.pattern.test(line) ? "right" : "missing"

const pathsIn = (line: string): ReadonlyArray<string> => [...line.matchAll(/[\w./-]+\.\w+/g)].map((match) => match[0].replace(/^\.\//, ""))

/** The DONE line against the files really changed: the share named, less the ones named that were not changed. */
export const gradeDone = (line: string, changed: ReadonlyArray<string>): number => {
  const named = new Set(pathsIn(line))
  if (changed.length === 0) return named.size === 0 ? 1 : 0
  const hits = [...named].filter((path) => changed.includes(path)).length
  return Math.max(0, hits - (named.size - hits)) / changed.length
}

/** The NEXT line against what is left of the reference solution's changes: one of them, or "none" when nothing is left. */
export const gradeNext = (line: string, left: ReadonlyArray<string>): boolean => {
  const named = pathsIn(line)[0]
  return left.length === 0 ? named === undefined && /\bnone\b/i.test(line) : named !== undefined && left.includes(named)
}

/** A path as the task's repository names it: relative to the project. */
export const projectPath = (path: string, cwd: string): string => (isAbsolute(path) ? relative(cwd, path) : path.replace(/^\.\//, ""))

/** The files the task's reference solution changes or adds: the generator's truth of the work's steps. */
export const solutionChanges = (task: Task, seed: number): ReadonlyArray<string> => {
  const dir = mkdtempSync(join(tmpdir(), "pi-context-eval-plan-"))
  try {
    task.generate(dir, seed)
    const before = new Map(listFiles(dir).map((path) => [path, readFileSync(join(dir, path), "utf8")]))
    task.solve(dir, seed)
    return listFiles(dir).filter((path) => before.get(path) !== readFileSync(join(dir, path), "utf8"))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Probes the run at its points with `answer` (the same model, one call each). Each probe asks only the facts the
 * run had been given before it (a user message or a tool result of an earlier request showed the right value): a fact
 * the user has not said yet is nothing a window could have kept.
 */
export const probeRun = async (
  requests: ReadonlyArray<TranscriptContext>,
  points: ReadonlyArray<ProbePoint>,
  facts: ReadonlyArray<TaskFact>,
  plan: ReadonlyArray<string> | undefined,
  answer: (context: TranscriptContext) => Promise<string> | string
): Promise<ReadonlyArray<Probe>> => {
  const probes: Array<Probe> = []
  const given = new Set<TaskFact>()
  let seen = 0
  let turnovers = 0
  let window: string | undefined
  const advance = (to: number) => {
    for (; seen < to && seen < requests.length; seen++) {
      const context = requests[seen]!
      const key = windowKey(context)
      if (key !== undefined) {
        if (window !== undefined && key !== window) turnovers++
        window = key
      }
      const text = requestText(context)
      for (const fact of facts) if (!given.has(fact) && (fact.revealedBy ?? fact.pattern).test(text)) given.add(fact)
    }
  }
  for (const point of points) {
    // The first request after the point that is the arm's own (not Pi's summary call).
    let at = point.request
    while (at < requests.length && windowKey(requests[at]!) === undefined) at++
    if (at >= requests.length) continue
    advance(at + 1)
    const asked = facts.filter((fact) => given.has(fact))
    const probed = probeRequest(requests[at]!, asked)
    const reply = await answer(probed)
    const grades = asked.map((fact, index) => gradeFact(answerLine(reply, `F${index + 1}`), fact))
    probes.push({
      point: point.point,
      turnovers,
      facts: asked.length,
      recall: asked.length === 0 ? 1 : grades.filter((grade) => grade === "right").length / asked.length,
      wrong: grades.filter((grade) => grade === "wrong").length,
      done: gradeDone(answerLine(reply, "DONE"), point.changed),
      next: plan === undefined || plan.length === 0 ? undefined : gradeNext(answerLine(reply, "NEXT"), plan.filter((path) => !point.changed.includes(path))),
      tokens: estimateTokens(requestText(probed))
    })
  }
  return probes
}
