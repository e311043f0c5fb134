from django.db import migrations


class Migration(migrations.Migration):
    """Full text across a namespace uses the (user_id, search_vector) GIN index like a person's search:
    a GIN index serves a condition on any subset of its columns, so the search_vector-only index was a
    second GIN index written on every insert and read by no plan."""

    dependencies = [
        ("memories", "0012_person_codes_with_ids"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="memory", name="memory_search_vector"),
    ]
