"""resolve_model: every --model spec form, and the errors that teach the forms."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from bridge_helpers import smollm_file

from goliath.errors import ConfigError
from goliath.models import GenerateRequest
from goliath.models.apple import AppleModel
from goliath.models.llamacpp import LlamaCppModel
from goliath.models.openai import OpenAICompatibleModel
from goliath.models.packaged import DEFAULT_MODEL, QWEN_CODER_1_5B
from goliath.resolve import resolve_model
from goliath.testing import FakeModel


def test_local_is_the_embedded_default_qwen_model():
    """`local` builds a LlamaCppModel for Qwen2.5-Coder-1.5B, the embedded default."""
    assert DEFAULT_MODEL is QWEN_CODER_1_5B
    if not QWEN_CODER_1_5B.installed():
        pytest.skip("needs the local extra: ./install.sh local")
    model = resolve_model("local")
    assert isinstance(model, LlamaCppModel)
    assert model.name == "qwen2.5-coder-1.5b"
    assert not model.loaded  # weights load on first use, in a thread


def test_small_names_the_135m_plumbing_model():
    """`small` is SmolLM2-135M, the named option for tests of the plumbing."""
    smollm_file()
    assert resolve_model("small").name == "smollm2-135m"


def test_local_name_picks_a_packaged_model():
    """`local:smollm2-135m` names one; an unknown name lists the known ones."""
    smollm_file()
    assert resolve_model("local:smollm2-135m").name == "smollm2-135m"
    with pytest.raises(ConfigError, match=r"known: qwen2\.5-coder-1\.5b, smollm2-135m"):
        resolve_model("local:gpt-9")


def test_llamacpp_path_runs_a_gguf_file():
    """`llamacpp:PATH` wraps a GGUF file; options reach the constructor."""
    file = smollm_file()
    model = resolve_model(f"llamacpp:{file}", n_ctx=2048)
    assert isinstance(model, LlamaCppModel)
    assert model.window() == 2048
    with pytest.raises(ConfigError, match="needs the path"):
        resolve_model("llamacpp:")


def test_apple_builds_the_apple_bridge_lazily():
    """`apple` builds AppleModel without touching the SDK (it may be absent)."""
    assert isinstance(resolve_model("apple"), AppleModel)


async def test_openai_spec_splits_url_and_model(monkeypatch: pytest.MonkeyPatch):
    """`openai:BASE_URL#MODEL` keeps the URL's own colons; the key comes from OPENAI_API_KEY."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    seen: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        reply = {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}
        return httpx.Response(200, json=reply)

    model = resolve_model(
        "openai:http://127.0.0.1:8080/v1#smollm2", transport=httpx.MockTransport(server)
    )
    assert isinstance(model, OpenAICompatibleModel)
    assert (model.base_url, model.model) == ("http://127.0.0.1:8080/v1", "smollm2")
    await model.generate(GenerateRequest(label="answer", system="s", prompt="p"))
    assert seen[0].headers["authorization"] == "Bearer sk-test"
    assert str(seen[0].url) == "http://127.0.0.1:8080/v1/chat/completions"
    with pytest.raises(ConfigError, match="needs a URL and a model name"):
        resolve_model("openai:http://127.0.0.1:8080/v1")


def test_fake_replays_a_script(tmp_path: Path):
    """`fake:PATH` loads a FakeModel script."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "hi"}]), encoding="utf-8")
    model = resolve_model(f"fake:{script}")
    assert isinstance(model, FakeModel)
    assert model.remaining() == 1


@pytest.mark.parametrize("spec", ["", "gpt4", "apple:extra", "fake:"])
def test_bad_specs_list_the_accepted_forms(spec: str):
    """A malformed spec raises ConfigError naming the forms (or what is missing)."""
    with pytest.raises(ConfigError, match=r"local|needs the path"):
        resolve_model(spec)
