// `npm run bench:encoder` (#33): the picture the app puts through the creator's upload, against plain
// ffmpeg x264 veryfast at the same bitrate on the same source frames.
// - The clips (clips/make-clips.ts: camera, screen, motion; 10 s 720p30 y4m, each frame with its painted
//   index) are Chromium's fake camera (`--use-file-for-fake-video-capture`, looped) in the app as a user
//   runs it (web shell, real Chromium), going live to the local studio at 1280x720 30 fps with the
//   Output's encoder: Onair's (the default) or 'browser' (the page's WebCodecs, for the record).
// - The stream as the studio received it (its source recording: H.264 copied, never re-encoded) is
//   decoded; each frame's index names its source frame; PSNR-Y below the index band (clips/score.ts).
// - The reference: ffmpeg libx264 veryfast at the same rate control as the app's encoder (CBR: bitrate =
//   maxrate, 1 s buffer, keyframe every 2 s, 2 B-frames, profile High) on the very frames each app run's
//   stream showed, in its order (the looped clip's wraps, a repeated or skipped frame included), scored
//   the same way. Until 29 Nov it was x264 on the clip played once, scored over the source frames the
//   run showed; each wrap of the loop is a cut that costs the app's encoder bits the reference never
//   paid. That figure stays in the notes.
// - CPU of the whole send path over a span while live (the page's renderer, main = this process with
//   the core and the web shell, the encoder process, the broadcaster's ffmpeg; /proc utime+stime),
//   against plain ffmpeg x264 veryfast on the same clip in real time (-re, -benchmark).
// - Bits for x264's quality: the app's encoder on the camera clip at a second bitrate, the rate it
//   spends to reach the PSNR of the reference asked for 2.5 Mbps interpolated (log rate, linear dB)
//   between the two runs around it, over what the reference spent: bits spent on both sides.
// Rows go into bench/results.md ("Encoder" section), never asserted.
import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
} from "node:fs";
import { execFile, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GoLiveResult, OutputSettings } from "../../src/shared/contract";
import { DEFAULT_OUTPUT } from "../../src/shared/output";
import {
  launchChromium,
  launchDetachableChromium,
} from "../../tests/helpers/browser";
import { numberAbove, type Probe } from "../../tests/helpers/page-probe";
import { testFfmpeg, waitFor } from "../../tests/helpers/studio";
import { startWebShell } from "../../tests/helpers/web-shell";
import { CLIP, CLIP_NAMES, makeClips, type ClipName } from "./clips/make-clips";
import {
  psnrOf,
  scoreAgainstClip,
  videoRate,
  type Scored,
} from "./clips/score";
import { readY4mHeader, y4mFrameOffset } from "./clips/frame-index";
import { cpuBetween, processTree, subtree, type Proc } from "./proc";
import { runAsScript, writeRows } from "./results";
import { median, wait, type BenchRow } from "./types";

const KBPS = DEFAULT_OUTPUT.videoBitrateKbps;
/** Seconds live before the CPU span (go-live's catch-up, the encoder's first keyframe). */
const WARMUP_S = 3;
/** The CPU span; the recording (everything from go live to stop) is scored whole. */
const SPAN_S = Number(process.env.ONAIR_BENCH_ENCODER_SPAN_S ?? 15);
/** Alternated app runs per clip and encoder (the machine swings ±20 %). */
const RUNS = Number(process.env.ONAIR_BENCH_ENCODER_RUNS ?? 1);

type Encoder = "app" | "browser";

/** Some of the clips (`ONAIR_BENCH_ENCODER_CLIPS=camera,screen`); the CPU and bits rows need camera. */
const ONLY = CLIP_NAMES.filter((c) =>
  (process.env.ONAIR_BENCH_ENCODER_CLIPS ?? CLIP_NAMES.join(","))
    .split(",")
    .includes(c),
);

