/**
 * The line sweep's table: pi-context's runs at several settings of its lines,
 * each folder of a sweep one setting (its results.jsonl), against the
 * compaction runs at the same window. Written by `npm run eval -- --sweep DIR`
 * into DIR/sweep.md, from the results alone.
 */
import { median, tokensPerSolved } from "./report.ts"
import type { RunResult } from "./types.ts"

export interface SweepSetting {
  /** The folder's name: what the setting is called in the table. */
  readonly name: string
  readonly results: ReadonlyArray<RunResult>
}

const integer = (value: number) => Math.round(value).toLocaleString("en-US")

/** pi-context's lines a run was given (tokens left), or "defaults". */
const linesOf = (run: RunResult | undefined): string => {
  const set = (run?.settings as { readonly "pi-context"?: { guidanceLine: number; warningLine: number; hardLine: number } } | undefined)?.["pi-context"]
  return set === undefined ? "defaults" : `${integer(set.guidanceLine)} / ${integer(set.warningLine)} / ${integer(set.hardLine)}`
}

export const sweepTable = (settings: ReadonlyArray<SweepSetting>): string => {
  const rows: Array<string> = []
  for (const setting of settings) {
    const windows = [...new Set(setting.results.map((run) => run.window))]
    for (const window of windows) {
      const atWindow = setting.results.filter((run) => run.window === window)
      const ours = atWindow.filter((run) => run.arm === "pi-context")
      if (ours.length === 0) continue
      const baseline = settings.flatMap((other) => other.results).filter((run) => run.arm === "compaction" && run.window === window)
      const perSolved = tokensPerSolved(ours)
      const theirs = tokensPerSolved(baseline)
      rows.push(
        `| ${setting.name} | ${integer(window)} | ${linesOf(ours[0])} | ${perSolved === undefined ? "none solved" : integer(perSolved)} | ` +
          `${perSolved === undefined || theirs === undefined ? "–" : (perSolved / theirs).toFixed(2)} | ${ours.filter((run) => run.success).length}/${ours.length} | ` +
          `${median(ours.map((run) => run.turnovers.total))} | ${integer(median(ours.map((run) => run.modelCalls)))} |`
      )
    }
  }
  return [
    "# pi-context's lines, swept",
    "",
    "Each row: pi-context's runs at one setting of its guidance, warning and hard lines (tokens left in the window; " +
      "\"defaults\": the lines it derives from the window), on the scripted agent; tokens per solved task against the compaction runs of the sweep at the same window.",
    "",
    "| setting | window | lines (guidance / warning / hard) | tokens per solved task | against compaction | success | turnovers (median) | model calls (median) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    ""
  ].join("\n")
}
