// The encoder bench's three clips (`npm run bench:clips`, or made by `npm run bench:encoder` when
// missing): 10 s of 1280x720 at 30 fps, raw I420 (.y4m, ~415 MB each, never committed: bench/clips/ is
// ignored), each frame carrying its painted number (frame-index.ts).
// - camera: a slow eased pan with a 20 % zoom over a photograph, with mild sensor noise;
// - screen: a text-heavy page (this repository's docs) rendered by Chromium, held 2 s, scrolled 3 px
//   a frame for 6 s, held 2 s;
// - motion: fast sweeps (up to ~17 px a frame) and zoom over a detailed photograph, same noise.
// The photographs come from Debian's mate-backgrounds package (scripts/install-system-deps.sh
// installs it; another folder of photographs: ONAIR_BENCH_PHOTOS).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { launchChromium } from '../../../tests/helpers/browser'
import { makeMediaFile, testFfmpeg } from '../../../tests/helpers/studio'
import { paintY4m, readY4mHeader } from './frame-index'

export const CLIP_NAMES = ['camera', 'screen', 'motion'] as const
export type ClipName = (typeof CLIP_NAMES)[number]

export const CLIP = { width: 1280, height: 720, fps: 30, seconds: 10 }
const FRAMES = CLIP.fps * CLIP.seconds

/** Where the clips are kept between runs (ignored by git). */
export const CLIPS_DIR = resolve(__dirname, '../../../bench/clips')

/** Bumped whenever a recipe changes, so an old clip is never scored as a new one. */
const RECIPE = 1

export const clipFile = (dir: string, name: ClipName): string =>
  join(dir, `${name}-v${RECIPE}-${CLIP.width}x${CLIP.height}-${CLIP.fps}.y4m`)

const PHOTOS = process.env.ONAIR_BENCH_PHOTOS ?? '/usr/share/backgrounds/mate/nature'

function photo(name: string): string {
  const file = join(PHOTOS, name)
  if (!existsSync(file)) {
    throw new Error(
      `the bench's photograph ${file} is missing: install Debian's mate-backgrounds ` +
        '(scripts/install-system-deps.sh) or point ONAIR_BENCH_PHOTOS at a folder holding it'
    )
  }
  return file
}

/** Mild temporal sensor noise, as the measurement had. */
const NOISE = 'noise=alls=4:allf=t'
const Y4M_OUT = ['-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe']

/** A picture moving over a still photograph: `scale` (evaluated each frame) then `crop` to 720p. */
function photoClip(out: string, source: string, scale: string, crop: string): void {
  makeMediaFile(out, [
    ...['-loop', '1', '-framerate', String(CLIP.fps), '-i', source],
    ...['-vf', `${scale},${crop},setsar=1,${NOISE}`],
    ...['-frames:v', String(FRAMES), ...Y4M_OUT]
  ])
}

/** 2560x1600 garden: eased (smoothstep) pan from left to right and down a little, zooming in 20 %. */
function camera(out: string): void {
  const e = `(3*pow(t/${CLIP.seconds},2)-2*pow(t/${CLIP.seconds},3))`
  photoClip(
    out,
    photo('Garden.jpg'),
    `scale=w='trunc(1600*(1+0.2*${e})/2)*2':h='trunc(1000*(1+0.2*${e})/2)*2':eval=frame:flags=bicubic`,
    `crop=${CLIP.width}:${CLIP.height}:x='(iw-${CLIP.width})*(0.15+0.7*${e})':y='(ih-${CLIP.height})*(0.3+0.4*${e})'`
  )
}

