"""llama.cpp's own programs for the benchmark scripts (benchmarks/gpu, benchmarks/batching): the
engine library the SDK opens, the model file it reads, and llama.cpp tools built once from the
same source against the same ggml libraries."""
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def engine_library(binary, env, who):
    """The libllama the SDK opens here (the GPU variant when the machine can use it, else the CPU
    engine) and the backends its build has, from `info --json`."""
    info = json.loads(subprocess.run([binary, "info", "--json"], env=env, check=True, capture_output=True, text=True).stdout)
    llama = next(f for f in info["frameworks"] if f["framework"] == "LlamaCpp")
    detail = llama["availability"].get("available", {}).get("detail") or ""
    path, _, backends = detail.partition("; backends: ")
    if not path.endswith(".so"):
        raise SystemExit(f"{who}: llama.cpp is not available here: {llama['availability']}")
    return os.path.realpath(path), backends


def llama_cpp_python_version():
    """The llama-cpp-python version set-up builds every llama.cpp variant from (its PyPI lock)."""
    with open(os.path.join(ROOT, "scripts", "requirements", "run.txt")) as lock:
        for line in lock:
            if line.startswith("llama-cpp-python=="):
                return line.split("==")[1].split()[0]
    raise SystemExit("scripts/requirements/run.txt pins no llama-cpp-python")


def model_file(binary, model, env, who):
    """The GGUF file of the installed model `model`."""
    info = json.loads(subprocess.run([binary, "models", "info", model, "--json"], env=env, check=True,
                                     capture_output=True, text=True).stdout)["model"]
    path = (info.get("localPath") or "").removeprefix("file://")
    if os.path.isdir(path):
        path = os.path.join(path, next(f for f in sorted(os.listdir(path)) if f.endswith(".gguf")))
    if not path.endswith(".gguf"):
        raise SystemExit(f"{who}: {model} has no local GGUF file (runanywhere models download {model})")
    return path


def build(library, home, targets, threads, who):
    """The llama.cpp programs `targets` (e.g. llama-bench, llama-server) from the same llama.cpp
    source as `library`, built against the ggml libraries beside it (so they run the very backends
    the SDK runs), cached per library and set of targets under $RUNANYWHERE_HOME/engines/llama.cpp-tools/.
    Returns {target: path}."""
    lib = os.path.dirname(library)
    prefix = os.path.dirname(os.path.dirname(lib))  # …/llama_cpp/lib → the install's root
    cache = os.path.join(home, "engines", "llama.cpp-tools", hashlib.sha256(lib.encode()).hexdigest()[:12])
    # A build that has more programs serves too (benchmarks/host-cost's serves benchmarks/batching;
    # on a machine without network, ../shared/tools/gpu links its whole llama.cpp build here).
    for built in sorted(os.listdir(cache)) if os.path.isdir(cache) else []:
        programs = {target: os.path.join(cache, built, "build", "bin", target) for target in targets}
        if os.path.exists(os.path.join(cache, built, ".built")) and all(map(os.path.exists, programs.values())):
            return programs
    folder = os.path.join(cache, "+".join(sorted(targets)))
    build_dir = os.path.join(folder, "build")
    paths = {target: os.path.join(build_dir, "bin", target) for target in targets}
    venv = os.path.join(home, "engines", "venv", "bin")

    def program(name):
        return shutil.which(name) or os.path.join(venv, name)
    if not (os.path.exists(program("cmake")) and os.path.exists(program("ninja"))):
        print("installing cmake and ninja into the set-up's venv (PyPI)", flush=True)
        subprocess.run([os.path.join(venv, "pip"), "install", "-q", "--disable-pip-version-check", "cmake", "ninja"], check=True)
    cmake, ninja = program("cmake"), program("ninja")
    version = llama_cpp_python_version()
    sdist = os.path.join(home, "downloads", "pypi-sdist", f"llama_cpp_python-{version}.tar.gz")
    if not os.path.exists(sdist):
        raise SystemExit(f"{who}: {sdist} is missing (scripts/setup downloads it)")
    print(f"building {', '.join(targets)} against {lib} (llama.cpp's own programs; once)", flush=True)
    started = time.time()
    shutil.rmtree(folder, ignore_errors=True)
    server = "llama-server" in targets
    with tempfile.TemporaryDirectory() as work:
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        source = os.path.join(work, f"llama_cpp_python-{version}", "vendor", "llama.cpp")
        for step in ([cmake, "-S", source, "-B", build_dir, "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}", "-DCMAKE_BUILD_TYPE=Release",
                      # The installed ggml, not a second build of it: the programs link the SDK's backends.
                      "-DLLAMA_USE_SYSTEM_GGML=ON", f"-Dggml_DIR={prefix}/lib/cmake/ggml", f"-DCMAKE_LIBRARY_PATH={lib}",
                      # ggml's headers from this source, the one the libraries were built from (ggml's CMake
                      # package points at the venv's include folder, where other wheels write their own ggml.h).
                      f"-DCMAKE_C_FLAGS=-I{source}/ggml/include", f"-DCMAKE_CXX_FLAGS=-I{source}/ggml/include",
                      "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TESTS=OFF",
                      f"-DLLAMA_BUILD_SERVER={'ON' if server else 'OFF'}",
                      # llama-server without its web UI: neither npm nor a download of the prebuilt one.
                      "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
                      "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF"],
                     [cmake, "--build", build_dir, "--target", *targets, "-j", str(threads)]):
            result = subprocess.run(step, capture_output=True, text=True)
            if result.returncode != 0:
                raise SystemExit(f"{who}: building llama.cpp's {', '.join(targets)} failed: {(result.stdout + result.stderr)[-3000:]}")
    # The binaries and their libraries stay in build/bin (their run path); the objects go.
    for directory, _, files in os.walk(build_dir):
        for name in files:
            if name.endswith(".o"):
                os.remove(os.path.join(directory, name))
    open(os.path.join(folder, ".built"), "w").close()
    print(f"built in {time.time() - started:.0f} s", flush=True)
    return paths


