from __future__ import annotations

from ninja import NinjaAPI

from memoryadmin.api import extraction, governance, health, memories, sessions, tombstones, webhooks
from memoryadmin.api.docs import with_page_policy
from memoryadmin.api.errors import install_error_handlers
from memoryadmin.api.renderers import OrjsonParser, OrjsonRenderer

api = NinjaAPI(
    title="memoryadmin",
    version="1",
    description="Conversations, working memory and governed long-term memory for AI agents.",
    urls_namespace="api",
    renderer=OrjsonRenderer(),
    parser=OrjsonParser(),
    docs_decorator=with_page_policy,
)
install_error_handlers(api)

api.add_router("", health.router)
api.add_router("", sessions.router)
# Before the memories: its `/memories/forget` must come before `/memories/{memory_id}`, which
# would otherwise take that path for a memory id (and answer 405).
api.add_router("", governance.router)
api.add_router("", memories.router)
api.add_router("", extraction.router)
api.add_router("", tombstones.router)
api.add_router("", webhooks.router)
