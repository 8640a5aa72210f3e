// Component layouts cached by graph hash, in memory and in localStorage, so a reload (or a
// live update that leaves a component unchanged) does not lay it out again.
import type { Placed } from './pack'

export interface ComponentLayout {
  /** Positions relative to the component's top-left corner. */
  positions: Record<string, Placed>
  width: number
  height: number
  /** 'elk' or 'grid' (the fallback). */
  engine: 'elk' | 'grid'
}

export interface KeyValueStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

const PREFIX = 'marginalia-layout:'
const INDEX = 'marginalia-layout-index'

export class LayoutCache {
  private memory = new Map<string, ComponentLayout>()

  constructor(
    private readonly store: KeyValueStore | null,
    /** Entries kept in the store (oldest dropped first). */
    private readonly capacity = 400,
  ) {}

  get(hash: string): ComponentLayout | null {
    const hit = this.memory.get(hash)
    if (hit) return hit
    const text = this.safe(() => this.store?.getItem(PREFIX + hash) ?? null)
    if (!text) return null
    try {
      const parsed = JSON.parse(text) as ComponentLayout
      if (!parsed || typeof parsed.positions !== 'object') return null
      this.memory.set(hash, parsed)
      return parsed
    } catch {
      return null
    }
  }

  /** Only ELK layouts are stored: a grid fallback is retried next time. */
  set(hash: string, layout: ComponentLayout): void {
    this.memory.set(hash, layout)
    if (!this.store || layout.engine !== 'elk') return
    const index = this.index().filter((h) => h !== hash)
    index.push(hash)
    while (index.length > this.capacity) {
      const old = index.shift() as string
      this.safe(() => this.store?.removeItem(PREFIX + old))
    }
    this.safe(() => {
      this.store?.setItem(PREFIX + hash, JSON.stringify(layout))
      this.store?.setItem(INDEX, JSON.stringify(index))
    })
  }

  private index(): string[] {
    try {
      const parsed: unknown = JSON.parse(this.safe(() => this.store?.getItem(INDEX) ?? null) ?? '[]')
      return Array.isArray(parsed) ? parsed.filter((h): h is string => typeof h === 'string') : []
    } catch {
      return []
    }
  }

  private safe<T>(fn: () => T): T | null {
    try {
      return fn()
    } catch {
      return null // storage full or disabled: the in-memory cache still works
    }
  }
}