/** x264 as the app's encoder process sets it (src/encoder/video.ts), as OBS does, at `kbps`. */
const x264Args = (kbps: number): string[] => [
  ...["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high"],
  ...["-b:v", `${kbps}k`, "-maxrate", `${kbps}k`, "-bufsize", `${kbps}k`],
  ...["-g", String(CLIP.fps * DEFAULT_OUTPUT.keyframeIntervalSec), "-bf", "2"],
];

function ffmpeg(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(testFfmpeg(), args, { maxBuffer: 1 << 24 }, (err, _out, stderr) =>
      err
        ? reject(new Error(`ffmpeg failed: ${stderr.slice(-500)}`))
        : resolve(stderr),
    ),
  );
}

interface Reference {
  scored: Scored;
  kbps: number;
  /** Squared error of the reference's frame showing each source frame. */
  mseOf: Map<number, number>;
}

/** Plain ffmpeg x264 veryfast on the clip at `kbps`, scored. */
async function reference(
  clip: string,
  kbps: number,
  dir: string,
): Promise<Reference> {
  const out = join(dir, `reference-${kbps}.mkv`);
  await ffmpeg([
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-i",
    clip,
    ...x264Args(kbps),
    out,
  ]);
  const scored = await scoreAgainstClip(out, clip);
  return {
    scored,
    kbps: videoRate(out).kbps,
    mseOf: new Map(scored.frames.map((f) => [f.index, f.mse])),
  };
}

/** The reference's PSNR-Y over the same source frames an app run showed, each as often. */
function referenceOver(ref: Reference, app: Scored): number {
  const frames = app.frames.map((f) => ({
    mse: ref.mseOf.get(f.index) ?? NaN,
  }));
  return psnrOf(frames);
}

/** x264 veryfast on the very frames a run showed, in its order. */
interface SameFrames {
  /** PSNR-Y over its frames, each scored against its source frame. */
  psnr: number;
  kbps: number;
}

/**
 * Plain ffmpeg x264 veryfast at `kbps` on the sequence of source frames an app run's stream showed, in
 * the same order (the looped camera's wraps from the clip's last frame to its first, a frame the capture
 * repeated or one the app skipped, all as the app's encoder had them), at the clip's frame rate; scored
 * like the app's stream. The reference the rows compare with since 29 Nov: x264 on the clip played once
 * has no wrap, and each wrap is a cut that costs an encoder bits (the app's 18 s runs have one or two).
 */
async function sameFrames(
  clip: string,
  shown: Scored,
  kbps: number,
  dir: string,
): Promise<SameFrames> {
  const y = readY4mHeader(clip, statSync(clip).size);
  const out = join(dir, `same-frames-${kbps}-${Date.now()}.mkv`);
  const ff = spawn(
    testFfmpeg(),
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", `${y.width}x${y.height}`],
      ...["-r", String(y.fps), "-i", "pipe:0"],
      ...x264Args(kbps),
      out,
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let stderr = "";
  ff.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => ff.on("close", resolve));
  const fd = openSync(clip, "r");
  try {
    const frame = Buffer.alloc(y.frameBytes);
    for (const f of shown.frames) {
      readSync(fd, frame, 0, y.frameBytes, y4mFrameOffset(y, f.index));
      // The write's callback: the bytes have left `frame`, which the next read fills again.
      await new Promise<void>((resolve, reject) =>
        ff.stdin.write(frame, (e) => (e ? reject(e) : resolve())),
      );
    }
  } finally {
    closeSync(fd);
    ff.stdin.end();
  }
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg x264 on the run's frames failed: ${stderr.slice(-400)}`);
  const scored = await scoreAgainstClip(out, clip);
  const { kbps: spent } = videoRate(out);
  rmSync(out, { force: true });
  return { psnr: psnrOf(scored.frames), kbps: spent };
}

/** CPU seconds per media second of plain ffmpeg x264 veryfast on the clip in real time. */
async function referenceCpu(clip: string, kbps: number): Promise<number> {
  const err = await ffmpeg([
    ...["-hide_banner", "-loglevel", "info", "-benchmark", "-re", "-i", clip],
    ...x264Args(kbps),
    ...["-f", "null", "-"],
  ]);
  const m = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(err);
  if (!m) throw new Error("ffmpeg -benchmark printed no utime");
  return (Number(m[1]) + Number(m[2])) / CLIP.seconds;
}

