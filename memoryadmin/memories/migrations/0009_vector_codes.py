from django.db import migrations, models

from memoryadmin.memories.vectors import codes_backfill


def backfill(apps, schema_editor):
    codes_backfill(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0008_event_date_precision_utterance"),
        ("tenancy", "0004_operator_namespace"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memoryvector",
            name="memory_vector_person",
        ),
        migrations.AddField(
            model_name="memoryvector",
            name="code",
            field=models.BinaryField(null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="memoryvector",
            index=models.Index(
                fields=["namespace", "user_id", "model"], include=("memory", "code"), name="memory_vector_person_codes"
            ),
        ),
    ]
