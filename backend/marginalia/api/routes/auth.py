"""Signing in and out (accounts mode) and who the browser is. These routes are public:
the access check does not run on them."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from marginalia.api.deps import RuntimeDep, credentials
from marginalia.api.schemas import ErrorOut, MeOut, SignIn, UserOut
from marginalia.errors import Unauthorized
from marginalia.usecases import accounts

router = APIRouter(
    prefix="/api/auth",
    tags=["auth"],
    responses={401: {"model": ErrorOut}, 409: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.get("/me", response_model=MeOut, summary="The mode, and the signed-in user if any")
async def me(request: Request, rt: RuntimeDep) -> MeOut:
    mode = rt.settings.auth.mode
    bearer, cookie = credentials(request)
    try:
        principal = await accounts.authenticate(rt, bearer=bearer, cookie=cookie)
    except Unauthorized:
        return MeOut(mode=mode, user=None)
    user = await accounts.current_user(rt, principal)
    return MeOut(mode=mode, user=UserOut.model_validate(user) if user else None)


@router.post(
    "/session",
    response_model=UserOut,
    responses={429: {"model": ErrorOut, "description": "Too many attempts: see Retry-After"}},
    summary="Sign in: sets the session cookie",
)
async def sign_in(body: SignIn, rt: RuntimeDep, request: Request, response: Response) -> UserOut:
    address = request.client.host if request.client else None
    signed = await accounts.sign_in(rt, email=body.email, password=body.password, address=address)
    response.set_cookie(
        accounts.SESSION_COOKIE,
        signed.cookie,
        max_age=signed.max_age_s,
        httponly=True,
        samesite="strict",
        secure=rt.settings.auth.secure_cookies,
        path="/",
    )
    return UserOut.model_validate(signed.user)


@router.delete(
    "/session", status_code=status.HTTP_204_NO_CONTENT, summary="Sign out: ends the session"
)
async def sign_out(request: Request, rt: RuntimeDep) -> Response:
    await accounts.sign_out(rt, request.cookies.get(accounts.SESSION_COOKIE))
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(accounts.SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response