/** CPU seconds per second of each part of the send path over the span. */
interface PathCpu {
  renderer: number;
  main: number;
  encoder: number;
  broadcaster: number;
  /**
   * Chromium's network service: in the web shell the page's calls (pushMedia, pushFrames) are HTTP
   * requests, which it carries (Electron's IPC does not go through it).
   */
  network: number;
  /** Not in the send path's sum, for the record: Chromium's capture, GPU and browser processes. */
  chromiumOther: number;
}

function pathCpu(before: Proc[], after: Proc[], seconds: number): PathCpu {
  const spent = cpuBetween(before, after);
  // The local studio: main's node child running studio's entry (its ffmpegs are under it).
  const studio = after.find(
    (p) =>
      p.ppid === process.pid &&
      p.cmd.startsWith(process.execPath) &&
      /studio(\/cli\.ts|\.js)\b/.test(p.cmd),
  );
  const inStudio = studio ? subtree(after, studio.pid) : new Set<number>();
  const sum = (pred: (p: Proc) => boolean): number =>
    spent
      .filter((p) => !inStudio.has(p.pid) && pred(p))
      .reduce((s, p) => s + p.cpu, 0) / seconds;
  const chromium = (p: Proc): boolean =>
    /chrom/i.test(p.cmd.split(" ")[0] ?? "");
  return {
    renderer: sum((p) => chromium(p) && p.cmd.includes("--type=renderer")),
    main: sum((p) => p.pid === process.pid),
    encoder: sum((p) => /encoder(\/cli\.ts|\.js)\b/.test(p.cmd)),
    broadcaster: sum(
      (p) => p.ppid === process.pid && /ffmpeg/.test(p.cmd.split(" ")[0] ?? ""),
    ),
    network: sum(
      (p) => chromium(p) && p.cmd.includes("network.mojom.NetworkService"),
    ),
    chromiumOther: sum(
      (p) =>
        chromium(p) &&
        !p.cmd.includes("--type=renderer") &&
        !p.cmd.includes("network.mojom.NetworkService"),
    ),
  };
}

const sendPath = (c: PathCpu): number =>
  c.renderer + c.network + c.main + c.encoder + c.broadcaster;

interface AppRun {
  scored: Scored;
  kbps: number;
  /** Frames a second the studio received. */
  fps: number;
  cpu: PathCpu;
  /** What Go live said encodes the run. */
  encoder: string;
  /** The health strip's text at the end of the span. */
  health: string;
  /** x264 veryfast at the bench's rate on the same frames in the same order: what the rows compare with. */
  same: SameFrames;
}

/** The app as a user runs it, live on the clip at `kbps` with `encoder`; its source recording scored. */
async function appRun(
  clip: string,
  encoder: Encoder,
  kbps: number,
  dir: string,
): Promise<AppRun> {
  const run = await liveRun(clip, encoder, kbps);
  return { ...run, same: await sameFrames(clip, run.scored, KBPS, dir) };
}

