// Benchmarks that run the app's core need a keychain (the core keeps the local studio's key there). On
// Linux outside a keyring session, the measurements run in a child inside a private D-Bus session with
// gnome-keyring, on a throwaway keyring folder (an existing login keyring with another password would
// prompt and hang). The child (the same script with --json) prints its rows as one JSON line.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BenchRow, RecordAs } from './types'

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0

/** measure() here when a keychain is at hand, else `script --json` in a private keyring session. */
export async function inKeyringSession(
  name: string,
  script: string,
  measure: () => Promise<BenchRow[]>
): Promise<BenchRow[]> {
  const needsSession =
    process.platform === 'linux' &&
    !process.env.ONAIR_KEYRING_SESSION &&
    has('dbus-run-session') &&
    has('gnome-keyring-daemon')
  if (!needsSession) return measure()
  const keyrings = mkdtempSync(join(tmpdir(), 'onair-bench-keyring-'))
  try {
    const inner = `echo -n onair-bench | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ONAIR_KEYRING_SESSION=1 exec "${process.execPath}" "${require.resolve('tsx/cli')}" "${script}" --json ${process.argv
      .slice(2)
      .filter((a) => /^--[a-z]+$/.test(a))
      .join(' ')}`
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], {
      // stderr is the child's progress: shown as it comes (dbus and keyring lines included).
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, XDG_DATA_HOME: keyrings },
      maxBuffer: 64 * 1024 * 1024
    })
    const out = r.stdout.toString().trim().split('\n')
    const last = out.pop() ?? ''
    if (r.status !== 0 || !last.startsWith('['))
      throw new Error(
        `${name} failed (exit ${r.status}; its errors are above):\n${[...out, last].join('\n')}`
      )
    return JSON.parse(last) as BenchRow[]
  } finally {
    rmSync(keyrings, { recursive: true, force: true })
  }
}

/**
 * The entry point of such a script: --json prints the rows as one line (for inKeyringSession); else
 * they are printed and, with `recordAs`, appended to bench/runs.jsonl and the report computed again.
 */
export function keyringScriptMain(
  run: () => Promise<BenchRow[]>,
  measure: () => Promise<BenchRow[]>,
  recordAs?: () => RecordAs
): void {
  const json = process.argv.includes('--json')
  ;(json ? measure() : run())
    .then(async (rows) => {
      if (json) return console.log(JSON.stringify(rows))
      for (const r of rows) {
        const ref = r.reference
          ? `  (ref: ${r.reference.name} ${r.reference.value} ${r.reference.unit})`
          : ''
        console.log(`${r.name}: ${r.value} ${r.unit}${ref}${r.note ? `\n    ${r.note}` : ''}`)
      }
      if (recordAs) {
        const { section, command } = recordAs()
        const { recordRun } = await import('./results')
        await recordRun(section, rows, command)
      }
    })
    .catch((e) => {
      console.error(e)
      process.exit(1)
    })
}
