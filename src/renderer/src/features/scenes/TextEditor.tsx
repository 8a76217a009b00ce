// One text source of the active scene: shown or not, its words, size, colour and band.
import type { ReactNode } from 'react'
import { DEFAULT_TEXT, LIMITS, type SceneItem, type TextSource } from '../../../../shared/scenes'

export function TextEditor({
  item,
  text,
  label,
  onVisible,
  onEdit,
  onRemove
}: {
  item: SceneItem
  text: TextSource
  label: string
  onVisible: (visible: boolean) => void
  onEdit: (patch: Partial<Omit<TextSource, 'id' | 'kind'>>) => void
  onRemove: () => void
}): ReactNode {
  return (
    <li className="title-editor" data-testid="title-source">
      <label className="check">
        <input
          type="checkbox"
          checked={item.visible}
          onChange={(e) => onVisible(e.target.checked)}
        />
        {label}
      </label>
      <input
        aria-label="Title text"
        data-testid="title-text"
        value={text.text}
        maxLength={LIMITS.textLength}
        onChange={(e) => onEdit({ text: e.target.value })}
      />
      <span className="title-style">
        <label>
          Size
          <input
            type="number"
            min={LIMITS.textSize.min}
            max={LIMITS.textSize.max}
            value={text.size}
            data-testid="title-size"
            onChange={(e) => onEdit({ size: Number(e.target.value) })}
          />
        </label>
        <label>
          Text
          <input
            type="color"
            value={text.color}
            data-testid="title-color"
            onChange={(e) => onEdit({ color: e.target.value })}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={text.band !== null}
            onChange={(e) =>
              onEdit({ band: e.target.checked ? (DEFAULT_TEXT.band ?? '#000000') : null })
            }
          />
          Band
        </label>
        {text.band !== null && (
          <input
            type="color"
            aria-label="Band colour"
            value={text.band}
            data-testid="title-band"
            onChange={(e) => onEdit({ band: e.target.value })}
          />
        )}
        <button type="button" className="secondary" onClick={onRemove}>
          Remove
        </button>
      </span>
    </li>
  )
}
