"""Tools: what the agent can do, described so a small model can pick one and fill it.

A tool is a name, a one-sentence description, a pydantic model of flat parameters and a
function. ``@tool`` builds all of that from a plain function's signature and docstring; sync
functions run in a worker thread (design.md, D9) so they never block the Trio loop.
"""

from __future__ import annotations

import functools
import inspect
import keyword
import logging
import re
import typing
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, overload

import attrs
import pydantic
import trio
from pydantic.fields import FieldInfo
from typing_extensions import ParamSpec, TypeVar

from .budget import ResultBudget
from .errors import ConfigError, GoliathError
from .records import Exchange, StepRecord
from .schema import compact_schema

__all__ = [
    "OutputMode",
    "Tool",
    "ToolContext",
    "ToolDefinitionWarning",
    "ToolErrors",
    "error_type_name",
    "is_async_callable",
    "report_tool_error",
    "report_unshowable",
    "tool",
    "tools_by_name",
]

OutputMode = Literal["summary", "content"]
ToolErrors = Literal["report", "raise"]
"""What a raising tool does to its run: ``"report"`` (a failed step the model reads) or
``"raise"`` (the run raises the tool's own exception; for tests)."""
ERROR_CHARS = 160
"""How much of a tool's error message the model reads."""
logger = logging.getLogger("goliath.tools")
Deps = TypeVar("Deps", default=Any)
"""The application's context type (``Agent.run(context=...)``, ``ToolContext.context``)."""
P = ParamSpec("P", default=...)
R = TypeVar("R", default=Any)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@attrs.frozen(kw_only=True)
class ToolContext(Generic[Deps]):
    """What a tool receives besides its arguments.

    Generic in the application's context type: annotate the parameter ``ctx:
    ToolContext[MyDeps]`` and ``ctx.context`` is a ``MyDeps`` to the type checker (the ``context=``
    given to ``Agent.run``).

    Attributes:
        conversation_id: the conversation the turn belongs to (``None`` for the default one).
        turn_id: the turn's id, stable across retries of the same request.
        context: the application's own data for this run (``Agent.run(context=...)``); never
            shown to a model.
        steps: earlier steps of this turn, with raw ``output`` snapshots.
        recent: the recalled recent exchanges, with their step records.
        result_budget: for content-mode tools, how many tokens a result may use.
        idempotency_key: for an approved write, a key that is the same for this call across
            restarts and fail-over and different for any other write: pass it to the service
            you write to, so a write that was cut off and is tried again is applied once.
    """

    conversation_id: str | None = None
    turn_id: str = ""
    context: Deps = None  # type: ignore[assignment]  # None until a run gives one
    steps: list[StepRecord] = attrs.field(factory=list)
    recent: list[Exchange] = attrs.field(factory=list)
    result_budget: ResultBudget = attrs.field(factory=lambda: ResultBudget(max_tokens=512))
    idempotency_key: str = ""

    def check_cancelled(self) -> None:
        """Raise ``trio.Cancelled`` if the turn was cancelled; for long sync tools in threads.

        A sync tool runs in a worker thread that Trio cannot interrupt; calling this between
        units of work lets a cancelled turn stop promptly instead of waiting for the thread.
        """
        try:
            trio.from_thread.check_cancelled()
        except RuntimeError:  # not in a Trio worker thread: nothing to check
            return


Execute = Callable[[dict[str, Any], ToolContext[Any]], Any]
ResolveInput = Callable[
    [dict[str, Any], ToolContext[Any]], "dict[str, Any] | Awaitable[dict[str, Any]]"
]
ToModelOutput = Callable[[Any], "str | Awaitable[str]"]


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise ConfigError(
            f"Tool name {name!r} is not a valid identifier. Use snake_case letters, digits and "
            "underscores, e.g. 'list_tasks'."
        )
    return name


