// Edge styles by type: one place for the canvas and its legend.
import type { CSSProperties } from 'react'
import type { EdgeType } from './model'

export interface EdgeStyle {
  label: string
  description: string
  color: string
  dash?: string
  width: number
  arrow: boolean
}

export const EDGE_STYLES: Record<EdgeType, EdgeStyle> = {
  prerequisite: { label: 'Prerequisite', description: 'read the upper concept first', color: '#b45309', width: 2, arrow: true },
  specialization: { label: 'Specialization', description: 'general → specific', color: '#2563eb', dash: '6 4', width: 1.6, arrow: true },
  related: { label: 'Related', description: 'concepts used together', color: '#78716c', dash: '2 4', width: 1.2, arrow: false },
  similar: { label: 'Similar', description: 'sources on the same ground', color: '#7c3aed', width: 1.4, arrow: false },
  cites: { label: 'Cites', description: 'a saved answer or paper citing a source', color: '#e11d48', dash: '4 3', width: 1.4, arrow: true },
  discusses: { label: 'Discusses', description: 'a source discussing a concept', color: '#a8a29e', width: 1, arrow: false },
  supports: { label: 'Supports', description: 'evidence for a claim', color: '#16a34a', width: 1.6, arrow: true },
  contradicts: { label: 'Contradicts', description: 'evidence against a claim', color: '#dc2626', dash: '8 3', width: 1.6, arrow: true },
}

export const EDGE_TYPES = Object.keys(EDGE_STYLES) as EdgeType[]

export function edgeCss(type: EdgeType, highlighted: boolean): CSSProperties {
  const s = EDGE_STYLES[type]
  return {
    stroke: s.color,
    strokeWidth: highlighted ? s.width + 1.5 : s.width,
    strokeDasharray: s.dash,
  }
}
