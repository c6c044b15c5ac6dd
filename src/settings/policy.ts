import { checkDigestTokens, DigestTokenRange } from "./digestTokens.ts"
import { compileGlob, hasGlobSyntax } from "../kernel/glob.ts"
import { type LineDerivations, type Lines, orderLines, Runway } from "./lines.ts"
import { parseSyncSettings, type SyncRemoteSetting, type SyncSource } from "./sync.ts"
import { SettingsKey } from "../kernel/protocol.ts"
import { type HomeList, resolveHomeList } from "./protection.ts"
import { type Candidate, checkAfterReset, checkBoolean, checkNames, checkTokens, checkTrace, dedupe, pick, type Sourced, type TraceLevel, DefaultProtectedHomes } from "./checks.ts"
import { badModelKeys, isModelKey, unknownTopKeys } from "./keys.ts"
import { isSettingsObject, type ThresholdNotice, type ValueSource } from "./notice.ts"
import { formatTokens } from "../kernel/tokenCount.ts"
import type { ModelInfo } from "../kernel/PiSession.ts"

export type { LineDerivation, LineDerivations, Lines } from "./lines.ts"
export type { Sourced, TraceLevel } from "./checks.ts"
export type { HomeList } from "./protection.ts"
export {
  isSettingsObject,
  keepWrittenNumbers,
  noticeKey,
  renderNotice,
  showValue,
  type ThresholdNotice,
  type ValueSource,
  WrittenNumber
} from "./notice.ts"

/**
 * Threshold arithmetic: merges the `pi-context` key of every settings source,
 * validates and clamps each value, and derives the budget lines for one model.
 * Pure and total: a bad value becomes a notice and a safe value, never a throw.
 */

export interface ResolvedPolicy {
  readonly enabled: Sourced<boolean>
  readonly automaticReset: Sourced<boolean>
  readonly traceLevel: Sourced<TraceLevel>
  readonly bootBudgetTokens: Sourced<number>
  readonly checkpointCheck: Sourced<boolean> // a window's first wipe_memory without a note is refused
  /** Homes whose existing notes the model changes only with the user's OK; a project only adds to them. */
  readonly protectedHomes: HomeList
  /** Homes the model may not write at all; a project only adds to them. */
  readonly readOnlyHomes: HomeList
  /** The user's own instruction for every new window, carried by every boot; undefined: none. */
  readonly afterReset: Sourced<string | undefined>
  readonly digestTokens: Sourced<number> // the budget of an automatic reset's digest
  /** Pi's `compaction.reserveTokens` for this model, validated. */
  readonly reserve: Sourced<number>
  readonly lines: Lines
  /** How each line got its value: set, Pi's reserve, a default runway (fixed or scaled to the window), or moved to fit. */
  readonly derivations: LineDerivations
  /** The model the lines were derived for, if Pi has one. */
  readonly model: ModelRef | undefined
  /** The `pi-context.models` patterns that matched, least specific first. */
  readonly modelPatterns: ReadonlyArray<string>
  /** `pi-context.sync`, validated: the remotes the note homes travel through; empty, nothing leaves the machine. */
  readonly sync: ReadonlyArray<SyncRemoteSetting>
  readonly notices: ReadonlyArray<ThresholdNotice>
}

export type ModelRef = Pick<ModelInfo, "provider" | "id" | "contextWindow">

/**
 * One whole settings object (as in a settings.json) and where it came from; `pi`: a value in Pi's effective
 * settings that no settings file holds (an SDK host gave it to Pi). Later sources win per key.
 */
export type SettingsSource = SyncSource

/** The shape a programmatic (SDK) user may inject: the same keys as the `pi-context` settings key. */
export interface PolicySettings {
  readonly enabled?: boolean
  readonly automaticReset?: boolean
  readonly traceLevel?: TraceLevel
  readonly bootBudgetTokens?: number
  readonly checkpointCheck?: boolean
  readonly digestTokens?: number
  readonly guidanceLine?: number
  readonly warningLine?: number
  readonly hardLine?: number
  readonly models?: Readonly<Record<string, ModelPolicySettings>>
  readonly sync?: ReadonlyArray<{ readonly homes: ReadonlyArray<string>; readonly remote: string; readonly branch?: string }>
}

export type ModelPolicySettings = Pick<
  PolicySettings,
  "automaticReset" | "bootBudgetTokens" | "guidanceLine" | "warningLine" | "hardLine"
>

export const Defaults = {
  reserveTokens: 16384,
  bootBudgetTokens: 6000,
  traceLevel: "info" as TraceLevel
} as const

type Obj = Readonly<Record<string, unknown>>

/**
 * How specific a `models` pattern is for this model, or undefined when it does not match.
 * Exact ids beat globs; among globs, more literal characters win.
 */
const specificity = (pattern: string, model: ModelRef): number | undefined => {
  const full = `${model.provider}/${model.id}`
  if (pattern === full) return Number.MAX_SAFE_INTEGER
  if (pattern === model.id) return Number.MAX_SAFE_INTEGER - 1
  if (!hasGlobSyntax(pattern)) return undefined
  const glob = compileGlob(pattern)
  return glob(full) || glob(model.id) ? pattern.replace(/[*?]/g, "").length : undefined
}

