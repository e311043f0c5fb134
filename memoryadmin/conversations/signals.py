from __future__ import annotations

from django.dispatch import Signal

# Sent after the transaction that appended messages commits, with
# namespace_id, session_pk, seqs and the namespace (so a receiver need not
# read it again). Extraction listens to it; conversations
# does not know who listens.
messages_appended = Signal()
