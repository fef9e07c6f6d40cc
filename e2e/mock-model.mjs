// A keyless mock model for the end-to-end harness: one provider route whose
// stream() answers every request with the same short text and no tool calls.
// Mounted by the overlay as an ordinary Cordis plugin (inject: llm).
import { LlmAdapter } from '@deepseek-ai/dsh-llm'

export const name = 'e2e-mock-model'
export const inject = ['llm']

export const MOCK_PROVIDER = 'e2e-mock'
export const MOCK_MODEL = 'e2e-mock-model'
export const MOCK_REPLY = 'mock reply: ok'

export class MockAdapter extends LlmAdapter {
  constructor (reply = MOCK_REPLY) {
    super()
    this.reply = reply
    this.calls = 0
  }

  providerInfo (provider) {
    return { id: provider, name: 'E2E mock' }
  }

  listModels (provider) {
    return Promise.resolve([{ provider, id: MOCK_MODEL, name: 'E2E mock model' }])
  }

  resolveModel (provider, model) {
    return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 128000 }, defaultMaxTokens: 1024 })
  }

  async * stream (options) {
    this.calls++
    if (options?.signal?.aborted) throw options.signal.reason ?? new Error('aborted')
    const text = this.reply
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text }
    yield { type: 'block-end', index: 0, block: { type: 'text', text } }
    yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 3 } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

export function apply (ctx, config = {}) {
  const adapter = new MockAdapter(config.reply ?? MOCK_REPLY)
  ctx.llm.registerAdapter([config.provider ?? MOCK_PROVIDER], adapter)
}
