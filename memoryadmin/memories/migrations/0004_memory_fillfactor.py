from django.db import migrations


class Migration(migrations.Migration):
    """Leave a tenth of each page of memories free, so the access stats a search writes are HOT updates.

    A search records an access on the memories it returns. With full pages, each such update
    wrote a new version of the row elsewhere and a new entry in every index of the table (three
    of them GIN). With room on the page, and no indexed column changed, PostgreSQL keeps the new
    version on the same page and touches no index. Pages written before this take it as they fill.
    """

    dependencies = [("memories", "0003_redundant_fk_indexes")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory SET (fillfactor = 90)",
            reverse_sql="ALTER TABLE memories_memory RESET (fillfactor)",
        )
    ]
