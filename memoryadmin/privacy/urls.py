from __future__ import annotations

from django.urls import include, path

from memoryadmin.privacy import views

# Every page is the person's own, under their link's token.
link_urls = [
    path("", views.home, name="home"),
    path("download/", views.download, name="download"),
    path("memories/<uuid:memory_id>/forget/", views.forget, name="forget"),
    path("erase/", views.erase, name="erase"),
    path("erasures/<uuid:erasure_id>/", views.receipt, name="receipt"),
    path("erasures/<uuid:erasure_id>/receipt.json", views.receipt_download, name="receipt_download"),
]

app_name = "privacy"
urlpatterns = [path("<str:token>/", include(link_urls))]
