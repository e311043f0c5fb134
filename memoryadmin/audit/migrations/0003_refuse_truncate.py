from __future__ import annotations

from django.db import migrations

# TRUNCATE skips row triggers, so the append-only rule needs a statement trigger of its own. A
# session may allow it by setting memoryadmin.audit_truncate to 'allowed': the test suite does,
# to reset its database between tests. Whoever can run SQL can always get around a trigger (as
# table owner, or a superuser); what shows that they did is the chain's anchors (checkpoints,
# receipts), held outside the database.
FORWARD = """
CREATE OR REPLACE FUNCTION audit_event_no_truncate() RETURNS trigger AS $$
BEGIN
    IF current_setting('memoryadmin.audit_truncate', true) = 'allowed' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'audit events are append-only (TRUNCATE refused)'
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER audit_event_no_truncate
    BEFORE TRUNCATE ON audit_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION audit_event_no_truncate();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_auditevent;
DROP FUNCTION IF EXISTS audit_event_no_truncate();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only_trigger")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
