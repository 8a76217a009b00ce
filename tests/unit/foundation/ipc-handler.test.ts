import { describe, expect, it, vi } from 'vitest'
import type { OnairCalls } from '../../../src/shared/contract'
import { DEFAULT_OUTPUT } from '../../../src/shared/output'
import { AppFailure } from '../../../src/shared/result'
import { isTrustedSender, makeIpcHandler } from '../../../src/main/electron/ipc-handler'

const ORIGINS = ['app://onair']
const ours = { senderFrame: { url: 'app://onair/index.html', parent: null } }

function fakeCore(impl: Partial<OnairCalls>): OnairCalls {
  return impl as OnairCalls
}

describe('isTrustedSender', () => {
  it('accepts our own top frame only', () => {
    expect(isTrustedSender(ours, ORIGINS)).toBe(true)
    expect(
      isTrustedSender({ senderFrame: { url: 'https://evil.example/', parent: null } }, ORIGINS)
    ).toBe(false)
    expect(
      isTrustedSender({ senderFrame: { url: ours.senderFrame.url, parent: {} } }, ORIGINS)
    ).toBe(false)
    expect(isTrustedSender({ senderFrame: null }, ORIGINS)).toBe(false)
    expect(
      isTrustedSender({ senderFrame: { url: 'file:///etc/passwd', parent: null } }, ORIGINS)
    ).toBe(false)
    expect(isTrustedSender({ senderFrame: { url: 'not a url', parent: null } }, ORIGINS)).toBe(
      false
    )
    expect(
      isTrustedSender({ senderFrame: { url: 'http://localhost:5173/', parent: null } }, [
        'http://localhost:5173'
      ])
    ).toBe(true)
  })
})

describe('makeIpcHandler', () => {
  it('refuses a foreign sender without calling the core', async () => {
    const getStream = vi.fn()
    const handler = makeIpcHandler(fakeCore({ getStream }), 'getStream', ORIGINS)
    const r = await handler({ senderFrame: { url: 'https://evil.example/', parent: null } }, 'id')
    expect(r).toEqual({ ok: false, error: expect.objectContaining({ code: 'forbidden-sender' }) })
    expect(getStream).not.toHaveBeenCalled()
  })

  it('answers bad arguments with an AppError naming the field', async () => {
    const createStream = vi.fn()
    const handler = makeIpcHandler(fakeCore({ createStream }), 'createStream', ORIGINS)
    const r = await handler(ours, { name: 42, profiles: [], record: true })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.code).toBe('bad-request')
      expect(r.error.field).toBe('0.name')
      expect(r.error.message).toMatch(/createStream/)
    }
    const extra = await handler(ours, { name: 'x', profiles: [], record: true, admin: true })
    expect(extra.ok).toBe(false)
    const missing = await handler(ours)
    expect(missing.ok).toBe(false)
    expect(createStream).not.toHaveBeenCalled()
  })

  it('passes validated arguments through and wraps the value', async () => {
    const setRecord = vi.fn(async (id: string, record: boolean) => ({ id, record }))
    const handler = makeIpcHandler(fakeCore({ setRecord } as never), 'setRecord', ORIGINS)
    await expect(handler(ours, 's1', true)).resolves.toEqual({
      ok: true,
      value: { id: 's1', record: true }
    })
  })

  it('turns an AppFailure into its AppError and an unexpected throw into a redacted internal error', async () => {
    const getStream = vi.fn(async () => {
      throw new AppFailure({ code: 'not-found', message: 'That stream no longer exists.' })
    })
    const r1 = await makeIpcHandler(fakeCore({ getStream }), 'getStream', ORIGINS)(ours, 'x')
    expect(r1).toEqual({
      ok: false,
      error: { code: 'not-found', message: 'That stream no longer exists.' }
    })

    const log = vi.fn()
    const goLive = vi.fn(async () => {
      throw new Error('connect failed rtmp://h/live/abcd-efgh-ijkl-mnop')
    })
    const args = {
      streamId: 's',
      source: { kind: 'test-pattern' },
      output: { ...DEFAULT_OUTPUT }
    }
    const r2 = await makeIpcHandler(fakeCore({ goLive }), 'goLive', ORIGINS, log)(ours, args)
    expect(r2.ok).toBe(false)
    if (!r2.ok) {
      expect(r2.error.code).toBe('internal')
      expect(r2.error.message).not.toContain('abcd-efgh')
      expect(r2.error.message).toContain('live/****')
    }
    expect(String(log.mock.calls[0]?.[0])).not.toContain('abcd-efgh')
  })
})
