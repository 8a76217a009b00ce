// `node scripts/run-ts.mjs scripts/bench/encoder-transport.ts` (#33): what moving raw frames from the
// page to main costs in the web shell, at 720p30 and 1080p60, with the driver detached and attached.
// - The app's page in the web shell (real Chromium, real core; main is this process) sends I420
//   pictures of the size at the rate, for a span, through the bridge's own pushFrames as the raw pusher
//   calls it (two calls made ahead, the page's buffers reused, three as byte-pool.ts keeps them): a POST
//   of the bytes a call (a Blob until 28 Nov, see web-bridge.ts), sent one after another; main reads the body and the dispatcher checks it, and the
//   core drops it (the transport is measured, not the encoder).
// - Driver: Playwright, connected over CDP, starts the sender, then either detaches for the span (as
//   the app runs: no DevTools client) or stays (as in the e2e tests). Attached, Chromium's DevTools
//   copies request bodies given inline, and every WebSocket message, into base64 events for the driver;
//   the runs of 27 Nov were all taken attached. A frame WebSocket a run measured here on 28 Nov cost less
//   than the POST in this bench (detached), but a 720p30 x264 run did not hold with it (bench:encoder),
//   so it was taken out again; its figures are in runs.jsonl.
// - CPU: the renderer, Chromium's network service and browser process, and main over the span (/proc
//   utime+stime), less the same span with the page idle (attached or detached alike); per second of
//   media (the span's length), and per frame that reached main.
import { launchDetachableChromium } from '../../tests/helpers/browser'
import { startWebShell } from '../../tests/helpers/web-shell'
import { cpuBetween, processTree, type Proc } from './proc'
import { runAsScript } from './results'
import { wait, type BenchRow } from './types'

const SPAN_S = Number(process.env.ONAIR_BENCH_TRANSPORT_SPAN_S ?? 10)
const r3 = (n: number): number => Math.round(n * 1000) / 1000

type Driver = 'attached' | 'detached'

interface Split {
  renderer: number
  network: number
  browser: number
  main: number
}

function split(before: Proc[], after: Proc[], seconds: number): Split {
  const spent = cpuBetween(before, after)
  const chromium = (p: Proc): boolean => /chrom/i.test(p.cmd.split(' ')[0] ?? '')
  const sum = (pred: (p: Proc) => boolean): number =>
    spent.filter(pred).reduce((s, p) => s + p.cpu, 0) / seconds
  return {
    renderer: sum((p) => chromium(p) && p.cmd.includes('--type=renderer')),
    network: sum((p) => chromium(p) && p.cmd.includes('network.mojom.NetworkService')),
    // The browser process (no --type): it held the Blobs a POST sent, when the body was a Blob.
    browser: sum((p) => chromium(p) && !p.cmd.includes('--type=')),
    main: sum((p) => p.pid === process.pid)
  }
}

interface Measured {
  driver: Driver
  width: number
  height: number
  fps: number
  cpu: number
  split: Split
  reached: number
  skipped: number
}

/** The page's sender: a string, not a function (the bench's TypeScript loader adds helpers a page lacks). */
const sender = (w: number, h: number, f: number): string => `(() => {
  const w = ${w}, h = ${h}, f = ${f}
  const size = w * h + 2 * Math.ceil(w / 2) * Math.ceil(h / 2)
  const template = new Uint8Array(24 + size)
  for (let i = 24; i < template.length; i++) template[i] = (i * 7) & 255
  const pool = [new Uint8Array(24 + size), new Uint8Array(24 + size), new Uint8Array(24 + size)]
  const state = { sent: 0, skipped: 0, failed: '', stop: () => clearInterval(timer) }
  const most = 2
  let busy = 0
  let made = 0
  const t0 = performance.now()
  const timer = setInterval(() => {
    if (busy >= most) { state.skipped++; return }
    const msg = pool[made++ % 3]
    msg.set(template.subarray(24), 24)
    const v = new DataView(msg.buffer)
    v.setUint32(0, size, true)
    v.setUint8(4, 1)
    v.setUint32(8, w, true)
    v.setUint32(12, h, true)
    v.setFloat64(16, (performance.now() - t0) * 1000, true)
    busy++
    const p = globalThis.onair.pushFrames('bench-transport', msg)
    void p.then((r) => {
      busy--
      if (r.ok) state.sent++
      else state.failed = r.error.message
    })
  }, 1000 / f)
  globalThis.benchTransport = state
  return true
})()`

