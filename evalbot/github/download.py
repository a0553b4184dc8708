"""An artifact's zip archive, downloaded as untrusted input.

PyGithub has no artifact download: the archive URL is fetched with requests, only when it lies
under the API's own origin (:func:`same_origin`, read the way urllib3, which connects, reads
it), with the token; GitHub answers with a redirect to a pre-signed storage URL, fetched with
no ``Authorization`` at all, so the token never reaches the storage host. Every further
redirect is followed by hand and checked the same way: it must stay on the storage host GitHub
named (and on https when the API is). Both answers are read in chunks and cut off at the byte
limit, whatever ``Content-Length`` claims.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit

import requests
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

from evalbot.errors import PublishError

if TYPE_CHECKING:
    from evalbot.github.client import ArtifactInfo, GitHubClient

_REDIRECTS = (301, 302, 303, 307, 308)
#: Requests to the storage host at most: its first answer and its own redirects.
_MAX_HOPS = 4
_DEFAULT_PORTS = {"http": 80, "https": 443}
_URL_SAFE = re.compile(r"[!-~]+")  # printable ASCII, no spaces or control characters


def artifact_zip(gh: GitHubClient, artifact: ArtifactInfo, max_bytes: int) -> bytes:
    """The artifact's zip archive, at most ``max_bytes`` long, through ``gh``'s session (it
    follows no redirect and trusts no environment)."""
    label = f"artifact {artifact.name!r} (id {artifact.id})"
    _check_before(artifact, max_bytes, label, gh.api_url)
    action = f"downloading {label}"
    with gh._errors(action, "actions: read"):  # the client's errors: one line each
        with gh.http.get(
            artifact.archive_download_url,
            headers={
                "Authorization": f"Bearer {gh.settings.token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
            allow_redirects=False,
            timeout=gh.timeout,
        ) as first:
            location = first.headers.get("Location")
            if first.status_code == 410:
                raise PublishError(
                    f"{label} has expired (410 Gone); re-run the workflow that uploads it"
                )
            if first.status_code == 200:
                return read_capped(first, max_bytes, label)
            if first.status_code not in _REDIRECTS or not location:
                gh.raise_http(action, "actions: read", first)
        return _fetch_blob(gh, location, max_bytes, label)


def _fetch_blob(gh: GitHubClient, url: str, max_bytes: int, label: str) -> bytes:
    """The archive from the storage host GitHub redirected to, without ``Authorization``;
    its own redirects are followed only on that host (scheme, host and port), at most
    :data:`_MAX_HOPS` of them."""
    action = f"downloading {label}"
    parts = _origin(url)
    api = _origin(gh.api_url)
    if parts is None or api is None or (api[0] == "https" and parts[0] != "https"):
        raise PublishError(f"{action}: GitHub redirected to an unusable URL; refusing it")
    storage = f"{parts[0]}://{parts[1]}:{parts[2]}/"
    for _ in range(_MAX_HOPS):
        with gh.http.get(url, stream=True, timeout=gh.timeout, allow_redirects=False) as blob:
            location = blob.headers.get("Location")
            if blob.status_code in _REDIRECTS and location:
                url = urljoin(url, location)
                if not same_origin(url, storage):
                    raise PublishError(
                        f"{action}: the storage host {parts[1]} redirected outside itself; "
                        "refusing to follow"
                    )
                continue
            if blob.status_code != 200:
                raise PublishError(
                    f"{action} failed: the storage host answered {blob.status_code} {blob.reason}"
                )
            return read_capped(blob, max_bytes, label)
    raise PublishError(f"{action}: more than {_MAX_HOPS - 1} redirects on the storage host")


def _check_before(artifact: ArtifactInfo, max_bytes: int, label: str, api_url: str) -> None:
    """Refuse, before any request, an expired or oversized artifact and a foreign URL."""
    if artifact.expired:
        raise PublishError(f"{label} has expired; re-run the workflow that uploads it")
    if artifact.size_in_bytes > max_bytes:
        raise PublishError(
            f"{label} is {artifact.size_in_bytes} bytes, over the {max_bytes}-byte limit"
        )
    if not same_origin(artifact.archive_download_url, api_url):
        raise PublishError(
            f"{label} has a download URL outside {api_url}; refusing to send the token there"
        )


def read_capped(response: requests.Response, max_bytes: int, label: str) -> bytes:
    """The body of ``response``, refused beyond ``max_bytes`` (declared, or as read)."""
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PublishError(f"{label} is {declared} bytes, over the {max_bytes}-byte limit")
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_content(chunk_size=64 * 1024):
        total += len(chunk)
        if total > max_bytes:
            raise PublishError(
                f"{label} is over the {max_bytes}-byte limit; stopped downloading it"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _origin(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) as urllib3, the library that will connect, reads ``url``;
    ``None`` for anything two parsers could read differently: a backslash (urllib3 ends the
    host there, the standard library does not), userinfo (``user@``), a character outside
    printable ASCII, or a parse that disagrees with :func:`urllib.parse.urlsplit`."""
    if not _URL_SAFE.fullmatch(url) or "\\" in url:
        return None
    try:
        parts = parse_url(url)
        split = urlsplit(url)
        split_port = split.port
    except (LocationParseError, ValueError):
        return None
    scheme = (parts.scheme or "").lower()
    host = (parts.host or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or parts.auth is not None or "@" in split.netloc:
        return None
    port = parts.port or _DEFAULT_PORTS[scheme]
    if (split.hostname or "") != host or (split_port or _DEFAULT_PORTS[scheme]) != port:
        return None
    return scheme, host, port, parts.path or "/"


def same_origin(url: str, api_url: str) -> bool:
    """Whether ``url`` is under ``api_url``: the same scheme, host (any case) and port (the
    default one spelt or not), and a path under the API's, which is ``/api/v3`` on GitHub
    Enterprise Server; dot segments (also percent-encoded) cannot climb out of it. Read the way
    urllib3 (which connects) reads it; see :func:`_origin` for what is refused outright."""
    a, b = _origin(url), _origin(api_url)
    if a is None or b is None or a[:3] != b[:3]:
        return False
    prefix = b[3].rstrip("/") + "/"
    path = posixpath.normpath(unquote(a[3]) or "/")
    return (path + "/").startswith(prefix) and path + "/" != prefix