def _check_parameters(name: str, parameters: object) -> type[pydantic.BaseModel]:
    if not (isinstance(parameters, type) and issubclass(parameters, pydantic.BaseModel)):
        raise ConfigError(
            f"Tool {name!r}: parameters must be a pydantic model class, got {parameters!r}. Use "
            "the @tool decorator to build one from a function signature."
        )
    try:
        compact_schema(parameters)
    except ConfigError as exc:  # find the parameter, so the message can name it
        for field_name, info in parameters.model_fields.items():
            _check_field(name, field_name, (info.annotation, info))
        raise ConfigError(f"Tool {name!r}: {exc}") from exc
    return parameters


@attrs.frozen(init=False, slots=False)
class Tool(Generic[P, R]):
    """A tool the conductor may choose and the arguments stage fills.

    A tool built by :func:`tool` can still be called as the function it was made from
    (``list_tasks()``), with the function's own signature for the type checker; a tool built
    by hand is called as its ``execute(args, ctx)``.

    Args:
        name: what the conductor picks (an enum value in its schema); a valid identifier.
        description: one sentence shown on every conductor call.
        parameters: a pydantic model class of flat fields; no fields means no arguments call.
        execute: ``execute(args: dict, ctx: ToolContext)``, sync (run in a thread) or async.
        writes: the tool changes things: it needs confirmation and invalidates cached reads.
        requires_confirmation: without an explicit confirm handler the write is declined.
        requires: tool names that must have succeeded earlier in the turn.
        resolve_input: deterministic mapping of arguments before confirmation (no side effects).
        to_model_output: replaces the structural summary of the output.
        output_mode: ``"summary"`` (≤ 600 characters) or ``"content"`` (literal excerpts
            governed by token budgets).
    """

    name: str
    description: str
    parameters: type[pydantic.BaseModel]
    execute: Execute
    writes: bool
    requires_confirmation: bool
    requires: tuple[str, ...]
    resolve_input: ResolveInput | None
    to_model_output: ToModelOutput | None
    output_mode: OutputMode

    def __init__(
        self,
        name: str,
        description: str,
        parameters: type[pydantic.BaseModel],
        execute: Execute,
        *,
        writes: bool = False,
        requires_confirmation: bool = False,
        requires: Iterable[str] = (),
        resolve_input: ResolveInput | None = None,
        to_model_output: ToModelOutput | None = None,
        output_mode: OutputMode = "summary",
    ) -> None:
        if not callable(execute):
            raise ConfigError(f"Tool {name!r}: execute must be callable, got {execute!r}.")
        if output_mode not in ("summary", "content"):
            raise ConfigError(
                f"Tool {name!r}: output_mode must be 'summary' or 'content', got {output_mode!r}."
            )
        if isinstance(requires, str):
            raise ConfigError(
                f"Tool {name!r}: requires must be a list of tool names, not the string {requires!r}."
            )
        self.__attrs_init__(
            name=_check_name(name),
            description=" ".join(str(description).split()),
            parameters=_check_parameters(str(name), parameters),
            execute=execute,
            writes=bool(writes),
            requires_confirmation=bool(requires_confirmation),
            requires=tuple(_check_name(required) for required in requires),
            resolve_input=resolve_input,
            to_model_output=to_model_output,
            output_mode=output_mode,
        )

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the function the tool was made from (or ``execute`` for a hand-built tool)."""
        function = getattr(self, "__wrapped__", None)
        if function is None:
            result: R = self.execute(*args, **kwargs)  # type: ignore[arg-type]
            return result
        value: R = function(*args, **kwargs)
        return value

    @functools.cached_property
    def has_arguments(self) -> bool:
        """Whether a model call must fill arguments (a model with no fields needs no call)."""
        return bool(self.parameters.model_fields)

    @functools.cached_property
    def schema(self) -> dict[str, Any]:
        """The compact JSON Schema of the parameters."""
        return compact_schema(self.parameters)

    async def run(self, args: dict[str, Any], ctx: ToolContext[Any]) -> Any:
        """Call ``execute``: async functions in the caller's task, sync ones in a worker thread."""
        execute = self.execute
        if is_async_callable(execute):
            return await execute(args, ctx)
        result = await trio.to_thread.run_sync(execute, args, ctx)
        if inspect.isawaitable(result):  # a sync wrapper around an async function
            return await result
        return result