async function liveRun(
  clip: string,
  encoder: Encoder,
  kbps: number,
): Promise<Omit<AppRun, "same">> {
  const shell = await startWebShell();
  const core = shell.core;
  let said = "unknown";
  const goLive = core.goLive.bind(core);
  core.goLive = async (args) => {
    const r: GoLiveResult = await goLive(args);
    const e = (
      r as { encoder?: { kind: string; label?: string; reason?: string } }
    ).encoder;
    said = !e
      ? "the page (WebCodecs)"
      : e.kind === "app"
        ? (e.label ?? "app")
        : `the page (WebCodecs)${e.reason ? `: ${e.reason}` : ""}`;
    return r;
  };
  const output: OutputSettings = {
    ...DEFAULT_OUTPUT,
    videoBitrateKbps: kbps,
    // Onair's encoder chosen, not Automatic: on a machine under 4 cores Automatic is the browser's
    // encoder, and both sides would be WebCodecs.
    videoEncoder: encoder === "browser" ? ("browser" as const) : ("x264" as const),
  };
  await core.saveSettings({
    sourceKind: "camera",
    output,
    localRecording: { enabled: false },
  });
  const name = `Encoder bench ${encoder} ${kbps}`;
  const stream = await core.createStream({ name, profiles: [], record: true });
  // Playwright drives the page to go live and to stop, and is detached in between, as the app runs
  // with no DevTools client (tests/helpers/browser.ts, launchDetachableChromium).
  const chromium = await launchDetachableChromium(shell.url, [
    `--use-file-for-fake-video-capture=${clip}`,
    // The window's own size: a viewport set over DevTools would go when the driver detaches.
    "--window-size=1280,860",
  ]);
  const pageOf = async () => {
    const page = (await chromium.attach()).contexts()[0]?.pages()[0];
    if (!page) throw new Error("Chromium has no page");
    return page;
  };
  try {
    let page = await pageOf();
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("button", { name: "Streams", exact: true })
      .click();
    await page.getByRole("button", { name, exact: true }).click();
    await page.getByTestId("stream-go-live").click();
    await page.getByTestId("source-camera").check();
    await page.waitForFunction(
      numberAbove,
      ["[data-testid=preview]", "videoWidth", 0] as Probe,
      {
        timeout: 30_000,
      },
    );
    // Main's run states from the click on, each with its second since the click, for a failed run's note.
    const states: string[] = [];
    const clickAt = performance.now();
    core.events.on("live:state", (e) => {
      const why = e.error?.message;
      states.push(
        `${e.state} at ${((performance.now() - clickAt) / 1000).toFixed(1)} s${why ? ` (${why})` : ""}`,
      );
    });
    // Detached from the click on; main's own run state says when it is live.
    const live = new Promise<void>((resolve, reject) => {
      const off = core.events.on("live:state", (e) => {
        if (e.state === "live") resolve();
        else if (e.state === "failed" || e.state === "ended")
          reject(new Error(`the run went ${e.state} before it was live`));
        else return;
        off();
      });
    });
    await page.getByTestId("go-live").click();
    await chromium.detach();
    await Promise.race([
      live,
      wait(90_000).then(() => {
        throw new Error(
          `not live within 90 s (main's run states: ${states.join(", ") || "none"})`,
        );
      }),
    ]);
    await wait(WARMUP_S * 1000);
    const t0 = performance.now();
    const before = processTree();
    await wait(SPAN_S * 1000);
    const after = processTree();
    const cpu = pathCpu(before, after, (performance.now() - t0) / 1000);
    page = await pageOf();
    // The app's own account at the end of the span (frame rate, skipped frames, drops), for the note.
    const health = (
      (await page.evaluate(
        `document.querySelector('[data-testid=health-strip]')?.textContent ?? ''`,
      )) as string
    )
      .replace(/\s+/g, " ")
      .trim();
    const stop = page.getByTestId("stop-live");
    if (!(await stop.isVisible())) {
      // The run ended before Stop: say what the page and main saw, for the failed run's note.
      const alerts = (await page.getByRole("alert").allTextContents()).join(" / ");
      const banner = page.getByTestId("live-banner");
      const state = (await banner.count())
        ? `${await banner.getAttribute("data-state")}: ${(await banner.textContent())?.replace(/\s+/g, " ")}`
        : "no live banner";
      const consoleLines = chromium
        .log()
        .split("\n")
        .filter((l) => /CONSOLE|crash|Fatal|Killed/i.test(l))
        .slice(-8)
        .join(" | ");
      throw new Error(
        `the run ended before Stop: page ${state}; alerts: ${alerts || "none"}; main's run states ${states.join(", ")}; console: ${consoleLines}`,
      );
    }
    await stop.click();
    await page
      .locator("[data-testid=live-banner][data-state=ended]")
      .waitFor({ timeout: 60_000 });
    const session = await waitFor(
      async () => {
        const s = (await core.listSessions({ streamId: stream.id })).items[0];
        if (s?.recordingStatus === "failed")
          throw new Error("the studio failed to record the run");
        return s?.recordingStatus === "ready" && s.mp4Url ? s : undefined;
      },
      60_000,
      "the recording ready",
    );
    const mp4 = session.mp4Url!;
    const scored = await scoreAgainstClip(mp4, clip);
    return { scored, ...videoRate(mp4), cpu, encoder: said, health };
  } finally {
    await chromium.close();
    await shell.stop();
  }
}

