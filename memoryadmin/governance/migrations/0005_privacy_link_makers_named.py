# The data step of 0004, in a migration of its own: PostgreSQL refuses to add the new foreign
# keys while rows changed in the same transaction still have pending constraint checks.

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def makers_and_old_tokens(apps, schema_editor):
    """Name each link's maker from `created_by`; withdraw the links whose token was signed.

    A signed token carried the user id readable in its URL. Links are now random tokens looked up
    by hash, so the old ones can no longer be opened: they are marked withdrawn to say so.
    """
    PrivacyLink = apps.get_model("governance", "PrivacyLink")
    ApiKey = apps.get_model("tenancy", "ApiKey")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    for link in PrivacyLink.objects.filter(made_by_key__isnull=True, made_by_user__isnull=True).iterator():
        kind, _, name = link.created_by.partition(":")
        if kind == "api_key":
            link.made_by_key = ApiKey.objects.filter(namespace_id=link.namespace_id, prefix=name).first()
        elif kind == "operator":
            link.made_by_user = User.objects.filter(username=name).first()
        link.save(update_fields=["made_by_key", "made_by_user"])
    PrivacyLink.objects.filter(token_hash__isnull=True, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by="system:token-format"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0004_privacy_link_makers"),
        ("tenancy", "0004_operator_namespace"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(makers_and_old_tokens, migrations.RunPython.noop),
    ]
