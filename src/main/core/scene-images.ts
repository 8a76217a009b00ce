// The scenes' pictures, kept as files in the app data folder and named by their content: `<sha256>.png`
// or `.jpg` (IMAGE_FILE in shared/scenes.ts). The settings only name them, so an edit to a scene sends
// and rewrites a few kilobytes, never the pictures. Saving is asynchronous (the main process also feeds
// the live ffmpeg); the same picture saved twice is one file. Names are checked against IMAGE_FILE
// before any path is made from them: hex and an extension, nothing an OS could read as a path.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { IMAGE_FILE } from '../../shared/scenes'
import { AppFailure } from '../../shared/result'

/** PNG or JPEG, told by the first bytes (never by what the caller says it is). */
export function imageTypeOf(bytes: Uint8Array): 'png' | 'jpg' | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length > 8 && png.every((b, i) => bytes[i] === b)) return 'png'
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg'
  return null
}

function nameOf(bytes: Uint8Array): string {
  const type = imageTypeOf(bytes)
  if (!type)
    throw new AppFailure({
      code: 'bad-request',
      message: 'A scene picture must be a PNG or JPEG file.'
    })
  return `${createHash('sha256').update(bytes).digest('hex')}.${type}`
}

let tmpSerial = 0

export class SceneImages {
  readonly dir: string

  constructor(appDataDir: string) {
    this.dir = join(appDataDir, 'scene-images')
  }

  /** Writes the picture (tmp file + rename, so a crash never leaves half of one); answers its name. */
  async save(bytes: Uint8Array): Promise<string> {
    const name = nameOf(bytes)
    const path = join(this.dir, name)
    if (await exists(path)) return name
    await mkdir(this.dir, { recursive: true })
    const tmp = `${path}.${process.pid}.${++tmpSerial}.tmp`
    await writeFile(tmp, bytes, { mode: 0o600 })
    try {
      await rename(tmp, path)
    } catch (e) {
      // Windows refuses to rename over a file another save of the same picture just made: same bytes.
      await rm(tmp, { force: true })
      if (!(await exists(path))) throw e
    }
    return name
  }

  /** For the one-time move of the old settings' data URLs: the same, synchronously, at start-up. */
  saveSync(bytes: Uint8Array): string {
    const name = nameOf(bytes)
    const path = join(this.dir, name)
    if (existsSync(path)) return name
    mkdirSync(this.dir, { recursive: true })
    const tmp = `${path}.${process.pid}.${++tmpSerial}.tmp`
    writeFileSync(tmp, bytes, { mode: 0o600 })
    renameSync(tmp, path)
    return name
  }

  async read(file: string): Promise<Uint8Array> {
    if (!IMAGE_FILE.test(file))
      throw new AppFailure({ code: 'bad-request', message: 'Not a scene picture name.' })
    try {
      return new Uint8Array(await readFile(join(this.dir, file)))
    } catch {
      throw new AppFailure({
        code: 'not-found',
        message: 'This scene picture is no longer on this computer.',
        hint: 'Remove it from the scene and add the image again.'
      })
    }
  }

  /** Deletes the pictures (and stray tmp files) that no saved scene names. */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[])
    await Promise.all(
      names
        .filter((n) => !keep.has(n) && (IMAGE_FILE.test(n) || n.endsWith('.tmp')))
        .map((n) => rm(join(this.dir, n), { force: true }).catch(() => undefined))
    )
  }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false
  )

/** `data:image/png;base64,...` -> its bytes (null for anything else). */
export function dataUrlBytes(dataUrl: string): Uint8Array | null {
  const m = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]*)$/i.exec(dataUrl)
  return m ? new Uint8Array(Buffer.from(m[1]!, 'base64')) : null
}