def error_type_name(exc: BaseException) -> str:
    """``KeyError`` for a builtin exception, ``module.Qualified`` for any other."""
    kind = type(exc)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def report_tool_error(tool: Tool[Any, Any], exc: BaseException, step: StepRecord) -> str:
    """Log a tool's failure (WARNING, with its traceback, on ``goliath.tools``), name its type
    on the ``step`` (``error_type``), and return what the model reads: ``error: KeyError:
    'Paris'. Try different arguments or another tool.``

    The exception's type is part of the text because a message alone (``'Paris'``) says
    nothing to the model or to whoever reads the step later; a :class:`GoliathError` (a
    filesystem or MCP tool's refusal) is a message written for the model and shown as it is.
    """
    step.error_type = error_type_name(exc)
    logger.warning("tool %s raised %s: %s", tool.name, step.error_type, exc, exc_info=exc)
    if isinstance(exc, GoliathError) and str(exc):
        message = str(exc)  # Goliath's own tools' refusals are written for the model
    else:
        message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if len(message) > ERROR_CHARS:
        message = message[: ERROR_CHARS - 1].rstrip() + "…"
    return f"error: {message}. Try different arguments or another tool."


def report_unshowable(tool: Tool[Any, Any], output: Any, exc: BaseException) -> None:
    """Say, on ``goliath.tools``, that a tool's output could not be shown to the model: the
    model then reads ``completed (result could not be summarized)``, and this is where the
    developer learns which tool, which type, and what to do about it."""
    kind = type(output)
    logger.warning(
        "tool %s returned a %s.%s that cannot be shown to the model (%s: %s); return data "
        "msgspec or pydantic can convert, give the class a __str__, or pass to_model_output=",
        tool.name,
        kind.__module__,
        kind.__qualname__,
        type(exc).__name__,
        exc,
    )


def is_async_callable(fn: Callable[..., Any]) -> bool:
    """Whether calling ``fn`` returns a coroutine (partials and async ``__call__`` included)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    )


_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns|Return|Raises|Yields|Examples?|"
    r"Notes?|Warns|Attributes|See Also):\s*$|^:(param|type|returns?|raises?)\b",
    re.IGNORECASE,
)


def _summary(doc: str) -> str:
    """The docstring's first paragraph, joined into one line (a summary may wrap)."""
    lines = doc.splitlines()
    kept: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        underline = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
        if not stripped or _SECTION.match(stripped) or underline:
            break
        kept.append(stripped)
    return " ".join(kept)


