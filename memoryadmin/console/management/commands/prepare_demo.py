from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from memoryadmin.audit.services import Actor
from memoryadmin.console.management.commands.seed_demo import NAMESPACES, OPERATORS
from memoryadmin.governance.privacy_links import api_key_revoke_with_links
from memoryadmin.tenancy.models import ApiKey, Namespace
from memoryadmin.tenancy.services import api_key_create

KEY_NAME = "make-run"


class Command(BaseCommand):
    help = (
        "What `make run` does before it starts the processes, in one go: create the database if it is "
        "missing, apply migrations, load the demo data when there is none, and print where to sign in "
        "with a fresh API key."
    )
    # The database may not exist yet; migrate runs its own checks once it does.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="where the web process will listen")

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("ensure_database", stdout=self.stdout, stderr=self.stderr)
        call_command("migrate", interactive=False, verbosity=0, stdout=self.stdout, stderr=self.stderr)
        call_command("seed_demo", stdout=self.stdout, stderr=self.stderr)
        slug = NAMESPACES[0][0]
        namespace = Namespace.objects.get(slug=slug)
        actor = Actor.system("make run")
        # The last start's key cannot be shown again (only its hash is kept): it is revoked, so a
        # machine that was started ten times holds one such key, not ten.
        for earlier in ApiKey.objects.filter(namespace=namespace, name=KEY_NAME, revoked_at__isnull=True):
            api_key_revoke_with_links(key=earlier, actor=actor, reason="replaced by the key of the next make run")
        _, raw = api_key_create(namespace=namespace, name=KEY_NAME, scopes=["read", "write", "erase"], actor=actor)
        url = options["url"].rstrip("/")
        logins = ", ".join(f"{username} / {password} ({role})" for username, role, password in OPERATORS)
        self.stdout.write(
            f"\n  memoryadmin is starting at {url}/\n"
            f"  Console logins: {logins}\n"
            f"  API docs: {url}/api/v1/docs\n"
            f"  A fresh API key for the {slug} namespace (read, write, erase):\n"
            f"    {raw}\n"
            "  (the key printed by the previous start is revoked)\n"
            "  Ctrl-C stops web, worker and beat.\n"
        )
