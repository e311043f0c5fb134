from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("extraction", "0003_database_cascades"),
    ]

    operations = [
        migrations.AddField(
            model_name="extractionrun",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        # Runs left running by an earlier version count from their start, so beat can take them over.
        migrations.RunSQL(
            "UPDATE extraction_extractionrun SET heartbeat_at = COALESCE(started_at, created_at) "
            "WHERE status = 'running'",
            migrations.RunSQL.noop,
        ),
        migrations.AddIndex(
            model_name="extractionrun",
            index=models.Index(
                condition=models.Q(("status", "running")), fields=["heartbeat_at"], name="run_running_heartbeat"
            ),
        ),
    ]