def _docstring_parts(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """The docstring's first paragraph and each parameter's description, read by griffe from a
    Google (``Args:``), NumPy (``Parameters`` / ``----------``) or Sphinx (``:param x:``)
    docstring — whichever style it is written in."""
    doc = _doc_of(fn)
    summary = _summary(doc)
    descriptions: dict[str, str] = {}
    if len(doc.splitlines()) > 1:
        import griffe

        quiet = {"warnings": False, "warn_unknown_params": False, "warn_missing_types": False}
        options: Any = {"google": quiet, "numpy": quiet, "sphinx": quiet}
        sections = griffe.parse_auto(griffe.Docstring(doc, lineno=1), per_style_options=options)
        for section in sections:
            if section.kind is griffe.DocstringSectionKind.parameters:
                for parameter in section.value:
                    descriptions[parameter.name.lstrip("*")] = " ".join(
                        parameter.description.split()
                    )
    return summary, descriptions


def _target(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What holds the docstring and type hints: a partial's function, an object's ``__call__``."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and callable(fn):
        call = getattr(type(fn), "__call__", None)  # noqa: B004 - a callable object
        if call is not None and (inspect.isfunction(call) or inspect.ismethod(call)):
            return call
    return fn


def _doc_of(fn: Callable[..., Any]) -> str:
    """A partial's function's docstring; a callable object's class (or ``__call__``) docstring."""
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func
    doc = inspect.getdoc(inner) if inspect.isfunction(inner) or inspect.ismethod(inner) else None
    if not doc and not inspect.isfunction(inner):
        doc = inspect.getdoc(type(inner)) if not isinstance(inner, type) else None
        if not doc or doc == inspect.getdoc(object):
            doc = inspect.getdoc(_target(inner))
    return doc or ""


def _name_of(fn: Callable[..., Any]) -> str:
    """A function's name; a partial's function's; a callable object's class, in snake_case."""
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func
    name = getattr(inner, "__name__", None)
    if isinstance(name, str):
        return name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(inner).__name__).lower()


def _qualname(fn: Callable[..., Any]) -> str:
    inner = _target(fn)
    return getattr(inner, "__qualname__", None) or repr(fn)


def _field_info(default: Any, annotation: Any, description: str | None) -> Any:
    """The parameter's ``Field``: its own (``= Field(3, description=...)`` or inside
    ``Annotated``) wins over the docstring's description, which fills in only what is unset."""
    if isinstance(default, FieldInfo):
        if description and not default.description:
            default.description = description
        return default
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return default  # pydantic reads the Annotated Field's description itself
    return pydantic.Field(default, description=description)


def _parameters_from_signature(
    fn: Callable[..., Any], model_name: str, tool_name: str
) -> tuple[type[pydantic.BaseModel], str | None]:
    qualname = _qualname(fn)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"@tool {tool_name}: cannot read the signature of {fn!r}: {exc}") from exc
    try:
        hints = typing.get_type_hints(_target(fn), include_extras=True)
    except Exception as exc:
        raise ConfigError(f"Cannot resolve the type hints of {qualname}: {exc}") from exc
    _, descriptions = _docstring_parts(fn)
    fields: dict[str, Any] = {}
    context_param: str | None = None
    bound = _bound_keywords(fn)
    for param in signature.parameters.values():
        if param.name in bound:  # given by the partial: not the model's to fill
            continue
        annotation = hints.get(param.name, Any)
        if _is_context(annotation):
            context_param = param.name
            continue
        if param.name not in hints and param.kind not in (
            param.VAR_POSITIONAL,
            param.VAR_KEYWORD,
        ):
            warnings.warn(
                f"@tool {qualname}: parameter {param.name!r} has no type annotation, so "
                "the model may fill it with anything; annotate it (e.g. `title: str`).",
                ToolDefinitionWarning,
                stacklevel=4,
            )
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(
                f"{qualname}: *args/**kwargs cannot become tool parameters; name each one."
            )
        default = ... if param.default is param.empty else param.default
        field = (annotation, _field_info(default, annotation, descriptions.get(param.name)))
        _check_field(tool_name, param.name, field)
        fields[param.name] = field
    unknown = [name for name in descriptions if name not in signature.parameters]
    if unknown:
        warnings.warn(
            f"@tool {qualname}: the docstring describes {', '.join(map(repr, unknown))}, which "
            f"is not a parameter (parameters: {', '.join(signature.parameters) or 'none'}); "
            "fix the name, or the model never reads that description.",
            ToolDefinitionWarning,
            stacklevel=4,
        )
    model = pydantic.create_model(model_name, **fields)
    return model, context_param


def _bound_keywords(fn: Callable[..., Any]) -> set[str]:
    bound: set[str] = set()
    while isinstance(fn, functools.partial):
        bound.update(fn.keywords)
        fn = fn.func
    return bound


def _check_field(tool_name: str, parameter: str, field: tuple[Any, Any]) -> None:
    """Build one parameter's schema alone, so an unsupported type names its tool and parameter."""
    try:
        fields: dict[str, Any] = {parameter: field}
        pydantic.create_model("Check", **fields).model_json_schema()
    except Exception as exc:  # pydantic raises several types for unsupported annotations
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(
            f"@tool {tool_name}: parameter {parameter!r} has type {_type_name(field[0])}, which "
            f"has no JSON Schema ({first}). Use str, int, float, bool, an enum or Literal, a "
            "list, or a pydantic model."
        ) from exc


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation)


class ToolDefinitionWarning(UserWarning):
    """A ``@tool`` function is usable but vague to the model (e.g. an unannotated parameter)."""


