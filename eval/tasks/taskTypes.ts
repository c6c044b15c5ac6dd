/** What one eval task is: a starting repository, the user's messages, a verifier, and how the scripted agent works it. */

export interface UserMessageSpec {
  readonly id: string
  readonly text: string
  /**
   * When the harness sends it: with the first prompt, as the next prompt once
   * the agent is idle, or steered into the run at the first turn after the
   * agent's `afterWorkCalls`-th call of Pi's own tools (`progress`: the same
   * point of the work in every arm, since notes and reset calls do not count;
   * sent when idle instead if the run never gets there).
   */
  readonly when: "start" | "idle" | "progress"
  /** For `progress`: how many calls of Pi's own tools (read, bash, edit, write, grep, find, ls) come first. */
  readonly afterWorkCalls?: number
  /** A reply that answers this request matches this (for questions); absent: any text reply after it counts. */
  readonly answer?: RegExp
  /** The run succeeds only if this request is answered. */
  readonly mustAnswer?: boolean
  /** Which of the task's sessions sends it (1 unless the task has `sessions`): each session starts with its own `start` messages. */
  readonly session?: number
}

export interface Verdict {
  readonly pass: boolean
  readonly failures: ReadonlyArray<string>
}

/** A tool call the scripted agent makes. */
export interface ToolCallSpec {
  readonly name: string
  readonly args: Record<string, unknown>
}

/** What the scripted agent does next: tool calls (the run goes on) or a final reply (the run ends). */
export type Action =
  | { readonly kind: "call"; readonly steps: ReadonlyArray<string>; readonly calls: ReadonlyArray<ToolCallSpec>; readonly say?: string }
  | { readonly kind: "reply"; readonly steps: ReadonlyArray<string>; readonly text: string }

/** A tool result the request shows, with the call that produced it. */
export interface SeenResult {
  readonly tool: string
  readonly args: Record<string, unknown>
  readonly text: string
  readonly isError: boolean
}

/** What the scripted agent knows: only what the request it was sent shows. */
export interface Knowledge {
  readonly facts: Map<string, string>
  readonly done: Set<string>
  /** Tool results visible in the request, oldest first. */
  readonly results: ReadonlyArray<SeenResult>
  /** The tools the request offers. */
  readonly tools: ReadonlyArray<string>
}

export interface ScriptedSolver {
  /** Adds to `facts` what `text` (a user message, a tool result, or a summary) says. */
  readonly learn: (text: string, facts: Map<string, string>, call?: ToolCallSpec) => void
  /** The next action, given what is known. */
  readonly next: (knowledge: Knowledge) => Action
}

/**
 * A fact the task needs remembered, as the continuity probe asks and grades it:
 * one question, answered on its own line, so that text about something else (a
 * file list, another fact) can neither earn it nor hide in it.
 */
export interface TaskFact {
  readonly name: string
  /** What the probe asks (one line). */
  readonly question: string
  /** The right answer; graded only within the answer's line for this question. */
  readonly pattern: RegExp
  /** Values that are there to be mistaken for it (distractors, values the user has since changed): stating one is a wrong answer, even beside the right one. */
  readonly wrong?: ReadonlyArray<RegExp>
  /** What shows the run has been given it, when the right value alone also appears before (a file list, a config's keys); absent: `pattern`. */
  readonly revealedBy?: RegExp
  /** Where it lives: only in a tool's output, or said once by the user. */
  readonly source: "tool output" | "said once"
  /** The scripted agent's name for it (its `- fact key = value` notation), so the stand-in can answer the question. */
  readonly key: string
}

const numberWords = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]

/**
 * A reply that gives the count `count`, however it is phrased ("12 files", "files changed: 12", "twelve"):
 * the numeral standing alone (not part of 120 or 1.2), or its word. A wrong count is no answer.
 */
export const countAnswer = (count: number): RegExp =>
  new RegExp(`(?<![\\d.,])${count}(?![\\d]|[.,]\\d)${numberWords[count] === undefined ? "" : `|\\b${numberWords[count]}\\b`}`, "i")

/** A pattern matching `text` literally. */
export const literally = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))

export interface Task {
  readonly name: string
  /** Which of the issue's six kinds this task covers. */
  readonly kind: string
  /** `deadline` (epoch ms): when the run must be over; a task's own commands stop by then. */
  readonly generate: (dir: string, seed: number, deadline?: number) => void
  readonly messages: (seed: number) => ReadonlyArray<UserMessageSpec>
  readonly verify: (dir: string, seed: number, deadline?: number) => Verdict
  /**
   * What the task needs remembered across a turnover, as ground truth: each a
   * name and a pattern the continuity probe's answer must hold (a value the
   * user gave or a result showed, never the arm's own words).
   */
  readonly facts: (seed: number) => ReadonlyArray<TaskFact>
  /** The shell command a folder task runs in the fresh repository first: shown before `--resume` runs it. */
  readonly setup?: string
  /** Applies a reference solution to a freshly generated repository. */
  readonly solve: (dir: string, seed: number) => void
  readonly solver: ScriptedSolver
  /**
   * How many sessions a run is (default 1): each a fresh Pi session in the same project, agent dir and notes
   * root, sent the messages whose `session` names it, so only what the first kept outside its chat reaches the next.
   */
  readonly sessions?: number
}
