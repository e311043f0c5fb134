"""Every write to long-term memory. Each function is atomic and audited.

`memory_create` is the one write path that API, extraction and operator writes
share: normalise -> fingerprint -> tombstone -> exact duplicate -> near
duplicate (when asked) -> insert -> revision 1 -> evidence -> audit.
`memory_create_many` takes the same path for a list of memories at once (an
extraction run's candidates), with the result of calling `memory_create` for
each in order and a number of statements that does not grow with the list.

The modules, by action family: `cleaning` (field limits), `planning` (the
first steps and the rows a memory becomes), `near_duplicates`, `create`,
`edit`, `lifecycle` (pin, approve, reject, forget, bulk actions) and `supersession`
(knowledge updates: the newest statement of an attribute is current, older ones history).
"""

from __future__ import annotations

from memoryadmin.memories.services.cleaning import clean_labels, clean_memory_type, clean_text
from memoryadmin.memories.services.create import memory_create, memory_create_many
from memoryadmin.memories.services.edit import memory_update
from memoryadmin.memories.services.lifecycle import (
    BULK_ACTIONS,
    MAX_BULK_IDS,
    BulkResult,
    SessionForgetResult,
    is_pinned,
    memories_bulk_apply,
    memory_approve,
    memory_forget,
    memory_pin,
    memory_reject,
    memory_unpin,
    memory_update_and_approve,
    session_delete_with_memories,
    session_memories_forget,
    tombstone_lift,
)
from memoryadmin.memories.services.near_duplicates import find_near_duplicates, near_duplicate_target
from memoryadmin.memories.services.planning import (
    NewMemory,
    Outcome,
    WriteResult,
    forgotten_label,
    is_tombstoned,
    link_evidence,
    strings_of,
)
from memoryadmin.memories.services.supersession import (
    Statement,
    SupersessionResult,
    memories_apply_statements,
    user_lock_sql,
)

__all__ = [
    "BULK_ACTIONS",
    "MAX_BULK_IDS",
    "BulkResult",
    "NewMemory",
    "Outcome",
    "SessionForgetResult",
    "Statement",
    "SupersessionResult",
    "WriteResult",
    "clean_labels",
    "clean_memory_type",
    "clean_text",
    "find_near_duplicates",
    "forgotten_label",
    "is_pinned",
    "is_tombstoned",
    "link_evidence",
    "memories_apply_statements",
    "memories_bulk_apply",
    "memory_approve",
    "memory_create",
    "memory_create_many",
    "memory_forget",
    "memory_pin",
    "memory_reject",
    "memory_unpin",
    "memory_update",
    "memory_update_and_approve",
    "near_duplicate_target",
    "session_delete_with_memories",
    "session_memories_forget",
    "strings_of",
    "tombstone_lift",
    "user_lock_sql",
]
