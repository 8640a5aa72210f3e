"""Accounts and access (issue 18): who is asking, and may they touch what they address.

Two modes, one code path. In local mode every request is the one implicit user
(:data:`LOCAL`) and every check passes. In accounts mode a request carries an API token
(``Authorization: Bearer mrg_…``, for the CLI and agents) or a session cookie (the web
app); both are stored only as SHA-256 (they are long random secrets), passwords as
argon2id. A resource in a workspace the user is not a member of answers 404 — the same as
one that does not exist, so ids leak nothing; a reader may read and ask, not change.

Issue 34: argon2 runs in a small pool of low-priority threads, never on the event loop;
sign-in attempts are counted per account and per client address — for unknown emails
too, so neither the answer nor its timing tells whether an account exists — and past
the free attempts each is followed by a doubling block answered 429 with
``Retry-After``; sharing with an email makes a pending invitation unless the person is
already a member, and answers the same whether or not the email has an account; a
workspace keeps an owner; a conversation is written by whoever asked in it.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import math
import os
import re
import secrets
import sys
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError

from marginalia.config import AuthSettings
from marginalia.db.models import ApiToken, Conversation, User
from marginalia.db.repositories import accounts as repo
from marginalia.errors import (
    ConflictError,
    Forbidden,
    NotFoundError,
    TooManyRequests,
    Unauthorized,
    ValidationFailed,
)
from marginalia.runtime import Runtime

SESSION_COOKIE = "marginalia_session"
# path parameters that name a resource the access check resolves to its workspace
ADDRESSABLE = repo.ADDRESSABLE
TOKEN_PREFIX = "mrg_"
ROLES = ("owner", "reader")
MIN_PASSWORD = 8
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_hasher = PasswordHasher()
# Verified against when the email is unknown, so a wrong email costs what a wrong
# password costs (no account enumeration by timing).
_DUMMY_HASH = _hasher.hash("not a password anyone has")
_T = TypeVar("_T")
_hashing_lock = threading.Lock()
_hashing: ThreadPoolExecutor | None = None


def _lower_priority() -> None:
    """Run this thread (and the threads argon2 starts from it) 10 nice levels below the
    process, so the event loop's thread wins the processor while passwords are hashed.
    Linux sets niceness per thread; elsewhere the call would renice the whole process, so
    it is not made."""
    if sys.platform == "linux":
        thread = threading.get_native_id()
        niceness = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(19, niceness + 10))


async def _hash_work(settings: AuthSettings, work: Callable[[], _T]) -> _T:
    """``work`` (argon2: ~64 MiB and tens of ms of CPU) in the hashing pool, at most
    ``password_hash_threads`` at once, off the event loop."""
    global _hashing
    with _hashing_lock:
        if _hashing is None:
            _hashing = ThreadPoolExecutor(
                max_workers=settings.password_hash_threads,
                thread_name_prefix="argon2",
                initializer=_lower_priority,
            )
        pool = _hashing
    return await asyncio.get_running_loop().run_in_executor(pool, work)


@dataclass(frozen=True)
class Principal:
    """Who a request acts for; ``user_id`` None is local mode's one implicit user."""

    user_id: uuid.UUID | None

    @property
    def is_local(self) -> bool:
        return self.user_id is None