def _is_context(annotation: Any) -> bool:
    """``ToolContext``, ``ToolContext[Deps]``, or the string ``"ToolContext"``."""
    if annotation is ToolContext or typing.get_origin(annotation) is ToolContext:
        return True
    return isinstance(annotation, str) and annotation.split("[", 1)[0] == "ToolContext"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) or "Tool"


@overload
def tool(fn: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    writes: bool = False,
    requires_confirmation: bool = False,
    requires: Iterable[str] = (),
    resolve_input: ResolveInput | None = None,
    to_model_output: ToModelOutput | None = None,
    output_mode: OutputMode = "summary",
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    writes: bool = False,
    requires_confirmation: bool = False,
    requires: Iterable[str] = (),
    resolve_input: ResolveInput | None = None,
    to_model_output: ToModelOutput | None = None,
    output_mode: OutputMode = "summary",
) -> Tool[Any, Any] | Callable[[Callable[..., Any]], Tool[Any, Any]]:
    """Turn a function into a :class:`Tool` (which can still be called as the function).

    The name is the function's name, the description the docstring's first paragraph, and the
    parameters come from the signature: types from annotations, descriptions from
    ``Field(description=...)`` (as the default or inside ``Annotated``), else from the
    docstring's parameter section in Google, NumPy or Sphinx style (read by griffe). A parameter
    annotated :class:`ToolContext` receives the context instead of being shown to the model.
    ``functools.partial`` objects (the bound arguments are not shown) and callable objects
    (named after their class) work too. Accepts every keyword :class:`Tool` does.

    Raises:
        ConfigError: the function has no docstring and no ``description=`` is given (the
            conductor picks tools by their description); a parameter's type has no JSON
            Schema (the message names the tool and the parameter).

    Warns:
        ToolDefinitionWarning: a parameter has no type annotation; the docstring describes a
            parameter the function does not have (a typo the model would never read).
    """

    def build(function: Callable[..., Any]) -> Tool[Any, Any]:
        if not callable(function):
            raise ConfigError(f"@tool needs a function or callable object, got {function!r}.")
        tool_name = name or _name_of(function)
        summary, _ = _docstring_parts(function)
        if description is None and not summary:
            raise ConfigError(
                f"@tool {_qualname(function)} has no docstring: the model chooses tools by "
                "their description. Add a one-line docstring, or pass description=..."
            )
        model, context_param = _parameters_from_signature(
            function, f"{_camel(tool_name)}Args", tool_name
        )
        is_async = is_async_callable(function)

        if is_async:

            async def execute_async(args: dict[str, Any], ctx: ToolContext[Any]) -> Any:
                extra = {context_param: ctx} if context_param else {}
                return await function(**args, **extra)

            execute: Execute = execute_async
        else:

            def execute_sync(args: dict[str, Any], ctx: ToolContext[Any]) -> Any:
                extra = {context_param: ctx} if context_param else {}
                return function(**args, **extra)

            execute = execute_sync

        built: Tool[Any, Any] = Tool(
            tool_name,
            description if description is not None else summary,
            model,
            execute,
            writes=writes,
            requires_confirmation=requires_confirmation,
            requires=requires,
            resolve_input=resolve_input,
            to_model_output=to_model_output,
            output_mode=output_mode,
        )
        object.__setattr__(built, "__wrapped__", function)
        return built

    if fn is not None:
        return build(fn)
    return build


def tools_by_name(
    tools: Iterable[Tool[Any, Any]] | Mapping[str, Tool[Any, Any]] | None,
) -> dict[str, Tool[Any, Any]]:
    """Key tools by their own ``name`` (the keys of a mapping are ignored); names must be unique."""
    if tools is None:
        return {}
    items: Sequence[Any] = list(tools.values()) if isinstance(tools, Mapping) else list(tools)
    result: dict[str, Tool[Any, Any]] = {}
    for item in items:
        if not isinstance(item, Tool):
            raise ConfigError(
                f"Expected a Tool, got {item!r}. Decorate functions with @tool or build Tool(...)."
            )
        if item.name in result:
            raise ConfigError(f"Two tools are named {item.name!r}; tool names must be unique.")
        result[item.name] = item
    return result