/** An app run's PSNR-Y minus x264's on the same frames in the same order. */
const diff = (r: AppRun): number => psnrOf(r.scored.frames) - r.same.psnr;

/** The same against x264 on the clip played once (the rows' reference until 29 Nov), for the record. */
const diffOnce = (r: AppRun, ref: Reference): number =>
  psnrOf(r.scored.frames) - referenceOver(ref, r.scored);

const r2 = (n: number): number => Math.round(n * 100) / 100;
const r3 = (n: number): number => Math.round(n * 1000) / 1000;

/** The rate at which `dB` is reached between two runs (log rate, linear dB; extrapolated if outside). */
function rateFor(
  dB: number,
  a: { kbps: number; dB: number },
  b: { kbps: number; dB: number },
): number {
  if (a.dB === b.dB) return NaN;
  const la = Math.log(a.kbps);
  const lb = Math.log(b.kbps);
  return Math.exp(la + ((dB - a.dB) * (lb - la)) / (b.dB - a.dB));
}

interface ClipResult {
  clip: ClipName;
  ref: Reference;
  app: AppRun[];
  browser: AppRun[];
  refCpu: number[];
  /** Runs that failed, with why (a row without runs says so instead of a figure). */
  failed: string[];
}

/** One app run; a failure is noted and the bench goes on with the other runs. */
async function tryRun(
  res: ClipResult,
  kind: Encoder,
  run: () => Promise<AppRun>,
): Promise<void> {
  try {
    const r = await run();
    res[kind].push(r);
    console.error(
      `bench:encoder ${res.clip} ${kind} (${r.encoder}): ${describe(r, res.ref)}, send path ${r3(sendPath(r.cpu))} CPU s/s`,
    );
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split("\n")[0]!;
    console.error(`bench:encoder ${res.clip} ${kind} run failed: ${why}`);
    res.failed.push(`${kind}: ${why}`);
  }
}

const describe = (r: AppRun, ref: Reference): string =>
  `${r2(psnrOf(r.scored.frames))} dB vs ${r2(r.same.psnr)} dB for x264 on its frames (${Math.round(r.same.kbps)} kbps; ${r2(referenceOver(ref, r.scored))} dB on the clip played once) over ${r.scored.frames.length} frames ` +
  `(${new Set(r.scored.frames.map((f) => f.index)).size} distinct, ${r.scored.unreadable} unreadable), ${Math.round(r.kbps)} kbps at ${r.fps.toFixed(1)} fps` +
  (r.health ? ` (health strip: ${r.health})` : "");

/**
 * What moving raw frames costs: the app's page (web shell) sends I420 pictures of `width`x`height` at
 * `fps` through its own bridge (`onair.pushFrames`: an HTTP POST a message, one in flight, as the raw
 * pusher sends) to main, where the call is checked as every call is (the dispatcher's schema reads
 * each message) and the bytes are dropped instead of going to the encoder process. Each frame's bytes
 * are copied into a new buffer first, as the pusher copies a VideoFrame. The renderer's and main's CPU
 * over the span, less the same span with the page idle.
 */
