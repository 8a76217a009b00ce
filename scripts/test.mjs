// `npm test`: every suite (unit, integration, e2e) in one vitest run, then one line:
// `tests: N passed, N failed`. On Linux it runs inside a private D-Bus session with an unlocked
// gnome-keyring, so the keychain tests use a real Secret Service without touching the user's own.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
const extra = process.argv.slice(2)

if (
  process.platform === 'linux' &&
  !process.env.ONAIR_KEYRING_SESSION &&
  has('dbus-run-session') &&
  has('gnome-keyring-daemon')
) {
  const inner = `echo -n onair-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ONAIR_KEYRING_SESSION=1 exec node scripts/test.mjs ${extra.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}`
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], {
    cwd: root,
    stdio: 'inherit'
  })
  process.exit(r.status ?? 1)
}

const env = { ...process.env }
if (!env.FFMPEG_PATH && existsSync('/usr/bin/ffmpeg') && !env.FFMPEG_BIN)
  env.FFMPEG_PATH = '/usr/bin/ffmpeg'

// The e2e layer drives the built renderer through the web shell: build first.
if (!extra.includes('--no-build')) {
  const b = spawnSync(
    process.execPath,
    [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env }
  )
  if (b.status !== 0) {
    console.log('tests: 0 passed, 1 failed')
    process.exit(1)
  }
}

const outDir = join(root, 'artifacts')
mkdirSync(outDir, { recursive: true })
const report = join(outDir, 'vitest-report.json')
rmSync(report, { force: true })
const args = [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...extra.filter((a) => a !== '--no-build')
]
const r = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), ...args], {
  cwd: root,
  stdio: 'inherit',
  env
})

let passed = 0
let failed = 0
let skipped = 0
try {
  const json = JSON.parse(readFileSync(report, 'utf8'))
  passed = json.numPassedTests
  failed = json.numFailedTests
  skipped = json.numPendingTests + (json.numTodoTests ?? 0)
  // A suite that failed to load counts as a failure even if it ran no test.
  failed += json.testResults.filter(
    (f) => f.status === 'failed' && f.assertionResults.length === 0
  ).length
} catch {
  failed = Math.max(failed, 1)
}
if (r.status !== 0 && failed === 0) failed = 1
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || r.status !== 0 ? 1 : 0)