/** 2560x1920 wood grain: sweeps across and up and down, zoom breathing 1.1-1.25x of 1920 wide. */
function motion(out: string): void {
  photoClip(
    out,
    photo('Wood.jpg'),
    `scale=w='trunc(1920*(1.175+0.075*sin(2*PI*t/5))/2)*2':h='trunc(1440*(1.175+0.075*sin(2*PI*t/5))/2)*2':eval=frame:flags=bicubic`,
    `crop=${CLIP.width}:${CLIP.height}:x='(iw-${CLIP.width})*(0.5+0.5*sin(2*PI*t/2.4))':y='(ih-${CLIP.height})*(0.5+0.5*sin(2*PI*t/3.7))'`
  )
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** This repository's docs as one long page of headings and paragraphs. */
function docsPage(): string {
  const docs = resolve(__dirname, '../../../docs')
  const text = ['architecture.md', 'local-studio.md', 'security.md']
    .map((f) => readFileSync(join(docs, f), 'utf8'))
    .join('\n\n')
  const body = text
    .split(/\n\s*\n/)
    .map((block) => {
      const b = block.trim()
      const h = /^(#+)\s+(.*)$/.exec(b)
      if (h)
        return `<h${Math.min(4, h[1]!.length + 1)}>${escapeHtml(h[2]!)}</h${Math.min(4, h[1]!.length + 1)}>`
      return `<p>${escapeHtml(b.replace(/\s*\n\s*/g, ' '))}</p>`
    })
    .join('\n')
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 24px 40px; background: #fff; color: #1b1b1b; font: 15px/1.45 "DejaVu Sans", sans-serif; }
h2, h3, h4 { color: #0b3d91; margin: 18px 0 8px; }
p { margin: 0 0 10px; max-width: 1180px; }
</style></head><body>${body}</body></html>`
}

/** Chromium's screenshots of the docs page: held 2 s, scrolled 3 px a frame for 6 s, held 2 s. */
async function screen(out: string): Promise<void> {
  const hold = 2 * CLIP.fps
  const scroll = FRAMES - 2 * hold
  const ff = spawn(
    testFfmpeg(),
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'image2pipe', '-framerate', String(CLIP.fps), '-c:v', 'png', '-i', 'pipe:0'],
      ...['-frames:v', String(FRAMES), ...Y4M_OUT, out]
    ],
    { stdio: ['pipe', 'ignore', 'pipe'] }
  )
  let stderr = ''
  ff.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<void>((res, rej) =>
    ff.on('close', (code) =>
      code === 0 ? res() : rej(new Error(`ffmpeg made no screen clip: ${stderr.trim()}`))
    )
  )
  const write = (png: Buffer): Promise<void> =>
    new Promise((res, rej) => ff.stdin.write(png, (e) => (e ? rej(e) : res())))
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({
      viewport: { width: CLIP.width, height: CLIP.height },
      deviceScaleFactor: 1
    })
    await page.setContent(docsPage())
    const shot = async (y: number): Promise<Buffer> => {
      await page.evaluate(`window.scrollTo(0, ${y})`)
      return page.screenshot({ type: 'png' })
    }
    const first = await shot(0)
    for (let i = 0; i < hold; i++) await write(first)
    let last = first
    for (let i = 1; i <= scroll; i++) {
      last = await shot(3 * i)
      await write(last)
    }
    for (let i = 0; i < hold; i++) await write(last)
  } finally {
    ff.stdin.end()
    await browser.close()
  }
  await done
}

/** Makes the clips `dir` lacks (each under a temporary name, then renamed), and returns their files. */
export async function makeClips(dir = CLIPS_DIR): Promise<Record<ClipName, string>> {
  mkdirSync(dir, { recursive: true })
  const files = {} as Record<ClipName, string>
  for (const name of CLIP_NAMES) {
    const file = clipFile(dir, name)
    files[name] = file
    if (existsSync(file) && readY4mHeader(file, statSync(file).size).frames === FRAMES) continue
    const tmp = `${file}.part.y4m`
    console.error(`bench clips: making ${name}…`)
    if (name === 'camera') camera(tmp)
    else if (name === 'motion') motion(tmp)
    else await screen(tmp)
    const y = paintY4m(tmp, statSync(tmp).size)
    if (y.frames !== FRAMES || y.width !== CLIP.width || y.height !== CLIP.height) {
      throw new Error(`the ${name} clip came out ${y.width}x${y.height}, ${y.frames} frames`)
    }
    renameSync(tmp, file)
  }
  return files
}

if (require.main === module) {
  makeClips().then(
    (files) => {
      for (const f of Object.values(files)) console.log(f)
      process.exit(0)
    },
    (e: unknown) => {
      console.error(`bench:clips failed: ${e instanceof Error ? e.message : String(e)}`)
      process.exit(1)
    }
  )
}