def cpu_model():
    """The CPU's model name, for results files."""
    try:
        with open("/proc/cpuinfo") as info:
            return next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def batched_context(streams, tokens):
    """A context for llama-batched-bench with `streams` sequences of `tokens` each: llama.cpp
    rounds the context it is given (per sequence, to 256), and the benchmark silently skips a
    configuration that does not fit what it got, so each sequence gets a whole 256 spare."""
    return streams * ((tokens + 255) // 256 + 1) * 256


def batched_bench_row(command, streams, env, who):
    """Runs llama-batched-bench (`command`, without -npl and output options) for `streams`
    sequences and returns its JSON row. The tool logs through llama.cpp's asynchronous logger,
    which can drop the last line when the process ends right after it: a second, one-sequence
    configuration runs after the one measured, so that its line is out before the end."""
    result = subprocess.run(command + ["-npl", f"{streams},1", "--output-format", "jsonl"], env=env, capture_output=True, text=True)
    # Some builds log on standard error.
    rows = [json.loads(line) for line in (result.stdout + "\n" + result.stderr).splitlines() if line.startswith("{")]
    row = next((r for r in rows if r["pl"] == streams), None)
    if result.returncode != 0 or row is None:
        raise SystemExit(f"{who}: llama-batched-bench gave no result for {streams} sequences ({result.returncode}): {result.stderr[-2000:]}")
    return row


def start_llama_server(program, model_path, alias, threads, slots, slot_context, who, gpu_layers=0, env=None, extra=()):
    """llama.cpp's server on a free loopback port with `slots` slots of `slot_context` tokens
    each, `gpu_layers` layers on a GPU, the options `extra`, otherwise its defaults; returns the
    process and its base URL once /health answers."""
    from serve_process import free_port
    port = free_port()
    process = subprocess.Popen([program, "-m", model_path, "-a", alias, "--host", "127.0.0.1", "--port", str(port),
                                "-t", str(threads), "-tb", str(threads), "-np", str(slots), "-c", str(slot_context * slots),
                                "-ngl", str(gpu_layers), "--no-webui", *extra], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                if response.status == 200:
                    return process, f"http://127.0.0.1:{port}"
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"{who}: llama-server did not start ({program})")
        time.sleep(0.2)
