#!/usr/bin/env bash
# Build llama.cpp's own C++ server (`llama-server`: continuous batching, --parallel N slots) from
# the llama.cpp sources vendored in the pinned llama-cpp-python release, with the same portable
# CPU flags as install.sh, once, into ~/.cache/goliath/bin. `goliath serve --model local
# --slots N` runs it (goliath/models/managed.py finds it there, or on $PATH, or at
# $GOLIATH_LLAMA_SERVER).
#
#   scripts/build-llama-server.sh          prints the binary's path when done
#   ./install.sh local,llama-server        runs this script after installing
#
# Why build and not download: the published llama.cpp release binaries are built per CPU family
# with runtime-selected kernels, and a -march=native build dies with "Illegal instruction" on
# Xeons under KVM that advertise AMX (see install.sh). The same sources as the embedded bridge
# also mean the same tokenizer, chat template handling and kernels, so the two engines compare.
# About 10 minutes on two cores; it runs under `nice -n 19` so other work keeps the CPU.
set -euo pipefail

python="${PYTHON:-python3}"
llama_version="0.3.36"
jobs="${GOLIATH_BUILD_JOBS:-2}"

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
cache="${GOLIATH_CACHE:-$HOME/.cache/goliath}"
target="$cache/bin/llama-server-$llama_version-$variant"

if [ -x "$target" ]; then
    echo "$target"
    exit 0
fi
echo "Building llama-server from llama-cpp-python $llama_version for $variant, once (about 10 minutes on 2 cores)." >&2

work="$cache/build/llama-server-$llama_version-$variant"
mkdir -p "$work" "$cache/bin"
if [ ! -f "$work/src/vendor/llama.cpp/CMakeLists.txt" ]; then
    "$python" -m pip download -q --no-deps --no-binary :all: -d "$work/sdist" \
        "llama-cpp-python==$llama_version" >&2
    rm -rf "$work/src"
    mkdir -p "$work/src"
    tar -xzf "$work/sdist/llama_cpp_python-$llama_version.tar.gz" -C "$work/src" --strip-components=1
fi
# shellcheck disable=SC2086  # $flags is a list of -D options
nice -n 19 cmake -S "$work/src/vendor/llama.cpp" -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON $flags >&2
nice -n 19 cmake --build "$work/cmake" --target llama-server -j "$jobs" >&2
cp "$work/cmake/bin/llama-server" "$target.partial"
mv "$target.partial" "$target"
echo "$target"
