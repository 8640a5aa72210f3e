"""Accounts and access (issue 18): who is asking, and may they touch what they address.

Two modes, one code path. In local mode every request is the one implicit user
(:data:`LOCAL`) and every check passes. In accounts mode a request carries an API token
(``Authorization: Bearer mrg_…``, for the CLI and agents) or a session cookie (the web
app); both are stored only as SHA-256 (they are long random secrets), passwords as
argon2id. A resource in a workspace the user is not a member of answers 404 — the same as
one that does not exist, so ids leak nothing; a reader may read and ask, not change.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError

from marginalia.db.models import ApiToken, User
from marginalia.db.repositories import accounts as repo
from marginalia.errors import (
    ConflictError,
    Forbidden,
    NotFoundError,
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
    try:
        async with rt.db.transaction() as session:
            if await repo.user_by_email(session, email) is not None:
                raise ConflictError(f"a user with email {email} exists already")
            return await repo.add_user(
                session, email=email, name=name, password_hash=_hasher.hash(password)
            )
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


async def sign_in(rt: Runtime, *, email: str, password: str) -> SignedIn:
    _require_accounts(rt)
    async with rt.db.session() as session:
        user = await repo.user_by_email(session, email.strip())
    stored = user.password_hash if user is not None else None
    try:
        _hasher.verify(stored or _DUMMY_HASH, password)
        verified = stored is not None
    except (VerificationError, InvalidHashError):
        verified = False
    if not verified or user is None:
        raise Unauthorized("wrong email or password")
    secret = _new_secret()
    lifetime = timedelta(days=rt.settings.auth.session_days)
    async with rt.db.transaction() as session:
        await repo.delete_expired_sessions(session, _now())
        await repo.add_session(
            session, user_id=user.id, token_hash=hash_secret(secret), expires_at=_now() + lifetime
        )
        if stored is not None and _hasher.check_needs_rehash(stored):
            await repo.set_password_hash(session, user.id, _hasher.hash(password))
    return SignedIn(user, secret, int(lifetime.total_seconds()))


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
            if role is None:
                raise NotFoundError(f"no {what} with id {resource_id}")
            if write and role != "owner":
                raise Forbidden(
                    "you are a reader of this workspace: you can read and ask, not change it"
                )


async def visible_workspaces(rt: Runtime, principal: Principal) -> set[uuid.UUID] | None:
    """The workspaces the principal may see; None means all of them (local mode)."""
    if principal.user_id is None:
        return None
    async with rt.db.session() as session:
        return await repo.workspace_ids_of(session, principal.user_id)


# ------------------------------------------------------------------ sharing


@dataclass(frozen=True)
class Member:
    user: User
    role: str


async def members(rt: Runtime, workspace_id: uuid.UUID) -> list[Member]:
    _require_accounts(rt)
    async with rt.db.session() as session:
        return [Member(u, r) for u, r in await repo.members(session, workspace_id)]


async def share_workspace(rt: Runtime, workspace_id: uuid.UUID, *, email: str, role: str) -> Member:
    """Give the user with ``email`` the ``role`` in the workspace (the caller is its owner:
    :func:`authorize` checked that the request may write it)."""
    _require_accounts(rt)
    if role not in ROLES:
        raise ValidationFailed(f"role must be one of {', '.join(ROLES)}")
    try:
        user = await _user(rt, email)
    except NotFoundError as exc:  # the workspace exists: a 404 would say it did not
        raise ValidationFailed(f"{exc}; share with someone who has an account") from exc
    try:
        async with rt.db.transaction() as session:
            await repo.set_member(session, workspace_id=workspace_id, user_id=user.id, role=role)
    except IntegrityError as exc:  # the workspace was deleted meanwhile
        raise NotFoundError(f"no workspace with id {workspace_id}") from exc
    return Member(user, role)


async def unshare_workspace(rt: Runtime, workspace_id: uuid.UUID, user_id: uuid.UUID) -> None:
    _require_accounts(rt)
    async with rt.db.transaction() as session:
        roles = {u.id: r for u, r in await repo.members(session, workspace_id)}
        if user_id not in roles:
            raise NotFoundError(f"user {user_id} is not a member of this workspace")
        if roles[user_id] == "owner" and sum(r == "owner" for r in roles.values()) == 1:
            raise ConflictError("the last owner of a workspace cannot be removed")
        await repo.remove_member(session, workspace_id=workspace_id, user_id=user_id)
