"""Embedders: texts in, unit-length float32 vectors out, each with its model's name and dimension.

The embedder is chosen by the `EMBEDDER` setting:

- `wordllama` (the default): WordLlama's `l2_supercat` static token embeddings at 256
  dimensions. The weights and the tokenizer ship inside its wheel and are loaded from the
  package's own folder with downloads disabled, so nothing is fetched at run time.
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, TEI),
  in batches, with a timeout on every call and a bounded number of retries.

Every stored vector names the model that made it: vectors of two models are never
compared, and changing the model is a re-embedding job (`manage.py embed_memories`).

WordLlama's word vectors also serve search's term similarity (`word_vectors`), whatever
the embedder: they cost microseconds and need nothing outside the process.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

import httpx
import numpy as np
from django.conf import settings

from memoryadmin.core.http_retry import post_with_retries

logger = logging.getLogger(__name__)

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIMENSION = 256
# Texts are cut to this many characters before embedding: a memory is at most a few KB,
# and a static embedding of a long text is the mean of its tokens anyway.
MAX_EMBED_CHARS = 8000


class EmbeddingError(Exception):
    """The embedder could not produce vectors (endpoint down, malformed answer, bad configuration)."""


class Embedder(Protocol):
    """Texts -> an (n, dimension) float32 array of unit vectors, in the order given."""

    @property
    def model(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as contiguous float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def vector_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def vector_from_bytes(raw: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(raw, dtype="<f4")


# --- WordLlama ----------------------------------------------------------------------------------


@cache
def _wordllama():  # type: ignore[no-untyped-def]
    """The WordLlama model, loaded once per process from the files its wheel ships."""
    # Its inference module calls logging.basicConfig() on import, which would give the
    # root logger a handler of its own; the process's logging stays as configured.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
        from wordllama import WordLlama
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    folder = Path(wordllama.__file__).resolve().parent
    try:
        return WordLlama.load(config=WORDLLAMA_CONFIG, dim=WORDLLAMA_DIMENSION, cache_dir=folder, disable_download=True)
    except FileNotFoundError as exc:
        raise EmbeddingError(f"the WordLlama weights are missing from {folder}: {exc}") from None


class WordLlamaEmbedder:
    model = f"wordllama/{WORDLLAMA_CONFIG}_{WORDLLAMA_DIMENSION}"
    dimension = WORDLLAMA_DIMENSION

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = _wordllama().embed([t[:MAX_EMBED_CHARS] for t in texts], norm=False, batch_size=256)
        return normalized(vectors)


_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
# Words that carry the shape of a question rather than what it asks about.
_STOP_WORDS = frozenset(
    """
    a an and any are as at be been being but by can could did do does doing done for from had has have
    having he her here hers him his how i if in into is it its just me might more most must my no nor
    not of on or our ours out over own shall she should so some such than that the their theirs them
    then there these they this those through to too under until up very was we were what when where
    which while who whom whose why will with would you your yours kind sort type
    """.split()  # noqa: SIM905 - a word list reads best as words
)
_WORD_CACHE_SIZE = 200_000


class _WordVectors:
    """Unit vectors of single words, kept in one growing matrix: a vocabulary is small and its words recur.

    The index and the matrix are published together as one tuple, so a reader always gets a
    matrix holding every row its index names, however other threads grow the vocabulary (or
    start it over at the size limit) meanwhile. New words go into the published index in place,
    after their rows are written into the same matrix: a search's few new words cost their own
    entries, not a copy of the whole vocabulary (3 ms at 200,000 words). Only when the matrix is
    replaced (grown, or started over) are a new index and matrix published together.
    """

    def __init__(self) -> None:
        self.state: tuple[dict[str, int], np.ndarray] = ({}, np.zeros((1024, WORDLLAMA_DIMENSION), np.float32))
        self.lock = threading.Lock()

    def rows(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """A matrix and the row of each word in it."""
        index, matrix = self.state
        if all(w in index for w in words):
            return matrix, np.array([index[w] for w in words], dtype=np.intp)
        with self.lock:
            index, matrix = self.state
            missing = [w for w in dict.fromkeys(words) if w not in index]
            if len(index) + len(missing) > _WORD_CACHE_SIZE:
                index, matrix = {}, np.zeros_like(matrix)
                missing = list(dict.fromkeys(words))
            vectors = normalized(_wordllama().embed(missing, norm=False, batch_size=512))
            start = len(index)
            if start + len(missing) > len(matrix):
                grown = np.zeros((max(2 * len(matrix), start + len(missing)), matrix.shape[1]), np.float32)
                grown[:start] = matrix[:start]
                matrix, index = grown, dict(index)
            # Rows past the published index are no reader's yet: writing them in place is safe, and so
            # is naming them in the index afterwards, since that index is only ever read with this matrix.
            matrix[start : start + len(missing)] = vectors
            index.update((w, start + i) for i, w in enumerate(missing))
            self.state = (index, matrix)
        return matrix, np.array([index[w] for w in words], dtype=np.intp)

    def __call__(self, words: Sequence[str]) -> np.ndarray:
        if not words:
            return np.zeros((0, WORDLLAMA_DIMENSION), dtype=np.float32)
        matrix, rows = self.rows(words)
        return matrix[rows]


word_vectors = _WordVectors()


def content_words(text: str, *, limit: int = 64) -> list[str]:
    """The lower-cased words of a text that say what it is about (question words and the like left out)."""
    words = []
    for match in _WORD.finditer(text.lower()):
        word = match.group().replace("’", "'")
        if word in _STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        words.append(word)
        if len(words) >= limit:
            break
    return words


# --- OpenAI-compatible endpoints ----------------------------------------------------------------


class OpenAIEmbedder:
    """POST {base_url}/embeddings in batches; vectors are re-normalized, whatever the server sends."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        dimensions: int | None = None,
        timeout: float = 10.0,
        max_retries: int = 2,
        batch_size: int = 64,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url:
            raise EmbeddingError("EMBEDDING_BASE_URL is not configured; set it to use the openai embedder")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model_name = model
        self.requested_dimensions = dimensions
        self._dimension = dimensions
        self.timeout = timeout
        self.max_retries = max_retries
        self.batch_size = max(1, batch_size)
        self.backoff = backoff
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            transport=transport,
            follow_redirects=False,
        )

    @property
    def model(self) -> str:
        return self.model_name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed(["dimension"])
        return self._dimension  # type: ignore[return-value]

    def close(self) -> None:
        self.client.close()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        batches = [
            self._batch([t[:MAX_EMBED_CHARS] for t in texts[start : start + self.batch_size]])
            for start in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(batches)

    def _batch(self, texts: list[str]) -> np.ndarray:
        body: dict[str, object] = {"model": self.model_name, "input": texts, "encoding_format": "float"}
        if self.requested_dimensions:
            body["dimensions"] = self.requested_dimensions
        response = post_with_retries(
            self.client,
            self.url,
            body,
            retries=self.max_retries,
            backoff=self.backoff,
            timeout=self.timeout,
            error=EmbeddingError,
            who="the embeddings endpoint",
            where="the embeddings endpoint",
        )
        return self._vectors(response, len(texts))

    def _vectors(self, response: httpx.Response, expected: int) -> np.ndarray:
        try:
            items = response.json()["data"]
            # The spec says `data` is in input order; `index` is there to make sure.
            if all("index" in item for item in items):
                items = sorted(items, key=lambda item: item["index"])
            ordered = items
            vectors = np.array([item["embedding"] for item in ordered], dtype=np.float32)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EmbeddingError("the embeddings endpoint answered with a malformed body") from None
        if vectors.ndim != 2 or len(vectors) != expected or vectors.shape[1] == 0:
            raise EmbeddingError(f"the embeddings endpoint answered {len(vectors)} vectors for {expected} texts")
        if not np.isfinite(vectors).all():
            raise EmbeddingError("the embeddings endpoint answered vectors with non-finite values")
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimension:
            raise EmbeddingError(
                f"the embeddings endpoint answered {vectors.shape[1]} dimensions, expected {self._dimension}"
            )
        return normalized(vectors)


# --- the configured one -------------------------------------------------------------------------

EMBEDDERS = ("wordllama", "openai")


@cache
def get_embedder() -> Embedder:
    """The embedder the settings name, built once per process."""
    kind = settings.EMBEDDER
    if kind == "wordllama":
        return WordLlamaEmbedder()
    if kind == "openai":
        return OpenAIEmbedder(
            base_url=settings.EMBEDDING_BASE_URL,
            api_key=settings.EMBEDDING_API_KEY,
            model=settings.EMBEDDING_MODEL,
            dimensions=settings.EMBEDDING_DIMENSIONS or None,
            timeout=settings.EMBEDDING_TIMEOUT_SECONDS,
            max_retries=settings.EMBEDDING_MAX_RETRIES,
            batch_size=settings.EMBEDDING_BATCH_SIZE,
        )
    raise EmbeddingError(f"EMBEDDER must be one of {', '.join(EMBEDDERS)}, got {kind!r}")


def embed_or_none(texts: Sequence[str]) -> tuple[Embedder, np.ndarray] | None:
    """The texts' vectors, or None when the embedder fails: a write or a search goes on without them.

    A memory written without a vector is found by full text until `embed_memories` fills it in.
    """
    embedder = get_embedder()
    try:
        return embedder, embedder.embed(texts)
    except EmbeddingError as exc:
        logger.warning("embedding failed, continuing without vectors: %s", exc)
        return None
