"""Search: questions as people write them, answered from full text, vectors, word similarity and time.

The package follows a search's path: `query` reads the question (its words, the times it
names in `periods`, the categories it names in `categories`), `scope` builds the filters
every statement shares, `candidates` gathers what is worth scoring, `scoring` ranks it and
`engine` runs the whole and loads the page. docs/search.md explains the ranking.
"""

from __future__ import annotations

from memoryadmin.memories.search.engine import SearchHit, memories_search
from memoryadmin.memories.search.query import MAX_QUERY_CHARS
from memoryadmin.memories.search.scope import TimeFilters, clean_status, clean_types
from memoryadmin.memories.search.scoring import Recency

__all__ = ["MAX_QUERY_CHARS", "Recency", "SearchHit", "TimeFilters", "clean_status", "clean_types", "memories_search"]