async function transportCpu(
  width: number,
  height: number,
  fps: number,
): Promise<{
  cpu: number;
  idle: number;
  sent: number;
  skipped: number;
  mbps: number;
  split: string;
}> {
  const shell = await startWebShell();
  let bytes = 0;
  let calls = 0;
  shell.core.pushFrames = async (_runId, chunk) => {
    bytes += chunk.byteLength;
    calls++;
  };
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(shell.url);
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    const parts: string[] = [];
    const span = async (): Promise<number> => {
      const before = processTree();
      const t0 = performance.now();
      await wait(SPAN_S * 1000);
      const c = pathCpu(before, processTree(), (performance.now() - t0) / 1000);
      parts.push(
        `renderer ${r3(c.renderer)} + network service ${r3(c.network)} + main ${r3(c.main)}`,
      );
      return c.renderer + c.network + c.main;
    };
    const idle = await span();
    // A string, not a function: the bench's TypeScript loader adds helpers a page does not have.
    const started = await page.evaluate(`(() => {
      const w = ${width}, h = ${height}, f = ${fps}
      const size = w * h + 2 * Math.ceil(w / 2) * Math.ceil(h / 2)
      const template = new Uint8Array(24 + size)
      for (let i = 24; i < template.length; i++) template[i] = (i * 7) & 255
      const state = { sent: 0, skipped: 0, stop: () => clearInterval(timer) }
      let busy = false
      const t0 = performance.now()
      const timer = setInterval(() => {
        if (busy) { state.skipped++; return }
        const msg = template.slice()
        const v = new DataView(msg.buffer)
        v.setUint32(0, size, true)
        v.setUint8(4, 1)
        v.setUint32(8, w, true)
        v.setUint32(12, h, true)
        v.setFloat64(16, (performance.now() - t0) * 1000, true)
        busy = true
        void globalThis.onair.pushFrames('bench-transport', msg).then((r) => {
          busy = false
          if (r.ok) state.sent++
        })
      }, 1000 / f)
      globalThis.benchTransport = state
      return true
    })()`);
    if (!started) throw new Error("the page did not start sending");
    await wait(2000);
    const bytes0 = bytes;
    const calls0 = calls;
    const t0 = performance.now();
    const cpu = await span();
    const seconds = (performance.now() - t0) / 1000;
    const st = (await page.evaluate(`(() => {
      const s = globalThis.benchTransport; s.stop(); return { sent: s.sent, skipped: s.skipped }
    })()`)) as { sent: number; skipped: number };
    if (calls === calls0) throw new Error("no raw frames reached main");
    return {
      cpu: cpu - idle,
      idle,
      sent: (calls - calls0) / seconds,
      skipped: st.skipped,
      mbps: ((bytes - bytes0) * 8) / seconds / 1e6,
      split: parts[1] ?? "",
    };
  } finally {
    await browser.close();
    await shell.stop();
  }
}

async function transportRow(): Promise<BenchRow> {
  const a = await transportCpu(1280, 720, 30);
  const b = await transportCpu(1920, 1080, 60);
  const say = (x: typeof a, label: string): string =>
    `${label}: ${r3(x.cpu)} CPU s/s (${x.split}, less ${r3(x.idle)} idle), ${x.sent.toFixed(1)} frames/s reached main (${Math.round(x.mbps)} Mbit/s), ${x.skipped} skipped in the page while one was in flight`;
  return {
    name: "encoder: raw frame transport CPU at 720p30 and 1080p60",
    value: r3(a.cpu),
    unit: "CPU s / s",
    reference: { name: "1080p60", value: r3(b.cpu), unit: "CPU s / s" },
    note:
      `web shell (the page's bridge: an HTTP POST a message to main, checked by the dispatcher, then dropped instead of encoded), ${SPAN_S} s spans; ` +
      `${say(a, "720p30")}; ${say(b, "1080p60")}; Electron's IPC is not measured here`,
  };
}

