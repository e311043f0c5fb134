from __future__ import annotations

from django.urls import include, path

from memoryadmin.api.api import api

urlpatterns = [
    path("api/v1/", api.urls),
    path("privacy/", include("memoryadmin.privacy.urls")),
    path("", include("memoryadmin.console.urls")),
]
