from django.db import migrations, models


class Migration(migrations.Migration):
    """The person index covers each vector row's id too: a search reads a person's mark from it alone."""

    dependencies = [
        ("memories", "0011_event_date_precision_db_default"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memoryvector",
            name="memory_vector_person_codes",
        ),
        migrations.AddIndex(
            model_name="memoryvector",
            index=models.Index(
                fields=["namespace", "user_id", "model"],
                include=("memory", "code", "id"),
                name="memory_vector_person_marks",
            ),
        ),
    ]
