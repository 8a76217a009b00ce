import { describe, expect, it } from 'vitest'
import { recordingFileName } from '../../../src/main/core/download-name'

const at = new Date(2026, 10, 23, 9, 5).getTime() // local time

describe('recording file names', () => {
  it('are "<stream name> <date>.mp4" in local time, without colons', () => {
    expect(recordingFileName('Morning show', at)).toBe('Morning show 2026-11-23 09.05.mp4')
  })

  it('are safe on Windows, macOS and Linux', () => {
    expect(recordingFileName('a/b\\c:d*e?f"g<h>i|j', at)).toBe(
      'a b c d e f g h i j 2026-11-23 09.05.mp4'
    )
    expect(recordingFileName('  trailing dots...  ', at)).toBe('trailing dots 2026-11-23 09.05.mp4')
    expect(recordingFileName('CON', at)).toBe('CON recording 2026-11-23 09.05.mp4')
    expect(recordingFileName('', at)).toBe('Recording 2026-11-23 09.05.mp4')
    expect(recordingFileName(undefined, at)).toBe('Recording 2026-11-23 09.05.mp4')
    expect(recordingFileName('Café ☕ 日本', at)).toBe('Café ☕ 日本 2026-11-23 09.05.mp4')
    expect(recordingFileName('x'.repeat(300), at).length).toBeLessThan(150)
  })
})