/** The CPU and bits rows, from the camera clip's runs (and one more run of the app at another rate). */
async function cameraRows(
  cam: ClipResult,
  results: ClipResult[],
  clip: string,
  dir: string,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const appCpu = median(cam.app.map((r) => sendPath(r.cpu)));
  const refCpu = median(cam.refCpu);
  const parts = (c: PathCpu): string =>
    `renderer ${r3(c.renderer)} + network service ${r3(c.network)} + main ${r3(c.main)} + encoder ${r3(c.encoder)} + broadcaster ffmpeg ${r3(c.broadcaster)} (Chromium's other processes ${r3(c.chromiumOther)})`;
  rows.push({
    name: "encoder: CPU per media second vs plain ffmpeg x264 veryfast",
    value: r3(appCpu),
    unit: "CPU s / media s",
    goal: { max: 1.3, of: "ratio" },
    reference: {
      name: "plain ffmpeg x264 veryfast, same clip, real time",
      value: r3(refCpu),
      unit: "CPU s / media s",
    },
    note:
      `goal <= 1.3x at 720p30; camera clip, ${SPAN_S} s span while live, /proc utime+stime: ${cam.app.map((r) => parts(r.cpu)).join("; ")}; ` +
      `the page's WebCodecs path: ${cam.browser.map((r) => `${r3(sendPath(r.cpu))} (${parts(r.cpu)})`).join("; ")}; ` +
      `other clips, app vs plain: ${results
        .filter((r) => r !== cam)
        .map(
          (r) =>
            `${r.clip} ${r3(median(r.app.map((a) => sendPath(a.cpu))))} vs ${r3(median(r.refCpu))}`,
        )
        .join(", ")}; plain ffmpeg runs ${cam.refCpu.map(r3).join(", ")}`,
  });
  // Bits for x264's quality on the camera clip: the app's encoder at a second rate on the side of the
  // reference's PSNR that 2.5 Mbps missed, then interpolated to 0 dB against the reference.
  if (cam.app.length === 0) {
    rows.push({
      name: "encoder: bits for x264 veryfast's quality (camera)",
      value: NaN,
      unit: "x",
      note: `not measured: the app's encoder made no run (${cam.failed.join("; ")})`,
    });
    return rows;
  }
  // Bits as spent, on both sides (since 29 Nov; before, the app's runs counted at the rates asked
  // for, 2500 and 3200 kbps, and the reference at 2500, whatever each spent).
  const base = {
    kbps: median(cam.app.map((r) => r.kbps)),
    dB: median(cam.app.map(diff)),
  };
  // What x264 spent at the bench's rate on the same frames as the app's runs at that rate.
  const x264Kbps = median(cam.app.map((r) => r.same.kbps));
  const x264dB = median(cam.app.map((r) => r.same.psnr));
  const other = base.dB >= 0 ? 2000 : 3200;
  console.error(`bench:encoder camera: the app's encoder at ${other} kbps…`);
  const more = await appRun(clip, "app", other, dir);
  const side = { kbps: more.kbps, dB: diff(more) };
  const need = rateFor(0, base, side);
  rows.push({
    name: "encoder: bits for x264 veryfast's quality (camera)",
    value: r3(need / x264Kbps),
    unit: "x",
    goal: { max: 1.05 },
    note:
      `the app's encoder (${more.encoder}) needs about ${Math.round(need)} kbps for the PSNR-Y x264 veryfast reached spending ${Math.round(x264Kbps)} kbps when asked for ${KBPS} on the same frames (${r2(x264dB)} dB; on the clip played once ${r2(psnrOf(cam.ref.scored.frames))} dB at ${Math.round(cam.ref.kbps)} kbps); ` +
      `its runs at ${KBPS} and ${other} kbps scored ${r2(base.dB)} and ${r2(side.dB)} dB against x264 at ${KBPS} on their own frames ` +
      `(spent ${Math.round(base.kbps)} and ${Math.round(more.kbps)} kbps at ${median(cam.app.map((r) => r.fps)).toFixed(1)} and ${more.fps.toFixed(1)} fps), the rate spent for 0 dB interpolated between them (log rate, linear dB)` +
      (Math.min(more.fps, ...cam.app.map((r) => r.fps)) < 0.9 * CLIP.fps
        ? `; not comparable yet: a stream below ${CLIP.fps} fps spends its bits on fewer frames`
        : ""),
  });
  return rows;
}

