"""Exit 0 when the web process on this machine answers /api/v1/health with 200: the image's HEALTHCHECK.

It asks 127.0.0.1:$PORT over plain HTTP, as a container engine or a load balancer does; the
health endpoint is exempt from the HTTPS redirect. Only the standard library is used.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main() -> int:
    url = f"http://127.0.0.1:{os.environ.get('PORT') or '8000'}/api/v1/health"
    try:
        with urllib.request.urlopen(url, timeout=4) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        print(f"unhealthy: {url}: {exc}")
        return 1
    if status != 200:
        print(f"unhealthy: {url} answered {status}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
