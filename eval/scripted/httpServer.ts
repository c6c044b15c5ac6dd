/**
 * The scripted agent behind an OpenAI-compatible endpoint on 127.0.0.1:
 * streamed chat completions with tool calls and usage (cached tokens
 * included), as a local model server (Ollama, llama.cpp, vLLM, LM Studio)
 * speaks it. The eval's whole HTTP path (Pi's real `openai-completions`
 * provider, the user's models.json, the window held to `--window`) runs on
 * it offline. Each request is turned back into the transcript the agent
 * reads; the usage it reports is counted from that transcript, four
 * characters a token, as the in-process scripted model counts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { AssistantMessage, Message, TranscriptContext } from "@earendil-works/pi-ai"
import type { ScriptedSolver } from "../tasks/taskTypes.ts"
import { scriptedAgent } from "./agent.ts"
import { commonPrefix, estimateTokens, requestText } from "./provider.ts"

interface OpenAiToolCall {
  readonly id: string
  readonly function: { readonly name: string; readonly arguments: string }
}

interface OpenAiMessage {
  readonly role: "system" | "developer" | "user" | "assistant" | "tool"
  readonly content?: string | ReadonlyArray<{ readonly type: string; readonly text?: string }> | null
  readonly tool_calls?: ReadonlyArray<OpenAiToolCall>
  readonly tool_call_id?: string
}

interface OpenAiRequest {
  readonly messages: ReadonlyArray<OpenAiMessage>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown } }>
}

const textOf = (content: OpenAiMessage["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("")

const parsedArguments = (text: string): Record<string, unknown> => {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return {}
  }
}

/** The transcript Pi sent, rebuilt from the wire: system prompt and tools, then the conversation with each tool result named. */
export const transcriptOf = (request: OpenAiRequest): TranscriptContext => {
  const names = new Map<string, string>()
  const system = request.messages.filter((message) => message.role === "system" || message.role === "developer").map((message) => textOf(message.content)).join("\n")
  const toolsAdded = (request.tools ?? []).map((tool) => ({ name: tool.function.name, description: tool.function.description ?? "", parameters: tool.function.parameters ?? {} }))
  const messages: Array<Message> = [{ role: "system", content: system, toolsAdded, timestamp: 0 } as unknown as Message]
  for (const message of request.messages) {
    if (message.role === "user") messages.push({ role: "user", content: textOf(message.content), timestamp: 0 })
    else if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name)
      const text = textOf(message.content)
      messages.push({
        role: "assistant",
        content: [
          ...(text === "" ? [] : [{ type: "text" as const, text }]),
          ...(message.tool_calls ?? []).map((call) => ({ type: "toolCall" as const, id: call.id, name: call.function.name, arguments: parsedArguments(call.function.arguments) }))
        ]
      } as unknown as AssistantMessage)
    } else if (message.role === "tool") {
      // The wire carries no error flag: a tool result reads as what it says.
      messages.push({ role: "toolResult", toolCallId: message.tool_call_id ?? "", toolName: names.get(message.tool_call_id ?? "") ?? "", content: [{ type: "text", text: textOf(message.content) }], isError: false, timestamp: 0 } as Message)
    }
  }
  return { messages } as TranscriptContext
}

export interface ScriptedServer {
  readonly server: Server
  readonly port: number
  /** Every request's prompt tokens as reported, in order. */
  readonly prompts: Array<number>
  readonly close: () => Promise<void>
}

/** Starts the endpoint on a free port of 127.0.0.1, answering as the scripted agent working `solver`'s task. */
export const startScriptedServer = async (solver: ScriptedSolver): Promise<ScriptedServer> => {
  const agent = scriptedAgent(solver)
  const prompts: Array<number> = []
  // A prefix cache over the last few requests, as a server's is: runs in parallel interleave their requests.
  const recent: Array<string> = []
  const answer = (request: OpenAiRequest, response: ServerResponse) => {
    const transcript = transcriptOf(request)
    const text = requestText(transcript)
    const prompt = estimateTokens(text)
    const cached = Math.floor(Math.max(0, ...recent.map((earlier) => commonPrefix(earlier, text))) / 4)
    recent.unshift(text)
    recent.length = Math.min(recent.length, 8)
    prompts.push(prompt)
    const reply = agent(transcript)
    const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`)
    const base = { id: `sc-${prompts.length}`, object: "chat.completion.chunk", model: "scripted" }
    response.writeHead(200, { "content-type": "text/event-stream" })
    const replyText = reply.content.map((part) => (part.type === "text" ? part.text : "")).join("")
    const calls = reply.content.flatMap((part) => (part.type === "toolCall" ? [part] : []))
    if (replyText !== "") chunk({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: replyText }, finish_reason: null }] })
    calls.forEach((call, index) =>
      chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }, finish_reason: null }] })
    )
    const output = estimateTokens(replyText + calls.map((call) => JSON.stringify(call.arguments)).join(""))
    chunk({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output, prompt_tokens_details: { cached_tokens: cached } }
    })
    response.end("data: [DONE]\n\n")
  }
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = ""
    request.on("data", (chunk: Buffer) => void (body += chunk.toString()))
    request.on("end", () => {
      try {
        answer(JSON.parse(body) as OpenAiRequest, response)
      } catch (error) {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, port: (server.address() as AddressInfo).port, prompts, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
