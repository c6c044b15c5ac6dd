/**
 * The eval figures the guide cites, written from results.jsonl by code:
 * `npm run eval` into the committed folder (or `--report` on it) rewrites
 * docs/eval.md and the README's one-paragraph summary between their markers,
 * and a test fails when either disagrees with the results, so no figure
 * there is typed by hand.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { countedRuns } from "./paired.ts"
import { armsOf, decisionRows, median, pairedRows, pairsNeededText, tokensPerSolved } from "./report.ts"
import type { RunResult } from "./types.ts"

export const readmeStart = "<!-- eval-figures:start (written by npm run eval from eval/results/scripted/results.jsonl; do not edit) -->"
export const readmeEnd = "<!-- eval-figures:end -->"

/** The markers of a generated block: the figures in docs/eval.md, the summary in the README. */
export interface Markers {
  readonly start: string
  readonly end: string
}

export const figuresMarkers: Markers = { start: readmeStart, end: readmeEnd }
export const summaryMarkers: Markers = {
  start: "<!-- eval-summary:start (written by npm run eval from eval/results/scripted/results.jsonl; do not edit) -->",
  end: "<!-- eval-summary:end -->"
}

/** Where the figures go, from the repository's root: the full block, and the README's summary of it. */
export const figuresPage = join("docs", "eval.md")
export const summaryPage = "README.md"

const integer = (value: number) => Math.round(value).toLocaleString("en-US")

/** The committed run in a few lines: what it was, the decision table, and the one comparison it supports. */
export const readmeFigures = (all: ReadonlyArray<RunResult>): string => {
  const results = countedRuns(all)
  const arms = armsOf(results)
  const tasks = [...new Set(results.map((result) => result.task))]
  const seeds = median(tasks.map((task) => results.filter((run) => run.task === task && run.arm === arms[0]).length))
  const first = results.find((run) => run.arm !== "fresh") ?? results[0]
  const commits = [...new Set(results.map((run) => run.commit ?? "unknown"))]
  const perSolved = (arm: string) => tokensPerSolved(results.filter((run) => run.arm === arm))
  const ours = perSolved("pi-context")
  const theirs = perSolved("compaction")
  const comparison = ours === undefined || theirs === undefined
    ? ""
    : `On this run pi-context spends ${(ours / theirs).toFixed(2)} of compaction's tokens per solved task ` +
      `(${integer(ours)} against ${integer(theirs)}).`
  return [
    `${results.length} runs: ${tasks.length} tasks × ${arms.length} arms (${arms.join(", ")}) × ${seeds} seeds, window ${integer(first?.window ?? 0)}, ` +
    `Pi ${first?.versions.pi ?? "?"}, pi-context at ${commits.join(", ")}.`,
    "",
    ...decisionRows(results),
    "",
    comparison,
    "",
    "Paired with compaction on the same task and seed:",
    "",
    ...pairedRows(results),
    "",
    pairsNeededText()
  ].join("\n").trimEnd()
}

/** The committed run in one paragraph, for the README: its size, and what each arm solved at what cost against compaction. */
export const readmeSummary = (all: ReadonlyArray<RunResult>): string => {
  const results = countedRuns(all)
  const arms = armsOf(results)
  const tasks = new Set(results.map((result) => result.task)).size
  const first = results.find((run) => run.arm !== "fresh") ?? results[0]
  const solved = (arm: string) => {
    const runs = results.filter((run) => run.arm === arm)
    return `${runs.filter((run) => run.success).length} of ${runs.length}`
  }
  const ours = tokensPerSolved(results.filter((run) => run.arm === "pi-context"))
  const theirs = tokensPerSolved(results.filter((run) => run.arm === "compaction"))
  const cost = ours === undefined || theirs === undefined
    ? ""
    : ` and spent ${(ours / theirs).toFixed(2)} of compaction's tokens per solved task (${integer(ours)} against ${integer(theirs)})`
  const others = arms.filter((arm) => arm !== "pi-context").map((arm) => `${arm} ${solved(arm)}`)
  return `${results.length} runs of ${tasks} tasks on a ${integer(first?.window ?? 0)}-token window: pi-context solved ${solved("pi-context")}${cost}` +
    `${others.length === 0 ? "" : `; ${others.join(", ")}`}.`
}

/** `text` with `content` put between its markers; the markers must be there, once. */
export const withFigures = (text: string, content: string, markers: Markers = figuresMarkers): string => {
  const start = text.indexOf(markers.start)
  const end = text.indexOf(markers.end)
  if (start < 0 || end < start || text.indexOf(markers.start, start + 1) >= 0) throw new Error(`the page lacks the markers ${markers.start} (or has them twice)`)
  return `${text.slice(0, start + markers.start.length)}\n${content}\n${text.slice(end)}`
}

/** What stands between a page's markers, as written. */
export const figuresIn = (text: string, markers: Markers = figuresMarkers): string => {
  const start = text.indexOf(markers.start)
  const end = text.indexOf(markers.end)
  return start < 0 || end < start ? "" : text.slice(start + markers.start.length, end).trim()
}

const rewrite = (path: string, content: string, markers: Markers) => writeFileSync(path, withFigures(readFileSync(path, "utf8"), content, markers))

/** Writes the committed run's figures into docs/eval.md and its summary into the README, under `repoRoot`. */
export const writeReadmeFigures = (repoRoot: string, results: ReadonlyArray<RunResult>): void => {
  rewrite(join(repoRoot, figuresPage), readmeFigures(results), figuresMarkers)
  rewrite(join(repoRoot, summaryPage), readmeSummary(results), summaryMarkers)
}
