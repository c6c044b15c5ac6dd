/**
 * The README's eval figures, written from results.jsonl by code: `npm run eval`
 * into the committed folder (or `--report` on it) rewrites the README between
 * its markers, and a test fails when the two disagree, so no figure there is
 * typed by hand.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { countedRuns } from "./paired.ts"
import { armsOf, decisionRows, median, pairedRows, pairsNeededText, tokensPerSolved } from "./report.ts"
import type { RunResult } from "./types.ts"

export const readmeStart = "<!-- eval-figures:start (written by npm run eval from eval/results/scripted/results.jsonl; do not edit) -->"
export const readmeEnd = "<!-- eval-figures:end -->"

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

/** `readme` with the figures put between its markers; the markers must be there, once. */
export const withFigures = (readme: string, figures: string): string => {
  const start = readme.indexOf(readmeStart)
  const end = readme.indexOf(readmeEnd)
  if (start < 0 || end < start || readme.indexOf(readmeStart, start + 1) >= 0) throw new Error("README.md lacks the eval figures' markers (or has them twice)")
  return `${readme.slice(0, start + readmeStart.length)}\n${figures}\n${readme.slice(end)}`
}

/** The figures between the README's markers, as written. */
export const figuresIn = (readme: string): string => {
  const start = readme.indexOf(readmeStart)
  const end = readme.indexOf(readmeEnd)
  return start < 0 || end < start ? "" : readme.slice(start + readmeStart.length, end).trim()
}

export const writeReadmeFigures = (readmePath: string, results: ReadonlyArray<RunResult>): void =>
  writeFileSync(readmePath, withFigures(readFileSync(readmePath, "utf8"), readmeFigures(results)))
