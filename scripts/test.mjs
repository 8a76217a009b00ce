// `npm test`: build, then the three layers (unit, integration, e2e), one vitest run each, one after
// the other, then one line: `tests: N passed, N failed` (and `, N skipped` when some were). On Linux it runs inside a private D-Bus session with an unlocked
// gnome-keyring, so the keychain tests use a real Secret Service without touching the user's own.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
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
  // The keyring daemon keeps its files in a fresh folder: an existing login keyring (with its own
  // password) would stay locked and make the daemon ask for a password on a display we don't have.
  const keyrings = mkdtempSync(join(tmpdir(), 'onair-keyring-'))
  const quoted = extra.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const inner =
    `echo -n onair-test | XDG_DATA_HOME='${keyrings}' gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ` +
    `ONAIR_KEYRING_SESSION=1 exec node scripts/test.mjs ${quoted}`
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], {
    cwd: root,
    stdio: 'inherit'
  })
  rmSync(keyrings, { recursive: true, force: true })
  process.exit(r.status ?? 1)
}

const env = { ...process.env }

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
const passThrough = extra.filter((a) => a !== '--no-build')
// One layer after the other: integration and e2e start real encoders, and two layers at once on two
// cores would turn real-time pushes into timeouts. Integration and e2e each run in two groups
// (vitest.config.mts): 'shared', their files three (e2e: two) at a time, then 'alone', the files whose
// asserts need the machine to themselves, one at a time. Each run writes its own JSON report.
const layers = passThrough.some((a) => a.startsWith('--project'))
  ? [null]
  : ['unit', 'integration:shared', 'integration:alone', 'e2e:shared', 'e2e:alone']

let passed = 0
let failed = 0
let skipped = 0
let anyNonZero = false
// The failures again at the end, so that the tail of a long log names them.
const failures = []
for (const run of layers) {
  const [layer, group] = run?.split(':') ?? []
  const report = join(outDir, `vitest-${run?.replace(':', '-') ?? 'selected'}.json`)
  rmSync(report, { force: true })
  const args = [
    'run',
    ...(layer ? ['--project', layer] : []),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...passThrough
  ]
  const r = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), ...args], {
    cwd: root,
    stdio: 'inherit',
    env: group ? { ...env, ONAIR_TEST_GROUP: group } : env
  })
  if (r.status !== 0) anyNonZero = true
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'))
    passed += json.numPassedTests
    failed += json.numFailedTests
    skipped += json.numPendingTests + (json.numTodoTests ?? 0)
    // A suite that failed to load counts as a failure even if it ran no test.
    failed += json.testResults.filter(
      (f) => f.status === 'failed' && f.assertionResults.length === 0
    ).length
    if (r.status !== 0 && json.numFailedTests === 0) failed += 1
    for (const file of json.testResults) {
      const where = `${run ?? 'selected'} ${file.name.replace(root + '/', '')}`
      if (file.status === 'failed' && file.assertionResults.length === 0)
        failures.push(`${where}: ${String(file.message ?? 'did not load').split('\n')[0]}`)
      for (const t of file.assertionResults.filter((a) => a.status === 'failed')) {
        const message = String(t.failureMessages?.[0] ?? '')
        failures.push(
          `${where} > ${t.fullName}: ${message.split('\n')[0]}${failedAt(message, file.name)}`
        )
      }
    }
  } catch {
    failed += 1
  }
}
/**
 * Where in the test's own file the failure was thrown (" (at tests/e2e/x.test.ts:148)"), read from
 * its stack: a file with several checks that fail alike ("expected false to be true") names the one.
 */
function failedAt(message, file) {
  const rel = file.replace(root + '/', '')
  const escaped = rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const line = message.match(new RegExp(`${escaped}:(\\d+)`))?.[1]
  return line ? ` (at ${rel}:${line})` : ''
}
if (failures.length) {
  console.log('\nfailed:')
  for (const f of failures) console.log(`  ${f.slice(0, 400)}`)
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || anyNonZero ? 1 : 0)
