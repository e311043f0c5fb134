from __future__ import annotations

from django.dispatch import Signal

# Sent after the transaction that appended messages commits, with
# namespace_id, session_pk and seqs. Extraction listens to it; conversations
# does not know who listens.
messages_appended = Signal()