interface Gathered {
  readonly top: ReadonlyMap<string, Array<Candidate>>
  readonly models: ReadonlyMap<string, Array<Candidate>>
  readonly patterns: ReadonlyArray<string>
}

/** Collects candidates per key, lowest precedence first, from every source's `pi-context` key. */
const gather = (sources: ReadonlyArray<SettingsSource>, model: ModelRef | undefined, notices: Array<ThresholdNotice>): Gathered => {
  const top = new Map<string, Array<Candidate>>()
  const byPattern = new Map<string, { readonly rank: number; readonly entries: Array<{ readonly entry: Obj; readonly source: ValueSource }> }>()
  const overrides: Array<{ readonly pattern: string; readonly entry: Obj; readonly source: ValueSource }> = []
  const push = (map: Map<string, Array<Candidate>>, name: string, candidate: Candidate) => {
    const list = map.get(name)
    if (list === undefined) map.set(name, [candidate])
    else list.push(candidate)
  }
  for (const { source, settings } of sources) {
    const section = isSettingsObject(settings) ? settings[SettingsKey] : undefined
    if (section === undefined) continue
    if (!isSettingsObject(section)) {
      notices.push({ key: SettingsKey, value: section, used: "defaults", reason: "is not an object", outcome: "using the defaults", source })
      continue
    }
    notices.push(...unknownTopKeys(section, source))
    for (const [name, value] of Object.entries(section)) {
      if (name === "models" || value === undefined) continue
      push(top, name, { key: `${SettingsKey}.${name}`, value, source })
    }
    const models = section.models
    if (models === undefined) continue
    if (!isSettingsObject(models)) {
      notices.push({
        key: `${SettingsKey}.models`,
        value: models,
        used: "no model overrides",
        reason: "is not an object",
        outcome: "no model overrides apply",
        source
      })
      continue
    }
    for (const [pattern, entry] of Object.entries(models)) {
      if (!isSettingsObject(entry)) {
        const key = `${SettingsKey}.models["${pattern}"]`
        notices.push({ key, value: entry, used: "ignored", reason: "is not an object", outcome: "it is ignored", source })
        continue
      }
      overrides.push({ pattern, entry, source })
      const rank = model === undefined ? undefined : specificity(pattern, model)
      if (rank === undefined) continue
      const slot = byPattern.get(pattern)
      if (slot === undefined) byPattern.set(pattern, { rank, entries: [{ entry, source }] })
      else slot.entries.push({ entry, source })
    }
  }
  for (const { pattern, entry, source } of overrides) notices.push(...badModelKeys(pattern, entry, source))
  // Model overrides beat every top-level key; among them the most specific pattern wins per key.
  const ordered = [...byPattern.entries()].sort((a, b) => a[1].rank - b[1].rank)
  const models = new Map<string, Array<Candidate>>()
  for (const [pattern, { entries }] of ordered) {
    for (const { entry, source } of entries) {
      for (const [name, value] of Object.entries(entry)) {
        if (value === undefined || !isModelKey(name)) continue
        const key = `${SettingsKey}.models["${pattern}"].${name}`
        push(models, name, source === "injected" || source === "pi" ? { key, value, source } : { key, value, source: "model", file: source })
      }
    }
  }
  return { top, models, patterns: ordered.map(([pattern]) => pattern) }
}

/** Pi's `compaction.reserveTokens` for the model: model override, then the ordinary setting, then Pi's default. */
const resolveReserve = (sources: ReadonlyArray<SettingsSource>, model: ModelRef | undefined, notices: Array<ThresholdNotice>): Sourced<number> => {
  const ordinary: Array<Candidate> = []
  const overrides: Array<Candidate> = []
  const modelKey = model === undefined ? undefined : `${model.provider}/${model.id}`
  for (const { source, settings } of sources) {
    const compaction = isSettingsObject(settings) ? settings.compaction : undefined
    if (!isSettingsObject(compaction)) continue
    if (compaction.reserveTokens !== undefined) {
      ordinary.push({ key: "compaction.reserveTokens", value: compaction.reserveTokens, source })
    }
    const entry = modelKey !== undefined && isSettingsObject(compaction.modelOverrides) ? compaction.modelOverrides[modelKey] : undefined
    if (isSettingsObject(entry) && entry.reserveTokens !== undefined) {
      overrides.push({ key: `compaction.modelOverrides["${modelKey}"].reserveTokens`, value: entry.reserveTokens, source: "model" })
    }
  }
  return pick([...ordinary, ...overrides], checkTokens(false), { value: Defaults.reserveTokens, source: "default" }, notices)
}

const candidatesFor = (gathered: Gathered, name: string): ReadonlyArray<Candidate> => [
  ...(gathered.top.get(name) ?? []),
  ...(gathered.models.get(name) ?? [])
]

