from django.db import migrations, models

# Every memory knows when it was said: where nothing said it, when it was written.
BACKFILL = "UPDATE memories_memory SET stated_at = created_at WHERE stated_at IS NULL"


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0009_vector_codes"),
        ("tenancy", "0004_operator_namespace"),
    ]

    operations = [
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["namespace", "user_id", "stated_at"], name="memory_ns_user_stated"),
        ),
    ]
