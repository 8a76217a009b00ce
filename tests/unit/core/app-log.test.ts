import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAppLog } from '../../../src/main/core/app-log'

describe('the app log', () => {
  it('keeps redacted lines in the file, and echoes them', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'onair-log-')), 'logs')
    const echoed: string[] = []
    const log = createAppLog(dir, (l) => echoed.push(l))
    log('ffmpeg: rtmp://127.0.0.1:1935/live/abcd-efgh-ijkl-mnop: Connection refused')
    log('Authorization: Bearer 0123456789abcdef')
    const text = readFileSync(join(dir, 'onair.log'), 'utf8')
    expect(text).toContain('live/****: Connection refused')
    expect(text).toContain('Bearer ****')
    expect(text).not.toContain('abcd-efgh')
    expect(text).not.toContain('0123456789abcdef')
    expect(echoed).toHaveLength(2)
  })

  it('starts a new file past its cap, keeping the previous one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-log-'))
    const log = createAppLog(dir, () => undefined, 200)
    for (let i = 0; i < 10; i++) log(`line ${i} ${'x'.repeat(40)}`)
    expect(existsSync(join(dir, 'onair.old.log'))).toBe(true)
    expect(readFileSync(join(dir, 'onair.log'), 'utf8').length).toBeLessThan(400)
  })

  it('never throws when the folder cannot be written', () => {
    const base = mkdtempSync(join(tmpdir(), 'onair-log-'))
    writeFileSync(join(base, 'file'), '')
    const echoed: string[] = []
    const log = createAppLog(join(base, 'file', 'logs'), (l) => echoed.push(l))
    expect(() => log('still said')).not.toThrow()
    expect(echoed[0]).toContain('still said')
  })
})
