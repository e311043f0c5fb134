from __future__ import annotations

from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from memoryadmin.api.api import api
from memoryadmin.api.observability import METRICS_PATH, metrics


class FaviconView(RedirectView):
    """Browsers ask for /favicon.ico whatever the page links; it is the static icon."""

    permanent = False

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("favicon.svg")


urlpatterns = [
    path("api/v1/", api.urls),
    path("privacy/", include("memoryadmin.privacy.urls")),
    path("favicon.ico", FaviconView.as_view()),
    path(METRICS_PATH.lstrip("/"), metrics, name="metrics"),
    path("", include("memoryadmin.console.urls")),
]

handler403 = "memoryadmin.console.error_views.permission_denied"
handler404 = "memoryadmin.console.error_views.not_found"
handler500 = "memoryadmin.console.error_views.server_error"
