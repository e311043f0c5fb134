import django.db.models.deletion
from django.db import migrations, models

import memoryadmin.memories.fields
from memoryadmin.memories.capabilities import forget_capabilities


def pgvector_if_available(apps, schema_editor):
    """pgvector where the server has it; the embedding column is then `vector`, else `bytea`."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cursor.fetchone() is not None:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS vector")
    forget_capabilities()


CASCADE = """
ALTER TABLE memories_memoryvector
    ADD CONSTRAINT memory_vector_memory_fk FOREIGN KEY (memory_id) REFERENCES memories_memory (id) ON DELETE CASCADE,
    ADD CONSTRAINT memory_vector_namespace_fk FOREIGN KEY (namespace_id) REFERENCES tenancy_namespace (id)
        ON DELETE CASCADE
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0006_supersession"),
        ("tenancy", "0002_operator_groups"),
    ]

    operations = [
        migrations.RunPython(pgvector_if_available, migrations.RunPython.noop),
        migrations.CreateModel(
            name="MemoryVector",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("user_id", models.CharField(max_length=128)),
                ("model", models.CharField(max_length=200)),
                ("dimension", models.PositiveSmallIntegerField()),
                ("embedding", memoryadmin.memories.fields.EmbeddingField()),
                ("created_at", models.DateTimeField()),
                (
                    "memory",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="vectors",
                        db_constraint=False,
                        to="memories.memory",
                    ),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="memory_vectors",
                        db_constraint=False,
                        to="tenancy.namespace",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["namespace", "user_id", "model"], name="memory_vector_person")],
                "constraints": [models.UniqueConstraint(fields=("memory", "model"), name="memory_vector_unique_model")],
            },
        ),
        # The vectors' foreign keys delete with their memory (and namespace) in the database itself.
        migrations.RunSQL(CASCADE, migrations.RunSQL.noop),
    ]
