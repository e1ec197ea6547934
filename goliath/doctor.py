"""``goliath doctor``: is the local model usable on this machine, and if not, what fixes it.

A llama.cpp build made for another CPU does not fail politely: the process dies with
"Illegal instruction" on the first long prompt. So every check that touches llama.cpp runs in
a child process, and the report says in plain words what is wrong and the command that fixes
it. The checks, in order: the llama.cpp build (which CPU features it was compiled for, against
what this CPU offers), the model file (present, a GGUF, and for a packaged model its SHA-256),
and a real prompt of a few hundred tokens through llama.cpp; with ``--slots N``, also the
llama-server binary ``goliath serve --slots N`` runs, started on the model with N slots.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import attrs

from .errors import ConfigError, ModelUnavailableError

__all__ = [
    "Check",
    "check_model",
    "check_server",
    "doctor_command",
    "format_checks",
    "signal_hint",
]

REBUILD = "pip cache remove llama_cpp_python; ./install.sh local"
"""The command that replaces a llama.cpp build with one made for every CPU of this kind."""
PROMPT_WORDS = 300
"""Words in the test prompt: past the ~100 tokens where a CPU-specific kernel first runs."""
CHILD_SECONDS = 300.0

# What a CPU feature is called in llama.cpp's system info and in /proc/cpuinfo.
_FEATURES = {
    "AVX": "avx",
    "AVX2": "avx2",
    "F16C": "f16c",
    "FMA": "fma",
    "BMI2": "bmi2",
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
    "AVX_VNNI": "avx_vnni",
    "AMX_INT8": "amx_int8",
}

_CHILD = """
import sys, time
from llama_cpp import Llama
started = time.perf_counter()
llm = Llama(model_path=sys.argv[1], n_ctx=1024, n_threads=2, n_threads_batch=2, verbose=False)
words = int(sys.argv[2])
prompt = "The quick brown fox jumps over the lazy dog. " * (words // 9 + 1)
tokens = len(llm.tokenize(prompt.encode()))
llm.create_completion(prompt, max_tokens=4, temperature=0.0)
print(tokens, round(time.perf_counter() - started, 2))
"""


@attrs.frozen
class Check:
    """One finding: what was checked, whether it passed, what was seen, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None


def signal_hint(returncode: int) -> str | None:
    """A plain-words reading of a child killed by a signal (``returncode`` < 0), else None."""
    if returncode >= 0:
        return None
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    if name == "SIGILL":
        return (
            "it died with Illegal instruction (SIGILL): the llama.cpp build uses CPU "
            "instructions this machine does not run (typically an AVX-512 or AMX kernel of a "
            "-march=native build)"
        )
    return f"it died with {name}"


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    match = re.search(r"^flags\s*:\s*(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def _build_check() -> Check:
    if importlib.util.find_spec("llama_cpp") is None:
        return Check(
            "llama.cpp build",
            False,
            "llama-cpp-python is not installed",
            "./install.sh local",
        )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import llama_cpp; print(llama_cpp.__version__); "
            "print(llama_cpp.llama_print_system_info().decode())",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    hint = signal_hint(done.returncode)
    if done.returncode != 0:
        return Check(
            "llama.cpp build",
            False,
            f"importing llama_cpp failed: {hint or done.stderr.strip()[-300:]}",
            REBUILD,
        )
    version, _, info = done.stdout.partition("\n")
    used = {name for name, value in re.findall(r"(\w+) = (\d)", info) if value == "1"}
    flags = _cpu_flags()
    lacking = sorted(
        name for name in used if name in _FEATURES and flags and _FEATURES[name] not in flags
    )
    features = ", ".join(sorted(name for name in used if name in _FEATURES)) or "generic"
    if lacking:
        return Check(
            "llama.cpp build",
            False,
            f"llama-cpp-python {version} was built for {features}, but this CPU lacks "
            f"{', '.join(lacking)}",
            REBUILD,
        )
    if "AMX_INT8" in used:
        return Check(
            "llama.cpp build",
            False,
            f"llama-cpp-python {version} was built with AMX kernels ({features}); under a "
            "hypervisor these die with Illegal instruction even where the CPU advertises AMX",
            REBUILD,
        )
    return Check("llama.cpp build", True, f"llama-cpp-python {version} built for {features}")


def _model_check(spec: str) -> tuple[Check, Path | None]:
    from .resolve import ModelSpec

    parsed = ModelSpec.parse(spec)
    if parsed.kind == "local":
        packaged = parsed.packaged()
    elif parsed.kind == "llamacpp":
        path = Path(parsed.target).expanduser()
        if not path.is_file():
            return (
                Check(
                    "model file",
                    False,
                    f"there is no file at {path}",
                    "pass the path of a .gguf model file: --model llamacpp:PATH",
                ),
                None,
            )
        with path.open("rb") as handle:
            magic = handle.read(4)
        if magic != b"GGUF":
            return (
                Check(
                    "model file",
                    False,
                    f"{path} is not a GGUF model file (it starts with {magic!r}, not b'GGUF')",
                    "pass the path of a .gguf model file: --model llamacpp:PATH",
                ),
                None,
            )
        size = path.stat().st_size / 2**20
        return Check("model file", True, f"{path} ({size:,.0f} MiB, GGUF)"), path
    else:
        raise ConfigError(
            f"goliath doctor checks llama.cpp models: --model local, local:NAME, small or "
            f"llamacpp:PATH; got {spec!r}."
        )
    try:
        path = packaged.path()
    except ModelUnavailableError as exc:
        return Check("model file", False, str(exc), packaged.install_hint), None
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(8 * 2**20):
            digest.update(chunk)
    if digest.hexdigest() != packaged.sha256:
        return (
            Check(
                "model file",
                False,
                f"{path} has SHA-256 {digest.hexdigest()}, not the published {packaged.sha256}",
                f"rm {path}; {packaged.reinstall_hint}",
            ),
            None,
        )
    size = path.stat().st_size / 2**20
    return (
        Check("model file", True, f"{packaged.name} at {path} ({size:,.0f} MiB, SHA-256 ok)"),
        path,
    )


def _inference_check(path: Path, words: int) -> Check:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), str(words)],
            capture_output=True,
            text=True,
            timeout=CHILD_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Check(
            "a real prompt",
            False,
            f"llama.cpp did not finish a {words}-word prompt in {CHILD_SECONDS:.0f} s",
            "check that nothing else holds the CPU, then run goliath doctor again",
        )
    hint = signal_hint(done.returncode)
    if done.returncode != 0:
        problem = hint or (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(
            "a real prompt",
            False,
            f"llama.cpp could not run a {words}-word prompt: {problem}",
            REBUILD if hint else None,
        )
    tokens, _, seconds = done.stdout.strip().rpartition("\n")[2].partition(" ")
    elapsed = time.perf_counter() - started
    return Check(
        "a real prompt",
        True,
        f"a {tokens}-token prompt ran on this CPU (load and prompt {seconds} s, "
        f"{elapsed:.1f} s in all)",
    )


def check_model(spec: str = "local", *, words: int = PROMPT_WORDS) -> list[Check]:
    """Run every check for the model ``spec`` names; later checks need the earlier ones."""
    machine = platform.machine()
    flags = _cpu_flags()
    shown = [name for name in ("avx2", "avx512f", "amx_int8") if name in flags]
    checks = [
        Check(
            "machine",
            True,
            f"{platform.system()} {machine}, {os.cpu_count()} cores"
            + (f", CPU offers {', '.join(shown)}" if shown else ""),
        )
    ]
    build = _build_check()
    checks.append(build)
    model, path = _model_check(spec)
    checks.append(model)
    if build.ok and path is not None:
        checks.append(_inference_check(path, words))
    return checks


def format_checks(checks: Sequence[Check]) -> str:
    """One line per check (``ok`` / ``FAIL``), each failure followed by its fix."""
    lines = []
    for check in checks:
        lines.append(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
        if not check.ok and check.fix:
            lines.append(f"      fix: {check.fix}")
    failed = [check for check in checks if not check.ok]
    lines.append("")
    lines.append(
        "All checks passed: the local model runs here."
        if not failed
        else f"{len(failed)} check(s) failed; run the fix shown, then goliath doctor again."
    )
    return "\n".join(lines)


def check_server(slots: int, *, path: Path | None = None) -> list[Check]:
    """``goliath serve --slots N``'s engine: the llama-server binary runs here (``--version``
    in a child, so a SIGILL build is reported, not suffered), and a managed server with
    ``slots`` slots starts on the model, answers ``/health`` and one real prompt, and stops."""
    from .models.managed import BUILD_HINT, ManagedLlamaServer, find_llama_server

    binary = find_llama_server()
    if binary is None or not binary.is_file():
        where = f"there is nothing at {binary}" if binary else "it is not built"
        return [Check("llama-server", False, f"--slots runs llama-server; {where}", BUILD_HINT)]
    try:
        done = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError as exc:
        return [Check("llama-server", False, f"{binary} does not run: {exc}", BUILD_HINT)]
    hint = signal_hint(done.returncode)
    said = (done.stdout + done.stderr).strip().splitlines()
    if done.returncode != 0:
        problem = hint or (said[-1] if said else f"exit status {done.returncode}")
        return [Check("llama-server", False, f"{binary} --version failed: {problem}", BUILD_HINT)]
    version = next((line for line in said if line.startswith("version")), said[0] if said else "")
    checks = [Check("llama-server", True, f"{binary} ({version or 'version unknown'})")]
    if path is None:
        return checks
    checks.append(_served_check(ManagedLlamaServer, binary, path, slots))
    return checks


def _served_check(kind: type, binary: Path, path: Path, slots: int) -> Check:
    import trio

    from .models import GenerateRequest

    async def probe() -> str:
        server = kind(path, slots=slots, binary=binary)
        started = time.perf_counter()
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            ready = time.perf_counter() - started
            reply = await server.model().generate(
                GenerateRequest(label="answer", system="Answer in one word.", prompt="Say ok.")
            )
            nursery.cancel_scope.cancel()
        return f"{slots} slot(s) ready in {ready:.1f} s, answered {reply.text[:40]!r}"

    try:
        return Check("managed llama-server", True, trio.run(probe))
    except Exception as exc:  # the report names any failure; it never raises
        return Check(
            "managed llama-server",
            False,
            f"could not serve {path.name} with {slots} slot(s): {exc}",
            "run the fix above it, or check that nothing else holds the CPU",
        )


def doctor_command(spec: str, out: TextIO, *, slots: int | None = None) -> int:
    """Print the report; 0 when every check passed, 1 otherwise. With ``slots``, also check
    the managed llama-server ``goliath serve --slots`` runs."""
    checks = check_model(spec)
    if slots is not None:
        model = next((check for check in checks if check.name == "model file"), None)
        path = None
        if model is not None and model.ok:
            from .models.packaged import DEFAULT_MODEL, SMOLLM2_135M, packaged_model

            kind, _, rest = spec.partition(":")
            if kind == "llamacpp":
                path = Path(rest).expanduser()
            elif kind == "small":
                path = SMOLLM2_135M.path()
            else:
                path = (packaged_model(rest) if rest else DEFAULT_MODEL).path()
        checks.extend(check_server(slots, path=path))
    out.write(format_checks(checks) + "\n")
    out.flush()
    return 0 if all(check.ok for check in checks) else 1