LOCAL = Principal(None)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine (local mode's condition)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _new_secret() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _now() -> datetime:
    return datetime.now(UTC)


def accounts_mode(rt: Runtime) -> bool:
    return rt.settings.auth.mode == "accounts"


def _require_accounts(rt: Runtime) -> None:
    if not accounts_mode(rt):
        raise ConflictError(
            "this server runs in local mode (one implicit user, no accounts); "
            "set MARGINALIA_AUTH__MODE=accounts to use accounts"
        )


# ------------------------------------------------------------------ users and tokens


async def add_user(rt: Runtime, *, email: str, password: str, name: str | None = None) -> User:
    email = email.strip()
    if not _EMAIL.match(email):
        raise ValidationFailed(f"{email!r} is not an email address")
    if len(password) < MIN_PASSWORD:
        raise ValidationFailed(f"a password needs at least {MIN_PASSWORD} characters")
    password_hash = await _hash_work(rt.settings.auth, lambda: _hasher.hash(password))
    try:
        async with rt.db.transaction() as session:
            if await repo.user_by_email(session, email) is not None:
                raise ConflictError(f"a user with email {email} exists already")
            return await repo.add_user(session, email=email, name=name, password_hash=password_hash)
    except IntegrityError as exc:  # a concurrent add of the same email
        raise ConflictError(f"a user with email {email} exists already") from exc


async def _user(rt: Runtime, email: str) -> User:
    async with rt.db.session() as session:
        user = await repo.user_by_email(session, email.strip())
    if user is None:
        raise NotFoundError(f"no user with email {email}")
    return user


async def create_token(rt: Runtime, *, email: str, name: str) -> tuple[ApiToken, str]:
    """A new API token for the user; the secret is returned once and never stored."""
    user = await _user(rt, email)
    secret = _new_secret()
    async with rt.db.transaction() as session:
        token = await repo.add_token(
            session, user_id=user.id, name=name.strip() or "token", token_hash=hash_secret(secret)
        )
    return token, secret


async def list_tokens(rt: Runtime, *, email: str) -> list[ApiToken]:
    user = await _user(rt, email)
    async with rt.db.session() as session:
        return await repo.tokens_of(session, user.id)


async def revoke_token(rt: Runtime, token_id: uuid.UUID) -> None:
    async with rt.db.transaction() as session:
        if not await repo.delete_token(session, token_id):
            raise NotFoundError(f"no API token with id {token_id}")


# ------------------------------------------------------------------ browser sessions


@dataclass(frozen=True)
class SignedIn:
    user: User
    cookie: str
    max_age_s: int


async def sign_in(
    rt: Runtime, *, email: str, password: str, address: str | None = None
) -> SignedIn:
    """A new session for the user, if the password is theirs. Every attempt counts — for
    the account (known or not) and for the client ``address`` — before the password is
    checked; while either is blocked the answer is 429 and no password is checked."""
    _require_accounts(rt)
    await _count_attempt(rt.settings.auth, rt, email=email, address=address)
    async with rt.db.session() as session:
        user = await repo.user_by_email(session, email.strip())
    stored = user.password_hash if user is not None else None

    def verify() -> bool:
        try:
            _hasher.verify(stored or _DUMMY_HASH, password)
        except (VerificationError, InvalidHashError):
            return False
        return stored is not None

    verified = await _hash_work(rt.settings.auth, verify)
    if not verified or user is None or stored is None:
        raise Unauthorized("wrong email or password")
    rehash = _hasher.check_needs_rehash(stored)
    new_hash = (
        await _hash_work(rt.settings.auth, lambda: _hasher.hash(password)) if rehash else None
    )
    secret = _new_secret()
    lifetime = timedelta(days=rt.settings.auth.session_days)
    async with rt.db.transaction() as session:
        await repo.clear_attempts(session, _email_key(email))
        await repo.forget_attempts_before(
            session, _now() - timedelta(seconds=rt.settings.auth.sign_in_forget_s)
        )
        await repo.delete_expired_sessions(session, _now())
        await repo.add_session(
            session, user_id=user.id, token_hash=hash_secret(secret), expires_at=_now() + lifetime
        )
        if new_hash is not None:
            await repo.set_password_hash(session, user.id, new_hash)
        await repo.accept_invitations(session, user.id)
    return SignedIn(user, secret, int(lifetime.total_seconds()))


def _email_key(email: str) -> str:
    return "email:" + email.strip().lower()[:320]


# Blocks this process has seen (key → until when): a blocked attempt is answered from here
# without a database round trip, so a client hammering a blocked account costs nothing.
_BLOCKED: dict[str, datetime] = {}
_BLOCKED_MAX = 10_000


def _too_many(until: datetime, now: datetime) -> TooManyRequests:
    wait = max(1, math.ceil((until - now).total_seconds()))
    return TooManyRequests(
        f"too many sign-in attempts for this account or from this address; try again in {wait} s",
        retry_after_s=wait,
    )


async def _count_attempt(
    auth: AuthSettings, rt: Runtime, *, email: str, address: str | None
) -> None:
    """Count a sign-in attempt against the account and the address, or refuse it (429)
    while either is blocked. Past ``free`` attempts, each one blocks the next for
    ``backoff_s`` doubled per attempt beyond (at most ``backoff_max_s``); attempts are
    forgotten after ``forget_s`` of quiet, and an account's on a successful sign-in."""
    now = _now()
    keys = [(_email_key(email), auth.sign_in_free_attempts)]
    if address:
        keys.append(("address:" + address[:64], auth.sign_in_free_attempts_per_address))
    known = [until for key, _ in keys if (until := _BLOCKED.get(key)) and until > now]
    if known:
        raise _too_many(max(known), now)
    forget_before = now - timedelta(seconds=auth.sign_in_forget_s)
    async with rt.db.transaction() as session:
        rows = [(await repo.attempt_for_update(session, key, now), free) for key, free in keys]
        blocked = [
            row.blocked_until for row, _ in rows if row.blocked_until and row.blocked_until > now
        ]
        if blocked:
            raise _too_many(max(blocked), now)
        for row, free in rows:
            if row.last_attempt_at < forget_before:  # quiet long enough: start again
                row.attempts = 0
            row.attempts += 1
            row.last_attempt_at = now
            beyond = row.attempts - free
            if beyond > 0:
                delay = min(
                    auth.sign_in_backoff_s * 2 ** min(beyond - 1, 32), auth.sign_in_backoff_max_s
                )
                row.blocked_until = now + timedelta(seconds=delay)
                _remember_block(row.key, row.blocked_until, now)


def _remember_block(key: str, until: datetime, now: datetime) -> None:
    if len(_BLOCKED) >= _BLOCKED_MAX:
        for stale in [k for k, v in _BLOCKED.items() if v <= now]:
            del _BLOCKED[stale]
        if len(_BLOCKED) >= _BLOCKED_MAX:
            _BLOCKED.clear()  # a flood of addresses: the database still has every block
    _BLOCKED[key] = until


async def sign_out(rt: Runtime, cookie: str | None) -> None:
    if cookie:
        async with rt.db.transaction() as session:
            await repo.delete_session(session, hash_secret(cookie))


async def authenticate(rt: Runtime, *, bearer: str | None, cookie: str | None) -> Principal:
    """The request's principal: local mode's implicit user, or the user a valid token or
    session names; in accounts mode no valid credential is a 401."""
    if not accounts_mode(rt):
        return LOCAL
    now = _now()
    async with rt.db.transaction() as session:
        user_id = None
        if bearer:
            user_id = await repo.user_for_token(session, hash_secret(bearer), now)
        elif cookie:
            user_id = await repo.user_for_session(session, hash_secret(cookie), now)
    if user_id is None:
        raise Unauthorized(
            "sign in, or send an API token as `Authorization: Bearer …` "
            "(`marginalia user token create`)"
            if not (bearer or cookie)
            else "the API token or session is not valid (revoked, expired or mistyped)"
        )
    return Principal(user_id)


async def still_allowed(
    rt: Runtime,
    *,
    bearer: str | None,
    cookie: str | None,
    addressed: dict[str, uuid.UUID],
) -> bool:
    """Whether the credentials a long stream opened with still authenticate and still
    reach what it reads (an open event stream asks every few seconds)."""
    if not accounts_mode(rt):
        return True
    try:
        principal = await authenticate(rt, bearer=bearer, cookie=cookie)
        await authorize(rt, principal, addressed, write=False)
    except (Unauthorized, NotFoundError, Forbidden):
        return False
    return True


async def current_user(rt: Runtime, principal: Principal) -> User | None:
    if principal.user_id is None:
        return None
    async with rt.db.session() as session:
        return await repo.get_user(session, principal.user_id)


# ------------------------------------------------------------------ access


async def authorize(
    rt: Runtime, principal: Principal, addressed: dict[str, uuid.UUID], *, write: bool
) -> None:
    """Raise unless ``principal`` may use what the route's path names. A resource that does
    not exist passes (the route answers its own 404); one in a workspace the user is not a
    member of is a 404 too; a write by a reader is a 403."""
    if principal.user_id is None:
        return
    async with rt.db.session() as session:
        for param, resource_id in addressed.items():
            exists, workspace_id = await repo.owning_workspace(session, param, resource_id)
            if not exists:
                continue
            what = param.removesuffix("_id")
            if workspace_id is None:  # a job without a workspace: its starter's alone
                if await repo.job_starter(session, resource_id) != principal.user_id:
                    raise NotFoundError(f"no {what} with id {resource_id}")
                continue
            role = await repo.role_in(session, principal.user_id, workspace_id)
            if role is None and await _accept_invitation(rt, principal.user_id, workspace_id):
                role = await repo.role_in(session, principal.user_id, workspace_id)
            if role is None:
                raise NotFoundError(f"no {what} with id {resource_id}")
            if write and param == "conversation_id":
                _, author = await repo.conversation_author(session, resource_id)
                _check_author(principal.user_id, author, role)
            elif write and role != "owner":
                raise Forbidden(
                    "you are a reader of this workspace: you can read and ask, not change it"
                )


def _check_author(user_id: uuid.UUID, author: uuid.UUID | None, role: str | None) -> None:
    """A conversation is written (continued, renamed, deleted) by whoever asked in it; one
    from before authors were kept, by the workspace's owners."""
    if author == user_id or (author is None and role == "owner"):
        return
    raise Forbidden("only whoever asked in this conversation can write into it")


async def check_conversation_write(
    rt: Runtime, user_id: uuid.UUID, conversation: Conversation
) -> None:
    """Raise Forbidden unless ``user_id`` may add to ``conversation`` (see _check_author)."""
    if not accounts_mode(rt):
        return
    async with rt.db.session() as session:
        role = await repo.role_in(session, user_id, conversation.workspace_id)
    _check_author(user_id, conversation.user_id, role)


async def _accept_invitation(rt: Runtime, user_id: uuid.UUID, workspace_id: uuid.UUID) -> bool:
    async with rt.db.transaction() as session:
        return await repo.accept_invitations(session, user_id, workspace_id=workspace_id) > 0


async def visible_workspaces(rt: Runtime, principal: Principal) -> set[uuid.UUID] | None:
    """The workspaces the principal may see (pending invitations to their email accepted
    first); None means all of them (local mode)."""
    if principal.user_id is None:
        return None
    async with rt.db.transaction() as session:
        await repo.accept_invitations(session, principal.user_id)
        return await repo.workspace_ids_of(session, principal.user_id)


# ------------------------------------------------------------------ sharing


@dataclass(frozen=True)
class Member:
    user: User
    role: str


@dataclass(frozen=True)
class Shared:
    """What sharing did: ``member`` — the email is a member's, whose role is now ``role``;
    ``pending`` — an invitation that becomes a membership when the person with that email
    signs in or uses the API (whether or not an account has that email: the answer is the
    same)."""

    email: str
    role: str
    status: Literal["member", "pending"]
    invitation_id: uuid.UUID | None = None


async def members(rt: Runtime, workspace_id: uuid.UUID) -> list[Member]:
    _require_accounts(rt)
    async with rt.db.session() as session:
        return [Member(u, r) for u, r in await repo.members(session, workspace_id)]


async def pending_invitations(rt: Runtime, workspace_id: uuid.UUID) -> list[Shared]:
    _require_accounts(rt)
    async with rt.db.session() as session:
        found = await repo.invitations(session, workspace_id)
    return [Shared(i.email, i.role, "pending", i.id) for i in found]


async def share_workspace(
    rt: Runtime,
    workspace_id: uuid.UUID,
    *,
    email: str,
    role: str,
    by: uuid.UUID | None = None,
) -> Shared:
    """Share the workspace with ``email`` as ``role`` (the caller is its owner:
    :func:`authorize` checked that the request may write it). A member's role changes at
    once (never leaving the workspace without an owner); anyone else gets a pending
    invitation — the same answer whether or not the email has an account."""
    _require_accounts(rt)
    if role not in ROLES:
        raise ValidationFailed(f"role must be one of {', '.join(ROLES)}")
    email = email.strip()
    if not _EMAIL.match(email):
        raise ValidationFailed(f"{email!r} is not an email address")
    try:
        async with rt.db.transaction() as session:
            roles = {u.id: r for u, r in await repo.members(session, workspace_id, lock=True)}
            member = await repo.member_by_email(session, workspace_id, email)
            if member is not None:
                user_id, current = member
                if current == "owner" and role != "owner":
                    _keep_an_owner(roles, user_id)
                await repo.set_member(
                    session, workspace_id=workspace_id, user_id=user_id, role=role
                )
                return Shared(email, role, "member")
            invitation = await repo.set_invitation(
                session, workspace_id=workspace_id, email=email, role=role, invited_by=by
            )
            return Shared(email, role, "pending", invitation.id)
    except IntegrityError as exc:  # the workspace was deleted meanwhile
        raise NotFoundError(f"no workspace with id {workspace_id}") from exc


def _keep_an_owner(roles: dict[uuid.UUID, str], leaving: uuid.UUID) -> None:
    if roles.get(leaving) == "owner" and sum(r == "owner" for r in roles.values()) == 1:
        raise ConflictError("a workspace always keeps an owner: make someone else an owner first")


async def unshare_workspace(rt: Runtime, workspace_id: uuid.UUID, user_id: uuid.UUID) -> None:
    _require_accounts(rt)
    async with rt.db.transaction() as session:
        roles = {u.id: r for u, r in await repo.members(session, workspace_id, lock=True)}
        if user_id not in roles:
            raise NotFoundError(f"user {user_id} is not a member of this workspace")
        _keep_an_owner(roles, user_id)
        await repo.remove_member(session, workspace_id=workspace_id, user_id=user_id)


async def withdraw_invitation(
    rt: Runtime, workspace_id: uuid.UUID, invitation_id: uuid.UUID
) -> None:
    _require_accounts(rt)
    async with rt.db.transaction() as session:
        if not await repo.delete_invitation(session, workspace_id, invitation_id):
            raise NotFoundError(f"no pending invitation with id {invitation_id}")