/**
 * Where `pi-context.sync`, `protectedHomes` and `readOnlyHomes` are read from: each file's own value (Pi's
 * merge would let a project's list hide the global one), and whether the project's file may add to them.
 */
export interface FileSources {
  readonly sources: ReadonlyArray<SyncSource>
  readonly projectTrusted: boolean
}

/**
 * Resolves the policy for `model` from `sources` (lowest precedence first:
 * global, then project, then injected), merged per key; the sync remotes and
 * the homes' protection from `files` (by default the same sources, the project trusted).
 */
export const resolvePolicy = (
  sources: ReadonlyArray<SettingsSource>,
  model: ModelRef | undefined,
  files: FileSources = { sources, projectTrusted: true }
): ResolvedPolicy => {
  const notices: Array<ThresholdNotice> = []
  const gathered = gather(sources, model, notices)
  const window = model !== undefined && Number.isSafeInteger(model.contextWindow) && model.contextWindow >= 4
    ? model.contextWindow
    : undefined
  const dflt = <A>(value: A): Sourced<A> => ({ value, source: "default" })

  const enabled = pick(candidatesFor(gathered, "enabled"), checkBoolean, dflt(true), notices)
  const automaticReset = pick(candidatesFor(gathered, "automaticReset"), checkBoolean, dflt(true), notices)
  const traceLevel = pick(candidatesFor(gathered, "traceLevel"), checkTrace, dflt(Defaults.traceLevel), notices)
  let bootBudgetTokens = pick(candidatesFor(gathered, "bootBudgetTokens"), checkTokens(true), dflt(Defaults.bootBudgetTokens), notices)
  if (window !== undefined && bootBudgetTokens.value >= window / 2) {
    const used = Math.floor(window / 8)
    if (bootBudgetTokens.source !== "default") notices.push({
      key: `${SettingsKey}.bootBudgetTokens`,
      value: bootBudgetTokens.value,
      used,
      reason: `leaves too little of this model's ${formatTokens(window)}-token window`,
      source: bootBudgetTokens.file ?? bootBudgetTokens.source
    })
    bootBudgetTokens = { ...bootBudgetTokens, value: used }
  }

  const checkpointCheck = pick(candidatesFor(gathered, "checkpointCheck"), checkBoolean, dflt(true), notices)
  const protectedHomes = resolveHomeList("protectedHomes", files.sources, files.projectTrusted, DefaultProtectedHomes, notices)
  const readOnlyHomes = resolveHomeList("readOnlyHomes", files.sources, files.projectTrusted, [], notices)
  const afterResetFrom = notices.length
  const afterReset = pick<string | undefined>(candidatesFor(gathered, "afterReset"), checkAfterReset, dflt(undefined), notices)
  // A refused instruction with none to fall back on adds nothing to the boot: said as such, not as "using undefined".
  for (let i = afterResetFrom; i < notices.length; i++) {
    if (notices[i]!.used === undefined) notices[i] = { ...notices[i]!, outcome: "no instruction of yours is added to the boot" }
  }
  const digestTokens = pick(candidatesFor(gathered, "digestTokens"), checkDigestTokens, dflt(DigestTokenRange.default), notices)
  const reserve = resolveReserve(sources, model, notices)
  // A rejected line's notice names the value the line ends at, which orderLines settles (a default scales to the window).
  const pickLine = (name: "hardLine" | "warningLine" | "guidanceLine", fallback: Sourced<number>) => {
    const from = notices.length
    const line = pick(candidatesFor(gathered, name), checkTokens(false), fallback, notices)
    return { line, notices: notices.slice(from).map((notice) => ({ notice, at: notices.indexOf(notice) })) }
  }
  const hardPick = pickLine("hardLine", reserve)
  const hard = hardPick.line
  const warningPick = pickLine("warningLine", dflt(hard.value + Runway.warning.tokens))
  const guidancePick = pickLine("guidanceLine", dflt(hard.value + Runway.guidance.tokens))
  const { lines, derivations } = orderLines({ guidance: guidancePick.line, warning: warningPick.line, hard }, window, hard === reserve, notices)
  for (const [picked, final] of [[hardPick, lines.hard], [warningPick, lines.warning], [guidancePick, lines.guidance]] as const) {
    for (const { at, notice } of picked.notices) if (notice.used === picked.line.value) notices[at] = { ...notice, used: final.value }
  }
  checkNames((name) => gathered.top.get(name) ?? [], notices)
  const synced = parseSyncSettings(files.sources, files.projectTrusted)
  notices.push(...synced.notices)

  return {
    enabled,
    automaticReset,
    traceLevel,
    bootBudgetTokens,
    checkpointCheck,
    protectedHomes,
    readOnlyHomes,
    afterReset,
    digestTokens,
    reserve,
    lines,
    derivations,
    model,
    modelPatterns: gathered.patterns,
    sync: synced.remotes,
    notices: dedupe(notices)
  }
}

/** Wraps an injected policy as the top settings source. */
export const injectedSource = (policy: PolicySettings): SettingsSource => ({
  source: "injected",
  settings: { [SettingsKey]: policy }
})
