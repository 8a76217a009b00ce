// The main process refuses a ladder no H.264 encoder can make before any service sees it: against
// Livepeer (which accepts it and fails when it transcodes) as against the local studio.
import { describe, expect, it, vi } from 'vitest'
import { dispatch } from '../../../src/main/core/dispatch'
import type { OnairCalls } from '../../../src/shared/contract'

const good = { name: '720p', width: 1280, height: 720, fps: 30, bitrate: 3_000_000 }

describe('dispatch: profiles no encoder can make', () => {
  it('refuses width 99999 on create and on update, naming the limit, without calling the core', async () => {
    const createStream = vi.fn()
    const updateStream = vi.fn()
    const core = { createStream, updateStream } as unknown as OnairCalls
    const created = await dispatch(core, 'createStream', [
      { name: 'Show', record: true, profiles: [good, { ...good, name: 'huge', width: 99999 }] }
    ])
    expect(created).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    const error = (created as { error: { message: string; field?: string } }).error
    expect(error.message).toContain('4096')
    expect(error.field).toBe('0.profiles.1.width')
    const updated = await dispatch(core, 'updateStream', [
      { id: 's1', profiles: [{ ...good, fps: 240 }] }
    ])
    expect(updated).toMatchObject({ ok: false })
    expect((updated as { error: { message: string } }).error.message).toContain('120')
    expect(createStream).not.toHaveBeenCalled()
    expect(updateStream).not.toHaveBeenCalled()
  })

  it('passes a ladder an encoder can make', async () => {
    const createStream = vi.fn(async () => ({ id: 's1' }))
    const core = { createStream } as unknown as OnairCalls
    const r = await dispatch(core, 'createStream', [
      { name: 'Show', record: true, profiles: [good] }
    ])
    expect(r).toEqual({ ok: true, value: { id: 's1' } })
    expect(createStream).toHaveBeenCalledOnce()
  })
})
