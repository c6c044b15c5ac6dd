/**
 * The sweep: each arm's runs at several settings of what turns its window over
 * (compaction's reserve and kept tokens, pi-context's lines, the mask's kept
 * turns), and the stand-in variants, each folder of a sweep one run. Pure
 * functions of the results: what each setting cost per solved task in tokens
 * and in money, each arm's best setting, and the comparisons the report and
 * the README lead with.
 */
import { countedRuns, pairedTokenRatio, pairsOf, type PairedRatio } from "./paired.ts"
import { armsOf, costOf, median, moneyPerSolved, type PriceReference, tokensPerSolved, totalTokens } from "./report.ts"
import { compactionAt, defaultMask } from "./settings.ts"
import { standInName } from "../scripted/standIn.ts"
import type { RunResult } from "./types.ts"

export interface SweepSetting {
  /** The folder's name. */
  readonly name: string
  readonly results: ReadonlyArray<RunResult>
}

const integer = (value: number) => Math.round(value).toLocaleString("en-US")
const usd = (value: number) => `$${value.toFixed(2)}`

interface PiSettings {
  readonly compaction?: { readonly reserveTokens?: number; readonly keepRecentTokens?: number }
  readonly "pi-context"?: { readonly guidanceLine: number; readonly warningLine: number; readonly hardLine: number }
  readonly masking?: { readonly keepTurns: number; readonly step: number }
}

/** What turns an arm's window over in a run, in words, and whether that is the arm's default. */
export const settingOf = (run: RunResult): { readonly label: string; readonly isDefault: boolean } => {
  const settings = run.settings as PiSettings
  const defaults = compactionAt(run.window)
  const reserve = settings.compaction?.reserveTokens ?? defaults.reserveTokens
  const keep = settings.compaction?.keepRecentTokens ?? defaults.keepRecentTokens
  const compactionDefault = reserve === defaults.reserveTokens && keep === defaults.keepRecentTokens
  const compaction = `reserve ${integer(reserve)}, keep ${integer(keep)}`
  const mask = settings.masking ?? defaultMask
  const maskDefault = mask.keepTurns === defaultMask.keepTurns && mask.step === defaultMask.step
  const masked = `last ${mask.keepTurns} turns, steps of ${mask.step}`
  switch (run.arm) {
    case "compaction":
      return { label: compaction, isDefault: compactionDefault }
    case "pi-context": {
      const lines = settings["pi-context"]
      const label = lines === undefined ? "lines from the window" : `lines ${integer(lines.guidanceLine)} / ${integer(lines.warningLine)} / ${integer(lines.hardLine)}`
      return { label: compactionDefault ? label : `${label}, ${compaction}`, isDefault: lines === undefined && compactionDefault }
    }
    case "masking":
      return { label: masked, isDefault: maskDefault }
    case "hybrid":
      return { label: compactionDefault ? masked : `${masked}, ${compaction}`, isDefault: maskDefault && compactionDefault }
    default:
      return { label: "defaults", isDefault: true }
  }
}

/** One arm at one setting (and stand-in variant): its runs and what a solved task cost. */
export interface SettingFigures {
  readonly arm: string
  readonly setting: string
  readonly isDefault: boolean
  readonly standIn: string
  readonly runs: ReadonlyArray<RunResult>
  readonly solved: number
  readonly overflowed: number
  readonly tokensPerSolved: number | undefined
  readonly moneyPerSolved: number | undefined
  /** The share of the prompt tokens read from the provider's cache. */
  readonly cacheReadShare: number
  readonly turnovers: number
}

export const cacheReadShare = (runs: ReadonlyArray<RunResult>): number => {
  const prompt = runs.reduce((sum, run) => sum + run.tokens.input + run.tokens.cacheRead + run.tokens.cacheWrite, 0)
  return prompt === 0 ? 0 : runs.reduce((sum, run) => sum + run.tokens.cacheRead, 0) / prompt
}

export const isOverflow = (run: RunResult): boolean => run.failure?.kind === "context-overflow"

/**
 * Every arm × setting × stand-in of the runs, a run counted once (the first folder that has it). Runs the provider or
 * the harness ended are left out, as in every figure.
 */
export const settingFigures = (settings: ReadonlyArray<SweepSetting>, reference: PriceReference | undefined): ReadonlyArray<SettingFigures> => {
  const groups = new Map<string, Map<string, RunResult>>()
  for (const setting of settings) {
    for (const run of countedRuns(setting.results)) {
      const key = JSON.stringify([run.arm, settingOf(run).label, standInName(run.standIn), run.window])
      const group = groups.get(key) ?? new Map<string, RunResult>()
      const id = `${run.task}:${run.seed}`
      if (!group.has(id)) group.set(id, run)
      groups.set(key, group)
    }
  }
  return [...groups.values()].map((group) => {
    const runs = [...group.values()]
    const first = runs[0]!
    return {
      arm: first.arm,
      setting: settingOf(first).label,
      isDefault: settingOf(first).isDefault,
      standIn: standInName(first.standIn),
      runs,
      solved: runs.filter((run) => run.success).length,
      overflowed: runs.filter(isOverflow).length,
      tokensPerSolved: tokensPerSolved(runs),
      moneyPerSolved: moneyPerSolved(runs, reference),
      cacheReadShare: cacheReadShare(runs),
      turnovers: median(runs.map((run) => run.turnovers.total))
    }
  })
}

