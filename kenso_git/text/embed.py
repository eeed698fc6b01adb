"""Static text embeddings from wordllama's bundled model (the optional `vectors` tier, #18).

wordllama (MIT) ships a 256-dimension model in its wheel; its loader would still fetch the
tokenizer from the network, so it is pointed at the package's own folder with downloads
off. The import costs about a second, so nothing here is imported until a vector is
needed: `kenso-git[vectors]` installs it, `vectors = true` asks for it.
"""

from __future__ import annotations

from typing import Any

from kenso_git.errors import ConfigError

MAX_CHARS = 2000  # of a chunk: its start says what it is about, and the cost is per token
_model: Any = None


def available() -> bool:
    """True when wordllama can be imported (the `vectors` extra is installed)."""
    from importlib.util import find_spec

    return find_spec("wordllama") is not None


def _load() -> Any:
    global _model
    if _model is None:
        try:
            from pathlib import Path

            import wordllama
        except ImportError as err:
            raise ConfigError(
                "the `vectors` setting is on but wordllama is not installed",
                hint="pip install 'kenso-git[vectors]', or set `vectors = false`",
            ) from err
        folder = Path(wordllama.__file__).parent
        _model = wordllama.WordLlama.load(cache_dir=folder, disable_download=True)
    return _model


def embed(texts: list[str]) -> list[bytes]:
    """Unit-length float16 vectors of `texts`, as bytes.

    Raises:
        ConfigError: wordllama is not installed.
    """
    import numpy as np

    matrix = _load().embed([t[:MAX_CHARS] for t in texts], norm=True)
    return [row.tobytes() for row in np.asarray(matrix, dtype=np.float16)]


def cosines(query: str, vectors: list[bytes]) -> list[float]:
    """The cosine of `query`'s vector with each stored vector."""
    import numpy as np

    if not vectors:
        return []
    q = np.frombuffer(embed([query])[0], dtype=np.float16).astype(np.float32)
    matrix = np.stack([np.frombuffer(v, dtype=np.float16) for v in vectors]).astype(np.float32)
    return [float(x) for x in matrix @ q]
