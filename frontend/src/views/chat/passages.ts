import { useChunks, useWikiPage } from '../../api/queries'
import type { AnswerSource } from '../../api/ask'

/**
 * The whole text of a numbered passage: stored answers carry it; for a live answer the
 * meta event has only an excerpt, so the chunk is read from its source (cached).
 */
export function usePassageText(workspaceId: string, source: AnswerSource | undefined, enabled: boolean) {
  const needsChunks = enabled && !source?.text && source?.kind !== 'wiki' && Boolean(source?.source_id)
  const chunks = useChunks(needsChunks ? source?.source_id : null)
  const wiki = useWikiPage(workspaceId, enabled && !source?.text && source?.kind === 'wiki' ? source.wiki_slug : null)
  if (!source) return { text: undefined, pending: false, error: null as unknown }
  if (source.text) return { text: source.text, pending: false, error: null as unknown }
  if (source.kind === 'wiki') {
    return { text: wiki.data?.body, pending: wiki.isPending && enabled, error: wiki.error as unknown }
  }
  const chunk = chunks.data?.find((c) => c.id === source.chunk_id)
  return { text: chunk?.text ?? (chunks.isSuccess ? source.excerpt : undefined), pending: chunks.isPending && needsChunks, error: chunks.error as unknown }
}
