// Accounts mode's sign-in page: email and password; the server sets an HttpOnly session
// cookie, so no credential is ever kept in script-readable storage.
import { useState, type FormEvent } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { useSignIn } from '../../api/queries'
import { Button } from '../../ui/Button'
import { ErrorText, Input, Label } from '../../ui/Field'

/** Only a path on this site may be a post-sign-in destination (no open redirect). */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-in') ? next : '/'
}

export function SignInPage() {
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const signIn = useSignIn()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')

  function submit(event: FormEvent) {
    event.preventDefault()
    signIn.mutate(
      { email: email.trim(), password },
      { onSuccess: () => navigate(safeNext(params.get('next')), { replace: true }) },
    )
  }

  return (
    <main className="mx-auto flex w-full max-w-sm flex-1 flex-col justify-center px-4 py-10">
      <h1 className="font-serif text-2xl font-semibold">Sign in</h1>
      <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
        This Marginalia server has accounts. Ask its administrator for one (<code>marginalia user add</code>).
      </p>
      <form onSubmit={submit} className="mt-6 space-y-4" data-testid="sign-in-form">
        <div>
          <Label htmlFor="sign-in-email">Email</Label>
          <Input
            id="sign-in-email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="sign-in-email"
          />
        </div>
        <div>
          <Label htmlFor="sign-in-password">Password</Label>
          <Input
            id="sign-in-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="sign-in-password"
          />
        </div>
        <Button type="submit" variant="primary" className="w-full" disabled={signIn.isPending} data-testid="sign-in-submit">
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
        <ErrorText error={signIn.error} />
      </form>
    </main>
  )
}
