// The chat component: a conversation's turns and the question box. Scoped to a
// workspace (the chat view) or to one source (per-paper Q&A; the reader's sidebar later).
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { flushSync } from 'react-dom'
import { useQueryClient } from '@tanstack/react-query'
import { ask, type AnswerSource, type AnswerSummary, type AskScope } from '../../api/ask'
import { ApiError, type Message } from '../../api/client'
import { keys, useConversation } from '../../api/queries'
import { Button } from '../../ui/Button'
import { TurnView, type Turn } from './AnswerView'

/** Turns from stored messages: each user message with the assistant answer after it. */
export function turnsFromMessages(messages: Message[]): Turn[] {
  const turns: Turn[] = []
  for (const m of messages) {
    if (m.role === 'user') {
      turns.push({ key: m.id, question: m.content, sources: [], text: '', summary: null, error: null, streaming: false })
      continue
    }
    const turn = turns[turns.length - 1]
    if (!turn || turn.summary) continue
    const answer = (m.answer ?? {}) as Partial<AnswerSummary> & { passages?: Array<AnswerSource & { text: string }> }
    turn.key = m.id
    turn.messageId = m.id
    turn.pinned = Boolean(m.pinned_at)
    turn.text = m.content
    turn.sources = (answer.passages ?? []).map((p) => ({ ...p, excerpt: p.text.slice(0, 300) }))
    turn.resolvedQuestion = answer.resolved_question ?? null
    turn.summary = {
      text: answer.text ?? m.content,
      claims: answer.claims ?? [],
      refused: Boolean(answer.refused),
      refusal: answer.refusal ?? (answer.refused ? m.content : null),
      cited: answer.claims ? [...new Set(answer.claims.flatMap((c) => c.citations))] : [],
      ...(answer.outcome ? { outcome: answer.outcome } : {}),
      evidence: answer.evidence ?? [],
      reason: answer.reason ?? null,
    }
  }
  // A question whose answer never arrived (the stream was cut) says so.
  for (const t of turns) if (!t.summary && !t.text) t.error = 'No answer was stored for this question.'
  return turns
}

export function ChatPanel(props: {
  scope: AskScope
  workspaceId: string
  conversationId?: string
  /** Called when the server names the conversation (a new one gets an id with its first answer). */
  onConversation?: (id: string) => void
  compact?: boolean
  /** Text to put in the question box (the reader's "ask about the selection"). */
  draft?: string
}) {
  const { scope, workspaceId, onConversation } = props
  const qc = useQueryClient()
  const [current, setCurrent] = useState(props.conversationId)
  const [loaded, setLoaded] = useState(props.conversationId)
  const [live, setLive] = useState<Turn[]>([])
  const [question, setQuestion] = useState(props.draft ?? '')
  useEffect(() => {
    if (props.draft) setQuestion(props.draft)
  }, [props.draft])
  const [busy, setBusy] = useState(false)
  const abort = useRef<AbortController | null>(null)
  const end = useRef<HTMLDivElement>(null)

  // Another conversation was chosen (not the one this panel just created): start over.
  useEffect(() => {
    if (props.conversationId !== current) {
      abort.current?.abort()
      setCurrent(props.conversationId)
      setLoaded(props.conversationId)
      setLive([])
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.conversationId])
  useEffect(() => () => abort.current?.abort(), [])

  const stored = useConversation(loaded)
  const storedTurns = useMemo(() => (stored.data ? turnsFromMessages(stored.data.messages) : []), [stored.data])
  const turns = [...storedTurns, ...live]

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end', behavior: 'smooth' })
  }, [turns.length, live[live.length - 1]?.text.length])

  const send = async () => {
    const q = question.trim()
    if (!q || busy) return
    setQuestion('')
    setBusy(true)
    const key = `live-${Date.now()}`
    const patch = (change: Partial<Turn> | ((t: Turn) => Partial<Turn>)) =>
      setLive((ts) => ts.map((t) => (t.key === key ? { ...t, ...(typeof change === 'function' ? change(t) : change) } : t)))
    setLive((ts) => [...ts, { key, question: q, sources: [], text: '', summary: null, error: null, streaming: true }])
    const controller = new AbortController()
    abort.current = controller
    try {
      for await (const event of ask(scope, q, current, controller.signal)) {
        if (event.type === 'meta') {
          // Commit the sources before any token is handled: they are on screen first.
          flushSync(() => patch({ sources: event.sources, resolvedQuestion: event.resolved_question }))
          if (event.conversation_id && event.conversation_id !== current) {
            setCurrent(event.conversation_id)
            onConversation?.(event.conversation_id)
          }
          void qc.invalidateQueries({ queryKey: ['conversations', workspaceId] })
        } else if (event.type === 'token') {
          patch((t) => ({ text: t.text + event.text }))
        } else if (event.type === 'done') {
          patch({ summary: event.answer, streaming: false, messageId: event.message_id })
          void qc.invalidateQueries({ queryKey: keys.conversations(workspaceId) })
        } else if (event.type === 'error') {
          patch({ error: event.detail || event.error, streaming: false })
        }
      }
      patch((t) => (t.streaming ? { streaming: false, error: t.summary ? null : 'The answer stream ended early.' } : {}))
    } catch (error) {
      if (!controller.signal.aborted)
        patch({ streaming: false, error: error instanceof ApiError ? error.detail || error.message : String(error) })
    } finally {
      setBusy(false)
    }
  }

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send()
    }
  }

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className={props.compact ? 'grid max-h-[55vh] gap-4 overflow-y-auto pb-2' : 'grid gap-4 pb-4'} aria-label="Conversation">
        {stored.isPending && loaded && <p className="text-sm text-stone-600 dark:text-stone-400">Loading the conversation…</p>}
        {stored.error && (
          <p role="alert" className="text-sm text-red-800 dark:text-red-300">
            {stored.error.message}
          </p>
        )}
        {turns.length === 0 && !loaded && (
          <p className="text-sm text-stone-600 dark:text-stone-400">
            Ask a question. Every claim in the answer quotes a passage of your sources; click a number to see it.
          </p>
        )}
        {turns.map((t) => (
          <TurnView key={t.key} turn={t} workspaceId={workspaceId} />
        ))}
        <div ref={end} />
      </div>
      <form
        className="sticky bottom-0 mt-auto flex items-end gap-2 border-t border-stone-200 bg-stone-50 py-2 dark:border-stone-800 dark:bg-stone-950"
        onSubmit={(e) => {
          e.preventDefault()
          void send()
        }}
      >
        <label htmlFor={`ask-${props.compact ? 'paper' : 'ws'}`} className="sr-only">
          Question
        </label>
        <textarea
          id={`ask-${props.compact ? 'paper' : 'ws'}`}
          data-testid="ask-input"
          rows={2}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          onKeyDown={onKey}
          maxLength={4000}
          placeholder={current ? 'Ask a follow-up… (Enter sends, Shift+Enter for a new line)' : 'Ask your sources… (Enter sends)'}
          className="min-h-10 flex-1 resize-y rounded-md border border-stone-300 bg-white px-3 py-2 text-sm dark:border-stone-600 dark:bg-stone-900"
        />
        <Button type="submit" variant="primary" disabled={busy || !question.trim()}>
          {busy ? 'Answering…' : 'Ask'}
        </Button>
      </form>
    </div>
  )
}
