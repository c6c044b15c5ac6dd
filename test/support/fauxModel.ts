import { type FauxProviderRegistration, registerFauxProvider } from "@earendil-works/pi-ai/compat"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"

export const fauxModelId = "faux-1"

/**
 * Makes a registered faux provider a Pi provider with one model, `faux/faux-1`,
 * so sessions, the SDK and the CLI can select it. Shared by the SDK harness,
 * the e2e fixture and the load bench.
 */
export const registerFauxModel = (
  pi: ExtensionAPI,
  faux: Pick<FauxProviderRegistration, "api">,
  contextWindow = 200_000
): void => {
  pi.registerProvider("faux", {
    baseUrl: "http://127.0.0.1:9",
    apiKey: "faux-key",
    api: faux.api,
    models: [{
      id: fauxModelId,
      name: "Faux 1",
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow,
      maxTokens: 4_000
    }]
  })
}

/**
 * A faux provider with its one model, `faux/faux-1`, registered with Pi from
 * inside an extension: what the e2e fixtures the `pi` CLI loads with `-e` start
 * with. Its replies are the caller's to script.
 */
export const registerFaux = (pi: ExtensionAPI, contextWindow = 200_000): FauxProviderRegistration => {
  const faux = registerFauxProvider({ provider: "faux", models: [{ id: fauxModelId, contextWindow, maxTokens: 4_000 }] })
  registerFauxModel(pi, faux, contextWindow)
  return faux
}
