// Sound files for Chromium's fake microphone (--use-file-for-fake-audio-capture, which loops them):
// mono 16-bit PCM WAV from a function of the sample's time.
import { writeFileSync } from 'node:fs'

export const WAV_RATE = 48_000

/** Writes `seconds` of mono sound, `at(t)` in -1..1 for each sample's time t (s); returns the file. */
export function writeWav(file: string, seconds: number, at: (t: number) => number): string {
  const n = Math.round(WAV_RATE * seconds)
  const data = Buffer.alloc(n * 2)
  for (let i = 0; i < n; i++) {
    const v = Math.max(-1, Math.min(1, at(i / WAV_RATE)))
    data.writeInt16LE(Math.round(v * 32767), i * 2)
  }
  const h = Buffer.alloc(44)
  h.write('RIFF', 0)
  h.writeUInt32LE(36 + data.length, 4)
  h.write('WAVEfmt ', 8)
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20) // PCM
  h.writeUInt16LE(1, 22) // mono
  h.writeUInt32LE(WAV_RATE, 24)
  h.writeUInt32LE(WAV_RATE * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36)
  h.writeUInt32LE(data.length, 40)
  writeFileSync(file, Buffer.concat([h, data]))
  return file
}

/** A sine of `hz` at `db` dBFS. */
export const tone =
  (hz: number, db: number) =>
  (t: number): number =>
    Math.pow(10, db / 20) * Math.sin(2 * Math.PI * hz * t)