/** An arm's best setting (default stand-in only): the most runs solved, then the lowest money per solved task, then tokens. */
export const bestSetting = (figures: ReadonlyArray<SettingFigures>, arm: string): SettingFigures | undefined =>
  figures.filter((figure) => figure.arm === arm && figure.standIn === "default" && figure.runs.length > 0)
    .sort((a, b) => b.solved / b.runs.length - a.solved / a.runs.length || (a.moneyPerSolved ?? Infinity) - (b.moneyPerSolved ?? Infinity) || (a.tokensPerSolved ?? Infinity) - (b.tokensPerSolved ?? Infinity))[0]

export const defaultSetting = (figures: ReadonlyArray<SettingFigures>, arm: string): SettingFigures | undefined =>
  figures.find((figure) => figure.arm === arm && figure.standIn === "default" && figure.isDefault)

/** Two settings' runs against each other on the same tasks and seeds (pairs both solved): tokens and money. */
export const pairedAgainst = (
  ours: SettingFigures,
  theirs: SettingFigures,
  reference: PriceReference | undefined
): { readonly tokens: PairedRatio | undefined; readonly money: PairedRatio | undefined } => {
  const pairs = pairsOf([...ours.runs.map((run) => ({ ...run, arm: "ours" })), ...theirs.runs.map((run) => ({ ...run, arm: "theirs" }))], "ours", "theirs")
  return { tokens: pairedTokenRatio(pairs, totalTokens), money: pairedTokenRatio(pairs, (run) => costOf(run, reference)) }
}

const ratioText = (value: number | undefined, base: number | undefined) => (value === undefined || base === undefined ? "–" : (value / base).toFixed(2))
const intervalText = (ratio: PairedRatio | undefined) => (ratio === undefined ? "–" : `${ratio.ratio.toFixed(2)} (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}, ${ratio.pairs} pairs)`)
const solvedText = (figure: SettingFigures) => `${figure.solved}/${figure.runs.length}`

/**
 * The matched comparison: each arm at its defaults and at its best setting, against compaction at the same, in
 * money and tokens per solved task; then pi-context paired with compaction at each arm's best. Empty when the sweep
 * has no compaction runs.
 */
export const matchedRows = (figures: ReadonlyArray<SettingFigures>, reference: PriceReference | undefined): ReadonlyArray<string> => {
  const baseDefault = defaultSetting(figures, "compaction")
  const baseBest = bestSetting(figures, "compaction")
  if (baseDefault === undefined || baseBest === undefined) return []
  const arms = armsOf(figures.flatMap((figure) => figure.runs.slice(0, 1)))
  const cells = (figure: SettingFigures | undefined, base: SettingFigures) =>
    figure === undefined
      ? "– | – | – | – | – | –"
      : `${figure.setting} | ${figure.moneyPerSolved === undefined ? "none solved" : usd(figure.moneyPerSolved)} | ${ratioText(figure.moneyPerSolved, base.moneyPerSolved)} | ` +
        `${figure.tokensPerSolved === undefined ? "none solved" : integer(figure.tokensPerSolved)} | ${ratioText(figure.tokensPerSolved, base.tokensPerSolved)} | ${solvedText(figure)}`
  const ours = { atDefaults: defaultSetting(figures, "pi-context"), atBest: bestSetting(figures, "pi-context") }
  const paired = (a: SettingFigures | undefined, b: SettingFigures) => (a === undefined ? undefined : pairedAgainst(a, b, reference))
  const atDefaults = paired(ours.atDefaults, baseDefault)
  const atBest = paired(ours.atBest, baseBest)
  return [
    "| arm | defaults: setting | money per solved task | against compaction | tokens per solved task | against compaction | solved | best setting | money per solved task | against compaction's best | tokens per solved task | against compaction's best | solved |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...arms.map((arm) => `| ${arm} | ${cells(defaultSetting(figures, arm), baseDefault)} | ${cells(bestSetting(figures, arm), baseBest)} |`),
    "",
    "pi-context paired with compaction on the same tasks and seeds (geometric mean over the pairs both solved, 95% interval):",
    "",
    "| comparison | money | tokens |",
    "| --- | --- | --- |",
    `| defaults against defaults | ${intervalText(atDefaults?.money)} | ${intervalText(atDefaults?.tokens)} |`,
    `| each at its best setting | ${intervalText(atBest?.money)} | ${intervalText(atBest?.tokens)} |`
  ]
}

