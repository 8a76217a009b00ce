// The scenes' picture files: content-addressed, written atomically, read back by name only.
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dataUrlBytes, imageTypeOf, SceneImages } from '../../../src/main/core/scene-images'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
const JPG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 9])
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')

describe('scene images', () => {
  it('tells PNG and JPEG by their first bytes, and nothing else', () => {
    expect(imageTypeOf(PNG)).toBe('png')
    expect(imageTypeOf(JPG)).toBe('jpg')
    expect(imageTypeOf(new TextEncoder().encode('<svg/>'))).toBeNull()
    expect(imageTypeOf(new Uint8Array())).toBeNull()
  })

  it('saves each picture once, under its sha256, and reads it back; the folder appears on first save', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-images-'))
    const images = new SceneImages(dir)
    expect(readdirSync(dir)).toEqual([])
    const [a, b, c] = await Promise.all([images.save(PNG), images.save(PNG), images.save(JPG)])
    expect(a).toBe(`${sha(PNG)}.png`)
    expect(b).toBe(a)
    expect(c).toBe(`${sha(JPG)}.jpg`)
    expect(readdirSync(images.dir).sort()).toEqual([a, c].sort()) // no tmp file left
    expect(await images.read(a)).toEqual(PNG)
    expect(images.saveSync(PNG)).toBe(a)
  })

  it('refuses what is not a picture, and any name that is not a picture name', async () => {
    const images = new SceneImages(mkdtempSync(join(tmpdir(), 'onair-images-')))
    await expect(images.save(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({
      error: { code: 'bad-request' }
    })
    for (const name of [
      '../settings.json',
      `..\\${'a'.repeat(64)}.png`,
      `C:\\x\\${'a'.repeat(64)}.png`
    ])
      await expect(images.read(name)).rejects.toMatchObject({ error: { code: 'bad-request' } })
    await expect(images.read(`${'a'.repeat(64)}.png`)).rejects.toMatchObject({
      error: { code: 'not-found' }
    })
  })

  it('prunes the pictures no scene names, and stray tmp files, and nothing else', async () => {
    const images = new SceneImages(mkdtempSync(join(tmpdir(), 'onair-images-')))
    const keep = await images.save(PNG)
    const drop = await images.save(JPG)
    writeFileSync(join(images.dir, `${keep}.1.1.tmp`), 'half')
    writeFileSync(join(images.dir, 'notes.txt'), 'not ours')
    await images.prune(new Set([keep]))
    expect(readdirSync(images.dir).sort()).toEqual([keep, 'notes.txt'].sort())
    expect(readdirSync(images.dir)).not.toContain(drop)
  })

  it('reads a data URL of the old settings into bytes', () => {
    const url = `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`
    expect(dataUrlBytes(url)).toEqual(PNG)
    expect(dataUrlBytes('javascript:alert(1)')).toBeNull()
  })
})
