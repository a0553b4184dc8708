"""Point a release's ``action.yml`` at the published image, by digest.

The repository's ``action.yml`` builds the ``Dockerfile`` on every job (``image: Dockerfile``);
a release publishes that image once and commits an ``action.yml`` whose ``runs.image`` is
``docker://REGISTRY/OWNER/NAME@sha256:DIGEST``, so users who pin the release's commit sha get the
exact image that was built, tested and attested (see .github/workflows/release.yml).

    python scripts/pin_action_image.py ghcr.io/owner/evalbot@sha256:<64 hex> [action.yml]

Only the ``image:`` line under ``runs:`` changes; every other byte stays as it was. A reference
without a digest, an ``action.yml`` that is not a Docker action on the ``Dockerfile``, or one
already pinned is refused with one line on stderr and exit code 2.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: ``registry/path@sha256:hex``: lower-case, as registries require, no tag, no scheme.
IMAGE_REF = re.compile(
    r"(?P<name>[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+)"
    r"@sha256:(?P<digest>[0-9a-f]{64})"
)
_IMAGE_LINE = re.compile(r"^(?P<indent>[ ]+)image:[ ]*(?P<value>\S+)[ ]*$", re.MULTILINE)


class PinError(ValueError):
    """The reference or the action.yml cannot be pinned; the message says why."""


def pin_action_image(action_yml: str, image: str) -> str:
    """``action_yml`` with ``runs.image: Dockerfile`` replaced by ``docker://image``."""
    if not IMAGE_REF.fullmatch(image):
        raise PinError(
            f"{image!r} is not an image reference pinned by digest "
            "(expected registry/owner/name@sha256:<64 lower-case hex>)"
        )
    runs = re.search(r"^runs:[ ]*\n(?P<body>(?:[ ]+.*\n?|\n)*)", action_yml, re.MULTILINE)
    if runs is None:
        raise PinError("action.yml has no top-level `runs:` section")
    body = runs.group("body")
    if not re.search(r"^[ ]+using:[ ]*['\"]?docker['\"]?[ ]*$", body, re.MULTILINE):
        raise PinError("action.yml is not a Docker action (`runs.using: docker`)")
    lines = list(_IMAGE_LINE.finditer(body))
    if len(lines) != 1:
        raise PinError("action.yml needs exactly one `image:` line under `runs:`")
    value = lines[0].group("value").strip("'\"")
    if value != "Dockerfile":
        raise PinError(f"action.yml's `runs.image` is {value!r}, not `Dockerfile`: already pinned?")
    start = runs.start("body") + lines[0].start("value")
    end = runs.start("body") + lines[0].end("value")
    return f"{action_yml[:start]}docker://{image}{action_yml[end:]}"


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: pin_action_image.py IMAGE@sha256:DIGEST [action.yml]", file=sys.stderr)
        return 2
    path = Path(argv[1] if len(argv) == 2 else "action.yml")
    try:
        text = path.read_text(encoding="utf-8")
        path.write_text(pin_action_image(text, argv[0]), encoding="utf-8")
    except (OSError, PinError) as error:
        print(f"pin_action_image: {path}: {error}", file=sys.stderr)
        return 2
    print(f"{path}: runs.image = docker://{argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
