/**
 * The README's eval figures, written from results.jsonl by code: `npm run eval`
 * into the committed folder (or `--report` on it) rewrites the README between
 * its markers, and a test fails when the two disagree, so no figure there is
 * typed by hand.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { countedRuns } from "./paired.ts"
import { armsOf, decisionRows, median, pairsNeededText, type PriceReference } from "./report.ts"
import { matchedRows, matchedVerdict, sensitivityRows, settingFigures, type SweepSetting } from "./sweep.ts"
import type { RunResult } from "./types.ts"

export const readmeStart = "<!-- eval-figures:start (written by npm run eval from eval/results/scripted/results.jsonl; do not edit) -->"
export const readmeEnd = "<!-- eval-figures:end -->"

const integer = (value: number) => Math.round(value).toLocaleString("en-US")

/**
 * The committed run in a few lines: what it was, the matched comparison (each arm at its defaults and at its best
 * setting, money beside tokens), the sentence it supports, what a solved task costs at the defaults, and how each arm
 * moves with the stand-in.
 */
export const readmeFigures = (all: ReadonlyArray<RunResult>, sweep: ReadonlyArray<SweepSetting> = [], reference?: PriceReference): string => {
  const results = countedRuns(all)
  const arms = armsOf(results)
  const tasks = [...new Set(results.map((result) => result.task))]
  const seeds = median(tasks.map((task) => results.filter((run) => run.task === task && run.arm === arms[0]).length))
  const first = results.find((run) => run.arm !== "fresh") ?? results[0]
  const commits = [...new Set(results.map((run) => run.commit ?? "unknown"))]
  const figures = settingFigures(sweep, reference)
  const matched = matchedRows(figures, reference)
  const sensitivity = sensitivityRows(figures, reference)
  return [
    `${results.length} runs of the scripted agent (the mechanical regression suite, not a language model): ${tasks.length} tasks × ${arms.length} arms (${arms.join(", ")}) × ${seeds} seeds, ` +
      `window ${integer(first?.window ?? 0)}, Pi ${first?.versions.pi ?? "?"}, pi-context at ${commits.join(", ")}; money at ${reference?.name ?? "the priced model"}'s rates ` +
      "for cache reads, cache writes and output.",
    "",
    ...(matched.length === 0 ? [] : ["Each arm at its defaults and at its best setting (the sweep of eval/results/sweep/):", "", ...matched, "", matchedVerdict(figures, reference), ""]),
    "At the defaults, what a solved task costs:",
    "",
    ...decisionRows(results, reference),
    "",
    ...(sensitivity.length === 0 ? [] : [
      "How each arm moves when the stand-in changes (runs solved, the change from the default stand-in · money per solved task · probe facts right):",
      "",
      ...sensitivity,
      ""
    ]),
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

export const writeReadmeFigures = (readmePath: string, results: ReadonlyArray<RunResult>, sweep: ReadonlyArray<SweepSetting> = [], reference?: PriceReference): void =>
  writeFileSync(readmePath, withFigures(readFileSync(readmePath, "utf8"), readmeFigures(results, sweep, reference)))