/** The one sentence the matched comparison supports, for the README. */
export const matchedVerdict = (figures: ReadonlyArray<SettingFigures>, reference: PriceReference | undefined): string => {
  const ours = bestSetting(figures, "pi-context")
  const theirs = bestSetting(figures, "compaction")
  if (ours === undefined || theirs === undefined) return ""
  const money = pairedAgainst(ours, theirs, reference).money
  if (money === undefined) return ""
  const verdict = money.high < 1 ? "costs less than" : money.low > 1 ? "costs more than" : "costs what"
  return `At each arm's best setting, pi-context ${verdict} compaction costs on the scripted suite: ${money.ratio.toFixed(2)} of its money per task ` +
    `(${money.low.toFixed(2)}–${money.high.toFixed(2)}, ${money.pairs} pairs both solved)${verdict === "costs what" ? ", no saving" : ""}.`
}

/** Cost against success over the sweep: every setting of every arm (default stand-in). */
export const sweepRows = (figures: ReadonlyArray<SettingFigures>): ReadonlyArray<string> => {
  const rows = figures.filter((figure) => figure.standIn === "default")
    .sort((a, b) => armsOf([a.runs[0]!, b.runs[0]!]).indexOf(a.arm) - armsOf([a.runs[0]!, b.runs[0]!]).indexOf(b.arm) || (a.moneyPerSolved ?? Infinity) - (b.moneyPerSolved ?? Infinity))
  return [
    "| arm | setting | solved | overflowed | money per solved task | tokens per solved task | cache reads of the prompt | turnovers (median) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((figure) =>
      `| ${figure.arm} | ${figure.setting}${figure.isDefault ? " (default)" : ""} | ${solvedText(figure)} | ${figure.overflowed} | ` +
      `${figure.moneyPerSolved === undefined ? "none solved" : usd(figure.moneyPerSolved)} | ${figure.tokensPerSolved === undefined ? "none solved" : integer(figure.tokensPerSolved)} | ` +
      `${Math.round(figure.cacheReadShare * 100)}% | ${figure.turnovers} |`)
  ]
}

const probeShare = (runs: ReadonlyArray<RunResult>): string => {
  const probes = runs.flatMap((run) => run.probes ?? [])
  return probes.length === 0 ? "–" : `${Math.round((probes.reduce((sum, probe) => sum + probe.recall, 0) / probes.length) * 100)}%`
}

/** The sensitivity table: each stand-in variant, every arm at its defaults, and how far each moves from the default stand-in. */
export const sensitivityRows = (figures: ReadonlyArray<SettingFigures>, reference: PriceReference | undefined): ReadonlyArray<string> => {
  const atDefaults = figures.filter((figure) => figure.isDefault)
  const variants = [...new Set(atDefaults.map((figure) => figure.standIn))].sort((a, b) => (a === "default" ? -1 : b === "default" ? 1 : a.localeCompare(b)))
  if (variants.length < 2) return []
  const arms = armsOf(atDefaults.map((figure) => figure.runs[0]!))
  const cell = (variant: string, arm: string) => {
    const figure = atDefaults.find((candidate) => candidate.arm === arm && candidate.standIn === variant)
    if (figure === undefined) return "–"
    const base = atDefaults.find((candidate) => candidate.arm === arm && candidate.standIn === "default")
    const moved = variant === "default" || base === undefined ? "" : ` (${figure.solved - base.solved >= 0 ? "+" : "−"}${Math.abs(figure.solved - base.solved)})`
    return `${solvedText(figure)}${moved} · ${figure.moneyPerSolved === undefined ? "none solved" : usd(figure.moneyPerSolved)} · ${probeShare(figure.runs)}`
  }
  void reference
  return [
    `| stand-in | ${arms.join(" | ")} |`,
    `| --- | ${arms.map(() => "---").join(" | ")} |`,
    ...variants.map((variant) => `| ${variant} | ${arms.map((arm) => cell(variant, arm)).join(" | ")} |`)
  ]
}

export const sweepTable = (settings: ReadonlyArray<SweepSetting>, reference: PriceReference | undefined): string => {
  const figures = settingFigures(settings, reference)
  const matched = matchedRows(figures, reference)
  const sensitivity = sensitivityRows(figures, reference)
  return [
    "# The arms' settings, swept",
    "",
    "Each row: one arm at one setting of what turns its window over, on the scripted agent, every task and seed. " +
      `Money at ${reference?.name ?? "the priced model"}'s rates for cache reads, cache writes and output; ` +
      "the best setting of an arm solves the most runs, then costs the least money per solved task.",
    "",
    ...(matched.length === 0 ? [] : ["## Defaults against defaults, and each arm at its best", "", ...matched, ""]),
    "## Cost against success",
    "",
    ...sweepRows(figures),
    "",
    ...(sensitivity.length === 0 ? [] : ["## Stand-in variants", "", "Each cell: runs solved (the change from the default stand-in) · money per solved task · probe facts right.", "", ...sensitivity, ""])
  ].join("\n")
}
