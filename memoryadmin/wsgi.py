from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")

from memoryadmin.core.tracing import tracing_start

# Before the application loads its middleware, which tracing adds to.
tracing_start("web")
application = get_wsgi_application()
