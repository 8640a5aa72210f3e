"""Print the app's OpenAPI schema as JSON (no database needed: the app is not started).

Usage: uv run python scripts/export_openapi.py [OUT]   (the front end's client is
generated from it: `make web-api`, checked by `make web-api-check`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from marginalia.api.app import create_app


def main() -> None:
    text = json.dumps(create_app().openapi(), indent=1, sort_keys=True) + "\n"
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
