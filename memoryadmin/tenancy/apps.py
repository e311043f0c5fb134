from __future__ import annotations

from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "memoryadmin.tenancy"
    label = "tenancy"

    def ready(self) -> None:
        from django.contrib.auth.models import User

        from memoryadmin.audit.services import AuditTarget, audit_target
        from memoryadmin.tenancy.models import ApiKey, Namespace

        # Each named by what identifies it to people; a console account sits outside every namespace.
        audit_target(Namespace, AuditTarget("namespace", id_attr="slug", namespace_attr="pk"))
        audit_target(ApiKey, AuditTarget("api_key", id_attr="prefix"))
        audit_target(User, AuditTarget("user", id_attr="username", namespace_attr=None))

        from django.db.models.signals import post_delete, post_save

        from memoryadmin.tenancy.key_cache import keys_saved

        # A key or namespace saved or deleted through the ORM, wherever from (a service, a shell): every
        # process reads its keys again once that commits. A revocation is an UPDATE and says so itself.
        for model in (ApiKey, Namespace):
            post_save.connect(keys_saved, sender=model, dispatch_uid=f"key_cache.saved.{model.__name__}")
            post_delete.connect(keys_saved, sender=model, dispatch_uid=f"key_cache.deleted.{model.__name__}")