export async function runEncoderPictureBench(): Promise<BenchRow[]> {
  const clips = await makeClips();
  const dir = mkdtempSync(join(tmpdir(), "onair-bench-encoder-"));
  const results: ClipResult[] = [];
  try {
    for (const name of ONLY) {
      const clip = clips[name];
      console.error(
        `bench:encoder ${name}: reference x264 (${Math.round(statSync(clip).size / 1e6)} MB clip)…`,
      );
      const res: ClipResult = {
        clip: name,
        ref: await reference(clip, KBPS, dir),
        app: [],
        browser: [],
        refCpu: [],
        failed: [],
      };
      for (let i = 0; i < RUNS; i++) {
        // Alternated: the app's encoder, the plain ffmpeg, the page's WebCodecs.
        console.error(`bench:encoder ${name}: run ${i + 1}/${RUNS}…`);
        await tryRun(res, "app", () => appRun(clip, "app", KBPS, dir));
        res.refCpu.push(await referenceCpu(clip, KBPS));
        await tryRun(res, "browser", () => appRun(clip, "browser", KBPS, dir));
      }
      results.push(res);
    }
    const rows: BenchRow[] = [];
    for (const res of results) {
      const d = median(res.app.map(diff));
      const b = median(res.browser.map(diff));
      const once = median(res.app.map((r) => diffOnce(r, res.ref)));
      const fps = median(res.app.map((r) => r.fps));
      rows.push({
        name: `encoder: PSNR-Y vs x264 veryfast at 2.5 Mbps (${res.clip})`,
        value: r2(d),
        unit: "dB",
        goal: { min: -0.1 },
        note:
          `goal >= -0.1 dB against x264 veryfast on the same frames in the same order (the looped clip's wraps included); against x264 on the clip played once: ${r2(once)} dB; the page's WebCodecs (Output encoder 'browser'), for the record: ${r2(b)} dB; ` +
          (fps < 0.9 * CLIP.fps
            ? `not comparable yet: the app's stream carried ${fps.toFixed(1)} of ${CLIP.fps} frames a second (fewer frames get more bits each); `
            : "") +
          `the app (${res.app[0]?.encoder}): ${res.app.map((r) => describe(r, res.ref)).join("; ")}; ` +
          `browser (${res.browser[0]?.encoder}): ${res.browser.map((r) => describe(r, res.ref)).join("; ")}; ` +
          `the reference over all ${res.ref.scored.frames.length} clip frames ${r2(psnrOf(res.ref.scored.frames))} dB at ${Math.round(res.ref.kbps)} kbps; ` +
          `${CLIP.width}x${CLIP.height} ${CLIP.fps} fps ${res.clip} clip (bench:clips) as Chromium's fake camera, live ${WARMUP_S + SPAN_S} s to the local studio at ${KBPS} kbps, its source recording decoded, frames matched by their painted index; ` +
          `x264: ${x264Args(KBPS).join(" ")}; median of ${RUNS} alternated run(s)` +
          (res.failed.length ? `; failed runs: ${res.failed.join("; ")}` : ""),
      });
    }
    // CPU: the camera clip's send path against the plain ffmpeg of the same clip.
    const cam = results.find((r) => r.clip === "camera");
    if (cam) rows.push(...(await cameraRows(cam, results, clips.camera, dir)));
    if (process.env.ONAIR_BENCH_ENCODER_TRANSPORT !== "0") {
      console.error("bench:encoder: raw frame transport…");
      rows.push(
        await transportRow().catch((e: unknown) => ({
          name: "encoder: raw frame transport CPU at 720p30 and 1080p60",
          value: NaN,
          unit: "CPU s / s",
          note: `not measured: ${String(e).split("\n")[0]}`,
        })),
      );
    }
    if (require.main === module)
      await writeRows("Encoder", rows, "npm run bench:encoder");
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  runAsScript("bench:encoder", runEncoderPictureBench);
