// Studio mode (#34 §3): the preview and the program as reducers of shared/scenes.ts, and the saved
// setting (off by default; settings saved before it load unchanged, with it off).
import { describe, expect, it } from 'vitest'
import {
  activeScene,
  addScene,
  defaultScenes,
  deleteScene,
  onAirScene,
  renameScene,
  setStudioMode,
  switchScene,
  transitionToProgram
} from '../../../src/shared/scenes'
import { readScenes } from '../../../src/shared/scenes-saved'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'

const A = 16 / 9

describe('studio mode', () => {
  const base = defaultScenes(A)
  const [first, second, third] = base.scenes

  it('is off by default: a pick puts the scene on air at once', () => {
    expect(base.studio).toBe(false)
    const s = switchScene(base, second!.id)
    expect(onAirScene(s).id).toBe(second!.id)
    expect(activeScene(s).id).toBe(second!.id)
  })

  it('on: a pick goes to the preview, the program stays on air until Transition', () => {
    const on = setStudioMode(base, true)
    expect(onAirScene(on).id).toBe(first!.id)
    const picked = switchScene(on, second!.id)
    expect(activeScene(picked).id).toBe(second!.id)
    expect(onAirScene(picked).id).toBe(first!.id)
    // Editing the preview changes the preview's scene only; the program is the same scene.
    const edited = renameScene(picked, 'Next up')
    expect(activeScene(edited).name).toBe('Next up')
    expect(onAirScene(edited)).toEqual(first)
    const sent = transitionToProgram(edited)
    expect(onAirScene(sent).id).toBe(second!.id)
    expect(activeScene(sent).id).toBe(second!.id)
    // A new scene goes to the preview too.
    const added = addScene(sent, A)
    expect(onAirScene(added).id).toBe(second!.id)
  })

  it('Transition does nothing with studio mode off', () => {
    expect(transitionToProgram(base)).toBe(base)
  })

  it('off again: the program stays on air and becomes the active scene', () => {
    const s = switchScene(setStudioMode(base, true), third!.id)
    const off = setStudioMode(s, false)
    expect(off.studio).toBe(false)
    expect(onAirScene(off).id).toBe(first!.id)
    expect(activeScene(off).id).toBe(first!.id)
  })

  it('deleting the scene on air in studio mode puts another one on air', () => {
    const on = setStudioMode(base, true)
    const gone = deleteScene(on)
    expect(gone.scenes.some((s) => s.id === first!.id)).toBe(false)
    expect(gone.scenes.some((s) => s.id === onAirScene(gone).id && s.id === gone.programId)).toBe(
      true
    )
    // Deleting the preview keeps the program on air.
    const other = deleteScene(switchScene(on, second!.id))
    expect(onAirScene(other).id).toBe(first!.id)
  })

  it('is remembered; settings saved before it load unchanged, with it off', () => {
    const on = switchScene(setStudioMode(base, true), second!.id)
    const back = readScenes(JSON.parse(JSON.stringify(on)), A)
    expect(back.studio).toBe(true)
    expect(onAirScene(back).id).toBe(first!.id)
    expect(activeScene(back).id).toBe(second!.id)
    const { studio: _s, programId: _p, ...old } = base
    const loaded = readScenes(JSON.parse(JSON.stringify(old)), A)
    expect(loaded.studio).toBe(false)
    expect(onAirScene(loaded).id).toBe(base.activeId)
    expect(loaded.programId).toBe(base.activeId)
    // A program that names no scene: the active scene is on air.
    expect(onAirScene(readScenes({ ...on, programId: 'gone' }, A)).id).toBe(second!.id)
  })

  it('the schema takes settings saved before studio mode (default off) and refuses a bad switch', () => {
    const { studio: _s, programId: _p, ...old } = base
    const parsed = CALL_ARGS.saveSettings.safeParse([{ scenes: old }])
    expect(parsed.success).toBe(true)
    if (parsed.success)
      expect(parsed.data[0].scenes).toMatchObject({ studio: false, programId: '' })
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: setStudioMode(base, true) }]).success).toBe(
      true
    )
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: { ...base, studio: 'yes' } }]).success).toBe(
      false
    )
  })
})