async function measure(
  driver: Driver,
  width: number,
  height: number,
  fps: number
): Promise<Measured> {
  const shell = await startWebShell()
  let calls = 0
  // Main drops what reaches the core: the transport is measured, not the encoder.
  shell.core.pushFrames = async () => {
    calls++
  }
  const chromium = await launchDetachableChromium(shell.url)
  try {
    const pageOf = async () => {
      const b = await chromium.attach()
      const page = b.contexts()[0]?.pages()[0]
      if (!page) throw new Error('Chromium has no page')
      return page
    }
    let page = await pageOf()
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    if (driver === 'detached') await chromium.detach()
    const t0 = performance.now()
    const b0 = processTree()
    await wait(SPAN_S * 1000)
    const idle = split(b0, processTree(), (performance.now() - t0) / 1000)
    page = await pageOf()
    if (!(await page.evaluate(sender(width, height, fps))))
      throw new Error('the page did not start sending')
    const s0 = (await page.evaluate('globalThis.benchTransport.skipped')) as number
    if (driver === 'detached') await chromium.detach()
    await wait(2000)
    const calls0 = calls
    const t1 = performance.now()
    const b1 = processTree()
    await wait(SPAN_S * 1000)
    const seconds = (performance.now() - t1) / 1000
    const busy = split(b1, processTree(), seconds)
    const calls1 = calls
    page = await pageOf()
    const st = (await page.evaluate(`(() => {
      const s = globalThis.benchTransport; s.stop(); return { skipped: s.skipped, failed: s.failed }
    })()`)) as { skipped: number; failed: string }
    if (st.failed) throw new Error(st.failed)
    if (calls1 === calls0) throw new Error('no raw frames reached main')
    const less: Split = {
      renderer: busy.renderer - idle.renderer,
      network: busy.network - idle.network,
      browser: busy.browser - idle.browser,
      main: busy.main - idle.main
    }
    return {
      driver,
      width,
      height,
      fps,
      cpu: less.renderer + less.network + less.browser + less.main,
      split: less,
      reached: (calls1 - calls0) / seconds,
      // Over the whole sending time (the skips before the span included): whether it keeps up.
      skipped: st.skipped - s0
    }
  } finally {
    await chromium.close()
    await shell.stop()
  }
}

/** CPU ms per frame that reached main. */
const perFrame = (m: Measured): number => (m.reached > 0 ? (m.cpu / m.reached) * 1000 : Infinity)

const say = (m: Measured): string =>
  `driver ${m.driver}: ${r3(m.cpu)} CPU s/s (renderer ${r3(m.split.renderer)} + network service ${r3(m.split.network)} + browser ${r3(m.split.browser)} + main ${r3(m.split.main)}), ${m.reached.toFixed(1)} of ${m.fps} frames/s reached main, ${perFrame(m).toFixed(1)} CPU ms a frame, ${m.skipped} skipped in the page (two calls in flight)`

async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const [w, h, f] of [
    [1280, 720, 30],
    [1920, 1080, 60]
  ] as const) {
    // Alternated, so a busier moment of the machine does not fall on one driver only.
    const free = await measure('detached', w, h, f)
    const held = await measure('attached', w, h, f)
    console.error(`${h}p${f}: ${say(free)}; ${say(held)}`)
    rows.push({
      name: `encoder: raw frame transport CPU at ${h}p${f}`,
      value: r3(free.cpu),
      unit: 'CPU s / s',
      reference: { name: 'the same, Playwright attached', value: r3(held.cpu), unit: 'CPU s / s' },
      note: `web shell, the bridge's pushFrames (a POST of the bytes a call), page (renderer + network service + browser process) + main, less the idle page, ${SPAN_S} s spans, the core dropping the bytes; ${say(free)}; ${say(held)}; Electron's IPC is not measured here`
    })
    rows.push({
      name: `encoder: raw frame transport CPU per delivered frame at ${h}p${f}`,
      value: r3(perFrame(free)),
      unit: 'CPU ms / frame',
      reference: { name: 'the same, Playwright attached', value: r3(perFrame(held)), unit: 'CPU ms / frame' },
      note: `the same run: ${free.reached.toFixed(1)} (detached) and ${held.reached.toFixed(1)} (attached) of ${f} frames/s reached main`
    })
  }
  return rows
}

runAsScript('bench:encoder-transport', run, {
  section: 'Encoder',
  command: 'node scripts/run-ts.mjs scripts/bench/encoder-transport.ts'
})
