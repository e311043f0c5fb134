from __future__ import annotations

from django.urls import path

from memoryadmin.privacy import views

app_name = "privacy"
urlpatterns = [
    path("<str:token>/", views.home, name="home"),
    path("<str:token>/download/", views.download, name="download"),
    path("<str:token>/memories/<uuid:memory_id>/forget/", views.forget, name="forget"),
    path("<str:token>/erase/", views.erase, name="erase"),
    path("<str:token>/erasures/<uuid:erasure_id>/", views.receipt, name="receipt"),
    path("<str:token>/erasures/<uuid:erasure_id>/receipt.json", views.receipt_download, name="receipt_download"),
]
