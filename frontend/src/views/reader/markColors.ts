// The highlight colours of the reader's marks (PDF and text views alike).

const COLORS: Record<string, string> = {
  quote: 'rgba(250, 204, 21, 0.42)',
  yellow: 'rgba(250, 204, 21, 0.42)',
  green: 'rgba(74, 222, 128, 0.38)',
  blue: 'rgba(96, 165, 250, 0.38)',
  pink: 'rgba(244, 114, 182, 0.38)',
}

export function markColor(color: string): string {
  return COLORS[color] ?? COLORS.yellow!
}
