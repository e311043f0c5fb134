from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    """A question naming a time finds a person's memories of what happened then, not only those said then:
    their event dates, by an index of the dated memories alone (built without blocking writes)."""

    atomic = False

    dependencies = [
        ("memories", "0013_one_full_text_index"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("event_date__isnull", False)),
                fields=["namespace", "user_id", "event_date"],
                name="memory_ns_user_event",
            ),
        ),
    ]
