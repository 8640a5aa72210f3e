"""Safe fetching of PDFs and web pages (SSRF guard, caps, timeouts).

Rules (DESIGN §6 and the fetch issue):

* http and https only;
* the host is resolved first and refused if ANY of its addresses is private, loopback,
  link-local, reserved, multicast, unspecified or otherwise not globally routable
  (IPv4-mapped, NAT64, 6to4 and Teredo IPv6 forms are unwrapped and checked as IPv4),
  unless ``allow_private_addresses`` is set or the address is inside ``allowed_networks``
  (tests allow ``127.0.0.0/8`` for their fixture server);
* the connection is then made to the very address that was checked (the URL host is
  replaced by the IP; ``Host`` and TLS SNI/certificate checks keep the real name), so a
  DNS answer that changes between check and connect (DNS rebinding) cannot redirect it;
* redirects are followed by hand, at most ``max_redirects``, each hop checked again;
* ``Content-Length`` above ``max_bytes`` is refused before reading, and the body is
  streamed and cut off at ``max_bytes`` (decoded bytes, so a gzip bomb is caught too);
* only the allowed content types are accepted (a PDF served as
  ``application/octet-stream`` is recognised by its ``%PDF-`` magic);
* every operation has a timeout and the whole fetch a deadline;
* at most ``concurrency`` downloads run at once (DESIGN: 3);
* content is returned as bytes, never executed or rendered here.

Known limits: environment proxies are ignored (``trust_env=False``), since a proxy would
make the address check meaningless; a custom ``client_factory`` that installs a proxy or
a transport of its own takes that responsibility over.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import httpx

if TYPE_CHECKING:
    from marginalia.config import SourceSettings

FetchErrorReason = Literal[
    "invalid_url",  # not a URL, or no host
    "scheme_not_allowed",  # anything but http/https
    "private_address",  # host resolves to a non-public address that is not allowed
    "dns_error",  # the host does not resolve
    "unreachable",  # connection refused / reset / protocol error
    "timeout",  # an operation or the whole fetch ran out of time
    "too_many_redirects",
    "http_status",  # a non-success status (see ``status``)
    "too_large",  # Content-Length or the streamed body exceeds max_bytes
    "bad_content_type",  # not one of the allowed content types
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]

DEFAULT_ALLOWED_CONTENT_TYPES: frozenset[str] = frozenset(
    {"application/pdf", "text/html", "application/xhtml+xml", "text/plain"}
)
# Generic types servers use for PDFs; accepted only when the body starts with %PDF-.
_SNIFFABLE_TYPES = frozenset(
    {"", "application/octet-stream", "binary/octet-stream", "application/download",
     "application/force-download", "application/x-download"}
)  # fmt: skip
_PDF_ALIASES = frozenset({"application/x-pdf", "application/acrobat", "applications/pdf"})
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_NAT64_NETWORKS = (
    ipaddress.IPv6Network("64:ff9b::/96"),
    ipaddress.IPv6Network("64:ff9b:1::/48"),
)
DEFAULT_USER_AGENT = "Marginalia/0.1 (research workspace; +https://github.com/)"
_MIB = 1024 * 1024


class FetchError(Exception):
    """A document could not be fetched safely. ``reason`` is machine-readable."""

    def __init__(
        self,
        reason: FetchErrorReason,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.reason: FetchErrorReason = reason
        self.message = message
        self.url = url
        self.status = status

    @property
    def retryable(self) -> bool:
        """Worth another try later: timeouts, connection failures, 408/429 and 5xx."""
        if self.reason in ("timeout", "unreachable", "dns_error"):
            return True
        if self.reason == "http_status" and self.status is not None:
            return self.status in (408, 429) or self.status >= 500
        return False

    def __repr__(self) -> str:
        return f"FetchError(reason={self.reason!r}, message={self.message!r}, url={self.url!r})"


@dataclass(frozen=True)
class FetchedDocument:
    url: str  # as asked for
    final_url: str  # after redirects
    content_type: str  # media type only, lower case (e.g. "application/pdf")
    data: bytes
    charset: str | None = None  # from the Content-Type header, if any
    status: int = 200


# --------------------------------------------------------------------- addresses


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    for net in _NAT64_NETWORKS:
        if ip in net:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_refusal(address: str | IPAddress) -> str | None:
    """Why ``address`` must not be fetched from by default, or None if it is public."""
    ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            why = address_refusal(inner)
            return f"{why} (embedded in {ip})" if why else None
    if ip.is_unspecified:
        return "unspecified address"
    if ip.is_loopback:
        return "loopback address"
    if ip.is_link_local:
        return "link-local address"
    if ip.is_multicast:
        return "multicast address"
    if ip.is_private:
        return "private address"
    if ip.is_reserved:
        return "reserved address"
    if not ip.is_global:
        return "non-public address"
    return None


async def _default_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in seen:
            seen.append(addr)
    return seen


def _media_type(header: str | None) -> tuple[str, str | None]:
    if not header:
        return "", None
    parts = [p.strip() for p in header.split(";")]
    media = parts[0].lower()
    charset = None
    for p in parts[1:]:
        key, _, value = p.partition("=")
        if key.strip().lower() == "charset" and value:
            charset = value.strip().strip('"').lower() or None
    return media, charset


# --------------------------------------------------------------------- fetcher


class SafeFetcher:
    """Fetches one URL at a time per call, at most ``concurrency`` calls at once."""

    def __init__(
        self,
        *,
        timeout_s: float = 20.0,
        deadline_s: float = 60.0,
        max_bytes: int = 50 * _MIB,
        max_redirects: int = 5,
        allow_private_addresses: bool = False,
        allowed_networks: Iterable[str | IPNetwork] = (),
        concurrency: int = 3,
        allowed_content_types: Collection[str] = DEFAULT_ALLOWED_CONTENT_TYPES,
        user_agent: str = DEFAULT_USER_AGENT,
        client_factory: Callable[[], httpx.AsyncClient] | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        if max_bytes < 1:
            raise ValueError("max_bytes must be >= 1")
        if max_redirects < 0:
            raise ValueError("max_redirects must be >= 0")
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.allow_private_addresses = allow_private_addresses
        self.allowed_networks: tuple[IPNetwork, ...] = tuple(
            ipaddress.ip_network(n, strict=False) if isinstance(n, str) else n
            for n in allowed_networks
        )
        self.concurrency = concurrency
        self.allowed_content_types = frozenset(t.lower() for t in allowed_content_types)
        self.user_agent = user_agent
        self._client_factory = client_factory or self._default_client
        self._resolver: Resolver = resolver or _default_resolver
        self._semaphore = asyncio.Semaphore(concurrency)

    @classmethod
    def from_settings(
        cls,
        settings: SourceSettings,
        *,
        allowed_networks: Iterable[str | IPNetwork] = (),
        client_factory: Callable[[], httpx.AsyncClient] | None = None,
    ) -> SafeFetcher:
        """From ``settings.sources``."""
        return cls(
            timeout_s=settings.timeout_s,
            deadline_s=settings.deadline_s,
            max_bytes=settings.max_download_mb * _MIB,
            max_redirects=settings.max_redirects,
            allow_private_addresses=settings.allow_private_addresses,
            allowed_networks=(*settings.allowed_networks, *allowed_networks),
            concurrency=settings.concurrent_downloads,
            client_factory=client_factory,
        )

    def _default_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self.timeout_s),
            follow_redirects=False,
            trust_env=False,  # no environment proxies: they would bypass the address check
            headers={
                "User-Agent": self.user_agent,
                "Accept": "application/pdf, text/html;q=0.9, application/xhtml+xml;q=0.9, "
                "text/plain;q=0.5",
            },
        )

    # ----------------------------------------------------------------- checks

    def _address_allowed(self, address: str) -> str | None:
        """None if the address may be connected to, else the reason it may not."""
        if self.allow_private_addresses:
            return None
        why = address_refusal(address)
        if why is None:
            return None
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if any(ip.version == n.version and ip in n for n in self.allowed_networks):
            return None
        return why

    async def _check_url(self, url: httpx.URL, original: str) -> list[str]:
        """Validate scheme and host, resolve it, check every address; the addresses."""
        if url.scheme not in ("http", "https"):
            raise FetchError(
                "scheme_not_allowed",
                f"refused {str(url)!r}: only http and https URLs are fetched",
                url=original,
            )
        if not url.raw_host:
            raise FetchError("invalid_url", f"refused {str(url)!r}: no host", url=original)
        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = await self._resolver(host, port)
        except (OSError, UnicodeError) as exc:
            raise FetchError("dns_error", f"cannot resolve {host!r}: {exc}", url=original) from exc
        if not addresses:
            raise FetchError("dns_error", f"{host!r} resolves to no address", url=original)
        for address in addresses:
            why = self._address_allowed(address)
            if why is not None:
                raise FetchError(
                    "private_address",
                    f"refused {str(url)!r}: {host} resolves to {address}, a {why}; private, "
                    "loopback and link-local addresses are not fetched unless allowed in "
                    "settings (sources.allow_private_addresses)",
                    url=original,
                )
        return addresses

    def _check_content_type(self, media: str, url: str, original: str) -> tuple[str, bool]:
        """(normalised media type, whether the body must be sniffed as PDF)."""
        if media in _PDF_ALIASES:
            media = "application/pdf"
        if media in self.allowed_content_types:
            return media, False
        if media in _SNIFFABLE_TYPES and "application/pdf" in self.allowed_content_types:
            return "application/pdf", True
        raise FetchError(
            "bad_content_type",
            f"refused {url!r}: content type {media or '(none)'!r} is not one of "
            f"{sorted(self.allowed_content_types)}",
            url=original,
        )

    # ----------------------------------------------------------------- fetching

    async def fetch(self, url: str) -> FetchedDocument:
        """Fetch ``url`` under every rule above; raises :class:`FetchError`."""
        async with self._semaphore:
            try:
                async with asyncio.timeout(self.deadline_s):
                    return await self._fetch(url)
            except TimeoutError as exc:
                raise FetchError(
                    "timeout",
                    f"fetching {url!r} took longer than {self.deadline_s:g}s",
                    url=url,
                ) from exc

    async def _fetch(self, original: str) -> FetchedDocument:
        try:
            current = httpx.URL(original)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            raise FetchError(
                "invalid_url", f"invalid URL {original!r}: {exc}", url=original
            ) from exc

        client: httpx.AsyncClient | None = None
        try:
            for hop in range(self.max_redirects + 1):
                addresses = await self._check_url(current, original)
                # The client is only created once the first address check passed.
                if client is None:
                    client = self._client_factory()
                response = await self._connect(client, current, addresses, original)
                try:
                    if response.status_code in _REDIRECT_STATUSES:
                        location = response.headers.get("location")
                        if not location:
                            raise FetchError(
                                "http_status",
                                f"{str(current)!r} redirected ({response.status_code}) "
                                "without a Location",
                                url=original,
                                status=response.status_code,
                            )
                        try:
                            current = current.join(location)
                        except (httpx.InvalidURL, ValueError) as exc:
                            raise FetchError(
                                "invalid_url",
                                f"{str(current)!r} redirected to an invalid URL {location!r}",
                                url=original,
                            ) from exc
                        if hop == self.max_redirects:
                            raise FetchError(
                                "too_many_redirects",
                                f"{original!r} redirected more than {self.max_redirects} times",
                                url=original,
                            )
                        continue
                    return await self._read(response, current, original)
                finally:
                    await response.aclose()
        finally:
            if client is not None:
                await client.aclose()
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def _connect(
        self,
        client: httpx.AsyncClient,
        url: httpx.URL,
        addresses: list[str],
        original: str,
    ) -> httpx.Response:
        """Send the GET to the checked addresses in turn (pinned: no second lookup)."""
        host = url.raw_host.decode("ascii")
        extensions = {"sni_hostname": host} if url.scheme == "https" else {}
        last: Exception | None = None
        for address in addresses:
            pinned = url.copy_with(host=address.split("%", 1)[0])
            request = client.build_request(
                "GET",
                pinned,
                headers={"Host": url.netloc.decode("ascii")},
                extensions=extensions,
                # Per request, so it holds whatever client the factory made.
                timeout=httpx.Timeout(self.timeout_s),
            )
            try:
                return await client.send(request, stream=True, follow_redirects=False)
            except httpx.TimeoutException as exc:
                raise FetchError(
                    "timeout",
                    f"{str(url)!r} did not answer within {self.timeout_s:g}s",
                    url=original,
                ) from exc
            except httpx.ConnectError as exc:
                last = exc  # try the next address
            except httpx.HTTPError as exc:
                raise FetchError(
                    "unreachable", f"{str(url)!r} failed: {exc}", url=original
                ) from exc
        raise FetchError("unreachable", f"cannot connect to {str(url)!r}: {last}", url=original)

    async def _read(
        self, response: httpx.Response, url: httpx.URL, original: str
    ) -> FetchedDocument:
        shown = str(url)
        if not 200 <= response.status_code < 300:
            raise FetchError(
                "http_status",
                f"{shown!r} answered HTTP {response.status_code}",
                url=original,
                status=response.status_code,
            )
        media, charset = _media_type(response.headers.get("content-type"))
        media, sniff_pdf = self._check_content_type(media, shown, original)

        declared = response.headers.get("content-length")
        if declared is not None:
            with contextlib.suppress(ValueError):
                if int(declared) > self.max_bytes:
                    raise FetchError(
                        "too_large",
                        f"{shown!r} declares {int(declared)} bytes, more than the "
                        f"{self.max_bytes}-byte limit",
                        url=original,
                    )

        chunks: list[bytes] = []
        total = 0
        try:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                if total > self.max_bytes:
                    raise FetchError(
                        "too_large",
                        f"{shown!r} sent more than the {self.max_bytes}-byte limit",
                        url=original,
                    )
                chunks.append(chunk)
        except httpx.TimeoutException as exc:
            raise FetchError(
                "timeout", f"{shown!r} stalled for more than {self.timeout_s:g}s", url=original
            ) from exc
        except httpx.HTTPError as exc:
            raise FetchError(
                "unreachable", f"reading {shown!r} failed: {exc}", url=original
            ) from exc
        data = b"".join(chunks)

        if sniff_pdf and data.lstrip()[:5] != b"%PDF-":
            declared_type = response.headers.get("content-type") or "(none)"
            raise FetchError(
                "bad_content_type",
                f"refused {shown!r}: content type {declared_type!r} and the body is not a PDF",
                url=original,
            )
        return FetchedDocument(
            url=original,
            final_url=shown,
            content_type=media,
            data=data,
            charset=charset,
            status=response.status_code,
        )
