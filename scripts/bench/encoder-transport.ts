// `node scripts/run-ts.mjs scripts/bench/encoder-transport.ts` (#33): what moving raw frames from the
// page to main costs in the web shell, at 720p30 and 1080p60, two ways side by side in one run.
// - The app's page in the web shell (real Chromium, real core; main is this process) sends I420
//   pictures of the size at the rate, for a span.
// - HTTP: a POST a call with the bytes as a Blob, a fresh buffer a frame, one call in flight; main
//   reads the body and the dispatcher checks it (contract-schema's raw-media reader), then the core
//   drops it.
// - Bridge: the bridge's own pushFrames as the raw pusher calls it (two calls made ahead, the page's
//   buffers reused, three as byte-pool.ts keeps them). After the runs of 2026-11-27 in runs.jsonl, this
//   is a POST a call too, a run's calls sent one after another; before, it was a binary WebSocket a
//   run (the ws package, no deflate), which cost more CPU per frame delivered.
// - CPU: the renderer, Chromium's network service and main over the span (/proc utime+stime), less
//   the same span with the page idle; per second of media (the span's length), and per frame that
//   reached main.
import { launchChromium } from '../../tests/helpers/browser'
import { startWebShell } from '../../tests/helpers/web-shell'
import { cpuBetween, processTree, type Proc } from './proc'
import { runAsScript } from './results'
import { wait, type BenchRow } from './types'

const SPAN_S = Number(process.env.ONAIR_BENCH_TRANSPORT_SPAN_S ?? 10)
const r3 = (n: number): number => Math.round(n * 1000) / 1000

type Way = 'http' | 'bridge'

interface Split {
  renderer: number
  network: number
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
    main: sum((p) => p.pid === process.pid)
  }
}

interface Measured {
  way: Way
  width: number
  height: number
  fps: number
  cpu: number
  split: Split
  reached: number
  skipped: number
}

/** The page's sender: a string, not a function (the bench's TypeScript loader adds helpers a page lacks). */
const sender = (way: Way, w: number, h: number, f: number): string => `(() => {
  const w = ${w}, h = ${h}, f = ${f}, way = '${way}'
  const size = w * h + 2 * Math.ceil(w / 2) * Math.ceil(h / 2)
  const template = new Uint8Array(24 + size)
  for (let i = 24; i < template.length; i++) template[i] = (i * 7) & 255
  const pool = [new Uint8Array(24 + size), new Uint8Array(24 + size), new Uint8Array(24 + size)]
  const state = { sent: 0, skipped: 0, failed: '', stop: () => clearInterval(timer) }
  const most = way === 'bridge' ? 2 : 1
  let busy = 0
  let made = 0
  const t0 = performance.now()
  const post = (msg) =>
    fetch('/rpc/pushFrames?runId=bench-transport', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Blob([msg])
    }).then((r) => r.json())
  const timer = setInterval(() => {
    if (busy >= most) { state.skipped++; return }
    // Old: a fresh copy a frame; new: a buffer of the pool, written over.
    const msg = way === 'http' ? template.slice() : pool[made++ % 3]
    if (way === 'bridge') msg.set(template.subarray(24), 24)
    const v = new DataView(msg.buffer)
    v.setUint32(0, size, true)
    v.setUint8(4, 1)
    v.setUint32(8, w, true)
    v.setUint32(12, h, true)
    v.setFloat64(16, (performance.now() - t0) * 1000, true)
    busy++
    const p = way === 'http' ? post(msg) : globalThis.onair.pushFrames('bench-transport', msg)
    void p.then((r) => {
      busy--
      if (r.ok) state.sent++
      else state.failed = r.error.message
    })
  }, 1000 / f)
  globalThis.benchTransport = state
  return true
})()`

async function measure(way: Way, width: number, height: number, fps: number): Promise<Measured> {
  const shell = await startWebShell()
  let calls = 0
  // Main drops what reaches the core: the transport is measured, not the encoder.
  shell.core.pushFrames = async () => {
    calls++
  }
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    await page.goto(shell.url)
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    const t0 = performance.now()
    const b0 = processTree()
    await wait(SPAN_S * 1000)
    const idle = split(b0, processTree(), (performance.now() - t0) / 1000)
    if (!(await page.evaluate(sender(way, width, height, fps))))
      throw new Error('the page did not start sending')
    await wait(2000)
    const calls0 = calls
    const s0 = (await page.evaluate('globalThis.benchTransport.skipped')) as number
    const t1 = performance.now()
    const b1 = processTree()
    await wait(SPAN_S * 1000)
    const seconds = (performance.now() - t1) / 1000
    const busy = split(b1, processTree(), seconds)
    const st = (await page.evaluate(`(() => {
      const s = globalThis.benchTransport; s.stop(); return { skipped: s.skipped, failed: s.failed }
    })()`)) as { skipped: number; failed: string }
    if (st.failed) throw new Error(`${way}: ${st.failed}`)
    if (calls === calls0) throw new Error(`${way}: no raw frames reached main`)
    const less: Split = {
      renderer: busy.renderer - idle.renderer,
      network: busy.network - idle.network,
      main: busy.main - idle.main
    }
    return {
      way,
      width,
      height,
      fps,
      cpu: less.renderer + less.network + less.main,
      split: less,
      reached: (calls - calls0) / seconds,
      skipped: st.skipped - s0
    }
  } finally {
    await browser.close()
    await shell.stop()
  }
}

/** CPU ms per frame that reached main. */
const perFrame = (m: Measured): number => (m.reached > 0 ? (m.cpu / m.reached) * 1000 : Infinity)

const say = (m: Measured): string =>
  `${m.way === 'http' ? 'HTTP POST (one call in flight)' : 'bridge pushFrames (two calls made ahead)'} ${r3(m.cpu)} CPU s/s (renderer ${r3(m.split.renderer)} + network service ${r3(m.split.network)} + main ${r3(m.split.main)}), ${m.reached.toFixed(1)} of ${m.fps} frames/s reached main, ${perFrame(m).toFixed(1)} CPU ms a frame, ${m.skipped} skipped in the page`

async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const [w, h, f] of [
    [1280, 720, 30],
    [1920, 1080, 60]
  ] as const) {
    // Alternated, so a busier moment of the machine does not fall on one way only.
    const a = await measure('http', w, h, f)
    const b = await measure('bridge', w, h, f)
    console.error(`${h}p${f}: ${say(a)}; ${say(b)}`)
    rows.push({
      name: `encoder: raw frame transport CPU at ${h}p${f}`,
      value: r3(b.cpu),
      unit: 'CPU s / s',
      reference: { name: 'HTTP POST a frame (before)', value: r3(a.cpu), unit: 'CPU s / s' },
      note: `web shell, page + main, less the idle page, ${SPAN_S} s spans, the core dropping the bytes; ${say(b)}; ${say(a)}; Electron's IPC is not measured here`
    })
    rows.push({
      name: `encoder: raw frame transport CPU per delivered frame at ${h}p${f}`,
      value: r3(perFrame(b)),
      unit: 'CPU ms / frame',
      reference: { name: 'HTTP POST a frame', value: r3(perFrame(a)), unit: 'CPU ms / frame' },
      note: `the same run: bridge ${b.reached.toFixed(1)}, HTTP POST ${a.reached.toFixed(1)} of ${f} frames/s reached main`
    })
  }
  return rows
}

runAsScript('bench:encoder-transport', run, {
  section: 'Encoder',
  command: 'node scripts/run-ts.mjs scripts/bench/encoder-transport.ts'
})
