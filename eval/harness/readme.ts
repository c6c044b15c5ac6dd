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
import { armsOf, decisionRows, median, pairsNeededText, type PriceReference } from "./report.ts"
import { bestSetting, defaultSetting, matchedRows, matchedVerdict, pairedAgainst, sensitivityRows, settingFigures, type SweepSetting } from "./sweep.ts"
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

/**
 * The committed run in one paragraph, for the README: its size, and the matched comparison in money (each arm at its
 * best setting, then at the defaults), so the guide claims no saving the matched comparison does not show.
 */
export const readmeSummary = (all: ReadonlyArray<RunResult>, sweep: ReadonlyArray<SweepSetting> = [], reference?: PriceReference): string => {
  const results = countedRuns(all)
  const tasks = new Set(results.map((result) => result.task)).size
  const first = results.find((run) => run.arm !== "fresh") ?? results[0]
  const figures = settingFigures(sweep, reference)
  const solved = (arm: string) => {
    const runs = results.filter((run) => run.arm === arm)
    return `${arm} ${runs.filter((run) => run.success).length} of ${runs.length}`
  }
  const ratio = (ours: ReturnType<typeof bestSetting>, theirs: ReturnType<typeof bestSetting>) =>
    ours === undefined || theirs === undefined ? undefined : pairedAgainst(ours, theirs, reference).money?.ratio
  const atDefaults = ratio(defaultSetting(figures, "pi-context"), defaultSetting(figures, "compaction"))
  const verdict = matchedVerdict(figures, reference)
  return `${results.length} scripted runs of ${tasks} tasks on a ${integer(first?.window ?? 0)}-token window (a mechanical regression suite, not a model's success): ` +
    `${armsOf(results).map(solved).join(", ")} solved.` +
    (verdict === "" ? "" : ` ${verdict}`) +
    (atDefaults === undefined ? "" : ` At the defaults it costs ${atDefaults.toFixed(2)} of compaction's money` +
      // The defaults' gap is a settings effect only where matching the settings closes it.
      (verdict.includes("costs what") && atDefaults < 1 ? ", a gap that matching the settings closes: Pi's default compaction turns over later." : "."))
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
export const writeReadmeFigures = (repoRoot: string, results: ReadonlyArray<RunResult>, sweep: ReadonlyArray<SweepSetting> = [], reference?: PriceReference): void => {
  rewrite(join(repoRoot, figuresPage), readmeFigures(results, sweep, reference), figuresMarkers)
  rewrite(join(repoRoot, summaryPage), readmeSummary(results, sweep, reference), summaryMarkers)
}
