// The single path from an untrusted call (IPC or HTTP) to the core: check the name, validate the
// arguments, run, and turn every outcome into a Result. Never throws; never leaks a stack to the renderer.
import { CALL_NAMES, type CallName, type OnairCalls } from '../../shared/contract'
import { CALL_ARGS, describeIssues } from './contract-schema'
import { AppFailure, type Result } from '../../shared/result'
import { redactSecrets } from '../../shared/redact'

const KNOWN = new Set<string>(CALL_NAMES)

export const isCallName = (name: unknown): name is CallName =>
  typeof name === 'string' && KNOWN.has(name)

export interface DispatchOptions {
  /** Where unexpected failures are reported (redacted), e.g. the app log. */
  log?: (line: string) => void
}

export async function dispatch(
  core: OnairCalls,
  name: unknown,
  args: unknown,
  opts: DispatchOptions = {}
): Promise<Result<unknown>> {
  if (!isCallName(name)) {
    return {
      ok: false,
      error: { code: 'bad-request', message: `Unknown call: ${String(name).slice(0, 80)}` }
    }
  }
  const parsed = CALL_ARGS[name].safeParse(Array.isArray(args) ? args : [])
  if (!Array.isArray(args) || !parsed.success) {
    const detail = parsed.success
      ? { message: 'arguments must be a list' }
      : describeIssues(parsed.error)
    return {
      ok: false,
      error: {
        code: 'bad-request',
        message: `Invalid arguments for ${name}: ${detail.message}`,
        field: 'field' in detail ? detail.field : undefined
      }
    }
  }
  try {
    const fn = core[name] as (...a: unknown[]) => Promise<unknown>
    const value = await fn.apply(core, parsed.data as unknown[])
    return { ok: true, value }
  } catch (e) {
    if (e instanceof AppFailure) return { ok: false, error: e.error }
    const message = redactSecrets(e instanceof Error ? e.message : String(e))
    opts.log?.(`call ${name} failed unexpectedly: ${message}`)
    return {
      ok: false,
      error: {
        code: 'internal',
        message: `Something went wrong in ${name}: ${message}`,
        hint: 'Try again; if it keeps happening, restart Onair.'
      }
    }
  }
}
