// A scan of the sources with @doyensec/electronegativity: no high-severity finding is allowed; the
// medium ones we accept are listed with the reason. (Its two checks that download Electron's release
// list are excluded: these machines have no internet, and the Electron version is pinned in package.json.)
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../../..')

/** Accepted non-high findings, each with why it is fine here. */
const EXPLAINED: Record<string, string> = {
  PRELOAD_JS_CHECK:
    'the preload exposes exactly the typed contract through contextBridge, nothing else',
  OPEN_EXTERNAL_JS_CHECK: 'only https: URLs are opened externally (isExternalLinkAllowed, tested)',
  CSP_GLOBAL_CHECK:
    "style-src allows 'unsafe-inline' for React style attributes; scripts are 'self' only",
  AUXCLICK_JS_CHECK:
    "disableBlinkFeatures: 'Auxclick' is set; the scanner reads only the first option",
  SANDBOX_JS_CHECK: 'sandbox: true is set on the only window'
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  const endCell = (): void => {
    row.push(cell.trim())
    cell = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') endCell()
    else if (c === '\n') {
      endCell()
      rows.push(row)
      row = []
    } else cell += c
  }
  if (cell || row.length) {
    endCell()
    rows.push(row)
  }
  return rows
}

describe('electronegativity scan', () => {
  it('finds no high-severity issue in src/, and every other finding is explained', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-eneg-'))
    const out = join(dir, 'findings.csv')
    const electronVersion = String(
      (
        JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
          devDependencies: Record<string, string>
        }
      ).devDependencies.electron
    ).replace(/^[^\d]*/, '')
    await new Promise<void>((res, rej) =>
      execFile(
        process.execPath,
        [
          join(ROOT, 'node_modules/@doyensec/electronegativity/dist/index.js'),
          ...['-i', join(ROOT, 'src'), '-e', electronVersion, '-r', '-v', 'false', '-o', out],
          ...['-x', 'AvailableSecurityFixesGlobalCheck,ElectronVersionJSONCheck']
        ],
        { timeout: 120_000 },
        (err) => (err ? rej(err) : res())
      )
    )
    const rows = parseCsv(readFileSync(out, 'utf8'))
    rmSync(dir, { recursive: true, force: true })
    expect(rows[0]?.[0]).toBe('issue') // the scan ran and wrote its table
    const findings = rows.slice(1).filter((r) => r.length >= 4 && /^[A-Z_]+$/.test(r[0] ?? ''))
    const high = findings.filter((r) => r[1] === 'HIGH' || r[1] === 'CRITICAL')
    expect(high.map((r) => `${r[0]} ${r[3]}:${r[4]}`)).toEqual([])
    const unexplained = findings
      .filter((r) => !(r[0]! in EXPLAINED))
      .map((r) => `${r[0]} ${r[1]} ${r[3]}:${r[4]}`)
    expect(unexplained).toEqual([])
  })
})
